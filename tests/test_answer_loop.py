"""Every branch of the answer loop, driven in-process by a scripted fake model.

The model is a test double (``support.scripted_model``: a list of decisions
through ``answer.protocol``); everything else is real: the sample index, the
retriever and its embedder, the citation checks, the conflict rule, the trace.
Wire details (what an SDK sends and how it reads a reply) are in the backend
tests (``test_backend_contract.py`` and the per-SDK files).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from support.corpus import long_sentences, user, visible_to
from support.paths import DAY
from support.sample_facts import CDN, CDN_QUOTE, OFF_TOPIC, SCIM_QUOTE, SLA_QUOTE, STATUS_QUOTE, URGENT
from support.scripted_model import (
    ScriptedModel,
    ScriptedVerifier,
    abstain,
    claims,
    costing,
    grade,
    invalid,
    parts,
    scripted,
    search,
    slow,
)

from ragcli import Scope
from ragcli.answer import ABSTAIN_MESSAGE, Abstained, Answered, Answerer, Limits, Outcome, ask
from ragcli.answer.notes import (
    GAP_EMPTY_NOTE,
    GAP_NOTE,
    GRADE_NOTES,
    NOTHING_NEW_NOTE,
    PARTS_FALLBACK_NOTE,
    RETRY_NOTE,
    conflict_note,
    drift_note,
)
from ragcli.answer.protocol import Turn, Usage
from ragcli.answer.trace import NOT_RETRIEVED
from ragcli.search.pointers import neighbour_steps

NEW_QUERIES = [
    "SCIM provisioning plan",
    "webhook delivery retries",
    "pricing of the Growth plan",
    "data retention period for application logs",
]
"""Each finds passages the question and the queries before it did not."""


@pytest.fixture(scope="module")
def ids(acme_pid) -> dict[str, str]:
    return {
        "fastway": acme_pid("vendor-notes", "fastway-cdn"),
        "scim": acme_pid("sso-setup", "availability"),
        "sla": acme_pid("support-sla", "response-times"),
        "status": acme_pid("status-page", "what-customers-can-expect"),
    }


@pytest.fixture(scope="module")
def text_of(sample_passages):
    def find(passage_id: str) -> str:
        return next(p.text for t in sample_passages.values() for p in t if p.id == passage_id)

    return find


def run(
    retriever: Any,
    model: ScriptedModel,
    question: str = CDN,
    who: str = "bob",
    *,
    limits: Limits | None = None,
    plan: bool = False,
    retry_on_empty: bool = True,
    verifier: ScriptedVerifier | None = None,
) -> Outcome:
    answerer = Answerer(model, limits or Limits(), verifier, plan=plan, retry_on_empty=retry_on_empty)
    return ask(question, Scope.of(user(who), DAY), retriever, answerer)


def reason(outcome: Outcome) -> str | None:
    return outcome.reason if isinstance(outcome, Abstained) else None


def cite_first_new(statement: str = "The evidence says so.") -> Any:
    """A step that cites the first passage the turn calls new, with one of its own sentences."""

    def step(turn: Turn) -> Any:
        assert turn.new_evidence, "the last step found nothing new"
        passage = turn.new_evidence[0]
        sentences = long_sentences(passage.text) or [" ".join(passage.text.split())]
        return claims((statement, passage.id, sentences[0]))

    return step


# --------------------------------------------------------------------------- the first search


def test_the_question_is_searched_first_and_shown_on_the_first_turn(retriever, ids) -> None:
    model = scripted(abstain())
    outcome = run(retriever, model)
    assert (reason(outcome), outcome.searches, model.calls, model.questions) == ("model_abstained", 1, 1, [CDN])
    (turn,) = model.turns
    assert turn.question == CDN and turn.note == "" and not turn.note_only and turn.conflicts == ()
    assert turn.tools == {"search", "submit_answer"}
    assert [p.id for p in turn.evidence] == [p.id for p in turn.new_evidence] == list(outcome.evidence_ids)
    assert ids["fastway"] in outcome.evidence_ids
    first = outcome.trace.searches[0]
    assert first.query == CDN and first.selected == list(outcome.evidence_ids)
    # How each passage was found: its rank among the results, and each ranker's view of it.
    assert [turn.found[pid].rank for pid in first.selected] == list(range(1, len(first.selected) + 1))
    assert all(turn.found[pid].of == len(first.selected) for pid in first.selected)
    dense = {pid: score for pid, _, score in first.dense}
    assert all((turn.found[pid].cosine is None) == (pid not in dense) for pid in first.selected)
    assert outcome.trace.user == "bob" and outcome.trace.tenant == "acme"


@pytest.mark.parametrize(
    "model_retries, retry_on_empty, limits",
    [(False, True, Limits()), (True, False, Limits()), (True, True, Limits(max_searches=1))],
    ids=["model-never-retries", "no-retry-on-empty", "max-searches-1"],
)
def test_an_empty_first_search_without_a_retry_abstains_without_a_model_call(
    retriever, model_retries, retry_on_empty, limits
) -> None:
    model = scripted(search("Ulaanbaatar"), retry_on_empty=model_retries)
    outcome = run(retriever, model, OFF_TOPIC, limits=limits, retry_on_empty=retry_on_empty)
    assert (reason(outcome), outcome.searches, model.calls, outcome.evidence_ids) == ("no_visible_evidence", 1, 0, ())
    assert outcome.trace.decisions == []


@pytest.mark.parametrize(
    "then, searches",
    [(abstain(), 1), (claims(("Ulaanbaatar.", "x", "the capital is Ulaanbaatar")), 1), (invalid(), 1)],
    ids=["abstains", "answers", "invalid"],
)
def test_an_empty_first_search_gives_one_turn_to_search_again(retriever, then, searches) -> None:
    model = scripted(then)
    outcome = run(retriever, model, OFF_TOPIC, plan=True)
    assert (reason(outcome), outcome.searches, model.calls) == ("no_visible_evidence", searches, 1)
    (turn,) = model.turns
    assert turn.note == RETRY_NOTE and turn.evidence == () and turn.new_evidence == ()
    assert turn.tools == {"search", "submit_answer"}  # no decomposing or grading of nothing, even with --plan


def test_a_rewrite_that_finds_nothing_either_is_no_visible_evidence(retriever) -> None:
    model = scripted(search("Ulaanbaatar capital city"), abstain())
    outcome = run(retriever, model, OFF_TOPIC)
    assert (reason(outcome), outcome.searches, model.calls, model.remaining) == ("no_visible_evidence", 2, 1, 1)


def test_a_rewrite_that_finds_something_goes_on_as_usual(retriever, ids) -> None:
    model = scripted(search(CDN), claims(("Our CDN vendor is Fastway.", ids["fastway"], CDN_QUOTE)))
    outcome = run(retriever, model, OFF_TOPIC, plan=True)
    assert isinstance(outcome, Answered) and outcome.searches == 2
    second = model.turns[1]
    assert ids["fastway"] in [p.id for p in second.new_evidence] and second.note == ""
    assert "grade_evidence" in second.tools and "search_parts" not in second.tools  # parts: first turn only


# --------------------------------------------------------------------------- search


def test_a_search_shows_its_new_passages_and_the_answer_may_cite_them(retriever, ids) -> None:
    model = scripted(search("SCIM provisioning plan"), claims(("SCIM needs Enterprise.", ids["scim"], SCIM_QUOTE)))
    outcome = run(retriever, model)
    assert isinstance(outcome, Answered), (reason(outcome), outcome.checks)
    first, second = model.turns
    assert ids["scim"] not in [p.id for p in first.evidence]
    assert ids["scim"] in [p.id for p in second.new_evidence]
    assert set(second.new_evidence) <= set(second.evidence) and len(second.evidence) > len(first.evidence)
    assert [s.query for s in outcome.trace.searches] == [CDN, "SCIM provisioning plan"]
    assert [d.kind for d in outcome.trace.decisions] == ["search", "claims"]
    assert outcome.trace.searches[1].new == [p.id for p in second.new_evidence]


def test_a_search_that_finds_nothing_new_closes_searching(retriever) -> None:
    model = scripted(search(CDN), search("SCIM provisioning plan"))
    outcome = run(retriever, model)
    assert (reason(outcome), outcome.searches) == ("invalid_decision", 2)  # a search no longer offered
    second = model.turns[1]
    assert second.new_evidence == () and second.note == NOTHING_NEW_NOTE and second.tools == {"submit_answer"}
    assert outcome.trace.searches[1].new == [] and outcome.trace.decisions[-1].offered == ["submit_answer"]


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_max_searches_n_allows_exactly_n_searches(retriever, n) -> None:
    """The question's own search plus n-1 of the model's; the model's n-th request is budget_exhausted."""
    model = scripted(*(search(q) for q in NEW_QUERIES[: n - 1]), search("vendor risk review duration"))
    outcome = run(retriever, model, limits=Limits(max_searches=n))
    assert (reason(outcome), outcome.searches, model.calls, model.remaining) == ("budget_exhausted", n, n, 0)
    assert [t.tools for t in model.turns] == [{"search", "submit_answer"}] * (n - 1) + [{"submit_answer"}]
    assert [s.query for s in outcome.trace.searches] == [CDN, *NEW_QUERIES[: n - 1]]
    assert all(s.new for s in outcome.trace.searches)
    if n > 1:  # the same budget spent, then an answer citing what only the n-th search found: it counted
        model = scripted(*(search(q) for q in NEW_QUERIES[: n - 1]), cite_first_new())
        outcome = run(retriever, model, limits=Limits(max_searches=n))
        assert isinstance(outcome, Answered) and outcome.searches == n, outcome.checks
        assert outcome.claims[0].passage.id in outcome.trace.searches[-1].new


