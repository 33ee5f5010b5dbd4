"""Scoring retrieval, permissions and answers on a labelled question file.

A case is one JSON line: ``id``, ``question``, ``as`` (a user file relative to
the question file) or ``principal`` (the same object inline), and optionally
``as_of``, ``expect`` (answer | abstain), ``reason`` (a reason code),
``relevant`` and ``forbidden`` (labels). A label matches a passage ID that
equals it or extends it at ``@`` or ``#``: ``pay-bands`` matches every version
and section of that document, ``refunds-policy@2026-09`` one version, a full
passage ID one passage, so labels survive a chunker change.

Retrieval metrics use binary relevance and count each label once, at the rank
of the first passage it matches. Everything runs in one process, with each
tenant's index opened once.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .answer import REASON_CODES, AnswerModel, Limits, ReasonCode, ask
from .errors import InputError, RagcliError
from .principal import Principal, load_principal, parse_principal
from .retriever import Retriever

MAX_CASES = 100_000

# US dollars per million tokens: input, output, cache write, cache read.
PRICES: dict[str, tuple[float, float, float, float]] = {
    "claude-sonnet-4-5": (3.0, 15.0, 3.75, 0.30),
    "claude-sonnet-4-6": (3.0, 15.0, 3.75, 0.30),
    "claude-haiku-4-5": (1.0, 5.0, 1.25, 0.10),
    "claude-opus-4-5": (5.0, 25.0, 6.25, 0.50),
}


# --------------------------------------------------------------------------- labels and metrics


def label_matches(label: str, passage_id: str) -> bool:
    """``pay-bands`` matches ``pay-bands@v1#x`` but never ``pay-bands-2024@…`` or ``pay@…``."""
    return passage_id == label or passage_id.startswith(label + "@") or passage_id.startswith(label + "#")


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


# --------------------------------------------------------------------------- cases


