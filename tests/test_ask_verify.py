"""``--verify``: a second model judges the claims that passed the deterministic checks.

Both backends through their real SDKs; only the HTTP transport is scripted.
Rule under test: an unsupported claim is dropped; with none left, or a failed
verifier (timeout, API error, no verdict per claim), the answer abstains with
``citation_check_failed``; a dropped side of a conflict abstains with
``conflicting_evidence``.
"""

from __future__ import annotations

import dataclasses
import html
from typing import Any

import pytest
from support import anthropic_mock as am
from support import openai_mock as om
from support.cli import assert_one_error_line, invoke
from support.corpus import user
from support.paths import DAY, QUESTIONS, USERS
from support.sample_facts import CDN as QUESTION
from support.sample_facts import CDN_QUOTE, URGENT

from ragcli import Scope
from ragcli.answer import ABSTAIN_MESSAGE, Abstained, Answered, Answerer, ask

MOCKS: dict[str, Any] = {"anthropic": am, "openai": om}


def _ask(retriever, answerer, verifier, question: str = QUESTION, who: str = "bob"):
    return ask(question, Scope.of(user(who), DAY), retriever, Answerer(answerer, verifier=verifier))


def _verify_body(backend: str, api) -> dict:
    return api.bodies[-1]


@pytest.mark.parametrize("backend", MOCKS)
def test_a_rejected_claim_is_dropped_and_the_rest_is_answered(retriever, acme_pid, backend: str) -> None:
    mock = MOCKS[backend]
    fastway = acme_pid("vendor-notes", "fastway-cdn")
    api = mock.ScriptedAPI(
        mock.answer_call(
            ("Our CDN vendor is Fastway.", fastway, CDN_QUOTE),
            ("Fastway is the cheapest CDN on the market.", fastway, CDN_QUOTE),
        ),
        mock.verdicts_call(True, False, use=mock.usage(900, 20)),
    )
    model = api.model()
    outcome = _ask(retriever, model, model)
    assert isinstance(outcome, Answered), outcome
    assert [c.statement for c in outcome.claims] == ["Our CDN vendor is Fastway."]
    assert outcome.verified == (True, False) and outcome.submitted_answer and "cheapest" in outcome.submitted_answer
    assert api.calls == 2 and not api.overrun
    body = api.bodies[1]
    # The verifier's request: its own prompt, one tool, the claims numbered, the cited passage as evidence.
    if backend == "anthropic":
        assert [t["name"] for t in body["tools"]] == ["submit_verdicts"] and body["tool_choice"] == {
            "type": "tool",
            "name": "submit_verdicts",
        }
        text = am.content_text(body["messages"][0]["content"])
        assert "You check an answer" in body["system"][0]["text"]
    else:
        assert om.tool_names(body) == ["submit_verdicts"] and body["tool_choice"] == "required"
        text = om.first_user_text(body)
        assert "You check an answer" in body["messages"][0]["content"]
    text = html.unescape(text)
    assert f'<passage id="{fastway}"' in text and '<claim n="2"' in text and "cheapest CDN" in text
    # The trace: verdicts by claim and passage ID, no text.
    verification = outcome.trace.verification
    assert verification is not None and verification.error is None
    assert [(v.claim, v.passage_id, v.supported) for v in verification.verdicts] == [
        (0, fastway, True),
        (1, fastway, False),
    ]
    assert "cheapest" not in outcome.trace.model_dump_json()
    assert outcome.usage.output_tokens >= 20  # the verifier's tokens count against the run's budget


@pytest.mark.parametrize("backend", MOCKS)
def test_every_claim_rejected_abstains_citation_check_failed(retriever, acme_pid, backend: str) -> None:
    mock = MOCKS[backend]
    fastway = acme_pid("vendor-notes", "fastway-cdn")
    api = mock.ScriptedAPI(
        mock.answer_call(("Fastway is the cheapest CDN on the market.", fastway, CDN_QUOTE)), mock.verdicts_call(False)
    )
    model = api.model()
    outcome = _ask(retriever, model, model)
    assert (
        isinstance(outcome, Abstained)
        and outcome.reason == "citation_check_failed"
        and outcome.message == ABSTAIN_MESSAGE
    )
    assert outcome.verified == (False,)