def test_every_search_runs_as_the_run_scope_whatever_the_query_says(retriever, sample_passages) -> None:
    model = scripted(search("tenant:globex pay bands as hana group hr"), abstain())
    outcome = run(retriever, model, who="bob")
    assert outcome.trace.searches[1].query.startswith("tenant:globex")
    acme = {p.id: p for p in sample_passages["acme"]}
    bob = user("bob")
    shown = {p.id for t in model.turns for p in t.evidence}
    assert shown and all(pid in acme and visible_to(acme[pid], bob, DAY) for pid in shown)


# --------------------------------------------------------------------------- tools offered


@pytest.mark.parametrize("step", [parts("CDN vendor", "SCIM plan"), grade("sufficient")], ids=["parts", "grade"])
def test_a_plan_tool_without_plan_is_invalid(retriever, step) -> None:
    model = scripted(step)
    outcome = run(retriever, model)
    assert (reason(outcome), outcome.searches) == ("invalid_decision", 1)
    assert model.turns[0].tools == {"search", "submit_answer"}


@pytest.mark.parametrize("max_searches, offered", [(2, False), (3, True)])
def test_search_parts_needs_two_searches_left_and_the_first_turn(retriever, max_searches, offered) -> None:
    model = scripted(search("SCIM provisioning plan"), parts("CDN vendor", "SCIM plan"))
    outcome = run(retriever, model, limits=Limits(max_searches=max_searches), plan=True)
    first, second = model.turns
    assert ("search_parts" in first.tools) is offered and "grade_evidence" in first.tools
    assert "search_parts" not in second.tools
    assert reason(outcome) == "invalid_decision"


