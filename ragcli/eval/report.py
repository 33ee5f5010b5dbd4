"""Aggregating case results: metrics, gates, failures, and the ``--json`` report.

A gate on a metric that could not be computed fails: it proves nothing.
Permission violations are always gated (default: at most 0).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from ..answer.citations import normalize
from .breakdown import add_agent_path
from .cases import Case
from .gates import Gates
from .metrics import RetrievalScores, label_matches, label_ranks, mean
from .wire import OUTCOMES, CaseJson, EvalJson, Failure, FailureKind, GateResult, Latency, Outcome


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
    conflict: bool | None = None
    """With --ask: current sources disagreed on what the answer relied on
    (answered citing every side, or abstained ``conflicting_evidence``)."""
    verified: bool = False
    """With a verifier: the run's claims went to it."""
    verifier_rejected: int = 0
    """Claims the verifier judged unsupported (dropped)."""
    verifier_failed: bool = False
    submitted_answer: str | None = None
    """With a verifier: the claims as submitted, before it judged them."""
    timings_ms: dict[str, float] = field(default_factory=dict)
    """The search's stages (embed, bm25, dense) in milliseconds."""
    model_queries: int = 0
    """With --ask: decisions of the model that carried a query; ``drifted_queries`` of them lost a kept term."""
    drifted_queries: int = 0
    repaired: bool | None = None
    """With --ask: a search after the question's own found a relevant passage it did not (None: no re-search,
    or no relevant labels)."""
    fell_back: bool = False

    @property
    def verifier_effect(self) -> Literal["stopped_wrong", "lost_right"] | None:
        """What the verifier changed for an answerable case with ``answer_contains``: a wrong answer it kept
        from the user (dropped or abstained), or a right one it lost; None when it changed nothing that counts."""
        if (
            not self.verified
            or self.submitted_answer is None
            or not self.case.answer_contains
            or self.case.expect != "answer"
        ):
            return None
        before = any(normalize(n) in normalize(self.submitted_answer) for n in self.case.answer_contains)
        after = self.answer_ok is True
        if before and not after:
            return "lost_right"
        if not before and self.disposition != "answered":
            return "stopped_wrong"
        return None

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

    @property
    def outcome(self) -> Outcome | None:
        """Right or wrong, answered or abstained; None for a case without ``expect`` or not asked.

        An answer to an answerable case is wrong when it lacks every ``answer_contains`` string.
        """
        if self.case.expect is None or self.disposition is None:
            return None
        if self.disposition == "answered":
            right = self.case.expect == "answer" and self.answer_ok is not False
            return "answered_right" if right else "answered_wrong"
        return "abstained_right" if self.case.expect == "abstain" else "abstained_wrong"