class CaseLine(BaseModel):
    """One line of the question file, validated where it enters."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    id: str | int | None = None
    question: str = Field(min_length=1, max_length=10_000)
    as_file: str | None = Field(default=None, alias="as")
    principal: dict[str, Any] | None = None
    as_of: dt.date | None = None
    expect: Literal["answer", "abstain"] | None = None
    reason: ReasonCode | None = None
    relevant: list[str] = Field(default_factory=list)
    forbidden: list[str] = Field(default_factory=list)


@dataclass(frozen=True)
class Case:
    id: str
    line: int
    question: str
    principal: Principal
    as_of: dt.date
    expect: Literal["answer", "abstain"] | None
    reason: ReasonCode | None
    relevant: tuple[str, ...]
    forbidden: tuple[str, ...]


def load_cases(path: str | Path, *, today: dt.date | None = None) -> list[Case]:
    """Read and validate every line before anything runs; a bad line is an error naming it."""
    path = Path(path)
    try:
        if path.exists() and not path.is_file():
            raise InputError(f"cannot read question file {path}: not a regular file")
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read question file {path}: {getattr(exc, 'strerror', None) or exc}") from None
    cases: list[Case] = []
    principals: dict[Path, Principal] = {}
    for lineno, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        if len(cases) >= MAX_CASES:
            raise InputError(f"{path}: more than {MAX_CASES} cases")
        cases.append(_parse_case(raw, lineno, path, principals, today or dt.date.today()))
    if not cases:
        raise InputError(f"question file {path} has no cases")
    return cases


def _parse_case(raw: str, lineno: int, path: Path, principals: dict[Path, Principal], today: dt.date) -> Case:
    where = f"{path}:{lineno}"
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise InputError(f"{where}: not valid JSON ({exc.msg})") from None
    except RecursionError:
        raise InputError(f"{where}: not valid JSON (nested too deeply)") from None
    if not isinstance(data, dict):
        raise InputError(f"{where}: each line must be a JSON object")
    try:
        line = CaseLine.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        field_name = ".".join(str(p) for p in first["loc"]) or "line"
        raise InputError(f"{where}: field '{field_name}': {first['msg']}") from None
    if (line.as_file is None) == (line.principal is None):
        raise InputError(f"{where}: give exactly one of 'as' (a user file) or 'principal'")
    try:
        if line.principal is not None:
            principal = parse_principal(line.principal, where=f"{where}: principal")
        else:
            assert line.as_file is not None
            user_file = (path.parent / line.as_file).resolve()
            if user_file not in principals:
                principals[user_file] = load_principal(user_file)
            principal = principals[user_file]
    except RagcliError as exc:
        raise InputError(f"{where}: {exc.message}") from None
    except ValueError as exc:  # a path with a NUL byte cannot name a file
        raise InputError(f"{where}: field 'as': not a usable file path ({exc})") from None
    return Case(
        id=str(line.id) if line.id is not None else f"line{lineno}",
        line=lineno,
        question=line.question,
        principal=principal,
        as_of=line.as_of or today,
        expect=line.expect,
        reason=line.reason,
        relevant=tuple(line.relevant),
        forbidden=tuple(line.forbidden),
    )


# --------------------------------------------------------------------------- running


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

    @property
    def disposition_ok(self) -> bool | None:
        if self.case.expect is None or self.disposition is None:
            return None
        return (self.disposition == "answered") == (self.case.expect == "answer")

    @property
    def reason_ok(self) -> bool | None:
        if self.case.reason is None or self.disposition is None:
            return None
        return self.reason == self.case.reason


@dataclass(frozen=True)
class Gates:
    min_recall: float | None = None
    min_mrr: float | None = None
    min_ndcg: float | None = None
    min_disposition: float | None = None
    max_violations: int = 0


@dataclass
class EvalReport:
    k: int
    results: list[CaseResult]
    asked: bool
    model: str | None
    gates: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return all(g["passed"] for g in self.gates.values())

    def _mean(self, values: list[float]) -> float | None:
        return sum(values) / len(values) if values else None

    def retrieval(self) -> dict[str, float | None]:
        scored = [r.scores for r in self.results if r.scores is not None]
        return {
            f"recall@{self.k}": self._mean([s.recall for s in scored]),
            f"precision@{self.k}": self._mean([s.precision for s in scored]),
            "mrr": self._mean([s.reciprocal_rank for s in scored]),
            f"ndcg@{self.k}": self._mean([s.ndcg for s in scored]),
        }

    @property
    def violations(self) -> int:
        return sum(len(r.violations) for r in self.results)

    def disposition_accuracy(self) -> float | None:
        return self._mean([1.0 if r.disposition_ok else 0.0 for r in self.results if r.disposition_ok is not None])

    def reason_accuracy(self) -> float | None:
        return self._mean([1.0 if r.reason_ok else 0.0 for r in self.results if r.reason_ok is not None])

    def failures(self) -> list[dict[str, Any]]:
        out = []
        for r in self.results:
            base = {"id": r.case.id, "line": r.case.line, "question": r.case.question[:200]}
            if r.violations:
                out.append({**base, "kind": "permission_violation", "expected": "none of " + ", ".join(r.case.forbidden), "got": r.violations})
            if r.scores is not None and r.scores.recall < 1.0:
                missing = [lab for lab, rank in label_ranks(r.case.relevant, r.ranked_ids[: self.k]).items() if rank is None]
                out.append({**base, "kind": "missed_relevant", "expected": missing, "got": r.ranked_ids[:3]})
            if r.disposition_ok is False:
                out.append({**base, "kind": "disposition", "expected": r.case.expect, "got": f"{r.disposition} ({r.reason})" if r.reason else r.disposition})
            elif r.reason_ok is False:
                out.append({**base, "kind": "reason", "expected": r.case.reason, "got": r.reason})
        return out

    def to_json(self) -> dict[str, Any]:
        search_ms = [r.search_ms for r in self.results]
        data: dict[str, Any] = {
            "cases": len(self.results),
            "k": self.k,
            "retrieval": _rounded(self.retrieval()),
            "retrieval_cases": sum(1 for r in self.results if r.scores is not None),
            "permission_violations": self.violations,
            "disposition_accuracy": _round(self.disposition_accuracy()),
            "reason_accuracy": _round(self.reason_accuracy()),
            "latency_ms": {"search": {"p50": round(percentile(search_ms, 50), 2), "p95": round(percentile(search_ms, 95), 2)}},
            "failures": self.failures(),
            "gates": self.gates,
        }
        if self.asked:
            ask_ms = [r.ask_ms for r in self.results]
            submitted = [r for r in self.results if r.claims_submitted]
            costs = [r.cost_usd for r in self.results if r.cost_usd is not None]
            data.update(
                model=self.model,
                citation_pass_rate=_round(self._mean([1.0 if r.citations_passed else 0.0 for r in submitted])),
                searches_per_case=_round(self._mean([float(r.searches) for r in self.results])),
                tokens_per_case=_round(self._mean([float(r.tokens) for r in self.results])),
                cost_usd_per_case=_round(self._mean(costs), 6) if costs else None,
            )
            data["latency_ms"]["ask"] = {"p50": round(percentile(ask_ms, 50), 2), "p95": round(percentile(ask_ms, 95), 2)}
        return data


def _round(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def _rounded(values: dict[str, float | None]) -> dict[str, float | None]:
    return {k: _round(v) for k, v in values.items()}


def _violations(case: Case, ids: Sequence[str]) -> list[str]:
    return [pid for pid in dict.fromkeys(ids) if any(label_matches(lab, pid) for lab in case.forbidden)]


def _cost(model_name: str, usage: Any) -> float | None:
    name = model_name.partition(":")[2]
    prices = PRICES.get(name)
    if prices is None:
        return None
    p_in, p_out, p_write, p_read = prices
    return (
        usage.input_tokens * p_in
        + usage.output_tokens * p_out
        + usage.cache_creation_input_tokens * p_write
        + usage.cache_read_input_tokens * p_read
    ) / 1_000_000


def evaluate(
    cases: Sequence[Case],
    retriever: Retriever,
    *,
    k: int = 10,
    model: AnswerModel | None = None,
    limits: Limits | None = None,
    gates: Gates | None = None,
    progress: Callable[[], None] | None = None,
) -> EvalReport:
    """Run every case (search, and the answer loop when ``model`` is given) and apply the gates."""
    # Fail on an unknown tenant before running anything, naming its first line.
    first_of_tenant: dict[str, Case] = {}
    for c in cases:
        first_of_tenant.setdefault(c.principal.tenant, c)
    for tenant_case in first_of_tenant.values():
        try:
            retriever.index_for(tenant_case.principal)
        except InputError as exc:
            raise InputError(f"line {tenant_case.line}: {exc.message}") from None
    results = []
    for case in cases:
        results.append(_run_case(case, retriever, k, model, limits))
        if progress is not None:
            progress()
    report = EvalReport(k=k, results=results, asked=model is not None, model=model.name if model else None)
    report.gates = _apply_gates(report, gates or Gates())
    return report


def _run_case(case: Case, retriever: Retriever, k: int, model: AnswerModel | None, limits: Limits | None) -> CaseResult:
    t = time.perf_counter()
    response = retriever.search(case.principal, case.question, as_of=case.as_of, k=k)
    search_ms = (time.perf_counter() - t) * 1000
    ranked = response.ids
    result = CaseResult(
        case=case,
        ranked_ids=ranked,
        search_ms=search_ms,
        scores=retrieval_scores(case.relevant, ranked, k) if case.relevant else None,
        violations=_violations(case, ranked),
    )
    if model is not None:
        t = time.perf_counter()
        outcome = ask(case.question, case.principal, retriever, model, as_of=case.as_of, limits=limits)
        result.ask_ms = (time.perf_counter() - t) * 1000
        result.disposition = outcome.disposition
        result.reason = outcome.reason
        result.searches = outcome.searches
        result.claims_submitted = bool(outcome.checks)
        result.citations_passed = all(c.passed for c in outcome.checks) if outcome.checks else None
        result.tokens = outcome.usage.total
        result.cost_usd = _cost(outcome.model, outcome.usage)
        seen = outcome.evidence_ids + [c.passage.id for c in outcome.claims]
        result.violations = list(dict.fromkeys(result.violations + _violations(case, seen)))
    return result


def _apply_gates(report: EvalReport, gates: Gates) -> dict[str, dict[str, Any]]:
    retrieval = report.retrieval()
    checks: list[tuple[str, float | None, float | None, bool]] = [
        (f"min_recall@{report.k}", gates.min_recall, retrieval[f"recall@{report.k}"], True),
        ("min_mrr", gates.min_mrr, retrieval["mrr"], True),
        (f"min_ndcg@{report.k}", gates.min_ndcg, retrieval[f"ndcg@{report.k}"], True),
        ("min_disposition", gates.min_disposition, report.disposition_accuracy(), True),
    ]
    out: dict[str, dict[str, Any]] = {}
    for name, threshold, value, at_least in checks:
        if threshold is None:
            continue
        # A gate on a metric that could not be computed fails: it proves nothing.
        passed = value is not None and (value >= threshold if at_least else value <= threshold)
        out[name] = {"threshold": threshold, "value": _round(value), "passed": passed}
    out["max_violations"] = {"threshold": gates.max_violations, "value": report.violations, "passed": report.violations <= gates.max_violations}
    return out


__all__ = [
    "REASON_CODES",
    "Case",
    "CaseResult",
    "EvalReport",
    "Gates",
    "evaluate",
    "label_matches",
    "load_cases",
    "percentile",
    "retrieval_scores",
]