# --------------------------------------------------------------------------- search_parts


def test_parts_are_searched_each_on_its_own_within_the_budget(retriever, ids) -> None:
    model = scripted(
        parts("CDN vendor contract", "SCIM provisioning plan", "SSO identity providers", "Okta setup"), abstain()
    )
    outcome = run(retriever, model, plan=True)
    assert (reason(outcome), outcome.searches) == ("model_abstained", 3)
    assert [s.query for s in outcome.trace.searches][1:] == ["CDN vendor contract", "SCIM provisioning plan"]
    second = model.turns[1]
    counts = [len(s.new) for s in outcome.trace.searches[1:]]
    assert second.note == (
        f"Searched 2 parts: 'CDN vendor contract' found {counts[0]} new; 'SCIM provisioning plan' found {counts[1]} "
        "new.\n2 more parts were not searched: the search budget is spent."
    )
    assert ids["scim"] in [p.id for p in second.new_evidence] and "search" not in second.tools
    assert outcome.trace.decisions[0].queries == [
        "CDN vendor contract",
        "SCIM provisioning plan",
        "SSO identity providers",
        "Okta setup",
    ]


def test_parts_that_find_nothing_new_fall_back_to_the_question_search(retriever, ids) -> None:
    """Searching stays open (it used to close): the run goes on from the question's own search, and says so."""
    model = scripted(
        parts(CDN, "Ulaanbaatar capital city"),
        search("SCIM provisioning plan"),
        claims(("SCIM needs Enterprise.", ids["scim"], SCIM_QUOTE)),
    )
    outcome = run(retriever, model, limits=Limits(max_searches=5), plan=True)
    assert isinstance(outcome, Answered) and outcome.searches == 4, outcome.checks
    second = model.turns[1]
    assert second.tools == {"search", "submit_answer", "grade_evidence"} and second.new_evidence == ()
    assert second.note.startswith("Searched 2 parts:") and second.note.endswith(PARTS_FALLBACK_NOTE)
    assert [(d.kind, d.repair) for d in outcome.trace.decisions] == [
        ("parts", "parts_fallback"),
        ("search", None),
        ("claims", None),
    ]


def test_a_malformed_decomposition_falls_back_once(retriever, ids) -> None:
    malformed = invalid("search_parts: field 'queries' too_short", tool="search_parts")
    model = scripted(malformed, claims(("Our CDN vendor is Fastway.", ids["fastway"], CDN_QUOTE)))
    outcome = run(retriever, model, plan=True)
    assert isinstance(outcome, Answered) and outcome.searches == 1 and model.calls == 2
    second = model.turns[1]
    assert (second.note, second.note_only) == (PARTS_FALLBACK_NOTE, True)
    assert second.tools == {"search", "submit_answer", "grade_evidence"}  # search_parts is not offered again
    first = outcome.trace.decisions[0]
    assert (first.valid, first.repair, first.tool) == (False, "parts_fallback", "search_parts")
    # Once: a second malformed call (search_parts is no longer offered) ends the run as any invalid decision does.
    model = scripted(malformed, malformed)
    outcome = run(retriever, model, plan=True)
    assert (reason(outcome), model.calls) == ("invalid_decision", 2)
    # Any other malformed call still ends the run at once.
    model = scripted(invalid("search: field 'query' is missing", tool="search"))
    assert reason(run(retriever, model, plan=True)) == "invalid_decision"


# --------------------------------------------------------------------------- queries keep the question

ERR = "What does ERR_4021 mean?"


def test_a_query_that_loses_the_identifier_is_refused_and_the_model_told(retriever) -> None:
    model = scripted(search("error code meaning"), search("ERR_4021 error meaning"), abstain())
    outcome = run(retriever, model, ERR, who="alice")
    assert (reason(outcome), outcome.searches, model.calls) == ("model_abstained", 2, 3)
    assert [s.query for s in outcome.trace.searches] == [ERR, "ERR_4021 error meaning"]  # the refused one never ran
    told = model.turns[1]
    assert (told.note, told.note_only, told.new_evidence) == (drift_note(["ERR_4021"]), True, ())
    assert told.tools == {"search", "submit_answer"}
    refused, kept = outcome.trace.decisions[:2]
    assert (refused.valid, refused.repair, refused.lost, refused.query) == (
        False,
        "query_drift",
        ["ERR_4021"],
        "error code meaning",
    )
    assert (kept.valid, kept.repair, kept.lost) == (True, None, None)


def test_a_second_query_that_loses_a_term_ends_the_run(retriever) -> None:
    model = scripted(search("error code meaning"), search("what the error means"), search("never reached"))
    outcome = run(retriever, model, ERR, who="alice")
    assert (reason(outcome), outcome.searches, model.calls) == ("invalid_decision", 1, 2)
    assert [d.repair for d in outcome.trace.decisions] == ["query_drift", "query_drift"]


