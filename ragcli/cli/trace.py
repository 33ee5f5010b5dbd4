"""``ragcli trace replay``: re-run the searches of a traced ``ask`` and say whether the rankings match."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from .console import emit_json, line, printable
from .options import DEFAULT_INDEX, AsOpt, IndexOpt, JsonOpt

if TYPE_CHECKING:
    from ..answer.currency import Currency
    from ..answer.replay import ReplayReport

EPILOG = "Example: ragcli trace replay ask.jsonl --as users/alice.json --index .ragcli --json"

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
    as_file: AsOpt,
    current: Annotated[
        bool,
        typer.Option(
            "--current",
            help="Replay on the published generation even when the traced one is gone (after a re-ingest), and say "
            "which traced passages still exist unchanged, changed (same document, new ID) or vanished.",
        ),
    ] = False,
    index: IndexOpt = DEFAULT_INDEX,
    as_json: JsonOpt = False,
) -> None:
    """Re-run a traced run's searches as you (--as: the traced user, tenant and groups), on the traced date, and
    compare the rankings.

    A trace naming another user, tenant or groups is refused (exit 2). The published generation must be the
    one the trace was recorded on, unless --current. Exit 0 when every ranking matches (with --current: when
    every cited passage still exists unchanged), 1 when not, 2 on bad input.
    """
    from ..answer.replay import read_traces, replay_traces
    from ..principal import load_principal
    from ..search import Retriever

    caller = load_principal(as_file)
    traces = read_traces(trace)
    retriever = Retriever(index)
    try:
        report = replay_traces(traces, retriever, caller, current=current)
    finally:
        retriever.close()
    if as_json:
        emit_json(report)
    else:
        _print(report)
    ok = report.cited_unchanged if current else report.match
    raise typer.Exit(0 if ok else 1)


def _print(report: ReplayReport) -> None:
    """Per run, each search's verdict and its first differences: whole lines in a pipe, coloured on a terminal."""
    for run in report.runs:
        line(f"run {run.request_id} · {run.tenant} as {run.user} on {run.as_of} · generation {run.generation}")
        for i, s in enumerate(run.searches, start=1):
            verdict = "match" if s.match else "differs"
            line(f"  search {i}: {verdict}  {printable(s.query)}", style=None if s.match else "bold red")
            for diff in s.differences:
                line(f"    {diff}")
            if s.passages is not None:
                _currency("selected", s.passages)
        if run.cited is not None:
            _currency("cited", run.cited, indent="  ")
    if report.current:
        kept = report.cited_unchanged
        line(
            "every cited passage still exists unchanged" if kept else "some cited passages changed",
            style=None if kept else "bold red",
        )
    line(
        "every ranking matches" if report.match else "some rankings differ", style=None if report.match else "bold red"
    )


def _currency(what: str, c: Currency, indent: str = "    ") -> None:
    """What became of the traced passages (``--current``): counts, then each changed and vanished ID."""
    line(f"{indent}{what}: {len(c.unchanged)} unchanged, {len(c.changed)} changed, {len(c.vanished)} vanished")
    for ch in c.changed:
        line(f"{indent}  changed {ch.id} -> {', '.join(ch.now) or 'its section is gone'}")
    for pid in c.vanished:
        line(f"{indent}  vanished {pid}")
