"""The bounded answer loop: the model proposes, code decides.

The loop owns everything that matters for safety and cost: which scope every
search runs as, how many searches happen, which tools the model is offered
on each turn, and whether the claims it submits are supported. The model's
only exits are claims that pass the citation checks, or an abstention;
everything else (an invalid tool call, a tool it was not offered, a blown
budget) ends in an abstention with a reason code.

Claims that pass the checks go through the conflict rule (``answer.conflicts``):
when another current, visible document states a different value for what a
claim relies on, the answer must cite every side (and shows a conflict note);
a model that cited one side gets one turn to cite them all, else the run
abstains with ``conflicting_evidence``. ``Limits.plan`` offers decomposition
(``search_parts``) and grading (``grade_evidence``); a ``verifier`` judges
the surviving claims once more (``--verify``).
"""

from __future__ import annotations

import re
import time
import uuid
from dataclasses import dataclass
from typing import Any, Literal

from ..passage import Passage
from ..principal import Scope
from ..search import Retriever, SearchResponse
from .citations import CheckResult, all_passed, check_claims
from .conflicts import find_conflicts, unresolved
from .outcome import Abstained, Answered, CitedClaim, Outcome, ReasonCode
from .protocol import (
    AbstainDecision,
    AnswerModel,
    Claim,
    ClaimsDecision,
    Conflict,
    Found,
    GradeDecision,
    InvalidDecision,
    SearchDecision,
    SearchPartsDecision,
    ToolName,
    Turn,
    Usage,
    Verifier,
)
from .tools import MIN_PARTS
from .trace import Trace

PROMPT_VERSION = "2026-12-01.1"

RETRY_NOTE = "The first search found no passages. You may search once more with different words, or abstain."
NOTHING_NEW_NOTE = "That search found no new passages; no more searches are allowed."


_THING = r"(?:tables?|lists?|examples?|steps?|sections?|code|snippets?|commands?|diagrams?)"
POINTS_UP = re.compile(rf"\b{_THING}\s+above\b|\bsee\s+above\b", re.IGNORECASE)
POINTS_DOWN = re.compile(rf"\b{_THING}\s+below\b|\bsee\s+below\b|\b(?:as follows|the following)\s*:\s*$", re.IGNORECASE)
"""A passage that points at a neighbour: "the table above" (the section before), "(see below)" or
"… the following:" at its end (the section after)."""
MAX_NEIGHBOURS = 2
"""Neighbour sections added per search at most: the expansion is bounded, like the search itself."""


def neighbour_steps(text: str) -> tuple[int, ...]:
    """Which neighbours ``text`` points at: -1 the section before, 1 the section after; () none."""
    text = text.strip()
    return tuple(step for step, pattern in ((-1, POINTS_UP), (1, POINTS_DOWN)) if pattern.search(text))


GRADE_NOTES = {
    "sufficient": "Graded sufficient. Now call submit_answer.",
    "conflicting": (
        "Graded conflicting. Do not pick one value: cite every passage that states one, each in its own claim, "
        "or abstain."
    ),
    "missing": (
        "No search was run for the gap (none is left, or no gap was named). "
        "Answer what the evidence supports, or abstain."
    ),
}
GAP_NOTE = "These passages were found for the gap. Now call submit_answer."
GAP_EMPTY_NOTE = "The gap-filling search found no new passages; no more searches are allowed."


def parts_note(ran: tuple[str, ...], counts: list[int], skipped: int) -> str:
    """What code tells the model after a decomposed search: how many new passages each part found."""
    lines = [
        f"Searched {len(ran)} parts: "
        + "; ".join(f"{q!r} found {n} new" for q, n in zip(ran, counts, strict=True))
        + "."
    ]
    if skipped:
        lines.append(f"{skipped} more parts were not searched: the search budget is spent.")
    return "\n".join(lines)