def test_a_term_named_in_dropped_is_let_go(retriever) -> None:
    model = scripted(search("error code meaning", dropped=("err_4021",)), abstain())
    outcome = run(retriever, model, ERR, who="alice")
    assert (reason(outcome), outcome.searches) == ("model_abstained", 2)
    first = outcome.trace.decisions[0]
    assert (first.valid, first.repair, first.dropped) == (True, None, ["ERR_4021"])  # the question's spelling


@pytest.mark.parametrize(
    "question, query, lost",
    [
        ("How many requests per minute does Tier 2 allow?", "rate limit requests per minute", "Tier 2"),
        ("Can a monthly plan be refunded within 7 days?", "monthly plan refund window", "7 days"),
        ("Can a monthly plan be refunded within 7 days?", "monthly plan refund 7 weeks", "7 days"),
        ("Which plans do not include SSO?", "plans that include SSO", "the negation 'not'"),
        ('What does the "partial month" rule say?', "partial refunds rule", "partial month"),
        ("Tier 2 limits, per minute?", "tier-2 requests per minute", None),
        ("Can a monthly plan be refunded within 7 days?", "refund of a monthly plan, 7 day window", None),
        ("Which plans do not include SSO?", "plans without SSO", None),
    ],
)
def test_identifiers_numbers_quotes_and_negations_must_be_kept(retriever, question, query, lost) -> None:
    model = scripted(search(query), abstain())
    outcome = run(retriever, model, question)
    first = outcome.trace.decisions[0]
    if lost is None:
        assert first.repair is None and outcome.searches == 2
    else:
        assert first.repair == "query_drift" and outcome.searches == 1
        assert model.turns[1].note == drift_note([lost])


def test_the_parts_of_a_decomposition_keep_the_terms_together(retriever) -> None:
    question = "What does ERR_4021 mean, and what did v2.3.1 change?"
    model = scripted(parts("ERR_4021 meaning", "v2.3.1 changes"), abstain())
    outcome = run(retriever, model, question, who="bob", plan=True)
    assert outcome.searches == 3 and outcome.trace.decisions[0].repair is None
    model = scripted(parts("error code meaning", "v2.3.1 changes"), abstain())
    outcome = run(retriever, model, question, who="bob", plan=True)
    assert outcome.searches == 1 and outcome.trace.decisions[0].lost == ["ERR_4021"]
    assert model.turns[1].note == drift_note(["ERR_4021"])
    assert "search_parts" in model.turns[1].tools  # refused, not acted on: decomposing is still the first decision


def test_a_gap_query_that_loses_a_term_is_refused_and_the_grade_stays_open(retriever) -> None:
    question = "Can a monthly plan be refunded within 7 days?"
    model = scripted(grade("missing", "refund to card timing"), grade("missing", "refund within 7 days"), abstain())
    outcome = run(retriever, model, question, plan=True)
    assert outcome.searches == 2 and [d.repair for d in outcome.trace.decisions] == ["query_drift", None, None]
    assert "grade_evidence" in model.turns[1].tools and model.turns[1].note == drift_note(["7 days"])
    assert model.turns[2].note in (GAP_NOTE, GAP_EMPTY_NOTE) and "grade_evidence" not in model.turns[2].tools


def test_the_rewrite_of_an_empty_search_keeps_the_question_too(retriever) -> None:
    question = "Who won the 2018 FIFA World Cup?"
    model = scripted(search("football world cup winner"), search("2018 FIFA World Cup winner"))
    outcome = run(retriever, model, question)
    assert (reason(outcome), outcome.searches, model.calls) == ("no_visible_evidence", 2, 2)
    assert model.turns[1].note == drift_note(["2018"]) and model.turns[1].tools == {"search", "submit_answer"}


def test_a_refused_query_costs_a_turn(retriever) -> None:
    model = scripted(search("error code meaning"))
    outcome = run(retriever, model, ERR, who="alice", limits=Limits(max_turns=1))
    assert (reason(outcome), outcome.searches, model.calls) == ("budget_exhausted", 1, 1)


# --------------------------------------------------------------------------- grade_evidence


def test_irrelevant_ends_the_run(retriever) -> None:
    model = scripted(grade("irrelevant"))
    outcome = run(retriever, model, plan=True)
    assert (reason(outcome), model.calls, outcome.trace.decisions[0].verdict) == ("model_abstained", 1, "irrelevant")


@pytest.mark.parametrize("verdict", ["sufficient", "conflicting"])
def test_a_grade_that_runs_no_search_gets_its_note_alone(retriever, ids, verdict) -> None:
    model = scripted(grade(verdict), claims(("Our CDN vendor is Fastway.", ids["fastway"], CDN_QUOTE)))
    outcome = run(retriever, model, plan=True)
    assert isinstance(outcome, Answered) and outcome.searches == 1
    second = model.turns[1]
    assert (second.note, second.note_only, second.new_evidence, second.omitted) == (GRADE_NOTES[verdict], True, (), 0)
    assert second.tools == {"search", "submit_answer"}  # graded once: not offered again


