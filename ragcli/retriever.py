"""Principal + query -> ranked passages: filtered BM25 and dense, floors, RRF.

The principal picks the tenant's index and the permission filter; the query
is only text. Each ranker returns its top candidates among the rows the
principal may see, drops those under its own floor, and Reciprocal Rank
Fusion (k = 60) merges what survives. Raw scores of the two rankers are never
compared with each other.
"""

from __future__ import annotations

import datetime as dt
import os
import time
import unicodedata
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from .chunking import Passage
from .embedder import Embedder
from .errors import InputError
from .principal import Principal
from .store import Hit, TenantIndex, identifier_terms, open_index

Mode = Literal["hybrid", "bm25", "dense"]

MAX_QUERY_CHARS = 1000
"""Longer queries are cut (with a note): nobody types more, and BM25 cost grows with terms."""

DENSE_FLOOR = 0.30
"""Cosine under which a passage is noise for the bundled MiniLM.

Chosen from data (bench/floors.py): the cosine of unrelated query/passage
pairs has p99 0.39 (SciFact queries x random abstracts) and 0.27 (SQuAD
questions x other articles' paragraphs); relevant pairs have a median of 0.59
(SciFact) and 0.58 (SQuAD). At 0.30 the best hit of an off-topic query
(SciFact claims against the uv docs) passes 1% of the time, while 100% of
SciFact and 99.3% of SQuAD queries keep at least one hit.
"""

BM25_FLOOR = 0.0
"""Minimum BM25 score; 0 keeps every hit that matches a non-stop-word term.

BM25 scores grow with query length and term rarity, so off-topic and relevant
scores overlap and no absolute value works across corpora (bench/floors.py: a
floor of 10 cut 12% of SciFact's relevant documents and still let 83% of
off-topic questions through). Off-topic queries are sent home by the topic
gate instead (SearchConfig.topic_gate).
"""

RRF_K = 60


@dataclass(frozen=True)
class SearchConfig:
    """How search ranks; every field is a CLI flag."""

    k: int = 10
    candidates: int = 50
    """How many candidates each ranker returns before floors and fusion."""
    bm25_floor: float = BM25_FLOOR
    dense_floor: float = DENSE_FLOOR
    rrf_k: int = RRF_K
    mode: Mode = "hybrid"
    topic_gate: bool = True
    """In hybrid mode, when no passage clears the dense floor and the query names no
    identifier, drop BM25's word matches too: the query is off-topic. Without it a
    question that shares one ordinary word with the corpus returns noise."""


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

    @property
    def id(self) -> str:
        return self.passage.id


@dataclass(frozen=True)
class Candidate:
    """A ranker's candidate as shown by ``--explain`` (IDs only, already permission-filtered)."""

    id: str
    rank: int
    score: float
    kept: bool


@dataclass
class SearchResponse:
    query: str
    principal: Principal
    as_of: dt.date
    results: list[SearchResult]
    bm25_candidates: list[Candidate] = field(default_factory=list)
    dense_candidates: list[Candidate] = field(default_factory=list)
    config: SearchConfig = field(default_factory=SearchConfig)
    notes: list[str] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    generation: str = ""

    @property
    def ids(self) -> list[str]:
        return [r.id for r in self.results]


def clean_query(text: str) -> tuple[str, list[str]]:
    """Normalise a query: control characters out, length capped; raise on an empty one."""
    notes: list[str] = []
    text = unicodedata.normalize("NFKC", text)
    text = "".join(" " if unicodedata.category(c).startswith("C") else c for c in text)
    text = " ".join(text.split())
    if not text:
        raise InputError("empty query: give the words to search for")
    if len(text) > MAX_QUERY_CHARS:
        text = text[:MAX_QUERY_CHARS].rsplit(" ", 1)[0] or text[:MAX_QUERY_CHARS]
        notes.append(f"query cut to its first {len(text)} characters")
    return text, notes


