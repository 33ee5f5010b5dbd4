"""CI gates: thresholds from the command line, validated before anything runs.

Rates (recall, MRR, nDCG, disposition, answer, citations) lie in [0, 1]; a
gate outside that range could never pass or never fail. Gates on the answers
need ``--ask``: without it they could only fail.
"""

from __future__ import annotations

from dataclasses import dataclass

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
