"""``ragcli trace replay``: re-run the searches of a traced ``ask`` and say whether the rankings match."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from .console import emit_json, line, printable
from .options import DEFAULT_INDEX, IndexOpt, JsonOpt

if TYPE_CHECKING:
    from ..answer.replay import ReplayReport

EPILOG = "Example: ragcli trace replay ask.jsonl --index .ragcli --json"

app = typer.Typer(help="Replay what `ragcli ask --trace` recorded.", no_args_is_help=True)


@app.command(epilog=EPILOG)
def replay(
    trace: Annotated[
        str,
        typer.Argument(
            metavar="TRACE_LINE_OR_FILE",
            help="One trace line (JSON), or a file of them (every run in it is replayed).",
            show_default=False,
        ),
    ],
    index: IndexOpt = DEFAULT_INDEX,
    as_json: JsonOpt = False,
) -> None:
    """Re-run a traced run's searches as the traced user, tenant, groups and date, and compare the rankings.

    The published generation must be the one the trace was recorded on.
    Exit 0 when every ranking matches, 1 when one differs, 2 on bad input.
    """
    from ..answer.replay import read_traces, replay_traces
    from ..search import Retriever

    traces = read_traces(trace)
    retriever = Retriever(index)
    try:
        report = replay_traces(traces, retriever)
    finally:
        retriever.close()
    if as_json:
        emit_json(report)
    else:
        _print(report)
    raise typer.Exit(0 if report.match else 1)


def _print(report: ReplayReport) -> None:
    """Per run, each search's verdict and its first differences: whole lines in a pipe, coloured on a terminal."""
    for run in report.runs:
        line(f"run {run.request_id} · {run.tenant} as {run.user} on {run.as_of} · generation {run.generation}")
        for i, s in enumerate(run.searches, start=1):
            verdict = "match" if s.match else "differs"
            line(f"  search {i}: {verdict}  {printable(s.query)}", style=None if s.match else "bold red")
            for diff in s.differences:
                line(f"    {diff}")
    line(
        "every ranking matches" if report.match else "some rankings differ", style=None if report.match else "bold red"
    )