def rrf(rankings: list[list[str]], k: int = RRF_K) -> dict[str, float]:
    """Reciprocal Rank Fusion: sum over rankings of 1 / (k + rank), ranks from 1."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, key in enumerate(ranking, start=1):
            scores[key] = scores.get(key, 0.0) + 1.0 / (k + rank)
    return scores


class Retriever:
    """The read tool of ragcli: ``search(principal, query)`` for the CLI, ask and eval.

    Opens each tenant's index once and the ONNX model only when a dense
    ranking is needed.
    """

    def __init__(
        self,
        index: str | os.PathLike[str] | None = None,
        *,
        embedder: Embedder | None = None,
        config: SearchConfig | None = None,
    ) -> None:
        self.index_dir = index
        self.config = config or SearchConfig()
        self._embedder = embedder
        self._indexes: dict[str, TenantIndex] = {}
        # Keyed by everything that could make a cached value differ between
        # principals, even though a query vector itself does not.
        self._vector_cache: OrderedDict[tuple[object, ...], object] = OrderedDict()
        self.searches = 0

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = Embedder()
        return self._embedder

    def index_for(self, principal: Principal) -> TenantIndex:
        index = self._indexes.get(principal.tenant)
        if index is not None and not index.is_current():
            # A re-ingest published a newer generation (perhaps revoking access): switch to it.
            del self._indexes[principal.tenant]
            index.close()
            index = None
        if index is None:
            index = open_index(self.index_dir, principal)
            self._indexes[principal.tenant] = index
        return index

    def close(self) -> None:
        for index in self._indexes.values():
            index.close()
        self._indexes.clear()

    def search(
        self,
        principal: Principal,
        query: str,
        *,
        as_of: dt.date | None = None,
        k: int | None = None,
        config: SearchConfig | None = None,
    ) -> SearchResponse:
        """Search the principal's tenant for ``query`` as of ``as_of`` (default today)."""
        cfg = config or self.config
        if k is not None:
            cfg = replace(cfg, k=k)
        if cfg.k < 1 or cfg.candidates < 1:
            raise InputError("-k and --candidates must be at least 1")
        as_of = as_of or dt.date.today()
        text, notes = clean_query(query)
        index = self.index_for(principal)
        self.searches += 1
        timings: dict[str, float] = {}

        bm25_hits: list[Hit] = []
        dense_hits: list[Hit] = []
        if cfg.mode in ("hybrid", "bm25"):
            t = time.perf_counter()
            bm25_hits = index.bm25(text, principal, as_of, cfg.candidates)
            timings["bm25"] = (time.perf_counter() - t) * 1000
        if cfg.mode in ("hybrid", "dense"):
            t = time.perf_counter()
            vector = self._query_vector(index, principal, as_of, text)
            timings["embed"] = (time.perf_counter() - t) * 1000
            t = time.perf_counter()
            dense_hits = index.dense(vector, principal, as_of, cfg.candidates)
            timings["dense"] = (time.perf_counter() - t) * 1000

        ids: dict[int, str] = {}
        passages: dict[int, Passage] = {}

        def passage_of(row: int) -> Passage:
            if row not in passages:
                passages[row] = index.passage(row)
                ids[row] = passages[row].id
            return passages[row]

        bm25_kept = [h for h in bm25_hits if h.score > cfg.bm25_floor]
        dense_kept = [h for h in dense_hits if h.score >= cfg.dense_floor]
        if cfg.mode == "hybrid" and cfg.topic_gate and bm25_kept and not dense_kept and not identifier_terms(text):
            bm25_kept = []
            notes.append("no passage is close in meaning to the query (dense floor), so its word matches were dropped as off-topic")
        kept_rows = {h.row for h in bm25_kept}, {h.row for h in dense_kept}

        fused = rrf([[str(h.row) for h in bm25_kept], [str(h.row) for h in dense_kept]], cfg.rrf_k)
        bm25_rank = {h.row: RankerHit(i, h.score) for i, h in enumerate(bm25_kept, start=1)}
        dense_rank = {h.row: RankerHit(i, h.score) for i, h in enumerate(dense_kept, start=1)}
        # Ties broken by the better single rank, then row, so output is deterministic.
        order = sorted(
            (int(r) for r in fused),
            key=lambda r: (-fused[str(r)], min(bm25_rank.get(r, RankerHit(10**9, 0)).rank, dense_rank.get(r, RankerHit(10**9, 0)).rank), r),
        )
        results = [
            SearchResult(rank, passage_of(row), fused[str(row)], bm25_rank.get(row), dense_rank.get(row))
            for rank, row in enumerate(order[: cfg.k], start=1)
        ]
        response = SearchResponse(
            query=text,
            principal=principal,
            as_of=as_of,
            results=results,
            config=cfg,
            notes=notes,
            timings_ms=timings,
            generation=index.generation,
        )
        response.bm25_candidates = [
            Candidate(passage_of(h.row).id, i, h.score, h.row in kept_rows[0]) for i, h in enumerate(bm25_hits, start=1)
        ]
        response.dense_candidates = [
            Candidate(passage_of(h.row).id, i, h.score, h.row in kept_rows[1]) for i, h in enumerate(dense_hits, start=1)
        ]
        return response

    def _query_vector(self, index: TenantIndex, principal: Principal, as_of: dt.date, text: str):  # type: ignore[no-untyped-def]
        key = (principal.tenant, tuple(sorted(principal.acl_tokens())), as_of, index.generation, text)
        cached = self._vector_cache.get(key)
        if cached is not None:
            self._vector_cache.move_to_end(key)
            return cached
        index.check_model(self.embedder.model_id, self.embedder.sha256)
        vector = self.embedder.embed([text])[0]
        self._vector_cache[key] = vector
        if len(self._vector_cache) > 256:
            self._vector_cache.popitem(last=False)
        return vector


def search(principal: Principal, query: str, *, index: str | Path | None = None, as_of: dt.date | None = None, k: int = 10) -> SearchResponse:
    """One-shot convenience: open, search, close."""
    retriever = Retriever(index)
    try:
        return retriever.search(principal, query, as_of=as_of, k=k)
    finally:
        retriever.close()