def test_missing_with_a_gap_drives_one_gap_filling_search(retriever, ids) -> None:
    model = scripted(grade("missing", "SCIM provisioning plan"), claims(("SCIM.", ids["scim"], SCIM_QUOTE)))
    outcome = run(retriever, model, "Who is our CDN vendor?", plan=True)
    assert isinstance(outcome, Answered), outcome.checks
    assert [s.query for s in outcome.trace.searches] == ["Who is our CDN vendor?", "SCIM provisioning plan"]
    second = model.turns[1]
    assert second.note == GAP_NOTE and not second.note_only and ids["scim"] in [p.id for p in second.new_evidence]
    assert "grade_evidence" not in second.tools


@pytest.mark.parametrize(
    "gap, limits",
    [(None, Limits()), ("SCIM provisioning plan", Limits(max_searches=1))],
    ids=["no-gap", "no-search-left"],
)
def test_missing_without_a_gap_or_a_search_left_gets_the_missing_note(retriever, gap, limits) -> None:
    model = scripted(grade("missing", gap), abstain())
    outcome = run(retriever, model, limits=limits, plan=True)
    assert outcome.searches == 1 and model.turns[1].note == GRADE_NOTES["missing"] and model.turns[1].note_only


def test_a_gap_search_that_finds_nothing_closes_searching(retriever) -> None:
    model = scripted(grade("missing", "Ulaanbaatar capital city"), abstain())
    outcome = run(retriever, model, plan=True)
    assert outcome.searches == 2 and model.turns[1].note == GAP_EMPTY_NOTE
    assert model.turns[1].tools == {"submit_answer"}


def test_grading_twice_is_invalid(retriever) -> None:
    outcome = run(retriever, scripted(grade("sufficient"), grade("sufficient")), plan=True)
    assert reason(outcome) == "invalid_decision"


# --------------------------------------------------------------------------- invalid decisions and budgets


def test_an_invalid_decision_ends_the_run_and_nothing_is_acted_on(retriever) -> None:
    model = scripted(invalid("search: field 'tenant' extra_forbidden"), search("never run"))
    outcome = run(retriever, model)
    assert (reason(outcome), outcome.searches, model.calls) == ("invalid_decision", 1, 1)
    decision = outcome.trace.decisions[0]
    assert decision.valid is False and decision.error == "search: field 'tenant' extra_forbidden"
    assert outcome.to_wire().message == ABSTAIN_MESSAGE


@pytest.mark.parametrize("spent, answered", [(1000, True), (1001, False)])
def test_the_token_budget_is_checked_after_each_model_call(retriever, ids, spent, answered) -> None:
    model = scripted(costing(claims(("Fastway.", ids["fastway"], CDN_QUOTE)), spent - 40, 40))
    outcome = run(retriever, model, limits=Limits(max_tokens=1000))
    assert isinstance(outcome, Answered) is answered
    assert answered or (reason(outcome), outcome.checks) == ("budget_exhausted", ())  # the claims were not checked
    assert outcome.usage.total == spent and outcome.trace.usage.input_tokens == spent - 40


def test_tokens_add_up_across_turns_and_a_search_over_budget_is_not_run(retriever) -> None:
    model = scripted(costing(search(NEW_QUERIES[0]), 600), costing(search(NEW_QUERIES[1]), 600))
    outcome = run(retriever, model, limits=Limits(max_tokens=1000))
    assert (reason(outcome), outcome.searches, model.calls) == ("budget_exhausted", 2, 2)
    assert dataclasses.asdict(outcome.usage) == dataclasses.asdict(Usage(input_tokens=1200))
    assert [d.kind for d in outcome.trace.decisions] == ["search", "search"]  # the second recorded, not run


@pytest.mark.parametrize("timeout_s, answered", [(30.0, True), (0.05, False)])
def test_the_wall_clock_budget_is_checked_after_each_model_call(retriever, ids, timeout_s, answered) -> None:
    model = scripted(slow(claims(("Fastway.", ids["fastway"], CDN_QUOTE)), 0.1))
    outcome = run(retriever, model, limits=Limits(timeout_s=timeout_s))
    assert isinstance(outcome, Answered) is answered
    assert answered or (reason(outcome), outcome.checks) == ("budget_exhausted", ())
    assert outcome.trace.latency_ms.model >= 100


@pytest.mark.parametrize("max_turns", [0, 1, 2])
def test_max_turns_model_calls_without_an_exit_is_budget_exhausted(retriever, max_turns) -> None:
    model = scripted(*(search(q) for q in NEW_QUERIES[:max_turns]))
    outcome = run(retriever, model, limits=Limits(max_turns=max_turns, max_searches=5))
    assert (reason(outcome), model.calls, outcome.searches) == ("budget_exhausted", max_turns, 1 + max_turns)


def test_the_model_abstaining_is_model_abstained(retriever) -> None:
    outcome = run(retriever, scripted(abstain("Nothing about that here.")))
    assert (reason(outcome), outcome.to_wire().answer, outcome.to_wire().claims) == ("model_abstained", None, [])


# --------------------------------------------------------------------------- claims and the citation checks


def test_claims_that_pass_every_check_are_the_answer(retriever, ids) -> None:
    outcome = run(retriever, scripted(claims(("Our CDN vendor is Fastway.", ids["fastway"], CDN_QUOTE))))
    assert isinstance(outcome, Answered) and [c.passage.id for c in outcome.claims] == [ids["fastway"]]
    assert outcome.answer == "Our CDN vendor is Fastway. [1]" and [p.id for p in outcome.sources] == [ids["fastway"]]
    assert len(outcome.checks) == 4 and all(c.passed for c in outcome.checks)
    assert [(c.passage_id, c.passed) for c in outcome.trace.checks] == [(ids["fastway"], True)] * 4


