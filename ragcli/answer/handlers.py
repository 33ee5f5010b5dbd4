"""One handler per kind of decision: what the loop does with a valid, offered decision of the model.

Each takes the run (``answer.run``) and the decision and returns the outcome
that ends the run, or None: the run goes on, and ``run.shown`` holds what the
next turn shows the model. A handler reads the run's state and changes it
only through the run's methods. Searches run as the run's scope through
``Run.model_search``; the notes they earn are worded in ``answer.notes``.

    search     one more search; one that finds nothing new closes searching
    parts      a decomposed question: each part searched, within the budget;
               parts that find nothing new fall back to the question's search
    grade      the model's grade of the evidence: irrelevant ends the run,
               missing drives one gap-filling search

A query that loses a kept term of the question (``answer.drift``) is not
searched: ``Run.refuse_query`` tells the model what it lost.
    abstain    the model's own abstention
    claims     the citation checks, the conflict rule (one turn to cite every
               side) and, with a verifier, the second judgement
"""

from __future__ import annotations

import time

from .citations import all_passed, check_claims
from .conflicts import find_conflicts, unresolved
from .notes import GAP_EMPTY_NOTE, GAP_NOTE, GRADE_NOTES, NOTHING_NEW_NOTE, parts_note
from .outcome import CitedClaim, Outcome
from .protocol import (
    AbstainDecision,
    Claim,
    ClaimsDecision,
    GradeDecision,
    SearchDecision,
    SearchPartsDecision,
    Verifier,
)
from .run import Refused, Run

ValidDecision = SearchDecision | SearchPartsDecision | GradeDecision | AbstainDecision | ClaimsDecision


def handle(run: Run, decision: ValidDecision) -> Outcome | None:
    """The decision's handler: the outcome that ends the run, or None to go on."""
    match decision:
        case SearchDecision():
            return on_search(run, decision)
        case SearchPartsDecision():
            return on_parts(run, decision)
        case GradeDecision():
            return on_grade(run, decision)
        case AbstainDecision():
            return on_abstain(run, decision)
        case ClaimsDecision():
            return on_claims(run, decision)


def on_search(run: Run, decision: SearchDecision) -> Outcome | None:
    found = run.model_search(decision.query, dropped=decision.dropped)
    if isinstance(found, Refused):
        return run.refuse_query(found)
    (new,) = found
    if not new and run.retrying_empty:
        return run.abstain("no_visible_evidence")  # the one rewrite found nothing either
    run.searched(new, "" if new else NOTHING_NEW_NOTE)
    return None


def on_parts(run: Run, decision: SearchPartsDecision) -> Outcome | None:
    """Decomposition: each part searched on its own, as the run's scope, while the search budget lasts. Parts that
    find nothing new are not the end of searching: the run falls back to the question's own search."""
    ran = decision.queries[: run.searches_left()]
    found = run.model_search(*ran, dropped=decision.dropped)
    if isinstance(found, Refused):
        return run.refuse_query(found)
    new = [p for part in found for p in part]
    note = parts_note(ran, [len(part) for part in found], len(decision.queries) - len(ran))
    if not new:
        run.fall_back([], note)
    else:
        run.show(new, note)
    return None


def on_grade(run: Run, decision: GradeDecision) -> Outcome | None:
    if decision.verdict == "irrelevant":
        return run.abstain("model_abstained")
    if decision.verdict == "missing" and decision.gap and run.search_open and run.searches_left() > 0:
        found = run.model_search(decision.gap, dropped=decision.dropped)  # the one gap-filling search
        if isinstance(found, Refused):
            return run.refuse_query(found)  # not acted on: the grade stays open
        (new,) = found
        run.graded(GAP_NOTE if new else GAP_EMPTY_NOTE, gap=new)
    else:
        run.graded(GRADE_NOTES[decision.verdict])
    return None


def on_abstain(run: Run, decision: AbstainDecision) -> Outcome:
    return run.abstain("conflicting_evidence" if run.asked_about else "model_abstained")


def on_claims(run: Run, decision: ClaimsDecision) -> Outcome | None:
    """Claims end the run: answered when every check passes and every side of a conflict is cited (verified too,
    with a verifier); else an abstention, or the one turn to cite the other sides of a conflict."""
    t = time.perf_counter()
    checks = check_claims(decision.claims, run.evidence)
    run.record_checks(checks, [c.passage_id for c in decision.claims], (time.perf_counter() - t) * 1000)
    if not all_passed(checks):
        return run.abstain("citation_check_failed")
    # Current sources that disagree on what the claims state: the answer cites every side, or it abstains.
    conflicts = find_conflicts(decision.claims, run.evidence)
    one_sided = unresolved(conflicts, (c.passage_id for c in decision.claims))
    if one_sided:
        if run.asked_about or not run.may_take_turn():
            run.trace.add_conflicts(one_sided, "unresolved")
            return run.abstain("conflicting_evidence")
        run.ask_to_cite_all_sides(one_sided)
        return None
    claims = decision.claims
    verifier = run.answerer.verifier
    if verifier is not None:
        claims = _verified(run, verifier, claims)
        if not claims:
            return run.abstain("citation_check_failed")
        kept = find_conflicts(claims, run.evidence)
        dropped_a_side = unresolved(kept, (c.passage_id for c in claims))
        if dropped_a_side:
            run.trace.add_conflicts(dropped_a_side, "unresolved")
            return run.abstain("conflicting_evidence")
        conflicts = kept
    if conflicts:
        run.trace.add_conflicts(conflicts, "cited_all_sides")
    return run.answer([CitedClaim(c.statement, run.evidence[c.passage_id], c.quote) for c in claims], conflicts)


def _verified(run: Run, verifier: Verifier, claims: tuple[Claim, ...]) -> tuple[Claim, ...]:
    """The claims the verifier judged supported (none when it failed), its verdicts in the trace."""
    t = time.perf_counter()
    passages = {c.passage_id: run.evidence[c.passage_id] for c in claims}
    reply = verifier.verify(run.question, claims, passages, deadline=run.deadline)
    run.record_verification(claims, reply, (time.perf_counter() - t) * 1000)
    if reply.supported is None:
        return ()
    return tuple(c for c, ok in zip(claims, reply.supported, strict=True) if ok)
