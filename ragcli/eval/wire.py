"""The ``eval --json`` contract: the shapes a CI script (and ``--junit``, ``--summary``, ``--report``) reads.

Built by ``report.EvalReport.to_wire``; nothing here runs a case or computes a metric. A report read back
(``--baseline FILE.json``) is validated against these models, so every per-case value a comparison pairs is here.
"""

from __future__ import annotations

from typing import Any, Literal

from ..record import Record
from .metrics import percentile

FailureKind = Literal["permission_violation", "missed_relevant", "disposition", "reason", "answer"]
Outcome = Literal["answered_right", "answered_wrong", "abstained_right", "abstained_wrong"]
OUTCOMES: tuple[Outcome, ...] = ("answered_right", "answered_wrong", "abstained_right", "abstained_wrong")


class GateResult(Record):
    threshold: float
    value: float | None
    passed: bool


class Failure(Record):
    """One check a case failed, for the report and a CI log."""

    id: str
    line: int
    question: str
    kind: FailureKind
    expected: Any
    got: Any


class Latency(Record):
    p50: float
    p95: float

    @classmethod
    def of(cls, values: list[float]) -> Latency:
        return cls(p50=round(percentile(values, 50), 2), p95=round(percentile(values, 95), 2))


class CaseJson(Record):
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
    outcome: Outcome | None = None
    """With --ask, for a case with ``expect``: answered or abstained, right or wrong."""
    searches: int | None = None
    """With --ask: searches the run made (the question's own included)."""
    tokens: int | None = None
    cost_usd: float | None = None
    """With --ask: the run's model cost, None when the backend has no price."""
    model_queries: int | None = None
    """With --ask: decisions of the model that carried a query (a search, a decomposition, a grade's gap)."""
    drifted_queries: int | None = None
    """With --ask: those refused because the query lost a kept term of the question (``query_drift``)."""
    repaired: bool | None = None
    """With --ask, for a case with ``relevant`` labels whose run searched again: a later search found a relevant
    passage the question's own search did not return."""
    fell_back: bool | None = None
    """With --ask: a decomposition could not be used and the run went on from the question's search."""


class Group(Record):
    """The cases of one outcome or reason code: how many, how long their answers took, what they cost."""

    cases: int
    ask_ms: Latency
    tokens_per_case: float
    cost_usd: float | None
    """The group's total model cost; None when a backend that spent tokens gave no price."""


class Breakdown(Record):
    """With --ask: where the time and money went."""

    by_outcome: dict[str, Group]
    """Labelled cases by outcome (answered right / wrong, abstained right / wrong)."""
    by_reason: dict[str, Group]
    """Abstentions by reason code."""
    searches: dict[str, int]
    """Cases by how many searches their run made (``"1"``, ``"2"``, ...)."""


class EvalJson(Record):
    """The ``eval --json`` report."""

    case_count: int
    cases: list[CaseJson]
    setup: dict[str, Any] | None = None
    """How the run was made (``name``, ``index``, ``k``, ``mode``; with --ask ``model``, ``max_searches``,
    ``plan``, ``verify``), so a report read back (``--baseline``) says what it was."""
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
    query_drift: float | None = None
    """With --ask: share of the model's queries (``model_queries``) refused for losing a kept term of the question;
    None when the model wrote none (the local model never does)."""
    model_queries: int | None = None
    researched: float | None = None
    """With --ask: share of runs that searched again after the question's own search."""
    repair_rate: float | None = None
    """With --ask: of the runs that searched again on a case with ``relevant`` labels, the share whose later
    searches found a relevant passage the first did not; None when no such run."""
    parts_fallbacks: int | None = None
    """With --ask: runs whose decomposition could not be used (malformed, or found nothing new)."""
    breakdown: Breakdown | None = None
    """With --ask: latency, tokens and cost by outcome and by reason code; cases by number of searches."""
