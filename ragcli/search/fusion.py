"""Reciprocal Rank Fusion: rankings in, one order out. Raw scores are never compared across rankers."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
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
