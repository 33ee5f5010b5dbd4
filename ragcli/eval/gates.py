"""CI gates: thresholds from the command line, validated before anything runs.

Rates (recall, MRR, nDCG, disposition, answer, citations) lie in [0, 1]; a
gate outside that range could never pass or never fail. Gates on the answers
need ``--ask``: without it they could only fail. ``--max-drop METRIC=X`` gates
a comparison (``--compare``, ``--baseline``): B may fall at most X below A.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ..errors import InputError

RATE_GATES = ("min_recall", "min_mrr", "min_ndcg", "min_disposition", "min_answer", "min_citations")
ASK_GATES = ("min_disposition", "min_answer", "min_citations", "max_cost")


@dataclass(frozen=True)
class Gates:
    """Thresholds from the command line; None = not gated."""

    min_recall: float | None = None
    min_mrr: float | None = None
    min_ndcg: float | None = None
    min_disposition: float | None = None
    min_answer: float | None = None
    min_citations: float | None = None
    """Share of submitted claim sets that passed every citation check."""
    max_p95_ms: float | None = None
    """Search latency p95 (and, with --ask, the answer loop's p95) at most this."""
    max_cost: float | None = None
    """Total model cost of the run in USD at most this."""
    max_violations: int = 0

    def __post_init__(self) -> None:
        for name in RATE_GATES:
            value = getattr(self, name)
            if value is not None and not 0.0 <= value <= 1.0:
                raise InputError(f"{_flag(name)} {value}: a rate gate must be between 0 and 1")
        for name in ("max_p95_ms", "max_cost"):
            value = getattr(self, name)
            if value is not None and value < 0:
                raise InputError(f"{_flag(name)} {value}: must be at least 0")

    def check_asked(self, asked: bool) -> None:
        """Answer gates measure the answer loop: without ``--ask`` they could only fail, so they are refused."""
        if asked:
            return
        given = [_flag(name) for name in ASK_GATES if getattr(self, name) is not None]
        if given:
            verb = "gate" if len(given) > 1 else "gates"
            raise InputError(f"{', '.join(given)} {verb} the answers: add --ask")


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


DropMetric = Literal["recall", "mrr", "ndcg", "disposition", "answer", "citations"]
DROP_METRICS: tuple[DropMetric, ...] = ("recall", "mrr", "ndcg", "disposition", "answer", "citations")
"""What ``--max-drop METRIC=X`` may gate: the rates of the ``--min-*`` gates, by the same names."""
ASK_DROPS: tuple[DropMetric, ...] = ("disposition", "answer", "citations")


def parse_max_drops(values: Sequence[str], *, asked: bool) -> dict[DropMetric, float]:
    """``--max-drop METRIC=X`` (repeatable): the comparison fails when B is more than X below A on METRIC."""
    drops: dict[DropMetric, float] = {}
    for value in values:
        name, sep, number = value.partition("=")
        metric = next((m for m in DROP_METRICS if m == name.strip()), None)
        if not sep or metric is None:
            raise InputError(f"--max-drop {value!r}: use METRIC=X with METRIC one of {', '.join(DROP_METRICS)}")
        try:
            limit = float(number)
        except ValueError:
            raise InputError(f"--max-drop {value!r}: X must be a number between 0 and 1") from None
        if not 0.0 <= limit <= 1.0:
            raise InputError(f"--max-drop {value!r}: X must be between 0 and 1")
        if metric in ASK_DROPS and not asked:
            raise InputError(f"--max-drop {metric} gates the answers: add --ask")
        drops[metric] = limit
    return drops
