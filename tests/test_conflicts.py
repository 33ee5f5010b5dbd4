"""Conflicting current sources: flagged, never silently ranked, for every backend.

The rule (``ragcli.answer.conflicts``) is checked on hand-made passages, then
on the whole sample corpus (exactly the one planted disagreement), then end
to end: the local model on the real index and CLI, and eval. The loop's
conflict turn is in ``test_answer_loop.py`` (every branch, a scripted model)
and ``test_backend_contract.py`` (as each LLM backend sends it).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from support import anthropic_mock as am
from support.cli import cli_many, json_of
from support.corpus import all_passages, corpus_conflicts, user
from support.paths import DAY, QUESTIONS, USERS
from support.sample_facts import SLA_QUOTE, STATUS_QUOTE, URGENT

from ragcli import Passage, Scope
from ragcli.answer import Answered, Answerer, ask
from ragcli.answer.conflicts import facts, find_conflicts
from ragcli.answer.protocol import Claim, ClaimsDecision, Turn


def P(doc: str, text: str, section: str = "s") -> Passage:
    return Passage(
        id=f"{doc}@v1#{section}",
        doc_id=doc,
        version="v1",
        section=section,
        tenant="t",
        acl=("everyone",),
        effective_from=None,
        superseded_on=None,
        title=doc,
        heading_path=(),
        source=f"{doc}.md",
        source_url=None,
        text=text,
    )


def conflicts_between(a: Passage, b: Passage, quote: str) -> list:
    return find_conflicts([Claim("s", a.id, quote)], {a.id: a, b.id: b})


# --------------------------------------------------------------------------- the rule


@pytest.mark.parametrize(
    "first, second, conflict",
    [
        pytest.param(
            "Annual plans are refundable within 30 days of purchase.",
            "Annual plans are refundable within 14 days of purchase.",
            True,
            id="two-refund-windows",
        ),
        pytest.param(
            "Tier 2 keys are limited to 600 requests per minute.",
            "Tier 2 keys are limited to 300 requests per minute.",
            True,
            id="two-rate-limits",
        ),
        pytest.param(
            "Urgent tickets get a first response within 1 hour.",
            "Urgent tickets get a first response within 60 minutes.",
            False,
            id="same-value-other-unit",
        ),
        pytest.param(
            "Tier 1 keys are limited to 120 requests per minute.",
            "Tier 2 keys are limited to 600 requests per minute.",
            False,
            id="other-qualifier",
        ),
        pytest.param(
            "SEV1 tickets get a first response within 15 minutes.",
            "Urgent tickets get a first response within 1 hour.",
            False,
            id="qualifier-on-one-side",
        ),
        pytest.param(
            "Application logs are kept for 400 days.",
            "Annual plans are refundable within 30 days of purchase.",
            False,
            id="other-subject",
        ),
        pytest.param(
            "The status page is updated every 30 minutes during an incident.",
            "The status page was updated within 20 minutes during an incident.",
            False,
            id="cadence-vs-deadline",
        ),
        pytest.param(
            "Annual plans are refundable within 30 days of purchase.",
            "Annual plans are refundable within 30 business days of purchase.",
            False,
            id="other-dimension",
        ),
        pytest.param(
            "The Growth plan costs $99 per month for 10 seats.",
            "The Growth plan costs $129 per month for 10 seats.",
            True,
            id="two-prices",
        ),
    ],
)
def test_rule_keys_on_the_same_subject(first: str, second: str, conflict: bool) -> None:
    a, b = P("doc-a", first), P("doc-b", second)
    found = conflicts_between(a, b, first)
    assert bool(found) is conflict, [f.sides for f in found]
    if conflict:
        assert [s.passage_id for s in found[0].sides] == [a.id, b.id]


def test_one_document_never_conflicts_with_itself() -> None:
    """A table of tiers, or two versions of one page, state several values on purpose."""
    a = P("doc-a", "Annual plans are refundable within 30 days of purchase.", "x")
    b = P("doc-a", "Annual plans are refundable within 14 days of purchase.", "y")
    assert conflicts_between(a, b, a.text) == []


def test_a_table_cell_conflicts_with_a_sentence_on_the_same_row_and_column() -> None:
    table = P(
        "sla",
        "| Ticket | First response |\n|---|---|\n| Urgent tickets | 1 hour |\n| Normal tickets | 1 business day |",
    )
    prose = P("status", "Urgent tickets get a first response within 4 hours.")
    cell = [f for f in facts(table) if "Urgent" in f.span]
    assert cell and cell[0].statement == "Ticket: Urgent tickets; First response: 1 hour."
    found = find_conflicts([Claim("s", table.id, "| Urgent tickets | 1 hour |")], {table.id: table, prose.id: prose})
    # "1 hour" in the "First response" column reads as "within 1 hour"; the normal row is another subject.
    assert [[(s.passage_id, s.value) for s in c.sides] for c in found] == [
        [(table.id, "1 hour"), (prose.id, "4 hours")]
    ]
    assert found[0].sides[0].statement == "Ticket: Urgent tickets; First response: 1 hour."


def test_only_facts_the_claims_rely_on_are_compared() -> None:
    a = P(
        "doc-a",
        "Annual plans are refundable within 30 days of purchase. Logs are kept for 400 days in the archive tier.",
    )
    b = P("doc-b", "Logs are kept for 90 days in the archive tier.")
    assert conflicts_between(a, b, "Annual plans are refundable within 30 days") == []
    assert len(conflicts_between(a, b, "Logs are kept for 400 days")) == 1


def test_the_sample_corpus_has_exactly_the_planted_conflict(sample_root) -> None:
    """Every pair of current facts in both tenants: only support-sla vs status-page disagree.

    The versioned refunds-policy (14 vs 30 days) is one document: never a conflict, and
    the store never shows both versions on one day anyway.
    """
    acme = corpus_conflicts(all_passages(sample_root, "acme"))
    assert [sorted((a.doc_id, b.doc_id)) for a, b in acme] == [["status-page", "support-sla"]]
    ((a, b),) = acme
    assert {a.shown, b.shown} == {"1 hour", "4 hours"}
    assert corpus_conflicts(all_passages(sample_root, "globex")) == []


# --------------------------------------------------------------------------- local model, library and CLI


@pytest.mark.parametrize("who", ["alice", "bob"])
def test_local_answers_with_both_sides_and_a_conflict_note(retriever, local_model, acme_pid, who: str) -> None:
    outcome = ask(URGENT, Scope.of(user(who), DAY), retriever, local_model)
    assert isinstance(outcome, Answered), getattr(outcome, "reason", None)
    sla, status = acme_pid("support-sla", "response-times"), acme_pid("status-page", "what-customers-can-expect")
    assert {sla, status} <= {p.id for p in outcome.sources}
    assert "1 hour" in outcome.answer and "4 hours" in outcome.answer
    assert len(outcome.conflicts) == 1 and set(outcome.conflicts[0].passage_ids) == {sla, status}
    (note,) = outcome.conflict_notes
    assert note.startswith("conflict: the sources disagree:") and "1 hour" in note and "4 hours" in note
    wire = outcome.to_wire().model_dump(mode="json")
    (conflict,) = wire["conflicts"]
    assert conflict["note"] == note
    numbers = {s["passage_id"]: s["n"] for s in wire["sources"]}
    assert {(s["passage_id"], s["n"], s["value"]) for s in conflict["sides"]} == {
        (sla, numbers[sla], "1 hour"),
        (status, numbers[status], "4 hours"),
    }
    # The trace: passage IDs and the verdict, no text.
    (traced,) = outcome.trace.conflicts
    assert set(traced.passage_ids) == {sla, status} and traced.verdict == "cited_all_sides"
    assert "Urgent tickets" not in outcome.trace.model_dump_json()


@pytest.mark.parametrize("who", ["hana", "carol"])
def test_a_user_who_sees_one_side_gets_a_plain_answer(retriever, local_model, acme_pid, who: str) -> None:
    outcome = ask(URGENT, Scope.of(user(who), DAY), retriever, local_model)
    assert isinstance(outcome, Answered), getattr(outcome, "reason", None)
    assert "1 hour" in outcome.answer and "4 hours" not in outcome.answer
    assert outcome.conflicts == () and outcome.to_wire().conflicts == [] and outcome.trace.conflicts == []
    assert acme_pid("status-page", "what-customers-can-expect") not in outcome.evidence_ids


def test_local_cites_the_other_side_when_told(retriever, local_model, acme_pid) -> None:
    """The conflict turn: the local model keeps its claims and adds each uncited side's own sentence."""
    sla, status = acme_pid("support-sla", "response-times"), acme_pid("status-page", "what-customers-can-expect")
    evidence = tuple(r.passage for r in retriever.search(Scope.of(user("alice"), DAY), URGENT).results)
    by_id = {p.id: p for p in evidence}
    conflicts = find_conflicts([Claim("s", sla, SLA_QUOTE)], by_id)
    assert len(conflicts) == 1
    only_sla = tuple(p for p in evidence if p.id != status)
    reply = local_model.conversation(URGENT).decide(
        Turn(URGENT, only_sla + (by_id[status],), (), frozenset({"submit_answer"}), "note", conflicts=tuple(conflicts))
    )
    assert isinstance(reply.decision, ClaimsDecision)
    cited = [c.passage_id for c in reply.decision.claims]
    assert sla in cited and status in cited
    added = next(c for c in reply.decision.claims if c.passage_id == status)
    assert added.quote.startswith(STATUS_QUOTE)


