"""Which candidates survive: each ranker's floor, then the topic gate.

Floors drop a ranker's candidates that score too low to be evidence (see
``config``). The topic gate, in hybrid mode, drops BM25's word matches when
nothing clears the dense floor, unless the query is specific: it names an
identifier (``ERR_4021``, ``PEP 723``), a flag (``--frozen``), or it is short
and one of its words is rare among the passages the scope may see
(``hatchling``). Without the gate a question that shares one ordinary word
with the corpus returns noise; with it a one-word keyword query, which a
sentence embedding rarely matches, still finds its pages. When the query's
meaning was found only weakly (the best dense hit barely clears its floor),
a word match the dense ranker did not keep must share at least two of a
longer query's words. Every dropped candidate keeps the reason it was
dropped, for ``--explain``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ..index import Hit, View
from ..text import flags, identifier_terms, is_strong_identifier, query_terms
from .config import SearchConfig

Status = Literal["kept", "under_floor", "topic_gate", "weak_word_match"]

TOPIC_GATE_NOTE = (
    "no passage is close in meaning to the query (dense floor) and it names nothing specific, "
    "so its word matches were dropped as off-topic"
)

SHORT_QUERY_TERMS = 3
"""A query of at most this many content terms is a keyword query: a rare word makes it specific."""
RARE_SHARE = 0.02
"""A term in at most this share of the visible passages is rare (measured in bench/gate.py)."""
RARE_IDENTIFIER_SHARE = 0.03
"""An identifier in at most this share of the visible passages names something particular (``ERR_4021``,
``PEP 723``); one in many (``pyproject.toml`` in the uv docs) does not, and does not reorder results."""


@dataclass
class Gated:
    """The candidates of both rankers after floors and gate, with a status per candidate."""

    bm25: list[Hit]
    dense: list[Hit]
    bm25_status: list[Status]
    dense_status: list[Status]
    notes: list[str] = field(default_factory=list)


def rare_identifiers(query: str, view: View) -> list[str]:
    """The strong identifiers of a short query that few visible passages hold (at least one does).

    In a short query (``PEP 723``, ``What does ERR_4021 mean?``) the identifier is
    the point; in a long question it is one detail among others, already weighed by BM25.
    """
    identifiers = [t for t in identifier_terms(query) if is_strong_identifier(t)]
    if not identifiers or len(set(query_terms(query))) > SHORT_QUERY_TERMS:
        return []
    most = max(1.0, RARE_IDENTIFIER_SHARE * view.count())
    return [t for t, n in view.term_counts(identifiers, field="ident").items() if 0 < n <= most]


def is_specific(query: str, view: View) -> bool:
    """Whether the query names something the visible passages have: an identifier, a flag, or (short) a rare word.

    Only what the corpus holds counts: a scientific claim naming ``PD-1`` is no
    more on-topic for a package manager's docs than one naming nothing.
    """
    identifiers = [t for t in identifier_terms(query) if is_strong_identifier(t)]
    if identifiers and any(view.term_counts(identifiers, field="ident").values()):
        return True
    flag_terms = [t for flag in flags(query) for t in query_terms(flag)]
    if flag_terms and any(view.term_counts(flag_terms).values()):
        return True
    terms = set(query_terms(query))
    if not terms or len(terms) > SHORT_QUERY_TERMS:
        return False
    visible = view.count()
    counts = view.term_counts(sorted(terms))
    return any(0 < n <= max(1.0, RARE_SHARE * visible) for n in counts.values())


def _weak_word_matches(
    query: str, bm25: list[Hit], status: list[Status], dense_rows: set[int], min_terms: int, view: View
) -> list[Status]:
    """Mark word matches that are not close in meaning and share fewer than ``min_terms`` of a long query's terms."""
    terms = set(query_terms(query))
    if len(terms) <= SHORT_QUERY_TERMS:  # a keyword query: one shared word is the match
        return status
    out = list(status)
    for i, (hit, s) in enumerate(zip(bm25, status, strict=True)):
        if s == "kept" and hit.row not in dense_rows:
            held = terms & set(query_terms(view.passage(hit.row).index_text))
            if len(held) < min_terms:
                out[i] = "weak_word_match"
    return out


def apply_gates(query: str, bm25: list[Hit], dense: list[Hit], config: SearchConfig, view: View) -> Gated:
    """Floors per ranker, word matches that must earn their place, then the topic gate."""
    bm25_status: list[Status] = ["kept" if h.score > config.bm25_floor else "under_floor" for h in bm25]
    dense_status: list[Status] = ["kept" if h.score >= config.dense_floor else "under_floor" for h in dense]
    dense_rows = {h.row for h, s in zip(dense, dense_status, strict=True) if s == "kept"}
    weak_meaning = bool(dense_rows) and max(h.score for h in dense if h.row in dense_rows) < config.dense_weak
    if config.mode == "hybrid" and weak_meaning and config.bm25_only_min_terms > 1:
        bm25_status = _weak_word_matches(query, bm25, bm25_status, dense_rows, config.bm25_only_min_terms, view)
    notes: list[str] = []
    gate_applies = (
        config.mode == "hybrid" and config.topic_gate and "kept" in bm25_status and "kept" not in dense_status
    )
    if gate_applies and not is_specific(query, view):
        bm25_status = ["topic_gate" if s == "kept" else s for s in bm25_status]
        notes.append(TOPIC_GATE_NOTE)
    return Gated(
        bm25=[h for h, s in zip(bm25, bm25_status, strict=True) if s == "kept"],
        dense=[h for h, s in zip(dense, dense_status, strict=True) if s == "kept"],
        bm25_status=bm25_status,
        dense_status=dense_status,
        notes=notes,
    )