def test_one_failing_claim_sinks_the_answer(retriever, ids) -> None:
    good = ("Our CDN vendor is Fastway.", ids["fastway"], CDN_QUOTE)
    bad = ("It renews in 2028.", ids["fastway"], CDN_QUOTE)
    outcome = run(retriever, scripted(claims(good, bad)))
    assert reason(outcome) == "citation_check_failed"
    assert {(c.claim, c.check) for c in outcome.checks if not c.passed} == {(1, "numbers_in_passage")}


@pytest.mark.parametrize(
    "statement, quote, failed",
    [
        ("Our CDN vendor is Fastway.", "Our CDN vendor is Akamai, and the contract", "quote_in_passage"),
        ("Fastway renews on 2027-03-31 at 45 points of presence.", CDN_QUOTE, "numbers_in_passage"),
        ("Fastway is our CDN vendor.", "Our CDN vendor", "quote_length"),
    ],
    ids=["quote-not-in-passage", "number-not-in-passage", "quote-of-3-words"],
)
def test_a_claim_that_fails_a_check_is_citation_check_failed(retriever, ids, statement, quote, failed) -> None:
    outcome = run(retriever, scripted(claims((statement, ids["fastway"], quote))))
    assert reason(outcome) == "citation_check_failed"
    assert {c.check for c in outcome.trace.checks if not c.passed} == {failed}


TIER = "How many requests per minute does Tier 2 allow?"


@pytest.mark.parametrize(
    "question, section, statement, quote, words",
    [
        (CDN, ("vendor-notes", "fastway-cdn"), "Fastway is our CDN vendor.", "Our CDN vendor is", 4),
        # Table pipes are not words: three cells are three words, four are four.
        (TIER, ("api-rate-limits", "tiers"), "Tier 2 is the Growth plan's tier.", "| Tier 2 | Growth |", 3),
        (TIER, ("api-rate-limits", "tiers"), "Tier 2 is the Growth plan's tier.", "| Tier 2 | Growth | 600 |", 4),
    ],
    ids=["4-words", "3-table-words", "4-table-words"],
)
def test_quote_length_minimum_is_four_words(retriever, acme_pid, question, section, statement, quote, words) -> None:
    target = acme_pid(*section)
    outcome = run(retriever, scripted(claims((statement, target, quote))), question)
    assert target in outcome.evidence_ids  # retrieved, and the quote is the passage's own text: only length decides
    assert [c.detail for c in outcome.checks if c.check == "quote_length"] == [f"{words} words"]
    assert isinstance(outcome, Answered) is (words >= 4), outcome.checks


WEBHOOK = "How long does my webhook endpoint have to respond?"
WEBHOOK_QUOTE = "Your endpoint must respond with a 2xx status within 10 seconds"
ANNUAL = "How much cheaper is annual billing than monthly billing?"
ANNUAL_QUOTE = "Annual billing is discounted by 20% compared to monthly billing"


@pytest.mark.parametrize(
    "question, section, quote, statement, supported",
    [
        # The passage says "10" (seconds), never "10%": a percentage is a different claim.
        (WEBHOOK, ("webhooks-guide", "delivery-rules"), WEBHOOK_QUOTE, "It must respond within 10 seconds.", True),
        (WEBHOOK, ("webhooks-guide", "delivery-rules"), WEBHOOK_QUOTE, "It must respond within 10% of it.", False),
        (WEBHOOK, ("webhooks-guide", "delivery-rules"), WEBHOOK_QUOTE, "Within 10 percent of the window.", False),
        # The passage says "20%": "20 percent" and "20 per cent" are the same number.
        (ANNUAL, ("pricing-plans", "annual-billing"), ANNUAL_QUOTE, "Annual billing is 20% cheaper.", True),
        (ANNUAL, ("pricing-plans", "annual-billing"), ANNUAL_QUOTE, "Annual billing is 20 percent cheaper.", True),
        (ANNUAL, ("pricing-plans", "annual-billing"), ANNUAL_QUOTE, "Annual billing is 20 per cent cheaper.", True),
        (ANNUAL, ("pricing-plans", "annual-billing"), ANNUAL_QUOTE, "Annual billing is 25% cheaper.", False),
    ],
    ids=["10-as-stated", "10%-vs-10", "10-percent-vs-10", "20%", "20-percent", "20-per-cent", "25%-vs-20%"],
)
def test_percent_rule(retriever, acme_pid, text_of, question, section, quote, statement, supported) -> None:
    target = acme_pid(*section)
    text = text_of(target)
    assert ("%" not in text and "percent" not in text) if section[0] == "webhooks-guide" else "25" not in text
    outcome = run(retriever, scripted(claims((statement, target, quote))), question)
    assert target in outcome.evidence_ids
    assert isinstance(outcome, Answered) is supported, outcome.checks
    if not supported:
        assert {c.check for c in outcome.trace.checks if not c.passed} == {"numbers_in_passage"}


