"""``Retriever``: scope + query -> ranked passages. View -> rankers -> floors -> gate -> fusion.

The scope picks the tenant's index and the permission filter; the query is
only text. Each ranker returns its top candidates among the rows the scope
may see (a ``View``), floors and the topic gate drop what is not evidence
(``gate``), and Reciprocal Rank Fusion (k = 60) merges what survives
(``fusion``; under the per-document limit, each document's best passage is
scored by the document's ranks, and each ranker's first passage stands third or
higher). This is the read tool of the CLI, the answer loop and eval.
"""

from __future__ import annotations

import os
import time
from collections import Counter, OrderedDict
from collections.abc import Callable, Container, Hashable, Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, TypeVar

from ..index import Hit, TenantIndex, View
from ..passage import document_version_of
from ..principal import Scope
from ..settings import index_root
from .config import SearchConfig
from .fusion import cut_per_document, document_leads, fused_order, lift_ranker_firsts, with_ranker_tops
from .gate import Status, apply_gates, rare_identifiers
from .pointers import MAX_NEIGHBOURS, neighbour_steps
from .query import clean_query
from .response import Candidate, CandidateStatus, RankerHit, SearchResponse, SearchResult

if TYPE_CHECKING:
    import numpy as np

    from ..embedder import Embedder
    from ..index.view import Generation
    from ..passage import Passage

VECTOR_CACHE_SIZE = 256
Key = TypeVar("Key", bound=Hashable)
Value = TypeVar("Value")
VIEW_CACHE_SIZE = 8


