"""Reciprocal Rank Fusion: rankings in, one order out. Raw scores are never compared across rankers."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

from .config import RRF_K

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
    this document"). Rows are read in order and only until ``k`` are selected, so a
    search reads a few more passage IDs than it returns, never all of them.
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
