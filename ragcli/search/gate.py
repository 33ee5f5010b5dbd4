"""Which candidates survive: each ranker's floor, then the topic gate.

Floors drop a ranker's candidates that score too low to be evidence (see
``config``). The topic gate, in hybrid mode, drops BM25's word matches when
nothing clears the dense floor and the query names no identifier: without it
a question that shares one ordinary word with the corpus returns noise.
Every dropped candidate keeps the reason it was dropped, for ``--explain``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ..index import Hit
from ..text import identifier_terms
from .config import SearchConfig

Status = Literal["kept", "under_floor", "topic_gate"]

TOPIC_GATE_NOTE = "no passage is close in meaning to the query (dense floor), so its word matches were dropped as off-topic"


@dataclass
class Gated:
    """The candidates of both rankers after floors and gate, with a status per candidate."""

    bm25: list[Hit]
    dense: list[Hit]
    bm25_status: list[Status]
    dense_status: list[Status]
    notes: list[str] = field(default_factory=list)


def apply_gates(query: str, bm25: list[Hit], dense: list[Hit], config: SearchConfig) -> Gated:
    """Floors per ranker, then the topic gate."""
    bm25_status: list[Status] = ["kept" if h.score > config.bm25_floor else "under_floor" for h in bm25]
    dense_status: list[Status] = ["kept" if h.score >= config.dense_floor else "under_floor" for h in dense]
    notes: list[str] = []
    dense_kept = "kept" in dense_status
    if config.mode == "hybrid" and config.topic_gate and "kept" in bm25_status and not dense_kept and not identifier_terms(query):
        bm25_status = ["topic_gate" if s == "kept" else s for s in bm25_status]
        notes.append(TOPIC_GATE_NOTE)
    return Gated(
        bm25=[h for h, s in zip(bm25, bm25_status) if s == "kept"],
        dense=[h for h, s in zip(dense, dense_status) if s == "kept"],
        bm25_status=bm25_status,
        dense_status=dense_status,
        notes=notes,
    )
