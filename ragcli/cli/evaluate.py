"""``ragcli eval``: score retrieval, permissions and answers on a labelled question file; gate CI."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..errors import InputError
from ..search.config import PER_DOC
from .console import console, emit_json, err_console, plain_output, plural, safe, tsv
from .options import (
    DEFAULT_INDEX,
    LIMITS,
    IndexOpt,
    JsonOpt,
    MaxSearchesOpt,
    MaxTokensOpt,
    MaxTurnsOpt,
    ModelOpt,
    PlanOpt,
    RetryOnEmptyOpt,
    TimeoutOpt,
    VerifyModelOpt,
    VerifyOpt,
    answer_options_given,
    answer_setup,
)

if TYPE_CHECKING:
    from ..eval.wire import EvalJson

EPILOG = "Example: ragcli eval questions.jsonl --min-recall 0.9 --json --output report.json"


RateOpt = dict(metavar="X", min=0.0, max=1.0, show_default=False)


def eval_command(
    questions: Annotated[
        Path,
        typer.Argument(
            metavar="QUESTIONS.jsonl",
            help="Question file (JSONL): id, question, as|principal, as_of, expect, reason, relevant, forbidden, "
            "answer_contains.",
            show_default=False,
        ),
    ],
    k: Annotated[
        int, typer.Option("-k", metavar="N", help="Cut-off for recall@k, precision@k and nDCG@k.", min=1, max=1000)
    ] = 10,
    with_ask: Annotated[
        bool,
        typer.Option(
            "--ask",
            help="Also run the answer loop per case: disposition, reasons, citations, cost.",
            show_default=False,
        ),
    ] = False,
    model: ModelOpt = None,
    max_searches: MaxSearchesOpt = LIMITS.max_searches,
    max_turns: MaxTurnsOpt = LIMITS.max_turns,
    max_tokens: MaxTokensOpt = LIMITS.max_tokens,
    timeout: TimeoutOpt = LIMITS.timeout_s,
    retry_on_empty: RetryOnEmptyOpt = LIMITS.retry_on_empty,
    plan: PlanOpt = LIMITS.plan,
    verify: VerifyOpt = False,
    verify_model: VerifyModelOpt = None,
    min_recall: Annotated[
        float | None, typer.Option("--min-recall", help="Gate: mean recall@k at least this (0 to 1).", **RateOpt)
    ] = None,
    min_mrr: Annotated[
        float | None, typer.Option("--min-mrr", help="Gate: MRR at least this (0 to 1).", **RateOpt)
    ] = None,
    min_ndcg: Annotated[
        float | None, typer.Option("--min-ndcg", help="Gate: mean nDCG@k at least this (0 to 1).", **RateOpt)
    ] = None,
    min_disposition: Annotated[
        float | None,
        typer.Option("--min-disposition", help="Gate (needs --ask): disposition accuracy at least this.", **RateOpt),
    ] = None,
    min_answer: Annotated[
        float | None,
        typer.Option(
            "--min-answer", help="Gate (needs --ask): answer accuracy (answer_contains found) at least this.", **RateOpt
        ),
    ] = None,
    min_citations: Annotated[
        float | None,
        typer.Option(
            "--min-citations",
            help="Gate (needs --ask): share of submitted answers whose citations all passed the checks.",
            **RateOpt,
        ),
    ] = None,
    max_p95_ms: Annotated[
        float | None,
        typer.Option(
            "--max-p95-ms",
            metavar="MS",
            help="Gate: search latency p95 (with --ask also the answer's) at most this many milliseconds.",
            min=0.0,
            show_default=False,
        ),
    ] = None,
    max_cost: Annotated[
        float | None,
        typer.Option(
            "--max-cost",
            metavar="USD",
            help="Gate (needs --ask): total model cost of the run at most this.",
            min=0.0,
            show_default=False,
        ),
    ] = None,
    max_violations: Annotated[
        int, typer.Option("--max-violations", metavar="N", help="Gate: permission violations at most this.", min=0)
    ] = 0,
    output_file: Annotated[
        Path | None,
        typer.Option(
            "--output", "-o", metavar="FILE", help="Also write the JSON report to this file.", show_default=False
        ),
    ] = None,
    junit_file: Annotated[
        Path | None,
        typer.Option(
            "--junit",
            metavar="FILE",
            help="Also write JUnit XML (a test case per question and per gate) for GitHub Actions, GitLab, Jenkins.",
            show_default=False,
        ),
    ] = None,
    summary_file: Annotated[
        Path | None,
        typer.Option(
            "--summary",
            metavar="FILE",
            help="Also write a Markdown summary (gates, metrics, failures), e.g. to $GITHUB_STEP_SUMMARY.",
            show_default=False,
        ),
    ] = None,
    report_file: Annotated[
        Path | None,
        typer.Option(
            "--report",
            metavar="FILE.html",
            help="Also write one self-contained HTML page: gates, outcomes, latency per stage, sortable cases.",
            show_default=False,
        ),
    ] = None,
    per_doc: Annotated[
        int,
        typer.Option(
            "--per-doc", metavar="N", help="At most N passages of one document in each search (0 = no limit).", min=0
        ),
    ] = PER_DOC,
    index: IndexOpt = DEFAULT_INDEX,
    as_json: JsonOpt = False,
) -> None:
    """Score retrieval, permissions and (with --ask) answers on a labelled question file.

    With --ask, --model and the limits, --plan, --verify and --verify-model
    act as in ragcli ask, per case. Exit 0 when every gate passes, 1 when any
    fails, 2 on bad input. This is what a CI script calls.
    """
    from ..eval import Gates, evaluate, load_cases
    from ..models import open_answerer
    from ..search import Retriever, SearchConfig

    gates = Gates(
        min_recall=min_recall,
        min_mrr=min_mrr,
        min_ndcg=min_ndcg,
        min_disposition=min_disposition,
        min_answer=min_answer,
        min_citations=min_citations,
        max_p95_ms=max_p95_ms,
        max_cost=max_cost,
        max_violations=max_violations,
    )
    gates.check_asked(with_ask)
    setup = answer_setup(
        model,
        max_searches=max_searches,
        max_turns=max_turns,
        max_tokens=max_tokens,
        timeout=timeout,
        retry_on_empty=retry_on_empty,
        plan=plan,
        verify=verify,
        verify_model=verify_model,
    )
    given = answer_options_given(setup)
    if not with_ask and given:
        raise InputError(f"{', '.join(given)} {'changes' if len(given) == 1 else 'change'} the answers: add --ask")
    cases = load_cases(questions)
    retriever = Retriever(index, config=SearchConfig(per_doc=per_doc))
    answerer = open_answerer(setup, embedder=retriever.embedder) if with_ask else None
    with _progress(len(cases), enabled=not as_json) as tick:
        report = evaluate(cases, retriever, k=k, answerer=answerer, gates=gates, progress=tick)
    data = report.to_wire()
    write_reports(
        data,
        questions.name,
        json_file=output_file,
        junit_file=junit_file,
        summary_file=summary_file,
        report_file=report_file,
    )
    if as_json:
        emit_json(data)
    else:
        _tables(data)
    raise typer.Exit(0 if report.passed else 1)


def write_reports(
    data: EvalJson,
    name: str,
    *,
    json_file: Path | None = None,
    junit_file: Path | None = None,
    summary_file: Path | None = None,
    report_file: Path | None = None,
) -> None:
    """Each report file asked for; a file that cannot be written is one ``error:`` (exit 2)."""
    from ..eval.html import html_report
    from ..eval.junit import junit_xml
    from ..eval.summary import markdown_summary
    from .console import json_text

    makers: list[tuple[Path | None, str, Callable[[], str]]] = [
        (json_file, "w", lambda: json_text(data.model_dump_json(indent=2)) + "\n"),
        (junit_file, "w", lambda: junit_xml(data, name=name)),
        # Appended, as $GITHUB_STEP_SUMMARY expects: other steps of the job write to the same file.
        (summary_file, "a", lambda: markdown_summary(data, name=name)),
        (report_file, "w", lambda: html_report(data, name=name)),
    ]
    for path, mode, make in makers:
        if path is None:
            continue
        try:
            with path.open(mode, encoding="utf-8") as fh:
                fh.write(make())
        except OSError as exc:
            raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None


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


def _sections(data: EvalJson) -> list[tuple[str, list[str], list[list[str]]]]:
    """The report as titled tables of plain cells: summary, outcomes (with --ask), gates, failing checks."""
    summary = [[name, _fmt(value)] for name, value in data.retrieval.items()]
    summary.append(["permission violations", _fmt(data.permission_violations)])
    for key in (
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
    ):
        if getattr(data, key) is not None:
            summary.append([key.replace("_", " "), _fmt(getattr(data, key))])
    for stage, pcts in data.latency_ms.items():
        summary.append([f"{stage} latency p50 / p95 (ms)", f"{pcts.p50:.1f} / {pcts.p95:.1f}"])
    sections = [(f"eval: {plural(data.case_count, 'case')}, k = {data.k}", ["metric", "value"], summary)]
    if data.outcomes is not None:
        labelled = sum(data.outcomes.values())
        rows = [
            [OUTCOME_LABELS[name], str(n), f"{n / labelled:.0%}" if labelled else "-"]
            for name, n in data.outcomes.items()
        ]
        sections.append((f"outcomes of {plural(labelled, 'labelled case')}", ["outcome", "cases", "share"], rows))
    gates = [[name, _fmt(g.threshold), _fmt(g.value), "pass" if g.passed else "FAIL"] for name, g in data.gates.items()]
    sections.append(("gates", ["gate", "threshold", "value", "result"], gates))
    if data.failures:
        failures = [[f.id, f.kind, f.question[:80], _fmt(f.expected), _fmt(f.got)] for f in data.failures[:50]]
        sections.append(
            (plural(len(data.failures), "failing check"), ["case", "kind", "question", "expected", "got"], failures)
        )
    return sections


def _tables(data: EvalJson) -> None:
    if plain_output():
        for i, (title, header, rows) in enumerate(_sections(data)):
            sys.stdout.write(("\n" if i else "") + f"# {title}\n")
            tsv(header, rows)
        return
    from rich.markup import escape
    from rich.table import Table

    for title, header, rows in _sections(data):
        table = Table(title=escape(safe(title)), title_justify="left", show_lines=header[0] == "case")
        for col in header:
            table.add_column(
                col, overflow="fold", justify="right" if col in ("value", "cases", "share", "threshold") else "left"
            )
        for row in rows:
            cells = [escape(safe(c)) for c in row]  # a question or an answer is anyone's text
            if header[-1] == "result":
                cells[-1] = "[green]pass[/green]" if row[-1] == "pass" else "[bold red]FAIL[/bold red]"
            table.add_row(*cells)
        console().print(table)
