"""Two runs of the same cases, compared (``ragcli eval --compare A.toml B.toml``, ``--baseline A.json``).

Per metric: A, B, the difference B - A and a paired bootstrap 95% interval of
it; the cases that flipped (right to wrong, wrong to right); and the
``--max-drop`` gates, which fail when B falls more than X below A.

The bootstrap is paired: ``resamples`` times, draw the cases with replacement
(one draw for A and B and every metric), compute each metric on A and on B
over the drawn cases and keep B - A; the interval is the 2.5th and 97.5th
percentiles of those differences (a draw where a metric has no case on one
side is left out of that metric's). The draws come from numpy's PCG64 seeded
with ``seed``: the same two runs and seed give the same intervals.

A metric is the mean of its per-case values over the cases where it is
defined: recall, MRR, nDCG over cases with ``relevant`` labels; disposition
over cases with ``expect``; answer over answerable cases with
``answer_contains``; citations over cases whose run submitted claims;
searches and tokens per case over every case (with ``--ask``). A case is
*right* when its outcome is answered right or abstained right (with
``--ask``), or when every relevant label was found in the top k (without).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from ..errors import InputError, os_reason
from ..record import Record
from .gates import DropMetric
from .wire import CaseJson, EvalJson, GateResult

if TYPE_CHECKING:
    import numpy as np

SEED = 0
RESAMPLES = 10_000
DRAW_CELLS = 2_000_000
"""Case draws made at once (resamples x cases): bounds the memory a large question file needs."""


class MetricDiff(Record):
    """One metric of the comparison."""

    metric: str
    a: float | None
    b: float | None
    diff: float | None
    """B - A."""
    low: float | None = None
    high: float | None = None
    """The paired bootstrap 95% interval of B - A; None for a latency (a percentile, not a mean of cases)."""
    cases: int | None = None
    """Cases where the metric is defined in both runs."""


class Flip(Record):
    """A case right in one run and wrong in the other."""

    id: str
    line: int
    direction: Literal["right_to_wrong", "wrong_to_right"]
    a: str
    """What the case was in A: its outcome with ``--ask`` (``answered_right``), else ``found_all`` /
    ``missed_relevant``."""
    b: str


class CompareJson(Record):
    """The ``eval --compare`` / ``--baseline`` report: both runs, the differences, the flips, the gates."""

    case_count: int
    seed: int
    resamples: int
    metrics: list[MetricDiff]
    flipped: list[Flip]
    gates: dict[str, GateResult]
    """The ``--max-drop`` gates (``max_drop_recall``: the value is A - B, the drop)."""
    passed: bool
    """Every ``--max-drop`` gate and every gate of run B passed."""
    a: EvalJson
    b: EvalJson


PerCase = Callable[[CaseJson], "float | None"]


def _rate(value: bool | None) -> float | None:
    return None if value is None else float(value)


def _disposition(case: CaseJson) -> float | None:
    if case.expect is None or case.disposition is None:
        return None
    return float((case.disposition == "answered") == (case.expect == "answer"))


METRICS: tuple[tuple[str, PerCase, bool], ...] = (
    ("recall", lambda c: c.recall, False),
    ("mrr", lambda c: c.rr, False),
    ("ndcg", lambda c: c.ndcg, False),
    ("disposition", _disposition, True),
    ("answer", lambda c: _rate(c.answer_ok), True),
    ("citations", lambda c: _rate(c.citations_ok), True),
    ("searches", lambda c: None if c.searches is None else float(c.searches), True),
    ("tokens", lambda c: None if c.tokens is None else float(c.tokens), True),
)
"""Name, per-case value, and whether it needs ``--ask``. The first six are what ``--max-drop`` gates."""


def compare(
    a: EvalJson,
    b: EvalJson,
    *,
    drops: Mapping[DropMetric, float] | None = None,
    seed: int = SEED,
    resamples: int = RESAMPLES,
) -> CompareJson:
    """B against A, case by case. Both must be of the same cases, both asked or neither."""
    asked = a.model is not None
    if asked != (b.model is not None):
        which = "A" if asked else "B"
        raise InputError(f"only run {which} ran the answer loop: compare two runs both with --ask, or both without")
    pairs = paired(a.cases, b.cases)
    names = [(name, per_case) for name, per_case, needs_ask in METRICS if asked or not needs_ask]
    columns = {name: ([per_case(x) for x, _ in pairs], [per_case(y) for _, y in pairs]) for name, per_case in names}
    differences = bootstrap(columns, resamples=resamples, seed=seed)
    metrics = [_metric(name, *columns[name], differences[name]) for name, _ in names]
    metrics += _latencies(a, b)
    by_name = {m.metric: m for m in metrics}
    gates = {f"max_drop_{metric}": _drop_gate(by_name.get(metric), limit) for metric, limit in (drops or {}).items()}
    return CompareJson(
        case_count=len(pairs),
        seed=seed,
        resamples=resamples,
        metrics=metrics,
        flipped=flips(pairs, asked),
        gates=gates,
        passed=all(g.passed for g in gates.values()) and all(g.passed for g in b.gates.values()),
        a=a,
        b=b,
    )


def paired(a: Sequence[CaseJson], b: Sequence[CaseJson]) -> list[tuple[CaseJson, CaseJson]]:
    """The cases of both runs, paired by ID and line; runs of other cases are refused, naming one that differs."""
    by_key = {(c.id, c.line): c for c in b}
    missing = [c for c in a if (c.id, c.line) not in by_key]
    extra = {(c.id, c.line) for c in b} - {(c.id, c.line) for c in a}
    if missing or extra or len(a) != len(b):
        case_id, line = (missing[0].id, missing[0].line) if missing else min(extra, default=("?", 0))
        raise InputError(
            f"the two runs are not of the same cases (case {case_id} of line {line} is in only one): "
            "compare runs of the same question file"
        )
    return [(c, by_key[(c.id, c.line)]) for c in a]


def bootstrap(
    columns: Mapping[str, tuple[Sequence[float | None], Sequence[float | None]]], *, resamples: int, seed: int
) -> dict[str, np.ndarray]:
    """Per metric, B - A on each of ``resamples`` paired draws of the cases (NaN where a side has no case)."""
    import numpy as np

    n = len(next(iter(columns.values()))[0]) if columns else 0
    if n == 0:
        return {name: np.array([]) for name in columns}
    arrays = {name: (_values(a), _values(b)) for name, (a, b) in columns.items()}
    parts: dict[str, list[np.ndarray]] = {name: [] for name in columns}
    rng = np.random.default_rng(seed)
    chunk = max(1, min(resamples, DRAW_CELLS // n))
    done = 0
    while done < resamples:
        draws = rng.integers(0, n, size=(min(chunk, resamples - done), n))
        for name, (a, b) in arrays.items():
            parts[name].append(_means(b, draws) - _means(a, draws))
        done += len(draws)
    return {name: np.concatenate(chunks) for name, chunks in parts.items()}


def _values(column: Sequence[float | None]) -> tuple[np.ndarray, np.ndarray]:
    import numpy as np

    defined = np.array([v is not None for v in column])
    return np.array([v if v is not None else 0.0 for v in column], dtype=float), defined


def _means(column: tuple[np.ndarray, np.ndarray], draws: np.ndarray) -> np.ndarray:
    import numpy as np

    values, defined = column
    counts = defined[draws].sum(axis=1)
    sums = values[draws].sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)


def interval(differences: np.ndarray) -> tuple[float, float] | None:
    """The 2.5th and 97.5th percentiles (linear interpolation) of the draws where the metric was defined."""
    import numpy as np

    finite = differences[np.isfinite(differences)]
    if finite.size == 0:
        return None
    low, high = np.percentile(finite, [2.5, 97.5])
    return float(low), float(high)


def _mean(values: Sequence[float | None]) -> float | None:
    defined = [v for v in values if v is not None]
    return sum(defined) / len(defined) if defined else None


def _r(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _metric(name: str, a: Sequence[float | None], b: Sequence[float | None], draws: np.ndarray) -> MetricDiff:
    ma, mb = _mean(a), _mean(b)
    bounds = interval(draws) if ma is not None and mb is not None else None
    return MetricDiff(
        metric=name,
        a=_r(ma),
        b=_r(mb),
        diff=_r(mb - ma) if ma is not None and mb is not None else None,
        low=_r(bounds[0]) if bounds else None,
        high=_r(bounds[1]) if bounds else None,
        cases=sum(1 for x, y in zip(a, b, strict=True) if x is not None and y is not None),
    )


def _latencies(a: EvalJson, b: EvalJson) -> list[MetricDiff]:
    rows = []
    for stage in a.latency_ms.keys() & b.latency_ms.keys():
        for pct in ("p50", "p95"):
            va, vb = getattr(a.latency_ms[stage], pct), getattr(b.latency_ms[stage], pct)
            rows.append(MetricDiff(metric=f"{stage} {pct} ms", a=va, b=vb, diff=round(vb - va, 2)))
    return sorted(rows, key=lambda m: (not m.metric.startswith("search"), m.metric))


def _drop_gate(metric: MetricDiff | None, limit: float) -> GateResult:
    """Fails when B is more than ``limit`` below A, or the metric is undefined on a side (it proves nothing)."""
    if metric is None or metric.a is None or metric.b is None:
        return GateResult(threshold=limit, value=None, passed=False)
    drop = round(metric.a - metric.b, 4)
    return GateResult(threshold=limit, value=drop, passed=drop <= limit + 1e-9)


def right(case: CaseJson, asked: bool) -> tuple[bool, str] | None:
    """Whether the case came out right, and what it came out as; None when it is not judged."""
    if not asked:
        if case.recall is None:
            return None
        return (case.recall == 1.0, "found_all" if case.recall == 1.0 else "missed_relevant")
    if case.expect is None or case.disposition is None:
        return None
    if case.disposition == "answered":
        ok = case.expect == "answer" and case.answer_ok is not False
        return (ok, "answered_right" if ok else "answered_wrong")
    ok = case.expect == "abstain"
    return (ok, "abstained_right" if ok else "abstained_wrong")


def flips(pairs: Sequence[tuple[CaseJson, CaseJson]], asked: bool) -> list[Flip]:
    """The cases right in one run and wrong in the other, right-to-wrong first, each in question-file order."""
    out = []
    for x, y in pairs:
        rx, ry = right(x, asked), right(y, asked)
        if rx is None or ry is None or rx[0] == ry[0]:
            continue
        direction: Literal["right_to_wrong", "wrong_to_right"] = "right_to_wrong" if rx[0] else "wrong_to_right"
        out.append(Flip(id=x.id, line=x.line, direction=direction, a=rx[1], b=ry[1]))
    return sorted(out, key=lambda f: (f.direction != "right_to_wrong", f.line))


def read_report(path: Path) -> EvalJson:
    """An earlier ``eval --json`` report (``--baseline``), validated; an error names the file and the field."""
    from pydantic import ValidationError

    from ..errors import json_object, plain_validation_message

    try:
        if path.exists() and not path.is_file():
            raise InputError(f"cannot read baseline {path}: not a regular file")
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read baseline {path}: {os_reason(exc)}") from None
    data = json_object(text, where=str(path), not_object="not a JSON object")
    try:
        return EvalJson.model_validate(data)
    except ValidationError as exc:
        message = plain_validation_message(exc, where=str(path))
        raise InputError(f"{message}: --baseline takes what ragcli eval --json wrote") from None
