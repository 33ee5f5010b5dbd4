"""``ragcli eval``: score retrieval, permissions and answers on a labelled question file; gate CI; compare two
setups (``--compare A.toml B.toml``) or a run with an earlier one (``--baseline FILE.json``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from ..answer.setup import AnswerSetup
from ..errors import InputError
from ..search.config import MODES, PER_DOC, SearchConfig
from .answer_options import ANSWER_DEFAULTS, answer_flags_given, answer_options
from .console import emit_json, err_console
from .eval_reports import ReportFiles, write_reports
from .eval_tables import compare_sections, print_sections, sections
from .options import (
    DEFAULT_INDEX,
    IndexOpt,
    JsonOpt,
)

if TYPE_CHECKING:
    from ..eval import Case, CompareJson, EvalSetup, Gates
    from ..eval.gates import DropMetric
    from ..eval.wire import EvalJson

EPILOG = (
    "Examples: ragcli eval questions.jsonl --min-recall 0.9 --json --output report.json; "
    "ragcli eval questions.jsonl --ask --compare k5.toml k10.toml --max-drop answer=0.02"
)


RateOpt = dict(metavar="X", min=0.0, max=1.0, show_default=False)


@answer_options
def eval_command(
    ctx: typer.Context,
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
        int,
        typer.Option(
            "-k",
            metavar="N",
            help="Passages per search (what the answer loop is shown, with --ask) and the cut-off of recall@k, "
            "precision@k and nDCG@k.",
            min=1,
            max=1000,
        ),
    ] = 10,
    mode: Annotated[
        str, typer.Option("--mode", metavar="[" + "|".join(MODES) + "]", help="Rankers to use, as in ragcli search.")
    ] = "hybrid",
    with_ask: Annotated[
        bool,
        typer.Option(
            "--ask",
            help="Also run the answer loop per case: disposition, reasons, citations, cost.",
            show_default=False,
        ),
    ] = False,
    answer: AnswerSetup = ANSWER_DEFAULTS,
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
    compare_files: Annotated[
        tuple[Path, Path] | None,
        typer.Option(
            "--compare",
            metavar="A.toml B.toml",
            help="Run two setups on the same cases and compare them: per metric A, B, B - A and a paired bootstrap "
            "95% interval, and the cases that flipped. Each file sets any of model, mode, k, max_searches, plan, "
            "verify, index; the rest comes from these options.",
            show_default=False,
        ),
    ] = None,
    baseline: Annotated[
        Path | None,
        typer.Option(
            "--baseline",
            metavar="FILE.json",
            help="Compare this run (the options given) with an earlier eval --json report of the same cases.",
            show_default=False,
        ),
    ] = None,
    max_drop: Annotated[
        list[str] | None,
        typer.Option(
            "--max-drop",
            metavar="METRIC=X",
            help="Gate on a comparison (repeatable): fail when B is more than X below A on METRIC (recall, mrr, "
            "ndcg; with --ask disposition, answer, citations).",
            show_default=False,
        ),
    ] = None,
    seed: Annotated[
        int,
        typer.Option(
            "--seed", metavar="N", help="Seed of the comparison's bootstrap (same seed, same interval).", min=0
        ),
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
    users: Annotated[
        Path | None,
        typer.Option(
            "--users",
            metavar="DIR",
            help="Folder of the user files a case's 'as' may name (default: the question file's folder and below).",
            show_default=False,
        ),
    ] = None,
    allow_inline_principals: Annotated[
        bool,
        typer.Option(
            "--allow-inline-principals",
            help="Accept cases that write their principal inline ('principal': {...}): only for files you vouch for, "
            "since whoever writes a question file and reads its report sees what its principals can see.",
        ),
    ] = False,
) -> None:
    """Score retrieval, permissions and (with --ask) answers on a labelled question file.

    With --ask, --model and the limits, --plan, --verify and --verify-model
    act as in ragcli ask, per case. --compare A.toml B.toml runs two setups on
    the same cases and reports their differences; --baseline FILE.json
    compares this run with an earlier --json report. Exit 0 when every gate
    passes, 1 when any fails, 2 on bad input. This is what a CI script calls.
    """
    from ..eval import EvalSetup, Gates, load_cases
    from ..eval.gates import parse_max_drops
    from ..search.config import parse_mode
    from ..settings import index_root

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
    given = answer_flags_given(ctx)
    if not with_ask and given:
        raise InputError(f"{', '.join(given)} {'changes' if len(given) == 1 else 'change'} the answers: add --ask")
    answers = answer if with_ask else None
    search = SearchConfig(k=k, mode=parse_mode(mode), per_doc=per_doc)
    base = EvalSetup(index=index_root(index), search=search, answer=answers)
    files = ReportFiles(questions.name, output_file, junit_file, summary_file, report_file)
    drops = parse_max_drops(max_drop or [], asked=with_ask)
    if compare_files is not None and baseline is not None:
        raise InputError("give --compare A.toml B.toml or --baseline FILE.json, not both")
    if drops and compare_files is None and baseline is None:
        raise InputError("--max-drop gates a comparison: add --compare A.toml B.toml or --baseline FILE.json")
    cases = load_cases(questions, users=users, allow_inline_principals=allow_inline_principals)
    if compare_files is None and baseline is None:
        data, passed = _run(base, cases, gates, as_json)
        _finish(data, passed, files, as_json)
    _compare(cases, base, gates, compare_files, baseline, drops, seed, files, as_json)


def _run(setup: EvalSetup, cases: list[Case], gates: Gates, as_json: bool) -> tuple[EvalJson, bool]:
    from ..eval import run_setup

    with _progress(len(cases), enabled=not as_json) as tick:
        report = run_setup(setup, cases, gates=gates, progress=tick)
    data = report.to_wire()
    data.setup = setup.describe()
    return data, report.passed


def _compare(
    cases: list[Case],
    base: EvalSetup,
    gates: Gates,
    compare_files: tuple[Path, Path] | None,
    baseline: Path | None,
    drops: dict[DropMetric, float],
    seed: int,
    files: ReportFiles,
    as_json: bool,
) -> None:
    """Both setups of --compare (B gated as the options say), or this run against --baseline; then the comparison."""
    from ..embedder import Embedder
    from ..eval import compare, run_setup
    from ..eval.compare import read_report
    from ..eval.setups import configured

    earlier = read_report(baseline) if baseline is not None else None
    setups = [configured(base, path) for path in compare_files] if compare_files is not None else [base]
    embedder = Embedder()  # loaded once, shared by both setups
    runs = []
    with _progress(len(cases) * len(setups), enabled=not as_json) as tick:
        for i, setup in enumerate(setups):
            b_gates = gates if i == len(setups) - 1 else None
            data = run_setup(setup, cases, gates=b_gates, embedder=embedder, progress=tick).to_wire()
            data.setup = setup.describe()
            runs.append(data)
    if earlier is not None:
        earlier.setup = {**(earlier.setup or {}), "name": str(baseline)}
        runs.insert(0, earlier)
    a, b = runs
    result = compare(a, b, drops=drops, seed=seed)
    _finish(result, result.passed, files, as_json)


def _finish(data: EvalJson | CompareJson, passed: bool, files: ReportFiles, as_json: bool) -> NoReturn:
    """Write the report files, print the report (JSON or tables), exit 0 when every gate passed, else 1.

    A comparison's ``--output`` is the comparison; its ``--junit``, ``--summary`` and ``--report`` describe run B
    (the candidate, the run its gates judge) with the comparison's ``--max-drop`` gates."""
    from ..eval.wire import EvalJson

    write_reports(
        data if isinstance(data, EvalJson) else data.b,
        files.name,
        json_file=files.json,
        junit_file=files.junit,
        summary_file=files.summary,
        report_file=files.report,
        json_data=None if isinstance(data, EvalJson) else data,
    )
    if as_json:
        emit_json(data)
    else:
        print_sections(sections(data) if isinstance(data, EvalJson) else compare_sections(data))
    raise typer.Exit(0 if passed else 1)


@contextmanager
def _progress(total: int, enabled: bool) -> Iterator[Callable[[], None]]:
    if not enabled or not err_console().is_terminal:
        yield lambda: None
        return
    from rich.progress import Progress as Bars

    with Bars(console=err_console(), transient=True) as bars:
        task = bars.add_task("evaluating", total=total)
        yield lambda: bars.advance(task)
