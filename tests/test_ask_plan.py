"""``--plan``: decomposition (``search_parts``) and evidence grading (``grade_evidence``) for LLM backends.

Both backends through their real SDKs; only the HTTP transport is scripted.
The searches really run on the sample index, as the request's principal.
"""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from support import anthropic_mock as am
from support import openai_mock as om
from support.corpus import user
from support.paths import DAY
from support.schemas import assert_no_scope_fields, property_names

from ragcli import Scope
from ragcli.answer import Abstained, Answered, Limits, ask

TWO_PARTS = "Who is our CDN vendor and when does the contract renew? Which plan do we need?"
"""The whole question's search misses the SCIM plan passage; only its own sub-query finds it."""
CDN_QUOTE = "Our CDN vendor is Fastway, and the contract renews on 2027-03-31"
SCIM_QUOTE = "SCIM user provisioning requires the Enterprise plan"
PLAN = Limits(plan=True)


def _names(backend: str, body: dict) -> list[str]:
    return am.tool_names(body) if backend == "anthropic" else om.tool_names(body)


def _result(backend: str, body: dict) -> str:
    return am.last_user_text(body) if backend == "anthropic" else om.tool_messages(body)[0]["content"]


def _call(backend: str, name: str, payload: dict) -> dict:
    if backend == "anthropic":
        return am.message(am.tool_use(name, payload))
    return om.completion(om.tool_call(name, payload))


MOCKS: dict[str, Any] = {"anthropic": am, "openai": om}


def _run(retriever: Any, backend: str, question: str, *script: Any, limits: Limits = PLAN, who: str = "bob"):
    api = MOCKS[backend].ScriptedAPI(*script)
    return api, ask(question, Scope.of(user(who), DAY), retriever, api.model(), limits=limits)


PASSAGE = re.compile(r'<passage id="([^"]+)"')


@pytest.mark.parametrize("backend", MOCKS)
def test_a_decomposed_question_is_answered_from_parts_found_by_different_sub_queries(
    retriever, acme_pid, backend: str
) -> None:
    fastway, scim = acme_pid("vendor-notes", "fastway-cdn"), acme_pid("sso-setup", "availability")
    mock = MOCKS[backend]
    api, outcome = _run(
        retriever,
        backend,
        TWO_PARTS,
        _call(backend, "search_parts", {"queries": ["CDN vendor contract", "SCIM provisioning plan"]}),
        mock.answer_call(
            ("Our CDN vendor is Fastway.", fastway, CDN_QUOTE),
            ("SCIM provisioning requires the Enterprise plan.", scim, SCIM_QUOTE),
        ),
    )
    assert isinstance(outcome, Answered), (outcome, api.bodies[-1] if api.bodies else None)
    assert api.calls == 2 and not api.overrun
    # Offered on the first turn only, beside search and submit_answer.
    assert _names(backend, api.bodies[0]) == ["search", "search_parts", "grade_evidence", "submit_answer"]
    assert "search_parts" not in _names(backend, api.bodies[1])
    searches = outcome.trace.searches
    assert [s.query for s in searches][1:] == ["CDN vendor contract", "SCIM provisioning plan"]
    assert outcome.searches == 3 and outcome.trace.user == "bob"  # every part ran as bob, within --max-searches 3
    # Each cited passage was first found by its own sub-query.
    new_by = {pid_: s.query for s in searches for pid_ in s.new}
    assert scim not in searches[0].selected and new_by[scim] == "SCIM provisioning plan"
    assert new_by.get(fastway) in ("CDN vendor contract", searches[0].query)
    assert [d.kind for d in outcome.trace.decisions] == ["parts", "claims"]
    assert outcome.trace.decisions[0].queries == ["CDN vendor contract", "SCIM provisioning plan"]
    told = html.unescape(_result(backend, api.bodies[1]))
    assert "Searched 2 parts" in told and scim in PASSAGE.findall(told)


