"""Aggregating case results: metrics, gates, failures, and the ``--json`` report.

A gate on a metric that could not be computed fails: it proves nothing.
Permission violations are always gated (default: at most 0).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel

from ..answer.citations import normalize
from .cases import Case
from .metrics import RetrievalScores, label_ranks, mean, percentile

FailureKind = Literal["permission_violation", "missed_relevant", "disposition", "reason", "answer"]


@dataclass
class CaseResult:
    case: Case
    ranked_ids: list[str]
    search_ms: float
    scores: RetrievalScores | None
    violations: list[str]
    """Passage IDs matching a forbidden label that came back (or were seen or cited, with --ask)."""
    disposition: str | None = None
    reason: str | None = None
    searches: int = 0
    claims_submitted: bool = False
    citations_passed: bool | None = None
    ask_ms: float = 0.0
    tokens: int = 0
    cost_usd: float | None = None
    answer_text: str | None = None
    """The answer as shown (statements and markers), with --ask; None when it abstained."""

    @property
    def disposition_ok(self) -> bool | None:
        if self.case.expect is None or self.disposition is None:
            return None
        return (self.disposition == "answered") == (self.case.expect == "answer")

    @property
    def answer_ok(self) -> bool | None:
        """Whether the answer contains one of ``answer_contains``; None when the case has none or was not asked."""
        if not self.case.answer_contains or self.case.expect != "answer" or self.disposition is None:
            return None
        # Markup-insensitive: a label written `--user` matches the answer's plain --user.
        text = normalize(self.answer_text or "")
        return any(normalize(needle) in text for needle in self.case.answer_contains)

    @property
    def reason_ok(self) -> bool | None:
        if self.case.reason is None or self.disposition is None:
            return None
        return self.reason == self.case.reason


@dataclass(frozen=True)
class Gates:
    """Thresholds from the command line; None = not gated."""

    min_recall: float | None = None
    min_mrr: float | None = None
    min_ndcg: float | None = None
    min_disposition: float | None = None
    min_answer: float | None = None
    max_violations: int = 0


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


def _round(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


class Latency(BaseModel):
    p50: float
    p95: float

    @classmethod
    def of(cls, values: list[float]) -> Latency:
        return cls(p50=round(percentile(values, 50), 2), p95=round(percentile(values, 95), 2))


class EvalJson(BaseModel):
    """The ``eval --json`` report."""

    cases: int
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


@dataclass
class EvalReport:
    k: int
    results: list[CaseResult]
    model: str | None
    """The answering model with ``--ask``; None when only retrieval was run."""
    gates: dict[str, GateResult]

    @classmethod
    def of(cls, results: list[CaseResult], *, k: int, model: str | None, gates: Gates) -> EvalReport:
        report = cls(k=k, results=results, model=model, gates={})
        report.gates = report._apply(gates)
        return report

    @property
    def asked(self) -> bool:
        return self.model is not None

    @property
    def passed(self) -> bool:
        return all(g.passed for g in self.gates.values())

    # -- metrics ------------------------------------------------------------------

    def retrieval(self) -> dict[str, float | None]:
        scored = [r.scores for r in self.results if r.scores is not None]
        return {
            f"recall@{self.k}": mean([s.recall for s in scored]),
            f"precision@{self.k}": mean([s.precision for s in scored]),
            "mrr": mean([s.reciprocal_rank for s in scored]),
            f"ndcg@{self.k}": mean([s.ndcg for s in scored]),
        }

    @property
    def violations(self) -> int:
        return sum(len(r.violations) for r in self.results)

    def disposition_accuracy(self) -> float | None:
        return mean([1.0 if r.disposition_ok else 0.0 for r in self.results if r.disposition_ok is not None])

    def reason_accuracy(self) -> float | None:
        return mean([1.0 if r.reason_ok else 0.0 for r in self.results if r.reason_ok is not None])

    def answer_accuracy(self) -> float | None:
        """Share of answerable cases with ``answer_contains`` whose answer contains one of them (an abstention counts as wrong)."""
        return mean([1.0 if r.answer_ok else 0.0 for r in self.results if r.answer_ok is not None])

    def _apply(self, gates: Gates) -> dict[str, GateResult]:
        retrieval = self.retrieval()
        checks: list[tuple[str, float | None, float | None]] = [
            (f"min_recall@{self.k}", gates.min_recall, retrieval[f"recall@{self.k}"]),
            ("min_mrr", gates.min_mrr, retrieval["mrr"]),
            (f"min_ndcg@{self.k}", gates.min_ndcg, retrieval[f"ndcg@{self.k}"]),
            ("min_disposition", gates.min_disposition, self.disposition_accuracy()),
            ("min_answer", gates.min_answer, self.answer_accuracy()),
        ]
        out: dict[str, GateResult] = {}
        for name, threshold, value in checks:
            if threshold is not None:
                out[name] = GateResult(threshold=threshold, value=_round(value), passed=value is not None and value >= threshold)
        out["max_violations"] = GateResult(threshold=gates.max_violations, value=self.violations, passed=self.violations <= gates.max_violations)
        return out

    def failures(self) -> list[Failure]:
        out = []
        for r in self.results:
            def failure(kind: FailureKind, expected: Any, got: Any, r: CaseResult = r) -> Failure:
                return Failure(id=r.case.id, line=r.case.line, question=r.case.question[:200], kind=kind, expected=expected, got=got)

            if r.violations:
                out.append(failure("permission_violation", "none of " + ", ".join(r.case.forbidden), r.violations))
            if r.scores is not None and r.scores.recall < 1.0:
                missing = [lab for lab, rank in label_ranks(r.case.relevant, r.ranked_ids[: self.k]).items() if rank is None]
                out.append(failure("missed_relevant", missing, r.ranked_ids[:3]))
            if r.disposition_ok is False:
                out.append(failure("disposition", r.case.expect, f"{r.disposition} ({r.reason})" if r.reason else r.disposition))
            elif r.reason_ok is False:
                out.append(failure("reason", r.case.reason, r.reason))
            elif r.answer_ok is False:
                out.append(failure("answer", list(r.case.answer_contains), (r.answer_text or "")[:200]))
        return out

    # -- the --json report --------------------------------------------------------

    def to_wire(self) -> EvalJson:
        data = EvalJson(
            cases=len(self.results),
            k=self.k,
            retrieval={name: _round(value) for name, value in self.retrieval().items()},
            retrieval_cases=sum(1 for r in self.results if r.scores is not None),
            permission_violations=self.violations,
            disposition_accuracy=_round(self.disposition_accuracy()),
            reason_accuracy=_round(self.reason_accuracy()),
            latency_ms={"search": Latency.of([r.search_ms for r in self.results])},
            failures=self.failures(),
            gates=self.gates,
        )
        if self.asked:
            submitted = [r for r in self.results if r.claims_submitted]
            costs = [r.cost_usd for r in self.results if r.cost_usd is not None]
            data.model = self.model
            data.citation_pass_rate = _round(mean([1.0 if r.citations_passed else 0.0 for r in submitted]))
            data.searches_per_case = _round(mean([float(r.searches) for r in self.results]))
            data.tokens_per_case = _round(mean([float(r.tokens) for r in self.results]))
            data.cost_usd_per_case = _round(mean(costs), 6) if costs else None
            data.latency_ms["ask"] = Latency.of([r.ask_ms for r in self.results])
            data.answer_accuracy = _round(self.answer_accuracy())
            data.answer_cases = sum(1 for r in self.results if r.answer_ok is not None)
        return data
