"""One JSON line per ask: what happened, by passage ID only.

A trace never holds passage text, claim statements or quotes (they may copy
passage text), nor any credential, nor anything else the model wrote: an
invalid decision is recorded as a field name and an error kind (never the
value sent), a tool name or a cited passage ID only when it is one ragcli
knows (an ID that was never retrieved is recorded as ``NOT_RETRIEVED``), and
a request ID only when it looks like one. The one exception is the search
queries: the user's question and the model's own queries are kept (``by``
says whose), capped at ``MAX_TRACE_QUERY_CHARS``, because replaying a search
needs its words. It holds the question's scope, each search's candidates by
ID, rank and score, the decisions, the checks and the costs, and what a
ranking depends on (index generation, embedding model and its sha256,
chunker version, search settings), so ``ragcli trace replay`` can re-run the
searches and say whether the rankings still match.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ..checked import Checked
from ..errors import InputError, os_reason
from ..principal import Scope
from ..search.response import SearchResponse
from .citations import CheckResult
from .protocol import (
    AbstainDecision,
    ClaimsDecision,
    Conflict,
    Decision,
    GradeDecision,
    InvalidDecision,
    SearchDecision,
    SearchPartsDecision,
    Usage,
)

if TYPE_CHECKING:
    from ..index import TenantIndex
    from ..passage import Passage
    from ..search.response import Candidate

SCORE_DIGITS = 6
RepairReason = Literal["query_drift", "parts_fallback"]
MAX_TRACE_QUERY_CHARS = 1000
"""A query longer than this is cut in the trace (search itself cuts queries at the same length)."""
NOT_RETRIEVED = "(not retrieved)"
"""What a cited passage ID that was never retrieved in the run is recorded as: the model wrote it, not ragcli."""


def capped(query: str) -> str:
    return query[:MAX_TRACE_QUERY_CHARS]


@dataclass(kw_only=True)
class TraceSearch(Checked):
    query: str
    """The query as searched (normalised, capped): the user's question or the model's own words (``by``)."""
    by: Literal["question", "model"] = "model"
    """Whose words the query is: the user's question (the first search) or the model's."""
    generation: str | None = None
    """The index generation this search ran on."""
    bm25: list[tuple[str, int, float]]
    """Kept BM25 candidates (the ones fused): (passage ID, rank, score)."""
    dense: list[tuple[str, int, float]]
    selected: list[str]
    """The fused results, in order."""
    new: list[str]
    """Results the model had not seen before."""
    ms: float


@dataclass(kw_only=True)
class TraceDecision(Checked):
    turn: int
    offered: list[str]
    tool: str | None
    valid: bool
    kind: Literal["search", "claims", "abstain", "parts", "grade"] | None = None
    query: str | None = None
    queries: list[str] | None = None
    """The sub-queries of a decomposed question (``parts``), each also recorded as a search."""
    verdict: str | None = None
    """The model's grade of the evidence (``grade``): sufficient, irrelevant, conflicting or missing."""
    cited: list[str] | None = None
    error: str | None = None
    request_id: str | None = None
    """The API request behind this decision (LLM backends only)."""
    repair: RepairReason | None = None
    """Why code did not act on the decision as given (``query_drift``: its query lost a kept term of the question,
    refused and the model told which; ``parts_fallback``: a malformed ``search_parts``, or parts that found nothing
    new, and the run went on from the question's own search)."""
    lost: list[str] | None = None
    """With ``query_drift``: the question's kept terms the query lost (the question's words, not the model's)."""
    dropped: list[str] | None = None
    """The question's kept terms the query left out on purpose: the model named them (its reason is not kept)."""


@dataclass(kw_only=True)
class TraceCheck(Checked):
    claim: int
    passage_id: str
    check: str
    passed: bool
    pages: list[int] = field(default_factory=list)
    """The cited passage's PDF pages (1-based; [] for other formats or a passage the run never retrieved)."""


