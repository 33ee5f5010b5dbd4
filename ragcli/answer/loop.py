"""The bounded answer loop: the model proposes, code decides.

The loop owns everything that matters for safety and cost: which scope every
search runs as, how many searches happen, which tools the model is offered
on each turn, and whether the claims it submits are supported. The model's
only exits are claims that pass the citation checks, or an abstention;
everything else (an invalid tool call, a tool it was not offered, a blown
budget) ends in an abstention with a reason code.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from typing import Any, Literal

from ..passage import Passage
from ..principal import Scope
from ..search import Retriever
from .citations import CheckResult, all_passed, check_claims
from .outcome import Abstained, Answered, CitedClaim, Outcome, ReasonCode
from .protocol import AbstainDecision, AnswerModel, ClaimsDecision, InvalidDecision, SearchDecision, ToolName, Turn, Usage
from .trace import Trace

PROMPT_VERSION = "2026-11-29.1"

RETRY_NOTE = "The first search found no passages. You may search once more with different words, or abstain."
NOTHING_NEW_NOTE = "That search found no new passages; no more searches are allowed."


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


class _Run:
    """State of one ask: evidence, counters, trace. Lives for one question."""

    def __init__(self, scope: Scope, retriever: Retriever, model: AnswerModel, limits: Limits) -> None:
        self.scope = scope
        self.retriever = retriever
        self.model = model
        self.limits = limits
        self.started = time.monotonic()
        self.evidence: dict[str, Passage] = {}
        self.searches = 0
        self.usage = Usage()
        self.checks: list[CheckResult] = []
        self.request_id = uuid.uuid4().hex
        self.trace = Trace.start(self.request_id, scope, model.name, PROMPT_VERSION)

    def search(self, query: str) -> list[Passage]:
        """Search as the run's scope, always; return the passages not seen before."""
        t = time.perf_counter()
        response = self.retriever.search(self.scope, query)
        self.searches += 1
        new = [r.passage for r in response.results if r.passage.id not in self.evidence]
        for p in new:
            self.evidence[p.id] = p
        ms = (time.perf_counter() - t) * 1000
        self.trace.record_index(response, self.retriever.index_for(self.scope.tenant))
        self.trace.add_search(response, [p.id for p in new], ms)
        return new

    def out_of_budget(self) -> bool:
        return time.monotonic() - self.started > self.limits.timeout_s or self.usage.total > self.limits.max_tokens

    def abstain(self, reason: ReasonCode) -> Abstained:
        self._finish("abstained", reason)
        return Abstained(reason=reason, **self._record())

    def answer(self, claims: list[CitedClaim]) -> Answered:
        self._finish("answered", None)
        return Answered(claims=tuple(claims), **self._record())

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
        )


def ask(question: str, scope: Scope, retriever: Retriever, model: AnswerModel, *, limits: Limits | None = None) -> Outcome:
    """Answer ``question`` from what ``scope`` may see, or abstain with a reason."""
    limits = limits or Limits()
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
    for turn_number in range(1, limits.max_turns + 1):
        tools: set[ToolName] = {"submit_answer"}
        if search_open and run.searches < limits.max_searches:
            tools.add("search")
        t = time.perf_counter()
        reply = conversation.decide(Turn(question, tuple(run.evidence.values()), tuple(new), frozenset(tools), note))
        run.trace.add_model_time((time.perf_counter() - t) * 1000)
        run.usage.add(reply.usage)
        decision = reply.decision
        run.trace.add_decision(turn_number, decision, offered=sorted(tools), request_id=reply.request_id)
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
        if isinstance(decision, AbstainDecision):
            return run.abstain("model_abstained")
        assert isinstance(decision, ClaimsDecision)
        t = time.perf_counter()
        run.checks = check_claims(decision.claims, run.evidence)
        run.trace.add_checks(run.checks, [c.passage_id for c in decision.claims], (time.perf_counter() - t) * 1000)
        if not all_passed(run.checks):
            return run.abstain("citation_check_failed")
        return run.answer([CitedClaim(c.statement, run.evidence[c.passage_id], c.quote) for c in decision.claims])
    return run.abstain("budget_exhausted")