def conflict_note(conflicts: list[Conflict]) -> str:
    """What code tells the model when its claims relied on one side of a conflict: IDs and values only."""
    lines = [
        "Your answer was not accepted yet: current passages that this employee may read state different values "
        "for the same thing, and the answer cited only one side."
    ]
    for c in conflicts:
        lines.append("- " + "; ".join(f"passage {s.passage_id} says {s.value}" for s in c.sides))
    lines.append(
        "Do not pick one. Call submit_answer again with claims that cite every one of these passages, "
        "each claim saying what its own passage states, or abstain."
    )
    return "\n".join(lines)


@dataclass(frozen=True)
class Limits:
    """The run's budgets; every field is a CLI flag."""

    max_searches: int = 3
    """Searches in all, the first (the question itself) included."""
    max_turns: int = 6
    max_tokens: int = 200_000
    timeout_s: float = 120.0
    retry_on_empty: bool = True
    """Let a model that supports it rewrite a query whose first search found nothing."""
    plan: bool = False
    """Offer the LLM ``search_parts`` (decomposition, on the first turn) and ``grade_evidence`` (once; a ``missing``
    verdict drives one gap-filling search). Every search still counts against ``max_searches``."""


class _Run:
    """State of one ask: evidence, counters, trace. Lives for one question."""

    def __init__(self, scope: Scope, retriever: Retriever, model: AnswerModel, limits: Limits) -> None:
        self.scope = scope
        self.retriever = retriever
        self.model = model
        self.limits = limits
        self.started = time.monotonic()
        self.evidence: dict[str, Passage] = {}
        self.found: dict[str, Found] = {}
        self.omitted = 0
        """Passages the last search ranked but cut at k."""
        self.searches = 0
        self.usage = Usage()
        self.checks: list[CheckResult] = []
        self.verified: tuple[bool, ...] | None = None
        self.submitted_answer: str | None = None
        self.request_id = uuid.uuid4().hex
        self.trace = Trace.start(self.request_id, scope, model.name, PROMPT_VERSION)

    def search(self, query: str) -> list[Passage]:
        """Search as the run's scope, always; return the passages not seen before."""
        t = time.perf_counter()
        response = self.retriever.search(self.scope, query)
        self.searches += 1
        new: list[Passage] = []
        for r in response.results:
            if r.passage.id not in self.evidence:
                new.append(r.passage)
                self.evidence[r.passage.id] = r.passage
                self.found[r.passage.id] = Found(
                    r.rank, len(response.results), r.dense.score if r.dense else None, r.bm25.rank if r.bm25 else None
                )
        if self.model.expands_neighbours:
            new += self._neighbours(response)
        cut = {c.id for c in (*response.bm25_candidates, *response.dense_candidates) if c.status == "cut_at_k"}
        self.omitted = len(cut - set(self.evidence))
        ms = (time.perf_counter() - t) * 1000
        self.trace.record_index(response, self.retriever.index_for(self.scope.tenant))
        self.trace.add_search(response, [p.id for p in new], ms)
        return new

    def _neighbours(self, response: SearchResponse) -> list[Passage]:
        """Sections the new results point at ("the table above"), from the same document, visible to the run's scope.

        Bounded by ``MAX_NEIGHBOURS`` per search; they join the evidence like search results (citable,
        checked the same way) but carry no rank, since no search ranked them.
        """
        added: list[Passage] = []
        for r in response.results:
            if len(added) >= MAX_NEIGHBOURS:
                break
            steps = neighbour_steps(r.passage.text)
            if not steps:
                continue
            for p in self.retriever.neighbours(self.scope, response, r, steps):
                if p.id not in self.evidence and len(added) < MAX_NEIGHBOURS:
                    self.evidence[p.id] = p
                    added.append(p)
        return added

    def out_of_budget(self) -> bool:
        return time.monotonic() - self.started > self.limits.timeout_s or self.usage.total > self.limits.max_tokens

    def abstain(self, reason: ReasonCode) -> Abstained:
        self._finish("abstained", reason)
        return Abstained(reason=reason, **self._record())

    def answer(self, claims: list[CitedClaim], conflicts: list[Conflict] | None = None) -> Answered:
        self._finish("answered", None)
        return Answered(claims=tuple(claims), conflicts=tuple(conflicts or ()), **self._record())

    def _finish(self, disposition: Literal["answered", "abstained"], reason: ReasonCode | None) -> None:
        self.trace.finish(disposition, reason, self.usage, (time.monotonic() - self.started) * 1000)

    def _record(self) -> dict[str, Any]:
        return dict(
            searches=self.searches,
            model=self.model.name,
            request_id=self.request_id,
            usage=self.usage,
            evidence_ids=tuple(self.evidence),
            checks=tuple(self.checks),
            trace=self.trace,
            verified=self.verified,
            submitted_answer=self.submitted_answer,
        )