def test_local_told_about_a_conflict_through_the_loop(retriever, local_model, acme_pid) -> None:
    """Its own best units come from one page; code's conflict turn makes it cite the other page too."""
    outcome = ask(
        "What does the support SLA promise for urgent tickets?", Scope.of(user("alice"), DAY), retriever, local_model
    )
    assert isinstance(outcome, Answered), getattr(outcome, "reason", None)
    assert [c.verdict for c in outcome.trace.conflicts] == ["asked_to_cite_all_sides", "cited_all_sides"]
    assert [d.offered for d in outcome.trace.decisions][1] == ["submit_answer"]
    assert "1 hour" in outcome.answer and "4 hours" in outcome.answer and len(outcome.conflict_notes) == 1


@pytest.fixture(scope="module")
def cli_runs(sample_root) -> dict[str, Any]:
    args = {
        "alice-json": [
            "ask",
            URGENT,
            "--as",
            USERS / "alice.json",
            "--as-of",
            "2026-11-29",
            "--model",
            "local",
            "--json",
        ],
        "alice-text": ["ask", URGENT, "--as", USERS / "alice.json", "--as-of", "2026-11-29", "--model", "local"],
    }
    return dict(zip(args, cli_many(list(args.values()), index=sample_root), strict=True))


@pytest.mark.slow
def test_cli_shows_the_conflict_note(cli_runs) -> None:
    data = json_of(cli_runs["alice-json"])
    assert cli_runs["alice-json"].returncode == 0 and data["disposition"] == "answered"
    (conflict,) = data["conflicts"]
    assert len(conflict["sides"]) == 2 and {s["value"] for s in conflict["sides"]} == {"1 hour", "4 hours"}
    text = cli_runs["alice-text"]
    assert text.returncode == 0, text.stderr
    assert conflict["note"] in text.stdout