@pytest.mark.parametrize("backend", MOCKS)
def test_parts_beyond_the_search_budget_are_not_searched(retriever, backend: str) -> None:
    api, outcome = _run(
        retriever,
        backend,
        TWO_PARTS,
        _call(
            backend, "search_parts", {"queries": ["CDN vendor", "SCIM plan", "SSO identity providers", "Okta setup"]}
        ),
        MOCKS[backend].abstain_call(),
    )
    assert isinstance(outcome, Abstained) and outcome.reason == "model_abstained"
    assert outcome.searches == 3 and [s.query for s in outcome.trace.searches][1:] == ["CDN vendor", "SCIM plan"]
    assert "2 more parts were not searched" in _result(backend, api.bodies[1])
    assert "search" not in _names(backend, api.bodies[1])  # the budget is spent


@pytest.mark.parametrize("backend", MOCKS)
def test_a_missing_verdict_drives_one_gap_filling_search(retriever, acme_pid, backend: str) -> None:
    scim = acme_pid("sso-setup", "availability")
    api, outcome = _run(
        retriever,
        backend,
        "Who is our CDN vendor?",
        _call(backend, "grade_evidence", {"verdict": "missing", "gap": "SCIM provisioning plan"}),
        MOCKS[backend].answer_call(("SCIM provisioning requires the Enterprise plan.", scim, SCIM_QUOTE)),
    )
    assert isinstance(outcome, Answered), outcome
    assert [s.query for s in outcome.trace.searches] == ["Who is our CDN vendor?", "SCIM provisioning plan"]
    assert scim in outcome.trace.searches[1].new
    decision = outcome.trace.decisions[0]
    assert (decision.kind, decision.verdict) == ("grade", "missing")
    # Graded once: not offered again.
    assert "grade_evidence" in _names(backend, api.bodies[0]) and "grade_evidence" not in _names(backend, api.bodies[1])
    assert "found for the gap" in _result(backend, api.bodies[1])


@pytest.mark.parametrize("backend", MOCKS)
def test_sufficient_gets_a_note_and_irrelevant_ends_the_run(retriever, acme_pid, backend: str) -> None:
    fastway = acme_pid("vendor-notes", "fastway-cdn")
    api, outcome = _run(
        retriever,
        backend,
        "Who is our CDN vendor?",
        _call(backend, "grade_evidence", {"verdict": "sufficient"}),
        MOCKS[backend].answer_call(("Our CDN vendor is Fastway.", fastway, CDN_QUOTE)),
    )
    assert isinstance(outcome, Answered) and outcome.searches == 1
    assert _result(backend, api.bodies[1]) == "Graded sufficient. Now call submit_answer."
    api, outcome = _run(
        retriever, backend, "Who is our CDN vendor?", _call(backend, "grade_evidence", {"verdict": "irrelevant"})
    )
    assert isinstance(outcome, Abstained) and outcome.reason == "model_abstained" and api.calls == 1
    assert outcome.trace.decisions[0].verdict == "irrelevant"


@pytest.mark.parametrize("backend", MOCKS)
def test_without_plan_the_tools_are_not_offered_and_a_call_is_invalid(retriever, backend: str) -> None:
    api, outcome = _run(
        retriever,
        backend,
        "Who is our CDN vendor?",
        _call(backend, "search_parts", {"queries": ["a b", "c d"]}),
        limits=Limits(),
    )
    assert _names(backend, api.bodies[0]) == ["search", "submit_answer"]
    assert isinstance(outcome, Abstained) and outcome.reason == "invalid_decision" and outcome.searches == 1


@pytest.mark.parametrize("backend", MOCKS)
def test_plan_tools_name_no_tenant_user_group_or_date(retriever, backend: str) -> None:
    api, _ = _run(retriever, backend, "Who is our CDN vendor?", MOCKS[backend].abstain_call())
    body = api.bodies[0]
    schemas = (
        [t["input_schema"] for t in body["tools"]]
        if backend == "anthropic"
        else [t["function"]["parameters"] for t in body["tools"]]
    )
    names = {name for schema in schemas for name in property_names(schema)}
    assert names == {
        "query",
        "queries",
        "verdict",
        "gap",
        "claims",
        "statement",
        "passage_id",
        "quote",
        "abstain",
        "reason",
    }
    assert_no_scope_fields(names)
