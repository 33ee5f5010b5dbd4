"""One ``AnswerSetup`` for ``ask``, ``eval --ask`` and ``mcp``: the same options, opened the same way.

The options are read from the real Typer app; the setups are opened by
``backends.open_answerer`` (the real local model); a service and an eval run
answer with what they were given (a scripted fake LLM, a test double of the
model only, through the real loop and index).
"""

from __future__ import annotations

from typing import Any

import pytest
from support.cli import assert_one_error_line, invoke
from support.corpus import user
from support.paths import QUESTIONS, SAMPLE
from support.sample_facts import CDN, CDN_QUOTE
from support.scripted_model import ScriptedVerifier, claims, scripted, search

from ragcli.answer import Answerer, AnswerSetup, Limits
from ragcli.backends import open_answerer
from ragcli.errors import InputError

ANSWER_OPTIONS = {
    "--model": None,
    "--max-searches": 3,
    "--max-turns": 6,
    "--max-tokens": 200_000,
    "--timeout": 120.0,
    "--retry-on-empty": True,
    "--plan": False,
    "--verify": False,
    "--verify-model": None,
}


def _options(command: str) -> dict[str, Any]:
    from ragcli.cli.app import command as app

    cmd = app().commands[command]
    return {param.opts[0]: param.default for param in cmd.params if param.opts[0] in ANSWER_OPTIONS}


@pytest.mark.parametrize("command", ["ask", "eval", "mcp"])
def test_ask_eval_and_mcp_take_the_same_answer_options_with_the_library_defaults(command: str) -> None:
    assert _options(command) == ANSWER_OPTIONS
    limits = Limits()
    assert (limits.max_searches, limits.max_turns, limits.max_tokens, limits.timeout_s) == (3, 6, 200_000, 120.0)


def _setup_of(*args: str) -> AnswerSetup:
    """The ``AnswerSetup`` a command declared with ``answer_options`` receives for ``args`` (parsed by real Typer)."""
    import typer
    from typer.testing import CliRunner

    from ragcli.cli.answer_options import ANSWER_DEFAULTS, answer_options

    received: list[AnswerSetup] = []

    @answer_options
    def command(question: str, answer: AnswerSetup = ANSWER_DEFAULTS) -> None:
        received.append(answer)

    app = typer.Typer()
    app.command()(command)
    result = CliRunner().invoke(app, ["q", *args])
    assert result.exit_code == 0, result.output
    return received[0]


def test_every_option_reaches_the_setup() -> None:
    setup = _setup_of(
        *("--model", "anthropic:claude-haiku-4-5", "--max-searches", "5", "--max-turns", "4"),
        *("--max-tokens", "50000", "--timeout", "30", "--no-retry-on-empty", "--plan", "--verify"),
        *("--verify-model", "openai:gpt-4.1-nano"),
    )
    assert setup == AnswerSetup(
        model="anthropic:claude-haiku-4-5",
        limits=Limits(max_searches=5, max_turns=4, max_tokens=50_000, timeout_s=30.0),
        plan=True,
        retry_on_empty=False,
        verify=True,
        verify_model="openai:gpt-4.1-nano",
    )
    assert _setup_of() == AnswerSetup()


@pytest.mark.parametrize(
    "flags, named",
    [
        (
            ["--verify-model", "x", "--max-searches", "3", "--max-turns", "6", "--max-tokens", "1000"]
            + ["--timeout", "9", "--no-retry-on-empty", "--plan", "--verify"],
            "--max-searches, --max-turns, --max-tokens, --timeout, --no-retry-on-empty, --plan, --verify, "
            "--verify-model change",
        ),
        (["--retry-on-empty"], "--retry-on-empty changes"),
    ],
)
def test_eval_names_every_answer_option_given_even_at_its_default(capsys, sample_root, flags, named) -> None:
    """Given is what the command line gave (click's parameter source), not a value that differs from the default."""
    proc = invoke(capsys, "eval", QUESTIONS, *flags, "--index", sample_root)
    assert_one_error_line(proc, named, "add --ask")


def test_eval_takes_a_model_without_ask(capsys, sample_root) -> None:
    proc = invoke(capsys, "eval", QUESTIONS, "--model", "local", "--index", sample_root, "--json")
    assert proc.returncode == 0, proc.stderr


def test_opening_a_setup_resolves_the_model_and_the_verifier(embedder) -> None:
    local = open_answerer(AnswerSetup(model="local", limits=Limits(max_turns=2)), embedder=embedder)
    assert local.model.name == "local" and local.limits == Limits(max_turns=2) and local.verifier is None
    checked = open_answerer(
        AnswerSetup(model="local", verify_model="openai:gpt-4.1-nano@http://127.0.0.1:9/v1"), embedder=embedder
    )
    assert checked.verifier is not None and checked.verifier.name == "openai:gpt-4.1-nano@http://127.0.0.1:9/v1"
    with pytest.raises(InputError, match="--verify needs an LLM model"):
        open_answerer(AnswerSetup(model="local", verify=True), embedder=embedder)


@pytest.mark.parametrize(
    "flags, named",
    [(["--plan"], "--plan changes"), (["--max-turns", "2", "--verify"], "--max-turns, --verify change")],
)
def test_eval_refuses_answer_options_without_ask(capsys, sample_root, flags, named) -> None:
    proc = invoke(capsys, "eval", QUESTIONS, *flags, "--index", sample_root)
    assert_one_error_line(proc, named, "add --ask")


def test_the_mcp_service_answers_with_its_answerer(retriever, acme_pid) -> None:
    from ragcli.mcp.service import Service

    fastway = acme_pid("vendor-notes", "fastway-cdn")
    model = scripted(search("SCIM provisioning plan"), search("webhook delivery retries"))
    service = Service(user("bob"), retriever, answerer=Answerer(model, Limits(max_searches=2)))
    reply = service.call("ask", {"question": CDN})
    assert reply.data is not None and (reply.data["reason"], reply.data["searches"]) == ("budget_exhausted", 2)
    verifier = ScriptedVerifier([(False,)])
    model = scripted(claims(("Our CDN vendor is Fastway.", fastway, CDN_QUOTE)))
    service = Service(user("bob"), retriever, answerer=Answerer(model, verifier=verifier))
    reply = service.call("ask", {"question": CDN})
    assert reply.data is not None and reply.data["reason"] == "citation_check_failed" and len(verifier.calls) == 1


def test_eval_answers_each_case_with_its_answerer(retriever) -> None:
    from ragcli.eval import evaluate, load_cases

    cases = [c for c in load_cases(QUESTIONS) if c.expect == "answer"][:2]
    model = scripted(search("SCIM provisioning plan"), search("webhook delivery retries"))
    report = evaluate(cases, retriever, answerer=Answerer(model, Limits(max_searches=1)))
    assert [(r.reason, r.searches) for r in report.results] == [("budget_exhausted", 1)] * 2
    assert report.model == "scripted" and model.calls == 2


def test_mcp_takes_the_answer_options(capsys) -> None:
    proc = invoke(capsys, "mcp", "--as", SAMPLE / "users" / "bob.json", "--max-searches", "0")
    assert_one_error_line(proc, "--max-searches")
