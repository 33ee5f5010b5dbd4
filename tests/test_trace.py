"""``--trace``: one JSON line per run, passage IDs only, never text or credentials."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import pytest
from support.anthropic_mock import ScriptedAPI, answer_call, search_call
from support.cli import cli_many, json_of
from support.corpus import long_sentences, scope, strings_in, user, visible_to
from support.paths import DAY, USERS

from ragcli.answer import ask
from ragcli.answer.loop import PROMPT_VERSION
from ragcli.answer.trace import append_trace
from ragcli.errors import InputError

TRACE_KEYS = {
    "request_id",
    "time",
    "user",
    "tenant",
    "groups",
    "as_of",
    "model",
    "prompt_version",
    "searches",
    "decisions",
    "checks",
    "disposition",
    "reason",
    "usage",
    "latency_ms",
    "generation",
    "embedding_model",
    "chunker_version",
    "search_config",
    "conflicts",
    "verification",
}
SEARCH_KEYS = {"query", "by", "generation", "bm25", "dense", "selected", "new", "ms"}
ANSWERED_Q = "What does ERR_4021 mean?"
ABSTAINED_Q = "What is the salary band for an L3 engineer?"


def _sentences(sample_passages) -> list[str]:
    out = {s for tenant in sample_passages.values() for p in tenant for s in long_sentences(p.text, 6)}
    assert len(out) > 300  # the scan has something to find
    return sorted(out)


def _leaks(trace_lines: list[dict], sentences: list[str]) -> list[str]:
    text = " ".join(" ".join(strings_in(trace_lines)).split())
    return [s for s in sentences if s in text]


@pytest.fixture(scope="module")
def cli_trace(sample_root: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list]:
    path = tmp_path_factory.mktemp("trace") / "runs.jsonl"
    procs = cli_many(
        [
            [
                "ask",
                ANSWERED_Q,
                "--as",
                USERS / "alice.json",
                "--as-of",
                "2026-11-29",
                "--model",
                "local",
                "--trace",
                path,
                "--json",
            ],
            [
                "ask",
                ABSTAINED_Q,
                "--as",
                USERS / "bob.json",
                "--as-of",
                "2026-11-29",
                "--model",
                "local",
                "--trace",
                path,
                "--json",
            ],
        ],
        index=sample_root,
    )
    return path, procs


@pytest.mark.slow
def test_one_json_line_per_run(cli_trace) -> None:
    path, (answered, abstained) = cli_trace
    assert (answered.returncode, abstained.returncode) == (0, 1), (answered.stderr, abstained.stderr)
    raw = path.read_text(encoding="utf-8")
    assert raw.endswith("\n") and raw.count("\n") == 2
    lines = [json.loads(line) for line in raw.splitlines()]
    by_id = {line["request_id"]: line for line in lines}
    assert set(by_id) == {json_of(answered)["request_id"], json_of(abstained)["request_id"]}
    for line in lines:
        assert set(line) == TRACE_KEYS
        assert line["model"] == "local" and line["prompt_version"] == PROMPT_VERSION
        assert line["as_of"] == "2026-11-29" and line["tenant"] == "acme"
        assert set(line["latency_ms"]) == {"search", "model", "checks", "total"}
        assert all(isinstance(v, (int, float)) and v >= 0 for v in line["latency_ms"].values())
        assert line["usage"] == {
            "input_tokens": 0,
            "output_tokens": 0,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        }
        dt.datetime.fromisoformat(line["time"])


@pytest.mark.slow
def test_trace_of_an_answered_run(cli_trace, sample_passages) -> None:
    path, (answered, _) = cli_trace
    request_id = json_of(answered)["request_id"]
    line = next(json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if request_id in x)
    assert (line["user"], line["groups"], line["disposition"], line["reason"]) == (
        "alice",
        ["support"],
        "answered",
        None,
    )

    assert len(line["searches"]) == 1
    search = line["searches"][0]
    assert set(search) == SEARCH_KEYS and search["query"] == ANSWERED_Q
    for ranker in ("bm25", "dense"):
        ranks = [rank for _, rank, _ in search[ranker]]
        assert ranks == sorted(ranks) and all(isinstance(r, int) and r >= 1 for r in ranks)
    assert search["bm25"] and search["dense"]
    assert search["selected"] and search["new"] == search["selected"]
    # Every ID anywhere in the trace is a passage alice may see.
    acme = {p.id: p for p in sample_passages["acme"]}
    ids = [i for i, _, _ in search["bm25"]] + [i for i, _, _ in search["dense"]] + search["selected"]
    assert all(visible_to(acme[i], user("alice"), DAY) for i in ids)

    [decision] = line["decisions"]
    assert (
        decision["turn"] == 1
        and decision["kind"] == "claims"
        and decision["tool"] == "submit_answer"
        and decision["valid"] is True
    )
    assert decision["offered"] == ["search", "submit_answer"]
    cited = json_of(answered)["claims"]
    assert decision["cited"] == [c["passage_id"] for c in cited]
    assert len(line["checks"]) == 4 * len(cited)
    assert {c["check"] for c in line["checks"]} == {
        "retrieved",
        "quote_length",
        "quote_in_passage",
        "numbers_in_passage",
    }
    assert all(c["passed"] for c in line["checks"])
    assert set(line["checks"][0]) == {"claim", "passage_id", "check", "passed", "pages"}


@pytest.mark.slow
def test_trace_of_an_abstained_run(cli_trace) -> None:
    path, (_, abstained) = cli_trace
    request_id = json_of(abstained)["request_id"]
    line = next(json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if request_id in x)
    assert (line["user"], line["disposition"], line["reason"]) == ("bob", "abstained", json_of(abstained)["reason"])
    assert line["checks"] == [] and line["decisions"][0]["kind"] == "abstain"
    assert not any(i.startswith("pay-bands@") for s in line["searches"] for i in s["selected"])


@pytest.mark.slow
def test_trace_holds_no_passage_text(cli_trace, sample_passages) -> None:
    path, (answered, _) = cli_trace
    lines = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    # The answer really quoted passage sentences, so there was text that could leak.
    statement = json_of(answered)["claims"][0]["statement"]
    assert any(statement in s or s in statement for s in _sentences(sample_passages))
    assert _leaks(lines, _sentences(sample_passages)) == []
    assert statement not in path.read_text(encoding="utf-8")


def test_anthropic_trace_holds_no_key_and_no_text(retriever, sample_passages, tmp_path) -> None:
    fastway = next(p for p in sample_passages["acme"] if p.doc_id == "vendor-notes" and p.section == "fastway-cdn")
    quote = "Our CDN vendor is Fastway, and the contract renews on 2027-03-31"
    api = ScriptedAPI(
        search_call("Fastway purge requests"),
        answer_call((quote + ".", fastway.id, quote)),
    )
    model = api.model(api_key="sk-ant-SECRET123")
    outcome = ask("Who is our CDN vendor and when does the contract renew?", scope("bob", DAY), retriever, model)
    assert outcome.disposition == "answered"
    # The key really was in play: the SDK sent it.
    assert any("sk-ant-SECRET123" in v for r in api.recorded for v in r.headers.values())

    path = tmp_path / "trace.jsonl"
    append_trace(path, outcome.trace)
    append_trace(path, outcome.trace)
    raw = path.read_text(encoding="utf-8")
    assert raw.count("\n") == 2
    assert "SECRET123" not in raw and "sk-ant" not in raw
    assert "SECRET123" not in json.dumps(outcome.to_wire().model_dump(mode="json"))
    line = json.loads(raw.splitlines()[0])
    assert line["model"] == "anthropic:claude-sonnet-4-6"
    assert [s["query"] for s in line["searches"]][1] == "Fastway purge requests"
    assert [d["kind"] for d in line["decisions"]] == ["search", "claims"]
    assert line["usage"]["input_tokens"] > 0
    assert _leaks([line], _sentences(sample_passages)) == []
    assert quote not in raw and "Fastway, and the contract" not in raw


def test_trace_file_that_cannot_be_written_is_an_input_error(retriever, local_model, tmp_path) -> None:
    outcome = ask("What is the capital of Mongolia?", scope("bob", DAY), retriever, local_model)
    with pytest.raises(InputError, match=re.escape(str(tmp_path))):
        append_trace(tmp_path, outcome.trace)  # a directory


# --------------------------------------------------------------------------- model-written text never reaches a trace

SECRET = "ZQXMODELWROTETHIS"
"""Planted in everything the model sends except its search queries (which a trace keeps, marked ``by: model``)."""


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """A tenant whose passages hold a sentinel word, and the Retriever over it."""
    from support.corpus import markdown, write
    from support.fixtures import shared_embedder

    from ragcli import ingest
    from ragcli.search import Retriever

    base = tmp_path_factory.mktemp("planted")
    docs = base / "docs"
    write(
        docs / "vault.md",
        markdown(
            {"acl": ["everyone"]},
            "# Vault\n\nThe vault combination ZQXPASSAGETEXT opens the archive room on Fridays only.\n",
        ),
    )
    write(docs / "other.md", markdown({"acl": ["everyone"]}, "# Other\n\nThe archive room keeps old invoices.\n"))
    ingest(docs, "acme", index=base / "index", embedder=shared_embedder())
    retriever = Retriever(base / "index", embedder=shared_embedder())
    yield retriever
    retriever.close()


def _replies(vault_id: str) -> dict[str, list]:  # type: ignore[type-arg]
    from support.openai_mock import completion, text_reply, tool_call

    def submit(payload: dict) -> dict:  # type: ignore[type-arg]
        return completion(tool_call("submit_answer", payload))

    def claim(statement: str, pid: str, quote: str) -> dict:  # type: ignore[type-arg]
        return submit({"claims": [{"statement": statement, "passage_id": pid, "quote": quote}]})

    quote = "The vault combination ZQXPASSAGETEXT opens the archive room"
    return {
        "invalid-unknown-key": [completion(tool_call("search", {"query": "vault", f"{SECRET}_key": 1}))],
        "invalid-unknown-tool": [completion(tool_call(f"{SECRET}_tool", {"x": SECRET}))],
        "invalid-too-long": [claim(SECRET * 400, vault_id, quote)],
        "invalid-bad-type": [submit({"claims": [{"statement": 7, "passage_id": SECRET, "quote": SECRET}]})],
        "invalid-not-json": [completion(tool_call("submit_answer", '{"claims": "' + SECRET))],
        "invalid-text": [text_reply(f"I will not call a tool. {SECRET}", finish_reason=SECRET)],
        "invalid-parallel": [completion(tool_call(SECRET, {}), tool_call("search", {"query": "vault"}))],
        "refused-quote": [claim(f"It opens on Fridays. {SECRET}", vault_id, f"{SECRET} is not in the passage")],
        "refused-id": [claim("The vault opens on Fridays.", f"{SECRET}@1#x", quote)],
        "abstained": [submit({"abstain": {"reason": f"{SECRET} says so"}})],
        "answered": [claim("The vault combination opens the archive room.", vault_id, quote)],
        "budget-ended": [completion(tool_call("search", {"query": "archive room"}))],
    }


def test_no_trace_holds_model_written_or_passage_text(planted) -> None:
    """Invalid, refused, abstained, answered and budget-ended runs: the trace holds neither sentinel."""
    from support.openai_mock import ScriptedAPI

    from ragcli.answer import Answerer, Limits
    from ragcli.principal import Principal, Scope

    who = Scope.of(Principal(user="kim", tenant="acme", groups=()), DAY)
    vault_id = next(r.id for r in planted.search(who, "vault combination").results if r.passage.doc_id == "vault")
    reasons = {}
    for name, script in _replies(vault_id).items():
        api = ScriptedAPI(*script)
        limits = Limits(max_searches=1) if name == "budget-ended" else Limits()
        outcome = ask(
            "When does the vault combination open the archive room?", who, planted, Answerer(api.model(), limits)
        )
        raw = outcome.trace.model_dump_json()
        assert SECRET in json.dumps(api.bodies) or name in ("budget-ended", "answered") or SECRET in str(script)
        assert SECRET not in raw, (name, raw)
        assert "ZQXPASSAGETEXT" not in raw, (name, raw)
        reason = getattr(outcome, "reason", None)
        reasons[name] = (reason, outcome.trace.decisions[-1].error if outcome.trace.decisions else None)
    assert {n: r for n, (r, _) in reasons.items()} == {
        **{n: "invalid_decision" for n in reasons if n.startswith("invalid")},
        "refused-quote": "citation_check_failed",
        "refused-id": "citation_check_failed",
        "abstained": "model_abstained",
        "answered": None,
        "budget-ended": "budget_exhausted",
    }
    # What the trace says instead: the field and the kind of error, in code's own words.
    assert reasons["invalid-unknown-key"][1] == "search: an unknown key"
    assert reasons["invalid-unknown-tool"][1] == "unknown tool (not one ragcli offers)"
    assert reasons["invalid-too-long"][1] == "submit_answer: field 'claims.0.statement' string_too_long"
    assert reasons["invalid-text"][1] == "expected a tool call, got text (finish_reason other)"
    assert reasons["invalid-parallel"][1] == "expected one tool call, got 2: an unknown tool, search"


def test_a_trace_marks_whose_words_each_query_is(planted) -> None:
    from support.openai_mock import ScriptedAPI, abstain_call, completion, tool_call

    from ragcli.principal import Principal, Scope

    who = Scope.of(Principal(user="kim", tenant="acme", groups=()), DAY)
    api = ScriptedAPI(completion(tool_call("search", {"query": "archive room invoices"})), abstain_call())
    outcome = ask("When does the vault open?", who, planted, api.model())
    assert [(s.by, s.query) for s in outcome.trace.searches] == [
        ("question", "When does the vault open?"),
        ("model", "archive room invoices"),
    ]
