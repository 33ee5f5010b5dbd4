"""Label matching and retrieval metrics, pure functions.

A label matches a passage ID that equals it or extends it at ``@`` or ``#``:
``pay-bands`` matches every version and section of that document,
``refunds-policy@2026-09`` one version, a full passage ID one passage, so
labels survive a chunker change. Metrics use binary relevance and count each
label once, at the rank of the first passage it matches.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

_TEXT_HASH = re.compile(r"^([^@#]+@[^#]+?)\.[0-9a-f]{6}(#.*)?$")
"""A passage ID whose version carries its text's hash (``refunds-policy@2026-09.3f9a1c#annual-plans``)."""


def label_matches(label: str, passage_id: str) -> bool:
    """``pay-bands`` matches ``pay-bands@v1#x`` but never ``pay-bands-2024@…`` or ``pay@…``.

    A label names a document, a declared version or a section; the hash of the text that a passage ID's version
    carries after the declared one (``@2026-09.3f9a1c``) is not part of the label: ``refunds-policy@2026-09``
    matches ``refunds-policy@2026-09.3f9a1c#annual-plans``, so labels survive an edit of the text.
    """
    unhashed = _TEXT_HASH.match(passage_id)
    candidates = (passage_id,) if unhashed is None else (passage_id, unhashed.group(1) + (unhashed.group(2) or ""))
    return any(pid == label or pid.startswith(label + "@") or pid.startswith(label + "#") for pid in candidates)


def label_ranks(labels: Sequence[str], ranked_ids: Sequence[str]) -> dict[str, int | None]:
    """Rank (from 1) of the first passage each label matches, or None."""
    out: dict[str, int | None] = {}
    for label in dict.fromkeys(labels):
        out[label] = next((i for i, pid in enumerate(ranked_ids, start=1) if label_matches(label, pid)), None)
    return out


@dataclass(frozen=True)
class RetrievalScores:
    recall: float
    precision: float
    reciprocal_rank: float
    ndcg: float


def retrieval_scores(relevant: Sequence[str], ranked_ids: Sequence[str], k: int) -> RetrievalScores:
    """Binary-relevance metrics at ``k`` for one case; each label counts once."""
    ranks = label_ranks(relevant, list(ranked_ids)[:k])
    found = sorted(r for r in ranks.values() if r is not None)
    n = len(ranks)
    if n == 0:
        raise ValueError("retrieval metrics need at least one relevant label")
    dcg = sum(1.0 / math.log2(r + 1) for r in found)
    ideal = sum(1.0 / math.log2(i + 1) for i in range(1, min(n, k) + 1))
    return RetrievalScores(
        recall=len(found) / n,
        precision=len(found) / k,
        reciprocal_rank=1.0 / found[0] if found else 0.0,
        ndcg=dcg / ideal if ideal else 0.0,
    )


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile (q in 0..100); 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    lo, hi = math.floor(pos), math.ceil(pos)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None