@pytest.mark.parametrize(
    "tenant, doc, section",
    [("acme", "pay-bands", "engineering-bands"), ("globex", "oncall-handbook", "paging-and-acknowledgement")],
    ids=["restricted-page-in-own-tenant", "other-tenant"],
)
def test_citing_a_passage_never_retrieved_fails_retrieved(retriever, pid, text_of, tenant, doc, section) -> None:
    target = pid(tenant, doc, section)
    quote = " ".join(long_sentences(text_of(target), 6)[-1].split()[:8])
    model = scripted(claims(("The document says so.", target, quote)))
    outcome = run(retriever, model)
    assert reason(outcome) == "citation_check_failed" and target not in outcome.evidence_ids
    assert [c.passed for c in outcome.trace.checks if c.check == "retrieved"] == [False]
    assert all(target != p.id for t in model.turns for p in t.evidence)  # it was never shown
    # The trace records that the cited ID was never retrieved, not the ID the model wrote (it names a page the
    # user may not see, and a trace holds no model-written text).
    assert [c.passage_id for c in outcome.trace.checks if c.check == "retrieved"] == [NOT_RETRIEVED]
    assert target not in outcome.trace.model_dump_json()


# --------------------------------------------------------------------------- conflicting sources


def both_sides(ids: dict[str, str]) -> Any:
    return claims(
        ("The SLA page says 1 hour.", ids["sla"], SLA_QUOTE), ("The status page says 4.", ids["status"], STATUS_QUOTE)
    )


def one_side(ids: dict[str, str]) -> Any:
    return claims(("Urgent tickets get a first response within 1 hour.", ids["sla"], SLA_QUOTE))


def test_citing_every_side_is_answered_with_the_conflict(retriever, ids) -> None:
    outcome = run(retriever, scripted(both_sides(ids)), URGENT)
    assert isinstance(outcome, Answered) and len(outcome.conflicts) == 1
    assert {s.passage_id for s in outcome.conflicts[0].sides} == {ids["sla"], ids["status"]}
    assert [c.verdict for c in outcome.trace.conflicts] == ["cited_all_sides"]


def test_citing_one_side_gets_one_turn_to_cite_every_side(retriever, ids) -> None:
    model = scripted(one_side(ids), both_sides(ids))
    outcome = run(retriever, model, URGENT, plan=True)
    assert isinstance(outcome, Answered) and model.calls == 2
    told = model.turns[1]
    assert told.tools == {"submit_answer"}  # no searching or grading on the conflict turn
    assert told.conflicts and told.note == conflict_note(told.conflicts)
    assert (told.new_evidence, told.omitted) == ((), 0)
    assert {s.passage_id for s in told.conflicts[0].sides} == {ids["sla"], ids["status"]}
    assert [c.verdict for c in outcome.trace.conflicts] == ["asked_to_cite_all_sides", "cited_all_sides"]


@pytest.mark.parametrize(
    "then, expected",
    [
        ("abstains", "conflicting_evidence"),
        ("one-side-again", "conflicting_evidence"),
        ("searches", "invalid_decision"),
    ],
)
def test_a_model_that_will_not_cite_every_side_abstains(retriever, ids, then, expected) -> None:
    step = {"abstains": abstain(), "one-side-again": one_side(ids), "searches": search("status page")}[then]
    model = scripted(one_side(ids), step)
    outcome = run(retriever, model, URGENT)
    assert (reason(outcome), model.calls, outcome.searches) == (expected, 2, 1)
    assert outcome.trace.conflicts[0].verdict == "asked_to_cite_all_sides"
    if then == "one-side-again":
        assert outcome.trace.conflicts[-1].verdict == "unresolved"


def test_no_turn_left_for_the_conflict_abstains_at_once(retriever, ids) -> None:
    model = scripted(one_side(ids))
    outcome = run(retriever, model, URGENT, limits=Limits(max_turns=1))
    assert (reason(outcome), model.calls) == ("conflicting_evidence", 1)
    assert [c.verdict for c in outcome.trace.conflicts] == ["unresolved"]


def test_a_user_who_sees_one_side_is_answered_plainly(retriever, ids) -> None:
    model = scripted(one_side(ids))
    outcome = run(retriever, model, URGENT, who="hana")
    assert isinstance(outcome, Answered) and outcome.conflicts == () and model.calls == 1


# --------------------------------------------------------------------------- the verifier (--verify)


def test_the_verifier_drops_an_unsupported_claim(retriever, ids) -> None:
    verifier = ScriptedVerifier([(True, False)], usage=Usage(input_tokens=300, output_tokens=20))
    model = scripted(
        costing(
            claims(
                ("Our CDN vendor is Fastway.", ids["fastway"], CDN_QUOTE), ("It renews.", ids["fastway"], CDN_QUOTE)
            ),
            1000,
        )
    )
    outcome = run(retriever, model, verifier=verifier)
    assert isinstance(outcome, Answered) and [c.statement for c in outcome.claims] == ["Our CDN vendor is Fastway."]
    assert outcome.verified == (True, False) and outcome.submitted_answer == "Our CDN vendor is Fastway. It renews."
    ((question, judged, passages),) = verifier.calls
    assert question == CDN and len(judged) == 2 and set(passages) == {ids["fastway"]}  # the cited passages only
    assert outcome.usage.total == 1000 + 320  # the verifier's tokens count
    assert outcome.trace.verification is not None and outcome.trace.verification.verifier == "scripted-verifier"