class Retriever:
    """Searches any tenant's published index for a scope.

    Opens each tenant's index once (and switches when a newer generation is
    published), keeps the last few views, and opens the ONNX model only when a
    dense ranking is needed.
    """

    def __init__(
        self,
        index: str | os.PathLike[str] | None = None,
        *,
        embedder: Embedder | None = None,
        config: SearchConfig | None = None,
    ) -> None:
        self.root = index_root(index)
        self.config = config or SearchConfig()
        self._embedder = embedder
        self._indexes: dict[str, TenantIndex] = {}
        self._views: OrderedDict[tuple[str, Scope], View] = OrderedDict()
        # A query vector depends on the model and the text only.
        self._vectors: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            from ..embedder import Embedder  # the model's code is imported by the first dense ranking only

            self._embedder = Embedder()
        return self._embedder

    # -- indexes and views --------------------------------------------------------

    def index_for(self, tenant: str) -> TenantIndex:
        """The tenant's published generation, reopened when a newer one was published."""
        index = self._indexes.get(tenant)
        if index is not None and not index.is_current():
            # A re-ingest published a newer generation (perhaps revoking access): switch to it.
            del self._indexes[tenant]
            index.close()
            index = None
        if index is None:
            index = TenantIndex.open(self.root, tenant)
            self._indexes[tenant] = index
        return index

    def view(self, scope: Scope) -> View:
        """The current generation as ``scope`` may see it (the permission mask is built once per generation)."""
        index = self.index_for(scope.tenant)
        return _cached(self._views, (index.generation, scope), lambda: index.view(scope), VIEW_CACHE_SIZE)

    def close(self) -> None:
        for index in self._indexes.values():
            index.close()
        self._indexes.clear()
        self._views.clear()

    # -- search -------------------------------------------------------------------

    def search(
        self, scope: Scope, query: str, *, k: int | None = None, config: SearchConfig | None = None
    ) -> SearchResponse:
        """Search what ``scope`` may see for ``query``."""
        cfg = config or self.config
        if k is not None:
            cfg = replace(cfg, k=k)
        text, notes = clean_query(query)
        view = self.view(scope)
        timings: dict[str, float] = {}
        bm25_hits: list[Hit] = []
        dense_hits: list[Hit] = []
        if cfg.uses_bm25:
            t = time.perf_counter()
            bm25_hits = view.bm25(text, cfg.candidates)
            timings["bm25"] = (time.perf_counter() - t) * 1000
        if cfg.uses_dense:
            t = time.perf_counter()
            vector = self._query_vector(view.index, text)
            timings["embed"] = (time.perf_counter() - t) * 1000
            t = time.perf_counter()
            dense_hits = view.dense(vector, cfg.candidates)
            timings["dense"] = (time.perf_counter() - t) * 1000

        gated = apply_gates(text, bm25_hits, dense_hits, cfg, view)
        rankings = [[h.row for h in gated.bm25], [h.row for h in gated.dense]]
        if cfg.identifier_ranking and cfg.mode == "hybrid":
            rankings.append(self._identifier_ranking(view, text, cfg.candidates))
        fused = fused_order(rankings, cfg.rrf_k)
        documents: dict[int, str] = {}

        def document_of(row: int) -> str:
            if row not in documents:
                documents[row] = _document(view, row)
            return documents[row]

        if cfg.ranks_documents:
            fused = document_leads(fused, rankings, document_of, cfg.rrf_k)
            fused = lift_ranker_firsts(fused, rankings[:2], document_of, cfg.per_doc)
        selected, left_out = cut_per_document(fused, cfg.k, cfg.per_doc, document_of)
        if cfg.ranker_tops:
            selected = with_ranker_tops(selected, fused, rankings[:2], cfg.ranker_tops)
        more = Counter(left_out.values())
        bm25_rank = {h.row: RankerHit(i, h.score) for i, h in enumerate(gated.bm25, start=1)}
        dense_rank = {h.row: RankerHit(i, h.score) for i, h in enumerate(gated.dense, start=1)}
        results = [
            SearchResult(rank, view.passage(row), score, bm25_rank.get(row), dense_rank.get(row), row, more[row])
            for rank, (row, score) in enumerate(selected, start=1)
        ]
        in_results = {row for row, _ in selected}
        return SearchResponse(
            query=text,
            scope=scope,
            results=results,
            config=cfg,
            generation=view.generation,
            bm25_candidates=self._candidates(view, bm25_hits, gated.bm25_status, in_results, set(left_out)),
            dense_candidates=self._candidates(view, dense_hits, gated.dense_status, in_results, set(left_out)),
            notes=notes + gated.notes,
            timings_ms=timings,
        )

    @staticmethod
    def _identifier_ranking(view: View, text: str, limit: int) -> list[int]:
        """Rows holding the query's rare identifiers, most of them first: a third ranking for the fusion."""
        identifiers = rare_identifiers(text, view)
        if not identifiers:
            return []
        return [hit.row for hit in view.identifier_matches(identifiers, limit)]

    @staticmethod
    def _candidates(
        view: View, hits: list[Hit], statuses: list[Status], in_results: set[int], left_out: set[int]
    ) -> list[Candidate]:
        def fused_status(row: int) -> CandidateStatus:
            if row in in_results:
                return "in_results"
            return "more_from_document" if row in left_out else "cut_at_k"

        return [
            Candidate(view.passage_id(h.row), i, h.score, fused_status(h.row) if status == "kept" else status)
            for i, (h, status) in enumerate(zip(hits, statuses, strict=True), start=1)
        ]

    def neighbours(
        self, scope: Scope, response: SearchResponse, result: SearchResult, steps: Sequence[int] = (-1, 1)
    ) -> list[Passage]:
        """The sections ``steps`` away from ``result`` in its document (-1 before, 1 after) that ``scope`` may see.

        Empty when another generation was published since ``response``: its rows are other rows.
        """
        view = self.view(scope)
        if view.generation != response.generation or result.row < 0:
            return []
        return view.neighbours(result.row, steps)

    def ids_of_documents(self, scope: Scope, doc_ids: Iterable[str]) -> dict[str, list[str]]:
        """The IDs of the passages of ``doc_ids`` that ``scope`` may see now (reads every visible row's ID)."""
        return self.view(scope).ids_of_documents(doc_ids)

    def pointed_at(
        self, scope: Scope, response: SearchResponse, seen: Container[str], limit: int = MAX_NEIGHBOURS
    ) -> list[Passage]:
        """The sections ``response``'s results point at ("the table above": see ``pointers``), not in ``seen``.

        In result order, ``limit`` at most, each from the result's own document version and visible to ``scope``
        (``neighbours``). They carry no rank: no search ranked them.
        """
        added: dict[str, Passage] = {}
        for result in response.results:
            if len(added) >= limit:
                break
            steps = neighbour_steps(result.passage.text)
            if not steps:
                continue
            for p in self.neighbours(scope, response, result, steps):
                if p.id not in seen and p.id not in added and len(added) < limit:
                    added[p.id] = p
        return list(added.values())

    def query_vector(self, query: str) -> np.ndarray | None:
        """The vector a search of ``query`` already computed (None when none did): a model that needs it
        again does not run the embedder for it."""
        return self._vectors.get((self.embedder.sha256, clean_query(query)[0]))

    def prepare(self, scope: Scope, queries: Sequence[str]) -> None:
        """Embed several queries in one model call, so searching each of them next costs no model time.

        For a decomposed question (``search_parts``): its parts are embedded together, as one batch,
        instead of one model run per part. Nothing is ranked or returned here.
        """
        cfg = self.config
        if not cfg.uses_dense:
            return
        index = self.index_for(scope.tenant)
        embedder = self.embedder
        index.check_model(embedder.model_id, embedder.sha256)
        texts = list(dict.fromkeys(clean_query(q)[0] for q in queries))
        missing = [t for t in texts if (embedder.sha256, t) not in self._vectors]
        if not missing:
            return
        for text, vector in zip(missing, embedder.embed(missing), strict=True):
            _store(self._vectors, (embedder.sha256, text), vector, VECTOR_CACHE_SIZE)

    def _query_vector(self, index: Generation, text: str) -> np.ndarray:
        embedder = self.embedder
        index.check_model(embedder.model_id, embedder.sha256)
        return _cached(self._vectors, (embedder.sha256, text), lambda: embedder.embed([text])[0], VECTOR_CACHE_SIZE)


def _document(view: View, row: int) -> str:
    """``doc_id@version`` of a row, from its passage ID alone."""
    return document_version_of(view.passage_id(row))


def _cached(cache: OrderedDict[Key, Value], key: Key, make: Callable[[], Value], limit: int) -> Value:
    """``cache[key]``, made on a miss; the least recently used entry leaves when ``limit`` is passed."""
    value = cache.get(key)
    if value is None:
        return _store(cache, key, make(), limit)
    cache.move_to_end(key)
    return value


def _store(cache: OrderedDict[Key, Value], key: Key, value: Value, limit: int) -> Value:
    """Set ``cache[key]``; the least recently used entry leaves when ``limit`` is passed."""
    cache[key] = value
    if len(cache) > limit:
        cache.popitem(last=False)
    return value