# --------------------------------------------------------------------------- LLM backends

# The conflict turn as each LLM backend sends it: test_backend_contract.py; every branch of it: test_answer_loop.py.


# --------------------------------------------------------------------------- eval


def test_eval_counts_conflict_cases(retriever, sample_passages) -> None:
    """The library-level eval, driven by the mock-transport backend, on the new sample cases."""
    from ragcli.eval import evaluate, load_cases

    text = {p.id: p.text for p in sample_passages["acme"]}

    def reply(body: dict) -> dict:
        """Cite every passage that states an urgent first-response time (the careful model)."""
        shown = am.last_user_text(body)
        claims = []
        for pid_, t in text.items():
            for quote in (SLA_QUOTE, STATUS_QUOTE):
                if quote in t and f'id="{pid_}"' in shown:
                    claims.append((quote + ".", pid_, quote))
        return am.answer_call(*claims)

    cases = [c for c in load_cases(QUESTIONS) if c.id in ("q41", "q42", "q43")]
    assert len(cases) == 3
    api = am.ScriptedAPI(*[reply] * 3)
    report = evaluate(cases, retriever, k=10, answerer=Answerer(api.model()))
    data = report.to_wire()
    assert data.conflicts_flagged == 2 and data.conflict_cases == ["q41", "q43"], [
        (r.case.id, r.disposition, r.reason) for r in report.results
    ]
    assert data.answer_accuracy == 1.0 and data.disposition_accuracy == 1.0 and data.permission_violations == 0
    assert {row.id: row.conflict for row in data.cases} == {"q41": True, "q42": False, "q43": True}
    assert json.loads(data.model_dump_json())["conflicts_flagged"] == 2