@pytest.mark.parametrize("verdicts", [(False,), None], ids=["every-claim-rejected", "verifier-failed"])
def test_no_claim_left_or_a_failed_verifier_is_citation_check_failed(retriever, ids, verdicts) -> None:
    verifier = ScriptedVerifier([verdicts])
    outcome = run(retriever, scripted(claims(("Fastway.", ids["fastway"], CDN_QUOTE))), verifier=verifier)
    assert reason(outcome) == "citation_check_failed" and len(verifier.calls) == 1
    assert outcome.trace.verification is not None
    assert (outcome.trace.verification.error is not None) is (verdicts is None)


def test_the_verifier_dropping_one_side_of_a_conflict_is_conflicting_evidence(retriever, ids) -> None:
    outcome = run(retriever, scripted(both_sides(ids)), URGENT, verifier=ScriptedVerifier([(True, False)]))
    assert reason(outcome) == "conflicting_evidence" and outcome.trace.conflicts[-1].verdict == "unresolved"


def test_claims_that_fail_a_check_never_reach_the_verifier(retriever, ids) -> None:
    verifier = ScriptedVerifier([(True,)])
    outcome = run(
        retriever, scripted(claims(("Fastway.", ids["fastway"], "not in the passage at all"))), verifier=verifier
    )
    assert reason(outcome) == "citation_check_failed" and verifier.calls == [] and outcome.verified is None


# --------------------------------------------------------------------------- neighbours a result points at

OKTA = "Which values do I paste into Okta when I create the SAML app integration?"
TABLE_QUOTE = "| ACS URL | `https://login.acme.example/saml/acs` | | Entity ID | `urn:acme:sp` |"


@pytest.fixture
def top1(sample_root, embedder):
    from ragcli.search import Retriever, SearchConfig

    r = Retriever(sample_root, embedder=embedder, config=SearchConfig(k=1))
    yield r
    r.close()


@pytest.mark.parametrize("expands", [True, False], ids=["llm", "local-like"])
def test_a_result_pointing_at_the_table_above_brings_that_section(top1, acme_pid, expands) -> None:
    """k = 1: the search returns only the Okta steps ("… from the table above"); a model that reads the evidence
    as a whole gets the table too, citable and checked like any passage, though no search ranked it."""
    okta, table = (
        acme_pid("sso-setup", "setting-up-saml-with-okta"),
        acme_pid("sso-setup", "values-for-your-identity-provider"),
    )
    model = scripted(
        claims(("Paste the ACS URL and the Entity ID urn:acme:sp.", table, TABLE_QUOTE)), expands_neighbours=expands
    )
    outcome = run(top1, model, OKTA)
    (turn,) = model.turns
    if expands:
        assert [p.id for p in turn.new_evidence] == [okta, table] and table not in turn.found  # unranked
        assert isinstance(outcome, Answered) and outcome.trace.searches[0].new == [okta, table]
    else:
        assert [p.id for p in turn.new_evidence] == [okta]
        assert reason(outcome) == "citation_check_failed"


def test_the_pointer_rule() -> None:
    assert neighbour_steps("2. Paste the ACS URL and Entity ID from the table above.") == (-1,)
    assert neighbour_steps("Day 2: set up your development environment (see below).") == (1,)
    assert neighbour_steps("Install it with the following:") == (1,)
    assert neighbour_steps("Offers above the midpoint need approval from the VP of People.") == ()
    assert neighbour_steps("Check that the clock skew is below 300 seconds.") == ()


# --------------------------------------------------------------------------- the trace and the question


def test_the_trace_records_each_decision_with_what_was_offered(retriever, ids) -> None:
    from ragcli.answer.protocol import ModelReply

    model = scripted(
        ModelReply(search("SCIM provisioning plan"), request_id="req_1", verdict="missing"),
        costing(claims(("SCIM.", ids["scim"], SCIM_QUOTE)), 10, request_id="req_2"),
    )
    outcome = run(retriever, model)
    decisions = outcome.trace.decisions
    assert [(d.turn, d.kind, d.offered, d.request_id) for d in decisions] == [
        (1, "search", ["search", "submit_answer"], "req_1"),
        (2, "claims", ["search", "submit_answer"], "req_2"),
    ]
    assert decisions[0].verdict == "missing" and decisions[0].query == "SCIM provisioning plan"
    assert decisions[1].cited == [ids["scim"]] and outcome.trace.disposition == "answered"


def test_a_question_with_a_lone_surrogate_is_asked_with_a_replacement(retriever) -> None:
    model = scripted(abstain())
    run(retriever, model, "Who is our CDN vendor \ud800?")
    assert model.questions == ["Who is our CDN vendor ??"] and model.turns[0].question == model.questions[0]


def test_only_the_run_changes_its_own_state() -> None:
    """The loop and the handlers read ``Run``'s fields and change them through its methods: neither assigns one."""
    import ast
    import inspect

    from ragcli.answer import handlers, loop

    for module in (handlers, loop):
        tree = ast.parse(inspect.getsource(module))
        targets = [
            t
            for node in ast.walk(tree)
            if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign)
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
        ]
        assigned = [
            ast.unparse(t) for t in targets if isinstance(t, ast.Attribute) and ast.unparse(t).startswith("run.")
        ]
        assert assigned == [], (module.__name__, assigned)


def test_limits_are_budgets_only() -> None:
    """Switches (``plan``, ``retry_on_empty``) belong to the answerer; ``Limits`` counts."""
    import dataclasses

    fields = {f.name: f.type for f in dataclasses.fields(Limits)}
    assert fields == {"max_searches": "int", "max_turns": "int", "max_tokens": "int", "timeout_s": "float"}
