"""``Run``: the state of one ask, in one object, from the first search to the outcome.

It holds what the run found (evidence, how each passage was found, what the
last search cut), what it spent (searches, tokens, time), what the next turn
shows the model (new passages, a note from code, a conflict to resolve) and
which tools are still open. Every search goes through it, as the run's scope:
the question's own (``start``) and the model's (``model_search``,
the one place a query the model wrote enters the loop, checked there against
what the question asks about: ``answer.drift``). A decision code refuses to
act on as given (a query that lost a kept term, a decomposition that could not
be used) goes through ``refuse_query`` or ``fall_back``. The loop and the
handlers (``answer.handlers``) read its state and change it only through its
methods (``searched``, ``graded``, ``ask_to_cite_all_sides``, ``record_checks``,
``record_verification``, ``spent``, ``next_turn``). It ends the run with
``answer`` or ``abstain``, which close the trace.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal

from ..passage import Passage
from ..principal import Scope
from ..search import Retriever, SearchConfig, SearchResponse, SearchResult
from .citations import CheckResult
from .notes import PARTS_FALLBACK_NOTE, RETRY_NOTE, conflict_note, drift_note
from .outcome import Abstained, Answered, CitedClaim, ReasonCode
from .protocol import Claim, Conflict, Found, ToolName, Turn, Usage, VerifierReply
from .setup import Answerer

if TYPE_CHECKING:
    from .drift import Term
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


@dataclass(frozen=True)
class Refused:
    """A decision whose queries lost a kept term of the question: not searched (``Run.model_search``)."""

    lost: tuple[Term, ...]


def evidence_config(config: SearchConfig) -> SearchConfig:
    """How a run searches for evidence, which is not a list for a person to read.

    No per-document limit: the answer may sit in a document's third-best section (uv docs, "turn on all
    preview features"). Each ranker's best hit is kept though fusion placed it below k: what one ranker
    alone ranks first held the answer for 6 of 253 development questions that the fused top five missed.
    """
    return replace(config, per_doc=0, ranker_tops=1)


def found_by(result: SearchResult, of: int, generation: str = "") -> Found:
    """How ``result`` was found, as the model is told (``protocol.Found``), and where (its row in ``generation``)."""
    return Found(
        result.rank,
        of,
        result.dense.score if result.dense else None,
        result.bm25.rank if result.bm25 else None,
        result.dense.rank if result.dense else None,
        result.row,
        generation,
    )


REFUSED_QUERIES = 1
"""Queries a run refuses for drift and goes on: the model is told what its query lost and decides again. The next
one that loses a term ends the run ``invalid_decision``, as any invalid decision does."""


class Run:
    """One ask: its scope, answerer, evidence, budgets, what the next turn shows, and its trace.

    Its state changes only through its own methods (the loop and the handlers call them, and read the state)."""

    def __init__(
        self, question: str, scope: Scope, retriever: Retriever, answerer: Answerer, prompt_version: str
    ) -> None:
        self.question = question
        self.scope = scope
        self.retriever = retriever
        self.answerer = answerer
        """The backend, its limits, switches and verifier (read, never changed)."""
        self.started = time.monotonic()
        self.deadline = self.started + answerer.limits.timeout_s
        """When the run's wall-clock budget ends (``time.monotonic()``)."""
        self.request_id = uuid.uuid4().hex
        self.trace = Trace.start(self.request_id, scope, answerer.model.name, prompt_version)
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
        self.search_open = answerer.limits.may_search_again
        """Whether the model may still search (closed by a search that found nothing new)."""
        self.grade_open = answerer.plan
        """Whether ``grade_evidence`` is still offered (once per run, with ``--plan``)."""
        self.retrying_empty = False
        """The first search found nothing: this turn is the model's one chance to search with other words."""
        self.asked_about: tuple[Conflict, ...] = ()
        """The conflicts of the one conflict turn, once given (the model must then cite every side, or abstain)."""
        self.refused = 0
        """Decisions refused for query drift (each cost a model call, none was acted on)."""
        self.fell_back = False
        """A decomposition could not be used and the run went on from the question's search (once per run)."""

    @cached_property
    def kept(self) -> tuple[Term, ...]:
        """What every query the model writes must keep of the question (``answer.drift``).

        Worked out when the model first writes a query: the local answerer writes none, and its
        start does not load ``answer.drift`` (its patterns and types cost a cold ``ask`` ~5 ms)."""
        from .drift import must_keep

        return must_keep(self.question)

    # -- searching, always as the run's scope ---------------------------------------

    def start(self) -> Abstained | None:
        """The first search, the question itself, and what the first turn shows; or the abstention when it found
        nothing visible and the model may not search with other words (``Answerer.may_retry_empty``)."""
        new = self._search(self.question, "question")
        if not new:
            if not self.answerer.may_retry_empty:
                return self.abstain("no_visible_evidence")
            self.retrying_empty = True
        self.show(new, "" if new else RETRY_NOTE)
        return None

    def model_search(self, *queries: str, dropped: Sequence[str] = ()) -> list[list[Passage]] | Refused:
        """The searches of one decision of the model (``search``, the parts of ``search_parts``, a grade's gap):
        the one place a query the model wrote enters the loop. The queries must keep the question's identifiers,
        numbers with units, quoted phrases and negations (``answer.drift``; the parts of one decision together),
        unless ``dropped`` names them: else nothing is searched and ``Refused`` says what was lost. Returns,
        per query, the passages not seen before; ``omitted`` sums what the searches cut at k."""
        from .drift import drift

        checked = drift(self.kept, queries, dropped)
        if checked.lost:
            return Refused(checked.lost)
        self.trace.add_dropped([t.text for t in checked.dropped])
        if len(queries) > 1:
            self.retriever.prepare(self.scope, queries)  # the parts' query vectors in one model call
        found, omitted = [], 0
        for query in queries:
            found.append(self._search(query, "model"))
            omitted += self.omitted
        self.omitted = omitted
        return found

    def refuse_query(self, refused: Refused) -> Abstained | None:
        """A decision whose query lost a kept term: not acted on, recorded as an invalid decision (``query_drift``).
        The model is told what was lost and decides again, ``REFUSED_QUERIES`` times a run; then the run ends."""
        self.trace.add_repair("query_drift", lost=[t.text for t in refused.lost])
        self.refused += 1
        if self.refused > REFUSED_QUERIES:
            return self.abstain("invalid_decision")
        self.show([], drift_note([t.shown for t in refused.lost]), note_only=True)
        return None

    def fall_back(self, new: list[Passage] | None = None, note: str = "") -> None:
        """A decomposition that was malformed or found nothing new: the run goes on from the question's own search,
        searching still open (within the budget), ``search_parts`` no longer offered; the trace says so."""
        self.trace.add_repair("parts_fallback")
        self.fell_back = True
        self.show(new, f"{note}\n{PARTS_FALLBACK_NOTE}" if note else PARTS_FALLBACK_NOTE, note_only=not note)

    def may_fall_back(self, tool: str | None, offered: frozenset[ToolName]) -> bool:
        """Whether an invalid ``search_parts`` call falls back to the question's search instead of ending the run."""
        return tool == "search_parts" and tool in offered and not self.fell_back

    def _search(self, query: str, by: Literal["question", "model"]) -> list[Passage]:
        t = time.perf_counter()
        response = self.retriever.search(self.scope, query, config=evidence_config(self.retriever.config))
        self.searches += 1
        new = self._take(response)
        cut = {c.id for c in (*response.bm25_candidates, *response.dense_candidates) if c.status == "cut_at_k"}
        self.omitted = len(cut - set(self.evidence))
        ms = (time.perf_counter() - t) * 1000
        self.trace.record_index(response, self.retriever.index_for(self.scope.tenant))
        self.trace.add_search(response, [p.id for p in new], ms, by)
        return new

    def _take(self, response: SearchResponse) -> list[Passage]:
        """The results not seen before join the evidence, then (for a model that reads the evidence as a whole)
        the sections they point at ("the table above"): citable and checked like any passage, but unranked."""
        new: list[Passage] = []
        for r in response.results:
            if r.passage.id not in self.evidence:
                new.append(r.passage)
                self.evidence[r.passage.id] = r.passage
                self.found[r.passage.id] = found_by(r, len(response.results), response.generation)
        if self.answerer.model.expands_neighbours:
            for p in self.retriever.pointed_at(self.scope, response, self.evidence):
                self.evidence[p.id] = p
                new.append(p)
        return new

    # -- the next turn ----------------------------------------------------------------

    def show(self, new: list[Passage] | None = None, note: str = "", *, note_only: bool = False) -> None:
        """What the next turn shows the model: the step's new passages and code's note about it."""
        self.shown = Shown(list(new or ()), note, note_only)

    def searched(self, new: list[Passage], note: str) -> None:
        """A search of the model's ran: one that found nothing new closes searching; the rewrite turn is over."""
        if not new:
            self.search_open = False
        self.retrying_empty = False
        self.show(new, note)

    def graded(self, note: str, gap: list[Passage] | None = None) -> None:
        """The model's one grade was acted on: grading closes. ``gap``: what its gap-filling search found (nothing
        new closes searching); None when it drove no search (the note is then the turn's whole result)."""
        self.grade_open = False
        if gap is not None and not gap:
            self.search_open = False
        self.show(gap or [], note, note_only=gap is None)

    def ask_to_cite_all_sides(self, conflicts: Sequence[Conflict]) -> None:
        """The one conflict turn: the model must cite every side of ``conflicts`` (``submit_answer`` alone), or
        abstain."""
        self.trace.add_conflicts(list(conflicts), "asked_to_cite_all_sides")
        self.asked_about = tuple(conflicts)
        self.show([], conflict_note(list(conflicts)))

    def record_checks(self, checks: list[CheckResult], cited: list[str], ms: float) -> None:
        """The citation checks of the claims submitted (the outcome carries them), in the trace too."""
        self.checks = checks
        self.trace.add_checks(checks, cited, ms, self.evidence)

    def record_verification(self, claims: Sequence[Claim], reply: VerifierReply, ms: float) -> None:
        """The verifier's judgement of ``claims`` (the answer as submitted, and its verdicts when it gave them)."""
        verifier = self.answerer.verifier
        assert verifier is not None
        self.submitted_answer = " ".join(c.statement.strip() for c in claims)
        self.trace.add_model_time(ms)
        self.spent(reply.usage)
        self.trace.add_verification(
            verifier.name, [c.passage_id for c in claims], reply.supported, reply.error, reply.request_id
        )
        self.verified = reply.supported

    def spent(self, usage: Usage) -> None:
        """Tokens a model call reported (the token budget counts them)."""
        self.usage.add(usage)

    def may_take_turn(self) -> bool:
        """Whether ``max_turns`` leaves another model call."""
        return self.turn_number < self.answerer.limits.max_turns

    def next_turn(self) -> frozenset[ToolName]:
        """The next model call begins: its number, and the tools it is offered."""
        self.turn_number += 1
        return self.offered()

    def searches_left(self) -> int:
        return self.answerer.limits.max_searches - self.searches

    def offered(self) -> frozenset[ToolName]:
        """The tools of this turn: ``search`` while the budget lasts and searches find something new,
        ``search_parts`` on the first turn only, ``grade_evidence`` once; on the conflict turn ``submit_answer``
        alone."""
        tools: set[ToolName] = {"submit_answer"}
        if self.search_open and self.searches_left() > 0 and not self.asked_about:
            tools.add("search")
            # The first decision code acts on (a refused query does not count), and never after a fallback.
            first = self.turn_number - self.refused == 1 and not self.retrying_empty and not self.fell_back
            if self.answerer.plan and first and self.searches_left() >= _min_parts():
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
            deadline=self.deadline,
        )

    def out_of_budget(self) -> bool:
        """The wall-clock or token budget is spent (checked after each model call)."""
        return time.monotonic() > self.deadline or self.usage.total > self.answerer.limits.max_tokens

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
            model=self.answerer.model.name,
            request_id=self.request_id,
            usage=self.usage,
            evidence_ids=tuple(self.evidence),
            checks=tuple(self.checks),
            trace=self.trace,
            verified=self.verified,
            submitted_answer=self.submitted_answer,
        )


def _min_parts() -> int:
    """``search_parts``'s least number of parts; its tool schemas load only when ``--plan`` offers it
    (the local answerer never needs them, and a CLI start pays for every import)."""
    from .tools import MIN_PARTS

    return MIN_PARTS
