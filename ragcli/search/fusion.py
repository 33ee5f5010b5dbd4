"""Reciprocal Rank Fusion: rankings in, one order out. Raw scores are never compared across rankers."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

from .config import RANKER_FIRST_SLOT, RRF_K

Key = TypeVar("Key", bound=Hashable)


def rrf(rankings: Sequence[Sequence[Key]], k: int = RRF_K) -> dict[Key, float]:
    """Sum over rankings of 1 / (k + rank), ranks from 1."""
    scores: dict[Key, float] = {}
    for ranking in rankings:
        for rank, key in enumerate(ranking, start=1):
            scores[key] = scores.get(key, 0.0) + 1.0 / (k + rank)
    return scores


def fused_order(rankings: Sequence[Sequence[int]], k: int = RRF_K) -> list[tuple[int, float]]:
    """Rows by fused score; ties broken by the better single rank, then row, so output is deterministic."""
    scores = rrf(rankings, k)
    best_rank: dict[int, int] = {}
    for ranking in rankings:
        for rank, row in enumerate(ranking, start=1):
            best_rank[row] = min(best_rank.get(row, rank), rank)
    order = sorted(scores, key=lambda row: (-scores[row], best_rank[row], row))
    return [(row, scores[row]) for row in order]


def document_leads(
    order: Sequence[tuple[int, float]],
    rankings: Sequence[Sequence[int]],
    document_of: Callable[[int], str],
    k: int = RRF_K,
) -> list[tuple[int, float]]:
    """``order`` with each document's first row scored by its document's ranks, the other rows as fused.

    A ranking ranks documents too: a document's rank in it is where its first row stands among the
    documents (its rows after the first do not count). Each document's first row in ``order`` gets
    the RRF of those document ranks (same ``k``), so a page that both rankers put near the top through
    different passages (BM25 the one naming the option, the embedder the one explaining it) counts as
    found by both; a document's later rows keep their own fused score, so they compete with the other
    documents' best rows instead of riding on their page. A first row's document score is never below
    its own fused score (a document ranks no lower than any of its rows in a ranking). Ties keep ``order``.
    """
    doc_score: dict[str, float] = {}
    for ranking in rankings:
        seen: set[str] = set()
        for row in ranking:
            document = document_of(row)
            if document not in seen:
                seen.add(document)
                doc_score[document] = doc_score.get(document, 0.0) + 1.0 / (k + len(seen))
    leads: set[str] = set()
    scored: list[tuple[float, int, int]] = []
    for position, (row, score) in enumerate(order):
        document = document_of(row)
        if document not in leads:
            leads.add(document)
            score = doc_score[document]
        scored.append((-score, position, row))
    scored.sort()
    return [(row, -negative) for negative, _, row in scored]


def lift_ranker_firsts(
    order: Sequence[tuple[int, float]],
    rankings: Sequence[Sequence[int]],
    document_of: Callable[[int], str],
    per_doc: int,
    slot: int = RANKER_FIRST_SLOT,
) -> list[tuple[int, float]]:
    """``order`` with each ranking's first row moved up to place ``slot`` when its document is not in the first places.

    Fusion favours a page both rankers found; a page only one of them puts first (BM25's exact title match
    "Watching For Changes" for "prettier watch mode", 77th for the embedder) can fall to eleventh. The moved
    row ties the score of the row whose place it takes (which now follows it), so scores still fall down the
    list. Places are counted as ``cut_per_document`` counts them (rows past the per-document limit take none).
    """
    out = list(order)
    for ranking in rankings:
        if not ranking:
            continue
        first = ranking[0]
        head, _ = cut_per_document(out, slot, per_doc, document_of)
        if len(head) < slot or document_of(first) in {document_of(row) for row, _ in head}:
            continue
        displaced, score = head[-1]
        out = [(row, s) for row, s in out if row != first]
        out.insert(out.index((displaced, score)), (first, score))
    return out


def with_ranker_tops(
    selected: list[tuple[int, float]], order: Sequence[tuple[int, float]], rankings: Sequence[Sequence[int]], n: int
) -> list[tuple[int, float]]:
    """``selected``, then each ranking's first ``n`` rows it does not hold, with their fused scores."""
    fused = dict(order)
    chosen = {row for row, _ in selected}
    out = list(selected)
    for ranking in rankings:
        for row in ranking[:n]:
            if row not in chosen:
                out.append((row, fused[row]))
                chosen.add(row)
    return out


def cut_per_document(
    order: Sequence[tuple[int, float]], k: int, per_doc: int, document_of: Callable[[int], str]
) -> tuple[list[tuple[int, float]], dict[int, int]]:
    """The first ``k`` of ``order`` with at most ``per_doc`` rows of one document (0: no limit).

    Returns the selection and the rows the limit dropped while slots were left,
    each mapped to the first selected row of its document (which shows "N more from
    this document"). Rows are read in order and only until ``k`` are selected (a hybrid
    search has already read the document of every candidate for ``document_leads``).
    """
    selected: list[tuple[int, float]] = []
    dropped: dict[int, int] = {}
    first_of: dict[str, int] = {}
    shown: dict[str, int] = {}
    for row, score in order:
        if len(selected) >= k:
            break
        if per_doc <= 0:
            selected.append((row, score))
            continue
        document = document_of(row)
        if shown.get(document, 0) >= per_doc:
            dropped[row] = first_of[document]
            continue
        shown[document] = shown.get(document, 0) + 1
        first_of.setdefault(document, row)
        selected.append((row, score))
    return selected, dropped