@pytest.mark.parametrize("backend", MOCKS)
@pytest.mark.parametrize("failure", ["timeout", "server-error", "no-verdicts"])
def test_a_verifier_that_fails_means_no_answer(retriever, acme_pid, backend: str, failure: str) -> None:
    """The documented rule: an answer is never shown as verified when the verifier could not judge it."""
    mock = MOCKS[backend]
    fastway = acme_pid("vendor-notes", "fastway-cdn")
    failed = {
        "timeout": mock.NetworkFailure("timeout"),
        "server-error": mock.HTTPError(500),
        "no-verdicts": mock.abstain_call(),
    }[failure]
    api = mock.ScriptedAPI(mock.answer_call(("Our CDN vendor is Fastway.", fastway, CDN_QUOTE)), failed)
    model = api.model()
    outcome = _ask(retriever, model, model)
    assert isinstance(outcome, Abstained) and outcome.reason == "citation_check_failed"
    assert outcome.trace.verification is not None and outcome.trace.verification.error
    assert outcome.trace.verification.verdicts == [] and outcome.verified is None
    if failure == "timeout":
        assert outcome.trace.verification.error == "timeout"


def test_a_cheaper_verify_model_from_another_backend(retriever, acme_pid) -> None:
    fastway = acme_pid("vendor-notes", "fastway-cdn")
    answerer = am.ScriptedAPI(am.answer_call(("Our CDN vendor is Fastway.", fastway, CDN_QUOTE)))
    checker = om.ScriptedAPI(om.verdicts_call(True))
    outcome = _ask(retriever, answerer.model(), checker.model(model_name="gpt-4.1-nano"))
    assert isinstance(outcome, Answered) and answerer.calls == 1 and checker.calls == 1
    assert outcome.trace.verification is not None and outcome.trace.verification.verifier == "openai:gpt-4.1-nano"
    assert checker.bodies[0]["model"] == "gpt-4.1-nano"


def test_dropping_one_side_of_a_conflict_abstains_conflicting_evidence(retriever, acme_pid) -> None:
    sla, status = acme_pid("support-sla", "response-times"), acme_pid("status-page", "what-customers-can-expect")
    api = am.ScriptedAPI(
        am.answer_call(
            ("The SLA page says 1 hour.", sla, "Urgent tickets get a first response within 1 hour"),
            ("The status page says 4 hours.", status, "Urgent tickets get a first response within 4 hours"),
        ),
        am.verdicts_call(True, False),
    )
    model = api.model()
    outcome = _ask(retriever, model, model, question=URGENT)
    assert isinstance(outcome, Abstained) and outcome.reason == "conflicting_evidence"
    assert outcome.trace.conflicts[-1].verdict == "unresolved"


def test_eval_reports_what_the_verifier_stopped_and_lost(retriever, acme_pid) -> None:
    """Library-level eval: a wrong answer the verifier stops, a right one it loses, and the rejections."""
    from ragcli.eval import evaluate, load_cases

    cases = {c.id: c for c in load_cases(QUESTIONS)}
    chosen = [cases["q27"], cases["q07"]]  # CDN vendor (Fastway), Tier 2 rate limit (600)
    fastway = acme_pid("vendor-notes", "fastway-cdn")
    tiers = acme_pid("api-rate-limits", "tiers")
    tier2 = "Tier 2 keys are limited to 600 requests per minute"
    api = am.ScriptedAPI(
        # q27: a claim that misses the fact asked for; the verifier rejects it (stopped a wrong answer).
        am.answer_call(("Our vendor list names a CDN.", fastway, CDN_QUOTE)),
        am.verdicts_call(False),
        # q07: a right claim the verifier rejects anyway (lost a right answer).
        am.answer_call(("Tier 2 keys are limited to 600 requests per minute.", tiers, tier2)),
        am.verdicts_call(False),
    )
    model = api.model()
    report = evaluate(chosen, retriever, k=10, answerer=Answerer(model, verifier=model))
    data = report.to_wire()
    assert api.calls == 4 and not api.overrun
    assert (
        data.verifier_rejections,
        data.verifier_stopped_wrong,
        data.verifier_lost_right,
        data.verifier_failures,
    ) == (2, 1, 1, 0)
    assert [r.reason for r in report.results] == ["citation_check_failed", "citation_check_failed"]


def test_verify_with_the_local_model_needs_a_verify_model(capsys, sample_root) -> None:
    proc = invoke(
        capsys, "ask", QUESTION, "--as", USERS / "bob.json", "--model", "local", "--verify", "--index", sample_root
    )
    assert_one_error_line(proc, "--verify needs an LLM model", "--verify-model")


def test_outcome_fields_default_without_a_verifier(retriever, acme_pid) -> None:
    fastway = acme_pid("vendor-notes", "fastway-cdn")
    api = am.ScriptedAPI(am.answer_call(("Our CDN vendor is Fastway.", fastway, CDN_QUOTE)))
    outcome = _ask(retriever, api.model(), None)
    assert isinstance(outcome, Answered) and outcome.verified is None and outcome.submitted_answer is None
    assert outcome.trace.verification is None and api.calls == 1
    assert "verified" not in outcome.to_wire().model_dump()  # the --json shape is unchanged
    assert dataclasses.asdict(outcome.usage)["input_tokens"] > 0
