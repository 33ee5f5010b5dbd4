"""``ragcli eval``'s reports for people: titled tables of plain cells, as Rich tables or (piped) TSV.

One run: the summary, outcomes with their latency, tokens and cost, abstentions by reason, gates and failing
checks. A comparison (``--compare``, ``--baseline``): per metric A, B, B - A and the bootstrap interval, the two
setups, the flipped cases, and the gates.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .console import console, plain_output, plural, safe, tsv

if TYPE_CHECKING:
    from ..eval.compare import CompareJson, MetricDiff
    from ..eval.wire import EvalJson, GateResult, Group

Section = tuple[str, list[str], list[list[str]]]
NUMBER_COLUMNS = frozenset({"value", "cases", "share", "threshold", "line", "B - A", *["ask p50 ms", "ask p95 ms"]})
NUMBER_COLUMNS |= {"tokens/case", "cost usd"}


def _right(header: Sequence[str], col: str) -> bool:
    """Numbers are right-justified; A and B are numbers only beside a metric (else a setting or an outcome)."""
    return col in NUMBER_COLUMNS or (col in ("A", "B") and header[0] == "metric")


def fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)


OUTCOME_LABELS = {
    "answered_right": "answered right",
    "answered_wrong": "answered wrong",
    "abstained_right": "abstained right",
    "abstained_wrong": "abstained wrong",
}
SUMMARY_KEYS = (
    "disposition_accuracy",
    "reason_accuracy",
    "answer_accuracy",
    "citation_pass_rate",
    "searches_per_case",
    "tokens_per_case",
    "cost_usd_per_case",
    "cost_usd",
    "conflicts_flagged",
    "verifier_rejections",
    "verifier_failures",
    "verifier_stopped_wrong",
    "verifier_lost_right",
    "researched",
    "repair_rate",
    "model_queries",
    "query_drift",
    "parts_fallbacks",
)
GROUP_COLUMNS = ["cases", "ask p50 ms", "ask p95 ms", "tokens/case", "cost usd"]


def _group(group: Group) -> list[str]:
    cost = "-" if group.cost_usd is None else f"{group.cost_usd:.4f}"
    return [str(group.cases), f"{group.ask_ms.p50:.1f}", f"{group.ask_ms.p95:.1f}", f"{group.tokens_per_case:g}", cost]


def sections(data: EvalJson) -> list[Section]:
    """One run: summary, outcomes (with --ask: latency, tokens and cost each), reasons, gates, failing checks."""
    summary = [[name, fmt(value)] for name, value in data.retrieval.items()]
    summary.append(["permission violations", fmt(data.permission_violations)])
    given = [key for key in SUMMARY_KEYS if getattr(data, key) is not None]
    summary += [[key.replace("_", " "), fmt(getattr(data, key))] for key in given]
    if data.breakdown is not None and data.breakdown.searches:
        spread = ", ".join(f"{n}: {cases}" for n, cases in data.breakdown.searches.items())
        summary.append(["cases by searches", spread])
    for stage, pcts in data.latency_ms.items():
        summary.append([f"{stage} latency p50 / p95 (ms)", f"{pcts.p50:.1f} / {pcts.p95:.1f}"])
    out = [(f"eval: {plural(data.case_count, 'case')}, k = {data.k}", ["metric", "value"], summary)]
    if data.outcomes is not None:
        labelled = sum(data.outcomes.values())
        rows = []
        for name, n in data.outcomes.items():
            row = [OUTCOME_LABELS[name], str(n), f"{n / labelled:.0%}" if labelled else "-"]
            if data.breakdown is not None:
                row += _group(data.breakdown.by_outcome[name])[1:]
            rows.append(row)
        header = ["outcome", "cases", "share"] + (GROUP_COLUMNS[1:] if data.breakdown is not None else [])
        out.append((f"outcomes of {plural(labelled, 'labelled case')}", header, rows))
    if data.breakdown is not None and data.breakdown.by_reason:
        rows = [[reason, *_group(group)] for reason, group in data.breakdown.by_reason.items()]
        out.append(("abstentions by reason", ["reason", *GROUP_COLUMNS], rows))
    out.append(("gates", ["gate", "threshold", "value", "result"], _gates(data.gates)))
    if data.failures:
        failures = [[f.id, f.kind, f.question[:80], fmt(f.expected), fmt(f.got)] for f in data.failures[:50]]
        out.append(
            (plural(len(data.failures), "failing check"), ["case", "kind", "question", "expected", "got"], failures)
        )
    return out


def _gates(gates: dict[str, GateResult], prefix: str = "") -> list[list[str]]:
    return [
        [prefix + name, fmt(g.threshold), fmt(g.value), "pass" if g.passed else "FAIL"] for name, g in gates.items()
    ]


# --------------------------------------------------------------------------- a comparison

METRIC_LABELS = {
    "recall": "recall@k",
    "ndcg": "ndcg@k",
    "disposition": "disposition accuracy",
    "answer": "answer accuracy",
    "citations": "citation pass rate",
    "searches": "searches per case",
    "tokens": "tokens per case",
}
SETUP_KEYS = ("name", "index", "k", "mode", "per_doc", "model", "max_searches", "plan", "verify")


def _signed(value: float | None, digits: int) -> str:
    return "-" if value is None else f"{value:+.{digits}f}"


def _number(value: float | None, digits: int) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _metric_row(m: MetricDiff) -> list[str]:
    digits = 1 if m.metric.endswith(" ms") else 4  # milliseconds to a tenth, rates to four places
    interval = "-" if m.low is None or m.high is None else f"[{m.low:+.4f}, {m.high:+.4f}]"
    label = METRIC_LABELS.get(m.metric, m.metric)
    return [label, _number(m.a, digits), _number(m.b, digits), _signed(m.diff, digits), interval]


def compare_sections(data: CompareJson) -> list[Section]:
    """A comparison: metrics with B - A and the interval, the setups, the flipped cases, the gates."""
    a, b = data.a.setup or {}, data.b.setup or {}
    title = (
        f"compare: {plural(data.case_count, 'case')}; A = {a.get('name', '?')}, B = {b.get('name', '?')}; "
        f"paired bootstrap 95% interval ({data.resamples} resamples, seed {data.seed})"
    )
    out = [(title, ["metric", "A", "B", "B - A", "95% interval"], [_metric_row(m) for m in data.metrics])]
    setups = [[key.replace("_", " "), fmt(a.get(key)), fmt(b.get(key))] for key in SETUP_KEYS if key in a or key in b]
    out.append(("setups", ["setting", "A", "B"], setups))
    worse = sum(1 for f in data.flipped if f.direction == "right_to_wrong")
    better = len(data.flipped) - worse
    flipped = [[f.id, str(f.line), f.a.replace("_", " "), f.b.replace("_", " ")] for f in data.flipped]
    heading = f"flipped: {worse} right -> wrong, {better} wrong -> right" if data.flipped else "flipped: none"
    out.append((heading, ["case", "line", "A", "B"], flipped))
    gates = _gates(data.gates) + _gates(data.b.gates, prefix="B ")
    out.append(("gates", ["gate", "threshold", "value", "result"], gates))
    return out


# --------------------------------------------------------------------------- printing


def print_sections(tables: Sequence[Section]) -> None:
    """Rich tables on a terminal; ``# title`` and TSV rows when piped."""
    if plain_output():
        for i, (title, header, rows) in enumerate(tables):
            sys.stdout.write(("\n" if i else "") + f"# {title}\n")
            tsv(header, rows)
        return
    from rich.markup import escape
    from rich.table import Table

    for title, header, rows in tables:
        if not rows:  # "flipped: none" says it all
            console().print(escape(safe(title)), style="italic")
            continue
        lines = header[0] == "case" and len(header) > 4  # the failing checks: long cells, one per line
        table = Table(title=escape(safe(title)), title_justify="left", show_lines=lines)
        for col in header:
            table.add_column(col, overflow="fold", justify="right" if _right(header, col) else "left")
        for row in rows:
            cells = [escape(safe(c)) for c in row]  # a question or an answer is anyone's text
            if header[-1] == "result":
                cells[-1] = "[green]pass[/green]" if row[-1] == "pass" else "[bold red]FAIL[/bold red]"
            table.add_row(*cells)
        console().print(table)
