"""``ragcli eval``: score retrieval, permissions and answers on a labelled question file; gate CI."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from ..errors import InputError
from .console import console, emit_json, err_console
from .options import DEFAULT_INDEX, IndexOpt, JsonOpt

if TYPE_CHECKING:
    from ..eval.report import EvalJson

EPILOG = "Example: ragcli eval questions.jsonl --min-recall 0.9 --json --output report.json"


def eval_command(
    questions: Annotated[Path, typer.Argument(help="Question file (JSONL): id, question, as|principal, as_of, expect, reason, relevant, forbidden, answer_contains.", show_default=False)],
    k: Annotated[int, typer.Option("-k", help="Cut-off for recall@k, precision@k and nDCG@k.", min=1, max=1000)] = 10,
    with_ask: Annotated[bool, typer.Option("--ask", help="Also run the answer loop per case: disposition, reasons, citations, cost.")] = False,
    model: Annotated[Optional[str], typer.Option("--model", "-m", help="Model for --ask (as in ragcli ask).", show_default=False)] = None,
    max_searches: Annotated[int, typer.Option("--max-searches", help="Searches per case with --ask.", min=1, max=10)] = 3,
    min_recall: Annotated[Optional[float], typer.Option("--min-recall", help="Gate: mean recall@k at least this.", show_default=False)] = None,
    min_mrr: Annotated[Optional[float], typer.Option("--min-mrr", help="Gate: MRR at least this.", show_default=False)] = None,
    min_ndcg: Annotated[Optional[float], typer.Option("--min-ndcg", help="Gate: mean nDCG@k at least this.", show_default=False)] = None,
    min_disposition: Annotated[Optional[float], typer.Option("--min-disposition", help="Gate (with --ask): disposition accuracy at least this.", show_default=False)] = None,
    min_answer: Annotated[Optional[float], typer.Option("--min-answer", help="Gate (with --ask): answer accuracy (answer_contains found) at least this.", show_default=False)] = None,
    max_violations: Annotated[int, typer.Option("--max-violations", help="Gate: permission violations at most this.", min=0)] = 0,
    output_file: Annotated[Optional[Path], typer.Option("--output", "-o", help="Also write the JSON report to this file.", show_default=False)] = None,
    index: IndexOpt = DEFAULT_INDEX,
    as_json: JsonOpt = False,
) -> None:
    """Score retrieval, permissions and (with --ask) answers on a labelled question file.

    Exit 0 when every gate passes, 1 when any fails, 2 on bad input. This is
    what a CI script calls.
    """
    from ..answer import Limits
    from ..eval import Gates, evaluate, load_cases
    from ..models import resolve_model
    from ..search import Retriever

    cases = load_cases(questions)
    retriever = Retriever(Path(index))
    backend = resolve_model(model, embedder=retriever.embedder) if with_ask else None
    gates = Gates(min_recall=min_recall, min_mrr=min_mrr, min_ndcg=min_ndcg, min_disposition=min_disposition, min_answer=min_answer, max_violations=max_violations)
    with _progress(len(cases), enabled=not as_json) as tick:
        report = evaluate(cases, retriever, k=k, model=backend, limits=Limits(max_searches=max_searches), gates=gates, progress=tick)
    data = report.to_wire()
    if output_file is not None:
        try:
            output_file.write_text(data.model_dump_json(indent=2) + "\n", encoding="utf-8")
        except OSError as exc:
            raise InputError(f"cannot write {output_file}: {exc.strerror or exc}") from None
    if as_json:
        emit_json(data)
    else:
        _tables(data)
    raise typer.Exit(0 if report.passed else 1)


@contextmanager
def _progress(total: int, enabled: bool) -> Iterator[Callable[[], None]]:
    if not enabled or not err_console().is_terminal:
        yield lambda: None
        return
    from rich.progress import Progress as Bars

    with Bars(console=err_console(), transient=True) as bars:
        task = bars.add_task("evaluating", total=total)
        yield lambda: bars.advance(task)


def _fmt(value: Any) -> str:
    from rich.markup import escape

    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.4f}"
    return escape(str(value))


def _tables(data: EvalJson) -> None:
    from rich.markup import escape
    from rich.table import Table

    summary = Table(title=f"eval: {data.cases} cases, k = {data.k}", title_justify="left")
    summary.add_column("metric")
    summary.add_column("value", justify="right")
    for name, value in data.retrieval.items():
        summary.add_row(name, _fmt(value))
    summary.add_row("permission violations", _fmt(data.permission_violations))
    for key in ("disposition_accuracy", "reason_accuracy", "answer_accuracy", "citation_pass_rate", "searches_per_case", "tokens_per_case", "cost_usd_per_case"):
        if getattr(data, key) is not None:
            summary.add_row(key.replace("_", " "), _fmt(getattr(data, key)))
    for stage, pcts in data.latency_ms.items():
        summary.add_row(f"{stage} latency p50 / p95 (ms)", f"{pcts.p50:.1f} / {pcts.p95:.1f}")
    console().print(summary)

    gates = Table(title="gates", title_justify="left")
    for col in ("gate", "threshold", "value", "result"):
        gates.add_column(col)
    for name, gate in data.gates.items():
        gates.add_row(name, _fmt(gate.threshold), _fmt(gate.value), "[green]pass[/green]" if gate.passed else "[bold red]FAIL[/bold red]")
    console().print(gates)

    if data.failures:
        failures = Table(title=f"{len(data.failures)} failing checks", title_justify="left", show_lines=True)
        for col in ("case", "kind", "question", "expected", "got"):
            failures.add_column(col, overflow="fold")
        for f in data.failures[:50]:
            failures.add_row(escape(f.id), f.kind, escape(f.question[:80]), _fmt(f.expected), _fmt(f.got))
        console().print(failures)
