"""``Run``: the state of one ask, in one object, from the first search to the outcome.

It holds what the run found (evidence, how each passage was found, what the
last search cut), what it spent (searches, tokens, time), what the next turn
shows the model (new passages, a note from code, a conflict to resolve) and
which tools are still open. Every search goes through it, as the run's scope:
the question's own (``search_question``) and the model's (``model_search``,
the one place a query the model wrote enters the loop). It ends the run with
``answer`` or ``abstain``, which close the trace.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from ..passage import Passage
from ..principal import Scope
from ..search import Retriever, SearchResponse
from .citations import CheckResult
from .outcome import Abstained, Answered, CitedClaim, ReasonCode
from .protocol import AnswerModel, Conflict, Found, ToolName, Turn, Usage, Verifier
from .setup import Limits
from .tools import MIN_PARTS
from .trace import Trace


@dataclass
class Shown:
    """What the next turn shows the model besides the evidence: set by the step that led to it."""

    new: list[Passage] = field(default_factory=list)
    """Passages the last step found (they are also in the evidence)."""
    note: str = ""
    """A fact from code about the last step (``answer.notes``)."""
    note_only: bool = False
    """The last step ran no search (a grade): its result is the note alone."""


class Run:
    """One ask: its scope, model, limits, evidence, budgets, what the next turn shows, and its trace."""

    def __init__(
        self,
        question: str,
        scope: Scope,
        retriever: Retriever,
        model: AnswerModel,
        limits: Limits,
        verifier: Verifier | None,
        prompt_version: str,
    ) -> None:
        self.question = question
        self.scope = scope
        self.retriever = retriever
        self.model = model
        self.limits = limits
        self.verifier = verifier
        self.started = time.monotonic()
        self.deadline = self.started + limits.timeout_s
        """When the run's wall-clock budget ends (``time.monotonic()``)."""
        self.request_id = uuid.uuid4().hex
        self.trace = Trace.start(self.request_id, scope, model.name, prompt_version)
        # What was found and spent.
        self.evidence: dict[str, Passage] = {}
        self.found: dict[str, Found] = {}
        self.omitted = 0
        """Passages the last search (or decomposed search) ranked but cut at k."""
        self.searches = 0
        self.usage = Usage()
        self.checks: list[CheckResult] = []
        self.verified: tuple[bool, ...] | None = None
        self.submitted_answer: str | None = None
        # Where the conversation stands.
        self.turn_number = 0
        self.shown = Shown()
        self.search_open = limits.max_searches > 1
        """Whether the model may still search (closed by a search that found nothing new)."""
        self.grade_open = limits.plan
        """Whether ``grade_evidence`` is still offered (once per run, with ``--plan``)."""
        self.retrying_empty = False
        """The first search found nothing: this turn is the model's one chance to search with other words."""
        self.asked_about: tuple[Conflict, ...] = ()
        """The conflicts of the one conflict turn, once given (the model must then cite every side, or abstain)."""

    # -- searching, always as the run's scope ---------------------------------------

    def search_question(self) -> list[Passage]:
        """The first search: the question itself."""
        return self._search(self.question)

    def model_search(self, query: str) -> list[Passage]:
        """A search the model asked for (``search``, a part of ``search_parts``, a grade's gap): the one place a
        query the model wrote enters the loop. Returns the passages not seen before."""
        return self._search(query)

    def prepare(self, queries: tuple[str, ...]) -> None:
        """Embed the model's queries of a decomposed search in one model call, before each is searched."""
        self.retriever.prepare(self.scope, queries)

    def _search(self, query: str) -> list[Passage]:
        t = time.perf_counter()
        # Evidence is not a list for a person to read: the answer may sit in a document's third-best section
        # (uv docs, "turn on all preview features"), so the per-document limit of results lists is off here.
        response = self.retriever.search(self.scope, query, config=replace(self.retriever.config, per_doc=0))
        self.searches += 1
        new = self._take(response)
        cut = {c.id for c in (*response.bm25_candidates, *response.dense_candidates) if c.status == "cut_at_k"}
        self.omitted = len(cut - set(self.evidence))
        ms = (time.perf_counter() - t) * 1000
        self.trace.record_index(response, self.retriever.index_for(self.scope.tenant))
        self.trace.add_search(response, [p.id for p in new], ms)
        return new

    def _take(self, response: SearchResponse) -> list[Passage]:
        """The results not seen before join the evidence, then (for a model that reads the evidence as a whole)
        the sections they point at ("the table above"): citable and checked like any passage, but unranked."""
        new: list[Passage] = []
        for r in response.results:
            if r.passage.id not in self.evidence:
                new.append(r.passage)
                self.evidence[r.passage.id] = r.passage
                self.found[r.passage.id] = Found(
                    r.rank, len(response.results), r.dense.score if r.dense else None, r.bm25.rank if r.bm25 else None
                )
        if self.model.expands_neighbours:
            for p in self.retriever.pointed_at(self.scope, response, self.evidence):
                self.evidence[p.id] = p
                new.append(p)
        return new

    # -- the next turn ----------------------------------------------------------------

    def show(self, new: list[Passage] | None = None, note: str = "", *, note_only: bool = False) -> None:
        """What the next turn shows the model: the step's new passages and code's note about it."""
        self.shown = Shown(list(new or ()), note, note_only)

    def searches_left(self) -> int:
        return self.limits.max_searches - self.searches

    def offered(self) -> frozenset[ToolName]:
        """The tools of this turn: ``search`` while the budget lasts and searches find something new,
        ``search_parts`` on the first turn only, ``grade_evidence`` once; on the conflict turn ``submit_answer``
        alone."""
        tools: set[ToolName] = {"submit_answer"}
        if self.search_open and self.searches_left() > 0 and not self.asked_about:
            tools.add("search")
            first = self.turn_number == 1 and not self.retrying_empty
            if self.limits.plan and first and self.searches_left() >= MIN_PARTS:
                tools.add("search_parts")
        if self.grade_open and not self.retrying_empty and not self.asked_about:
            tools.add("grade_evidence")
        return frozenset(tools)

    def turn(self, tools: frozenset[ToolName]) -> Turn:
        shown = self.shown
        return Turn(
            self.question,
            tuple(self.evidence.values()),
            tuple(shown.new),
            tools,
            shown.note,
            found=dict(self.found),
            omitted=0 if self.asked_about or shown.note_only else self.omitted,
            conflicts=self.asked_about,
            note_only=shown.note_only,
        )

    def out_of_budget(self) -> bool:
        """The wall-clock or token budget is spent (checked after each model call)."""
        return time.monotonic() > self.deadline or self.usage.total > self.limits.max_tokens

    # -- the end ----------------------------------------------------------------------

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
