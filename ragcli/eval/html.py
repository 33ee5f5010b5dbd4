"""``eval --report FILE.html``: one self-contained page for a CI artifact or a reviewer.

The gates, the metrics, the outcome matrix (answered or abstained, right or
wrong), a latency histogram per stage (search and its embed, BM25 and dense
parts, and the answer with ``--ask``) and the per-case table, sortable by any
column. Everything is inline (CSS, a few lines of script, SVG): the page
loads nothing, and its Content-Security-Policy forbids it to. Every string from
the question file is HTML-escaped, control characters written out.
"""

from __future__ import annotations

import datetime as dt
import html
from collections.abc import Sequence

from ..text import visible_controls
from .wire import CaseJson, EvalJson

BINS = 12
STAGES = ("search", "embed", "bm25", "dense", "ask")

STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#1f2328;max-width:1400px}
h1{font-size:20px}h2{font-size:16px;margin-top:28px}
table{border-collapse:collapse;margin:8px 0}th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:left;
vertical-align:top}th{background:#f6f8fa}td.n{text-align:right;font-variant-numeric:tabular-nums}
.pass{color:#1a7f37;font-weight:600}.fail{color:#cf222e;font-weight:600}tr.failed td{background:#fff5f5}
table.sortable th{cursor:pointer;user-select:none}table.sortable th[aria-sort=ascending]::after{content:" ▲"}
table.sortable th[aria-sort=descending]::after{content:" ▼"}.hists{display:flex;flex-wrap:wrap;gap:16px}
figure{margin:0}figcaption{font-size:12px;color:#57606a}rect.bar{fill:#0969da}code{font-size:12px}
.matrix td{min-width:70px;text-align:center}
"""

SCRIPT = r"""
(function () {
  function key(cell) {
    var v = cell.getAttribute("data-v");
    var t = (v === null ? cell.textContent : v).trim();
    return /^-?[0-9]+(\.[0-9]+)?(e[-+]?[0-9]+)?$/i.test(t) ? parseFloat(t) : t.toLowerCase();
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    var heads = table.querySelectorAll("thead th");
    heads.forEach(function (th, col) {
      th.addEventListener("click", function () {
        var up = th.getAttribute("aria-sort") !== "ascending";
        heads.forEach(function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", up ? "ascending" : "descending");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = key(a.cells[col]), y = key(b.cells[col]);
          if (typeof x !== typeof y) { return typeof x === "number" ? -1 : 1; }
          return (x < y ? -1 : x > y ? 1 : 0) * (up ? 1 : -1);
        });
        rows.forEach(function (row) { body.appendChild(row); });
      });
    });
  });
  document.body.setAttribute("data-ready", "1");
})();
"""


def html_report(data: EvalJson, *, name: str, when: dt.datetime | None = None) -> str:
    """The report as one HTML page; ``name`` names the question file."""
    failed = [g for g, r in data.gates.items() if not r.passed]
    verdict = "every gate passed" if not failed else f"{len(failed)} of {len(data.gates)} gates failed"
    stamp = (when or dt.datetime.now()).replace(microsecond=0).isoformat(sep=" ")
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">",
        f"<title>ragcli eval: {_e(name)}</title><style>{STYLE}</style></head><body>",
        f'<h1>ragcli eval <code>{_e(name)}</code>: <span class="{"fail" if failed else "pass"}">{verdict}</span></h1>',
        f"<p>{data.case_count} cases, k = {data.k}, model {_e(data.model or 'none (retrieval only)')}, {_e(stamp)}</p>",
        "<h2>Gates</h2>",
        _table(
            ["gate", "threshold", "value", "result"],
            [[_e(g), _num(r.threshold), _num(r.value), _verdict(r.passed)] for g, r in data.gates.items()],
        ),
        "<h2>Metrics</h2>",
        _table(["metric", "value"], _metrics(data)),
    ]
    if data.outcomes is not None:
        parts += ["<h2>Outcomes</h2>", _matrix(data.outcomes)]
    parts += ["<h2>Latency per stage</h2>", _histograms(data.cases)]
    parts += ["<h2>Cases</h2>", "<p>Click a column to sort.</p>", _cases(data)]
    parts += [f"<script>{SCRIPT}</script>", "</body></html>"]
    return "\n".join(parts) + "\n"


def _e(text: object) -> str:
    return html.escape(visible_controls(str(text)))


def _num(value: float | int | None, digits: int = 4) -> str:
    if value is None:
        return '<td class="n" data-v="">-</td>'
    shown = f"{value:.{digits}f}".rstrip("0").rstrip(".") if isinstance(value, float) else str(value)
    return f'<td class="n" data-v="{value}">{shown}</td>'


def _verdict(passed: bool) -> str:
    return '<td class="pass">pass</td>' if passed else '<td class="fail">FAIL</td>'


def _cell(value: str) -> str:
    return value if value.startswith("<td") else f"<td>{value}</td>"


def _table(
    header: Sequence[str], rows: Sequence[Sequence[str]], *, sortable: bool = False, marks: Sequence[bool] = ()
) -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in header)
    body = []
    for i, row in enumerate(rows):
        cls = ' class="failed"' if i < len(marks) and marks[i] else ""
        body.append(f"<tr{cls}>" + "".join(_cell(c) for c in row) + "</tr>")
    kind = ' class="sortable"' if sortable else ""
    return f"<table{kind}><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _metrics(data: EvalJson) -> list[list[str]]:
    rows = [[_e(name), _num(value)] for name, value in data.retrieval.items()]
    rows.append(["permission violations", _num(data.permission_violations)])
    for key in ("disposition_accuracy", "reason_accuracy", "answer_accuracy", "citation_pass_rate", "cost_usd"):
        value = getattr(data, key)
        if value is not None:
            rows.append([_e(key.replace("_", " ")), _num(value)])
    for stage, latency in data.latency_ms.items():
        rows.append([_e(f"{stage} latency p50 / p95 (ms)"), f"{latency.p50:.1f} / {latency.p95:.1f}"])
    return rows


def _matrix(outcomes: dict[str, int]) -> str:
    def n(key: str) -> str:
        return _num(outcomes.get(key, 0))

    return (
        '<table class="matrix"><thead><tr><th></th><th>right</th><th>wrong</th></tr></thead><tbody>'
        f"<tr><th>answered</th>{n('answered_right')}{n('answered_wrong')}</tr>"
        f"<tr><th>abstained</th>{n('abstained_right')}{n('abstained_wrong')}</tr></tbody></table>"
    )


def stage_values(cases: Sequence[CaseJson]) -> dict[str, list[float]]:
    """Milliseconds per case for each stage that ran: the whole search, its parts, the answer."""
    values: dict[str, list[float]] = {stage: [] for stage in STAGES}
    for case in cases:
        values["search"].append(case.search_ms)
        for stage, ms in case.timings_ms.items():
            if stage in values:
                values[stage].append(ms)
        if case.ask_ms is not None:
            values["ask"].append(case.ask_ms)
    return {stage: v for stage, v in values.items() if v}


def _histograms(cases: Sequence[CaseJson]) -> str:
    figures = [_histogram(stage, values) for stage, values in stage_values(cases).items()]
    return '<div class="hists">' + "".join(figures) + "</div>"


def _histogram(stage: str, values: list[float], width: int = 300, height: int = 110) -> str:
    """Cases per latency bin, as inline SVG bars (each with a tooltip)."""
    top = max(values) or 1.0
    step = top / BINS
    counts = [0] * BINS
    for v in values:
        counts[min(BINS - 1, int(v / step))] += 1
    tallest = max(counts) or 1
    bar = width / BINS
    rects = []
    for i, n in enumerate(counts):
        h = (height - 20) * n / tallest
        label = f"{i * step:.1f}-{(i + 1) * step:.1f} ms: {n} case{'s' if n != 1 else ''}"
        rects.append(
            f'<rect class="bar" x="{i * bar + 1:.1f}" y="{height - 14 - h:.1f}" width="{bar - 2:.1f}" '
            f'height="{h:.1f}"><title>{_e(label)}</title></rect>'
        )
    axis = (
        f'<text x="0" y="{height - 2}" font-size="10">0</text>'
        f'<text x="{width}" y="{height - 2}" font-size="10" text-anchor="end">{top:.1f} ms</text>'
    )
    svg = (
        f'<svg role="img" aria-label="{_e(stage)} latency" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" xmlns="http://www.w3.org/2000/svg">{"".join(rects)}{axis}</svg>'
    )
    return f"<figure>{svg}<figcaption>{_e(stage)}: {len(values)} cases</figcaption></figure>"


CASE_COLUMNS = (
    "case", "question", "line", "expect", "disposition", "reason", "recall", "rr", "ndcg", "answer ok",
    "citations ok", "search ms", "ask ms", "violations", "failed checks",
)  # fmt: skip


def _cases(data: EvalJson) -> str:
    failed: dict[tuple[str, int], list[str]] = {}
    for f in data.failures:
        failed.setdefault((f.id, f.line), []).append(f.kind)
    rows, marks = [], []
    for c in data.cases:
        kinds = failed.get((c.id, c.line), [])
        rows.append(
            [
                f"<code>{_e(c.id)}</code>",
                _e(c.question),
                _num(c.line),
                _e(c.expect or "-"),
                _e(c.disposition or "-"),
                _e(c.reason or "-"),
                _num(c.recall),
                _num(c.rr),
                _num(c.ndcg),
                _e(_yes_no(c.answer_ok)),
                _e(_yes_no(c.citations_ok)),
                _num(c.search_ms, 1),
                _num(c.ask_ms, 1),
                _num(len(c.violations)),
                _e(", ".join(kinds) or "-"),
            ]
        )
        marks.append(bool(kinds))
    return _table(CASE_COLUMNS, rows, sortable=True, marks=marks)


def _yes_no(value: bool | None) -> str:
    return "-" if value is None else ("yes" if value else "no")