def ask(
    question: str,
    scope: Scope,
    retriever: Retriever,
    model: AnswerModel,
    *,
    limits: Limits | None = None,
    verifier: Verifier | None = None,
) -> Outcome:
    """Answer ``question`` from what ``scope`` may see, or abstain with a reason.

    With ``verifier`` (``--verify``), claims that passed every check and the conflict rule go to a second
    model: a claim it judges unsupported is dropped; when none is left, or a dropped claim was one side of a
    conflict, or the verifier fails (timeout, API error, no verdict per claim), the run abstains
    (``citation_check_failed``; ``conflicting_evidence`` for a dropped side).
    """
    limits = limits or Limits()
    # Lone surrogates (undecodable argv bytes, a JSON "\ud800" escape) cannot be encoded for a model: "?" instead.
    question = question.encode("utf-8", "replace").decode("utf-8")
    run = _Run(scope, retriever, model, limits)
    conversation = model.conversation(question)
    new = run.search(question)
    note = ""
    if not new:
        if not (model.retry_on_empty and limits.retry_on_empty and limits.max_searches > 1):
            return run.abstain("no_visible_evidence")
        note = RETRY_NOTE
    search_open = limits.max_searches > 1
    retrying_empty = not new
    asked_about: tuple[Conflict, ...] = ()
    """The conflicts of the one conflict turn, once given (the model must then cite every side, or abstain)."""
    grade_open = limits.plan
    note_only = False
    for turn_number in range(1, limits.max_turns + 1):
        tools: set[ToolName] = {"submit_answer"}
        if search_open and run.searches < limits.max_searches and not asked_about:
            tools.add("search")
            if (
                limits.plan
                and turn_number == 1
                and not retrying_empty
                and limits.max_searches - run.searches >= MIN_PARTS
            ):
                tools.add("search_parts")
        if grade_open and not retrying_empty and not asked_about:
            tools.add("grade_evidence")
        t = time.perf_counter()
        turn = Turn(
            question,
            tuple(run.evidence.values()),
            tuple(new),
            frozenset(tools),
            note,
            found=dict(run.found),
            omitted=0 if asked_about or note_only else run.omitted,
            conflicts=asked_about,
            note_only=note_only,
        )
        note_only = False
        reply = conversation.decide(turn)
        run.trace.add_model_time((time.perf_counter() - t) * 1000)
        run.usage.add(reply.usage)
        decision = reply.decision
        run.trace.add_decision(
            turn_number, decision, offered=sorted(tools), request_id=reply.request_id, verdict=reply.verdict
        )
        if retrying_empty and not isinstance(decision, SearchDecision):
            # The one rewrite turn was not used to search: nothing visible to answer from.
            return run.abstain("no_visible_evidence")
        if isinstance(decision, InvalidDecision):
            return run.abstain("invalid_decision")
        if run.out_of_budget():
            return run.abstain("budget_exhausted")
        if decision.tool not in tools:
            exhausted = decision.tool == "search" and run.searches >= limits.max_searches
            return run.abstain("budget_exhausted" if exhausted else "invalid_decision")
        if isinstance(decision, SearchDecision):
            new = run.search(decision.query)
            note = "" if new else NOTHING_NEW_NOTE
            if not new:
                search_open = False
                if retrying_empty:
                    return run.abstain("no_visible_evidence")
            retrying_empty = False
            continue
        if isinstance(decision, SearchPartsDecision):
            # Decomposition: each part searched on its own, as the run's scope, within the search budget.
            ran = decision.queries[: limits.max_searches - run.searches]
            run.retriever.prepare(run.scope, ran)  # the parts' query vectors in one model call
            new, counts, omitted = [], [], 0
            for query in ran:
                found = run.search(query)
                new += found
                counts.append(len(found))
                omitted += run.omitted
            run.omitted = omitted
            note = parts_note(ran, counts, len(decision.queries) - len(ran))
            if not new:
                search_open = False
            continue
        if isinstance(decision, GradeDecision):
            grade_open = False
            if decision.verdict == "irrelevant":
                return run.abstain("model_abstained")
            if decision.verdict == "missing" and decision.gap and search_open and run.searches < limits.max_searches:
                new = run.search(decision.gap)  # the one gap-filling search
                note = GAP_NOTE if new else GAP_EMPTY_NOTE
                if not new:
                    search_open = False
            else:
                new, note, note_only = [], GRADE_NOTES[decision.verdict], True
            continue
        if isinstance(decision, AbstainDecision):
            return run.abstain("conflicting_evidence" if asked_about else "model_abstained")
        assert isinstance(decision, ClaimsDecision)
        t = time.perf_counter()
        run.checks = check_claims(decision.claims, run.evidence)
        run.trace.add_checks(run.checks, [c.passage_id for c in decision.claims], (time.perf_counter() - t) * 1000)
        if not all_passed(run.checks):
            return run.abstain("citation_check_failed")
        # Current sources that disagree on what the claims state: the answer cites every side, or it abstains.
        conflicts = find_conflicts(decision.claims, run.evidence)
        one_sided = unresolved(conflicts, (c.passage_id for c in decision.claims))
        if one_sided:
            if asked_about or turn_number >= limits.max_turns:
                run.trace.add_conflicts(one_sided, "unresolved")
                return run.abstain("conflicting_evidence")
            run.trace.add_conflicts(one_sided, "asked_to_cite_all_sides")
            asked_about, new, note = tuple(one_sided), [], conflict_note(one_sided)
            continue
        claims = decision.claims
        if verifier is not None:
            claims = _verified(run, verifier, question, claims)
            if not claims:
                return run.abstain("citation_check_failed")
            kept = find_conflicts(claims, run.evidence)
            if unresolved(kept, (c.passage_id for c in claims)):
                run.trace.add_conflicts(unresolved(kept, (c.passage_id for c in claims)), "unresolved")
                return run.abstain("conflicting_evidence")
            conflicts = kept
        if conflicts:
            run.trace.add_conflicts(conflicts, "cited_all_sides")
        return run.answer([CitedClaim(c.statement, run.evidence[c.passage_id], c.quote) for c in claims], conflicts)
    return run.abstain("conflicting_evidence" if asked_about else "budget_exhausted")


def _verified(run: _Run, verifier: Verifier, question: str, claims: tuple[Claim, ...]) -> tuple[Claim, ...]:
    """The claims the verifier judged supported (none when it failed), its verdicts in the trace."""
    run.submitted_answer = " ".join(c.statement.strip() for c in claims)
    t = time.perf_counter()
    reply = verifier.verify(question, claims, {c.passage_id: run.evidence[c.passage_id] for c in claims})
    run.trace.add_model_time((time.perf_counter() - t) * 1000)
    run.usage.add(reply.usage)
    run.trace.add_verification(
        verifier.name, [c.passage_id for c in claims], reply.supported, reply.error, reply.request_id
    )
    if reply.supported is None:
        return ()
    run.verified = reply.supported
    return tuple(c for c, ok in zip(claims, reply.supported, strict=True) if ok)
