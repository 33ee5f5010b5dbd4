"""The ``eval --json`` contract: the shapes a CI script (and ``--junit``, ``--summary``, ``--report``) reads.

Built by ``report.EvalReport.to_wire``; nothing here runs a case or computes a metric.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel

from .metrics import percentile

FailureKind = Literal["permission_violation", "missed_relevant", "disposition", "reason", "answer"]


class GateResult(BaseModel):
    threshold: float
    value: float | None
    passed: bool


class Failure(BaseModel):
    """One check a case failed, for the report and a CI log."""

    id: str
    line: int
    question: str
    kind: FailureKind
    expected: Any
    got: Any


class Latency(BaseModel):
    p50: float
    p95: float

    @classmethod
    def of(cls, values: list[float]) -> Latency:
        return cls(p50=round(percentile(values, 50), 2), p95=round(percentile(values, 95), 2))


class CaseJson(BaseModel):
    """One case's results, so a CI log can say which case failed and how."""

    id: str
    line: int
    expect: Literal["answer", "abstain"] | None
    disposition: str | None
    reason: str | None
    retrieved: list[str]
    """The top k passage IDs, in order."""
    hits: list[str]
    """The retrieved IDs that match a relevant label."""
    recall: float | None
    rr: float | None
    ndcg: float | None
    answer_ok: bool | None
    citations_ok: bool | None
    search_ms: float
    ask_ms: float | None
    violations: list[str]
    conflict: bool | None = None
    """With --ask: current sources disagreed on what the answer relied on (flagged, never silently ranked)."""
    question: str = ""
    """The case's question (cut at 200 characters), for reports a person reads."""
    timings_ms: dict[str, float] = {}
    """The search's stages (``embed``, ``bm25``, ``dense``): where its time went."""


class EvalJson(BaseModel):
    """The ``eval --json`` report."""

    case_count: int
    cases: list[CaseJson]
    k: int
    retrieval: dict[str, float | None]
    retrieval_cases: int
    permission_violations: int
    disposition_accuracy: float | None
    reason_accuracy: float | None
    latency_ms: dict[str, Latency]
    failures: list[Failure]
    gates: dict[str, GateResult]
    model: str | None = None
    citation_pass_rate: float | None = None
    searches_per_case: float | None = None
    tokens_per_case: float | None = None
    cost_usd_per_case: float | None = None
    answer_accuracy: float | None = None
    """With --ask: answerable cases with ``answer_contains`` whose answer contains one of them."""
    answer_cases: int = 0
    cost_usd: float | None = None
    """With --ask: the run's total model cost (0 for the local model), None when a backend gave no price."""
    outcomes: dict[str, int] | None = None
    """With --ask: labelled cases by outcome (answered right / wrong, abstained right / wrong)."""
    conflicts_flagged: int | None = None
    """With --ask: cases where current sources disagreed and the run said so
    (answered with a conflict note, or abstained ``conflicting_evidence``)."""
    conflict_cases: list[str] | None = None
    """With --ask: the IDs of those cases."""
    verifier_rejections: int | None = None
    """With --verify: claims the verifier judged unsupported, over all cases."""
    verifier_failures: int | None = None
    """With --verify: cases whose verifier gave no verdicts (timeout, API error): they abstained."""
    verifier_stopped_wrong: int | None = None
    """With --verify: answerable cases whose submitted answer lacked
    every ``answer_contains`` and that the verifier kept from the user."""
    verifier_lost_right: int | None = None
    """With --verify: answerable cases whose submitted answer was
    right and that the verifier turned wrong (dropped or abstained)."""