def _round(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


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
        """Share of answerable cases with ``answer_contains`` whose
        answer contains one of them (an abstention counts as wrong)."""
        return mean([1.0 if r.answer_ok else 0.0 for r in self.results if r.answer_ok is not None])

    def citation_pass_rate(self) -> float | None:
        """Share of submitted claim sets whose citations all passed the checks."""
        return mean([1.0 if r.citations_passed else 0.0 for r in self.results if r.claims_submitted])

    def latency(self) -> dict[str, Latency]:
        out = {"search": Latency.of([r.search_ms for r in self.results])}
        if self.asked:
            out["ask"] = Latency.of([r.ask_ms for r in self.results])
        return out

    def cost_usd(self) -> float | None:
        """Total cost; a run that spent no tokens cost nothing, one with tokens but no price is unknown."""
        if not self.asked:
            return None
        costs = [r.cost_usd for r in self.results if r.cost_usd is not None]
        if costs:
            return sum(costs)
        return 0.0 if all(r.tokens == 0 for r in self.results) else None

    def outcomes(self) -> dict[str, int]:
        counts: dict[str, int] = dict.fromkeys(OUTCOMES, 0)
        for r in self.results:
            if r.outcome is not None:
                counts[r.outcome] += 1
        return counts

    def _apply(self, gates: Gates) -> dict[str, GateResult]:
        retrieval = self.retrieval()
        checks: list[tuple[str, float | None, float | None]] = [
            (f"min_recall@{self.k}", gates.min_recall, retrieval[f"recall@{self.k}"]),
            ("min_mrr", gates.min_mrr, retrieval["mrr"]),
            (f"min_ndcg@{self.k}", gates.min_ndcg, retrieval[f"ndcg@{self.k}"]),
            ("min_disposition", gates.min_disposition, self.disposition_accuracy()),
            ("min_answer", gates.min_answer, self.answer_accuracy()),
            ("min_citations", gates.min_citations, self.citation_pass_rate()),
        ]
        out: dict[str, GateResult] = {}
        for name, threshold, value in checks:
            if threshold is not None:
                out[name] = GateResult(
                    threshold=threshold, value=_round(value), passed=value is not None and value >= threshold
                )
        if gates.max_p95_ms is not None:
            worst = max(p.p95 for p in self.latency().values())
            out["max_p95_ms"] = GateResult(threshold=gates.max_p95_ms, value=worst, passed=worst <= gates.max_p95_ms)
        if gates.max_cost is not None:
            cost = self.cost_usd()
            out["max_cost"] = GateResult(
                threshold=gates.max_cost, value=_round(cost, 6), passed=cost is not None and cost <= gates.max_cost
            )
        out["max_violations"] = GateResult(
            threshold=gates.max_violations, value=self.violations, passed=self.violations <= gates.max_violations
        )
        return out

    def failures(self) -> list[Failure]:
        out = []
        for r in self.results:

            def failure(kind: FailureKind, expected: Any, got: Any, r: CaseResult = r) -> Failure:
                return Failure(
                    id=r.case.id,
                    line=r.case.line,
                    question=r.case.question[:200],
                    kind=kind,
                    expected=expected,
                    got=got,
                )

            if r.violations:
                out.append(failure("permission_violation", "none of " + ", ".join(r.case.forbidden), r.violations))
            if r.scores is not None and r.scores.recall < 1.0:
                missing = [
                    lab for lab, rank in label_ranks(r.case.relevant, r.ranked_ids[: self.k]).items() if rank is None
                ]
                out.append(failure("missed_relevant", missing, r.ranked_ids[:3]))
            if r.disposition_ok is False:
                out.append(
                    failure(
                        "disposition", r.case.expect, f"{r.disposition} ({r.reason})" if r.reason else r.disposition
                    )
                )
            elif r.reason_ok is False:
                out.append(failure("reason", r.case.reason, r.reason))
            elif r.answer_ok is False:
                out.append(failure("answer", list(r.case.answer_contains), (r.answer_text or "")[:200]))
        return out

    # -- the --json report --------------------------------------------------------

    def case_rows(self) -> list[CaseJson]:
        rows = []
        for r in self.results:
            retrieved = r.ranked_ids[: self.k]
            hits = [pid for pid in retrieved if any(label_matches(lab, pid) for lab in r.case.relevant)]
            s = r.scores
            rows.append(
                CaseJson(
                    id=r.case.id,
                    line=r.case.line,
                    expect=r.case.expect,
                    disposition=r.disposition,
                    reason=r.reason,
                    retrieved=retrieved,
                    hits=hits,
                    recall=_round(s.recall) if s else None,
                    rr=_round(s.reciprocal_rank) if s else None,
                    ndcg=_round(s.ndcg) if s else None,
                    answer_ok=r.answer_ok,
                    citations_ok=r.citations_passed if r.claims_submitted else None,
                    search_ms=round(r.search_ms, 2),
                    ask_ms=round(r.ask_ms, 2) if self.asked else None,
                    violations=r.violations,
                    conflict=r.conflict,
                    question=r.case.question[:200],
                    timings_ms={stage: round(ms, 2) for stage, ms in r.timings_ms.items()},
                    **(self._asked_row(r) if self.asked else {}),
                )
            )
        return rows

    @staticmethod
    def _asked_row(r: CaseResult) -> dict[str, Any]:
        return dict(
            outcome=r.outcome,
            searches=r.searches,
            tokens=r.tokens,
            cost_usd=_round(r.cost_usd, 6),
            model_queries=r.model_queries,
            drifted_queries=r.drifted_queries,
            repaired=r.repaired,
            fell_back=r.fell_back,
        )

    def to_wire(self) -> EvalJson:
        data = EvalJson(
            case_count=len(self.results),
            cases=self.case_rows(),
            k=self.k,
            retrieval={name: _round(value) for name, value in self.retrieval().items()},
            retrieval_cases=sum(1 for r in self.results if r.scores is not None),
            permission_violations=self.violations,
            disposition_accuracy=_round(self.disposition_accuracy()),
            reason_accuracy=_round(self.reason_accuracy()),
            latency_ms=self.latency(),
            failures=self.failures(),
            gates=self.gates,
        )
        if self.asked:
            costs = [r.cost_usd for r in self.results if r.cost_usd is not None]
            data.model = self.model
            data.citation_pass_rate = _round(self.citation_pass_rate())
            data.searches_per_case = _round(mean([float(r.searches) for r in self.results]))
            data.tokens_per_case = _round(mean([float(r.tokens) for r in self.results]))
            data.cost_usd_per_case = _round(mean(costs), 6) if costs else None
            data.answer_accuracy = _round(self.answer_accuracy())
            data.answer_cases = sum(1 for r in self.results if r.answer_ok is not None)
            data.cost_usd = _round(self.cost_usd(), 6)
            data.outcomes = self.outcomes()
            add_agent_path(data)
            flagged = [r.case.id for r in self.results if r.conflict]
            data.conflicts_flagged = len(flagged)
            data.conflict_cases = flagged
            if any(r.verified for r in self.results):
                data.verifier_rejections = sum(r.verifier_rejected for r in self.results)
                data.verifier_failures = sum(1 for r in self.results if r.verifier_failed)
                data.verifier_stopped_wrong = sum(1 for r in self.results if r.verifier_effect == "stopped_wrong")
                data.verifier_lost_right = sum(1 for r in self.results if r.verifier_effect == "lost_right")
        return data
