"""``eval --summary FILE``: the report as Markdown, fit for ``$GITHUB_STEP_SUMMARY`` or a merge-request note.

The verdict first (every gate passed, or which failed), then the gates, the
metrics, the outcomes with ``--ask``, and the failing checks (the first 50).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..escape import cut, markdown_text
from ..text import visible_controls
from .wire import EvalJson

SHOWN_FAILURES = 50
SHOWN_CHARS = 120
"""Characters of a question, an expected or a got value shown in the failures table."""
OUTCOME_LABELS = {
    "answered_right": "answered right",
    "answered_wrong": "answered wrong",
    "abstained_right": "abstained right",
    "abstained_wrong": "abstained wrong",
}


def markdown_summary(data: EvalJson, *, name: str) -> str:
    failed = [gate for gate, result in data.gates.items() if not result.passed]
    verdict = "every gate passed" if not failed else f"{len(failed)} of {len(data.gates)} gates failed"
    model = f", model `{_cell(data.model)}`" if data.model else ""
    lines = [
        f"## ragcli eval `{_cell(name)}`: {'✅' if not failed else '❌'} {verdict}",
        "",
        f"{data.case_count} cases, k = {data.k}{model}.",
        "",
        "### Gates",
        "",
        *_table(
            ["gate", "threshold", "value", "result"],
            [
                [f"`{g}`", _number(r.threshold), _number(r.value), "pass" if r.passed else "**FAIL**"]
                for g, r in data.gates.items()
            ],
        ),
        "",
        "### Metrics",
        "",
        *_table(["metric", "value"], _metrics(data)),
    ]
    if data.outcomes is not None:
        lines += ["", "### Outcomes", "", *_outcomes(data.outcomes)]
    if data.failures:
        shown = data.failures[:SHOWN_FAILURES]
        more = f" (the first {len(shown)})" if len(data.failures) > len(shown) else ""
        lines += ["", f"### Failing checks: {len(data.failures)}{more}", ""]
        lines += _table(
            ["case", "line", "check", "question", "expected", "got"],
            [
                [
                    f"`{_cell(f.id)}`",
                    str(f.line),
                    f.kind,
                    _short(f.question),
                    _short(f.expected),
                    _short(f.got),
                ]
                for f in shown
            ],
        )
    return "\n".join(lines) + "\n"


def _metrics(data: EvalJson) -> list[list[str]]:
    rows = [[name, _number(value)] for name, value in data.retrieval.items()]
    rows.append(["permission violations", str(data.permission_violations)])
    for key in ("disposition_accuracy", "reason_accuracy", "answer_accuracy", "citation_pass_rate", "cost_usd"):
        value = getattr(data, key)
        if value is not None:
            rows.append([key.replace("_", " "), _number(value)])
    for stage, latency in data.latency_ms.items():
        rows.append([f"{stage} latency p50 / p95", f"{latency.p50:.1f} / {latency.p95:.1f} ms"])
    return rows


def _outcomes(outcomes: dict[str, int]) -> list[str]:
    """The 2 x 2 matrix: answered or abstained, right or wrong."""
    return _table(
        ["", "right", "wrong"],
        [
            ["answered", str(outcomes.get("answered_right", 0)), str(outcomes.get("answered_wrong", 0))],
            ["abstained", str(outcomes.get("abstained_right", 0)), str(outcomes.get("abstained_wrong", 0))],
        ],
    )


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    align = ["---:" if h in ("threshold", "value", "line", "right", "wrong") else "---" for h in header]
    return ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"] + [
        "| " + " | ".join(row) + " |" for row in rows
    ]


def _number(value: float | int | None) -> str:
    if value is None:
        return "-"
    return f"{value:.4f}".rstrip("0").rstrip(".") if isinstance(value, float) else str(value)


def _short(value: object) -> str:
    text = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
    return _cell(cut(text, SHOWN_CHARS))


def _cell(text: str) -> str:
    """One table cell: one line, HTML shown as text, pipes and backticks defused, control characters written out.

    Callers cut the raw text first (``escape.cut``): a cut never falls inside an entity or leaves a tag open.
    """
    flat = " ".join(visible_controls(str(text)).split())
    return markdown_text(flat).replace("`", "'")