@dataclass(kw_only=True)
class TraceConflict(Checked):
    """A conflict between current sources (``answer.conflicts``): passage IDs and the verdict, no text."""

    passage_ids: list[str]
    """The side the claims relied on first, then the passages that disagree with it."""
    dimension: str
    verdict: Literal["cited_all_sides", "asked_to_cite_all_sides", "unresolved"]
    """The claims cited every side; code gave the model one turn to do so; still one-sided (the run abstains)."""


@dataclass(kw_only=True)
class TraceVerdict(Checked):
    claim: int
    passage_id: str
    supported: bool


@dataclass(kw_only=True)
class TraceVerification(Checked):
    """``--verify``: the second model's verdict per claim (IDs and verdicts only), or why there are none."""

    verifier: str
    verdicts: list[TraceVerdict] = field(default_factory=list)
    error: str | None = None
    request_id: str | None = None


@dataclass(kw_only=True)
class Latency(Checked):
    search: float = 0.0
    model: float = 0.0
    checks: float = 0.0
    total: float = 0.0


@dataclass(kw_only=True)
class EmbeddingModel(Checked):
    id: str
    sha256: str


@dataclass(kw_only=True)
class Trace(Checked):
    """The record of one ask; ``--trace FILE`` appends it as one line."""

    request_id: str
    time: str
    user: str
    tenant: str
    groups: list[str]
    as_of: dt.date
    model: str
    prompt_version: str
    generation: str | None = None
    """The index generation the first search ran on (each search also records its own)."""
    embedding_model: EmbeddingModel | None = None
    """The model every vector of that generation came from (search refuses any other)."""
    chunker_version: int | None = None
    search_config: dict[str, Any] | None = None
    """The ranking settings (k, mode, floors, candidates, ...) every search of the run used."""
    searches: list[TraceSearch] = field(default_factory=list)
    decisions: list[TraceDecision] = field(default_factory=list)
    checks: list[TraceCheck] = field(default_factory=list)
    conflicts: list[TraceConflict] = field(default_factory=list)
    verification: TraceVerification | None = None
    disposition: Literal["answered", "abstained"] | None = None
    reason: str | None = None
    usage: Usage = field(default_factory=Usage)
    latency_ms: Latency = field(default_factory=Latency)

    @classmethod
    def start(cls, request_id: str, scope: Scope, model: str, prompt_version: str) -> Trace:
        # Constructed, not validated: every value is code's own, of its field's type, and a run that writes
        # no trace (no --trace) then never builds the trace's validator (~6 ms of a cold ask).
        return cls.model_construct(
            request_id=request_id,
            time=dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds"),
            user=scope.principal.user,
            tenant=scope.tenant,
            groups=sorted(scope.principal.groups),
            as_of=scope.as_of,
            model=model,
            prompt_version=prompt_version,
        )

    def record_index(self, response: SearchResponse, index: TenantIndex) -> None:
        """What the run's rankings depend on, from the generation the first search ran on."""
        if self.generation is not None:
            return
        self.generation = response.generation
        self.search_config = dataclasses.asdict(response.config)
        if index.generation == response.generation:
            manifest = index.manifest
            self.embedding_model = EmbeddingModel(id=manifest.model.id, sha256=manifest.model.sha256)
            self.chunker_version = manifest.chunker_version

    def add_search(
        self, response: SearchResponse, new_ids: list[str], ms: float, by: Literal["question", "model"] = "model"
    ) -> None:
        self.searches.append(
            TraceSearch(
                query=capped(response.query),
                by=by,
                generation=response.generation,
                bm25=ranking(response.bm25_candidates),
                dense=ranking(response.dense_candidates),
                selected=response.ids,
                new=new_ids,
                ms=round(ms, 2),
            )
        )
        self.latency_ms.search += ms

    def add_decision(
        self,
        turn: int,
        decision: Decision,
        offered: list[str],
        request_id: str | None = None,
        verdict: str | None = None,
        retrieved: Collection[str] = (),
    ) -> None:
        """Record one decision in code's words; ``retrieved``: the passage IDs of the run so far (a cited ID
        outside them is the model's text and recorded as NOT_RETRIEVED)."""
        entry = TraceDecision(
            turn=turn,
            offered=offered,
            tool=decision.tool,
            valid=not isinstance(decision, InvalidDecision),
            request_id=request_id,
            verdict=verdict,
        )
        if isinstance(decision, InvalidDecision):
            entry.error = decision.error
        elif isinstance(decision, SearchDecision):
            entry.kind, entry.query = "search", capped(decision.query)
        elif isinstance(decision, AbstainDecision):
            entry.kind = "abstain"
        elif isinstance(decision, ClaimsDecision):
            entry.kind, entry.cited = "claims", [known_id(c.passage_id, retrieved) for c in decision.claims]
        elif isinstance(decision, SearchPartsDecision):
            entry.kind, entry.queries = "parts", [capped(q) for q in decision.queries]
        elif isinstance(decision, GradeDecision):
            entry.kind, entry.verdict = "grade", decision.verdict
            entry.query = capped(decision.gap) if decision.gap is not None else None
        self.decisions.append(entry)

    def add_repair(self, repair: RepairReason, lost: list[str] | None = None) -> None:
        """Mark the last decision: code did not act on it as given (a refused query counts as invalid)."""
        entry = self.decisions[-1]
        entry.repair = repair
        if repair == "query_drift":
            entry.valid, entry.lost = False, lost

    def add_dropped(self, terms: list[str]) -> None:
        """The question's kept terms the last decision's query left out on purpose."""
        if terms:
            self.decisions[-1].dropped = terms

    def add_model_time(self, ms: float) -> None:
        self.latency_ms.model += ms

    def add_checks(
        self, results: list[CheckResult], cited: list[str], ms: float, retrieved: Mapping[str, Passage]
    ) -> None:
        self.checks += [
            TraceCheck(
                claim=r.claim,
                passage_id=known_id(cited[r.claim], retrieved),
                check=r.check,
                passed=r.passed,
                pages=list(retrieved[cited[r.claim]].pages) if cited[r.claim] in retrieved else [],
            )
            for r in results
        ]
        self.latency_ms.checks += ms

    def add_conflicts(
        self, conflicts: list[Conflict], verdict: Literal["cited_all_sides", "asked_to_cite_all_sides", "unresolved"]
    ) -> None:
        self.conflicts += [
            TraceConflict(passage_ids=list(c.passage_ids), dimension=c.dimension, verdict=verdict) for c in conflicts
        ]

    def add_verification(
        self,
        verifier: str,
        cited: list[str],
        supported: tuple[bool, ...] | None,
        error: str | None,
        request_id: str | None,
    ) -> None:
        verdicts = [
            TraceVerdict(claim=i, passage_id=pid, supported=ok)
            for i, (pid, ok) in enumerate(zip(cited, supported or (), strict=False))
        ]
        self.verification = TraceVerification(verifier=verifier, verdicts=verdicts, error=error, request_id=request_id)

    def finish(
        self, disposition: Literal["answered", "abstained"], reason: str | None, usage: Usage, total_ms: float
    ) -> None:
        self.disposition = disposition
        self.reason = reason
        self.usage = usage
        self.latency_ms.total = total_ms
        for name in ("search", "model", "checks", "total"):
            setattr(self.latency_ms, name, round(getattr(self.latency_ms, name), 2))


def known_id(passage_id: str, retrieved: Collection[str]) -> str:
    """``passage_id`` if the run retrieved it, else NOT_RETRIEVED (the model may put any text in a citation)."""
    return passage_id if passage_id in retrieved else NOT_RETRIEVED


def ranking(candidates: list[Candidate]) -> list[tuple[str, int, float]]:
    """A ranker's kept candidates as (ID, rank, score): what the fusion saw."""
    return [(c.id, c.rank, round(c.score, SCORE_DIGITS)) for c in candidates if c.kept]


def append_trace(path: str | os.PathLike[str], trace: Trace) -> None:
    """Append one line with a single write, so concurrent runs never interleave lines."""
    line = (trace.model_dump_json() + "\n").encode("utf-8")
    try:
        fd = os.open(Path(path), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)
    except OSError as exc:
        raise InputError(f"cannot write trace file {path}: {os_reason(exc)}") from None
