"""What a search returns, and its ``--json`` shape.

``SearchResponse`` holds passages (already permission-filtered) and, for
``--explain`` and traces, every candidate of each ranker by ID with its rank,
score and what became of it. ``SearchJson`` is the contract scripts read.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Literal

from ..checked import Checked, exclude_if
from ..passage import Passage
from ..principal import Scope
from .config import SearchConfig

CandidateStatus = Literal[
    "in_results", "cut_at_k", "more_from_document", "under_floor", "topic_gate", "weak_word_match"
]


@dataclass(frozen=True)
class RankerHit:
    """Where one ranker put a passage."""

    rank: int
    score: float


@dataclass(frozen=True)
class SearchResult:
    """One fused result."""

    rank: int
    passage: Passage
    score: float
    """RRF score: the sum of 1 / (rrf_k + rank) over the rankers that kept it."""
    bm25: RankerHit | None
    dense: RankerHit | None
    row: int = -1
    """Its row in the generation searched (``SearchResponse.generation``): how its neighbours are found."""
    more_from_document: int = 0
    """On a document's first result: how many more of its passages the per-document limit left out."""

    @property
    def id(self) -> str:
        return self.passage.id


@dataclass(frozen=True)
class Candidate:
    """A ranker's candidate as shown by ``--explain`` and traces (IDs only, already permission-filtered)."""

    id: str
    rank: int
    score: float
    status: CandidateStatus
    """In the results, or why not: fused but cut at k, left out by the per-document limit, under its
    ranker's floor, or dropped by the topic gate."""

    @property
    def kept(self) -> bool:
        """Whether it passed its floor and the gate, i.e. took part in the fusion."""
        return self.status in ("in_results", "cut_at_k", "more_from_document")


@dataclass
class SearchResponse:
    query: str
    """The query as searched (normalised)."""
    scope: Scope
    results: list[SearchResult]
    config: SearchConfig
    generation: str
    bm25_candidates: list[Candidate] = field(default_factory=list)
    dense_candidates: list[Candidate] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)

    @property
    def ids(self) -> list[str]:
        return [r.id for r in self.results]

    @property
    def as_of(self) -> dt.date:
        return self.scope.as_of

    def to_wire(self, *, explain: bool = False) -> SearchJson:
        return SearchJson.of(self, explain=explain)


# --------------------------------------------------------------------------- the --json contract


@dataclass(kw_only=True)
class RankJson(Checked):
    rank: int
    score: float


@dataclass(kw_only=True)
class ResultJson(Checked):
    rank: int
    id: str
    doc_id: str
    title: str
    heading_path: list[str]
    source: str
    """The document's URL, else its file relative to the ingested folder."""
    source_path: str
    """The file it was read from, absolute (``FILE:LINE`` for a JSONL line)."""
    pages: list[int]
    """The PDF pages (1-based) the passage comes from; [] for every other format."""
    ocr: bool
    """Whether OCR read it from a scanned PDF page."""
    text: str
    score: float
    bm25: RankJson | None
    dense: RankJson | None
    more_from_document: int
    """On a document's first result: its further passages left out by the per-document limit (``--per-doc``)."""


@dataclass(kw_only=True)
class CandidateJson(Checked):
    id: str
    rank: int
    score: float
    kept: bool
    status: CandidateStatus


@dataclass(kw_only=True)
class ExplainJson(Checked):
    mode: str
    per_doc: int
    floors: dict[str, float]
    topic_gate: bool
    rrf_k: int
    identifier_ranking: bool
    candidates: int
    bm25: list[CandidateJson]
    dense: list[CandidateJson]
    timings_ms: dict[str, float]
    generation: str


@dataclass(kw_only=True)
class SearchJson(Checked):
    query: str
    tenant: str
    user: str
    as_of: dt.date
    results: list[ResultJson]
    notes: list[str] | None = field(default=None, metadata=exclude_if(lambda v: not v))
    """Facts from search about this query (cut to length, dropped as off-topic); present only when there are some."""
    explain: ExplainJson | None = field(default=None, metadata=exclude_if(lambda v: v is None))
    """Each ranker's candidates, floors and fusion; present only with ``--explain``."""

    @classmethod
    def of(cls, response: SearchResponse, *, explain: bool = False) -> SearchJson:
        principal = response.scope.principal
        return cls(
            query=response.query,
            tenant=principal.tenant,
            user=principal.user,
            as_of=response.as_of,
            results=[_result_json(r) for r in response.results],
            notes=list(response.notes),
            explain=_explain_json(response) if explain else None,
        )


def _rank_json(hit: RankerHit | None) -> RankJson | None:
    return RankJson(rank=hit.rank, score=round(hit.score, 4)) if hit else None


def _result_json(r: SearchResult) -> ResultJson:
    p = r.passage
    return ResultJson(
        rank=r.rank,
        id=p.id,
        doc_id=p.doc_id,
        title=p.title,
        heading_path=list(p.heading_path),
        source=p.shown_source,
        source_path=p.source,
        pages=list(p.pages),
        ocr=p.ocr,
        text=p.text,
        score=round(r.score, 6),
        bm25=_rank_json(r.bm25),
        dense=_rank_json(r.dense),
        more_from_document=r.more_from_document,
    )


def _candidates_json(candidates: list[Candidate]) -> list[CandidateJson]:
    return [
        CandidateJson(id=c.id, rank=c.rank, score=round(c.score, 4), kept=c.kept, status=c.status) for c in candidates
    ]


def _explain_json(response: SearchResponse) -> ExplainJson:
    cfg = response.config
    return ExplainJson(
        mode=cfg.mode,
        per_doc=cfg.per_doc,
        floors={"bm25": cfg.bm25_floor, "dense": cfg.dense_floor, "bm25_only_min_terms": cfg.bm25_only_min_terms},
        topic_gate=cfg.topic_gate,
        rrf_k=cfg.rrf_k,
        identifier_ranking=cfg.identifier_ranking,
        candidates=cfg.candidates,
        bm25=_candidates_json(response.bm25_candidates),
        dense=_candidates_json(response.dense_candidates),
        timings_ms={k: round(v, 2) for k, v in response.timings_ms.items()},
        generation=response.generation,
    )
