"""``ragcli ingest``: index a folder for a tenant, with progress bars and a summary."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from .console import console, emit_json, err_console, printable
from .options import DEFAULT_INDEX, IndexOpt, JsonOpt

if TYPE_CHECKING:
    from ..ingestion import IngestReport

EPILOG = "Example: ragcli ingest ./docs --tenant acme --acl everyone"


def ingest(
    path: Annotated[Path, typer.Argument(help="Folder (or one file) to ingest: .md .markdown .txt .html .pdf .jsonl.", show_default=False)],
    tenant: Annotated[str, typer.Option("--tenant", "-t", help="Tenant to ingest into (a-z, 0-9, '_', '-').", show_default=False)],
    acl: Annotated[Optional[list[str]], typer.Option("--acl", help="ACL group for documents that name none (repeatable). 'everyone' = all users of the tenant.")] = None,
    max_file_size: Annotated[int, typer.Option("--max-file-size", help="Reject files larger than this many MiB.")] = 64,
    index: IndexOpt = DEFAULT_INDEX,
    as_json: JsonOpt = False,
) -> None:
    """Index documents for a tenant: cut them into passages, embed them, publish atomically.

    Unchanged files are skipped; files removed from PATH are removed from the
    index; a file that fails to load is reported and keeps its old version.
    Exit 0, or 2 when any file was rejected (the rest is still committed).
    """
    from ..ingestion import ingest as run_ingest

    with _progress(enabled=not as_json) as progress:
        report = run_ingest(path, tenant, index=index, default_acl=acl or (), max_file_bytes=max_file_size * 1024 * 1024, progress=progress)
    if as_json:
        emit_json(report)
    else:
        _summary(report)
    for rejected in report.documents.rejected:
        sys.stderr.write(f"error: rejected {printable(rejected.path)}: {printable(rejected.reason)}\n")
    if report.documents.rejected:
        raise typer.Exit(2)


@contextmanager
def _progress(enabled: bool) -> Iterator[Any]:
    """Rich progress bars for files parsed and passages embedded (only on a terminal)."""
    from ..ingestion import Progress

    if not enabled or not err_console().is_terminal:
        yield Progress()
        return
    from rich.progress import BarColumn, MofNCompleteColumn, TaskProgressColumn, TextColumn, TimeRemainingColumn
    from rich.progress import Progress as Bars

    bars = Bars(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TaskProgressColumn(show_speed=True),
        TimeRemainingColumn(),
        console=err_console(),
        transient=True,
    )

    class _Bars(Progress):
        files_task: Any = None
        embed_task: Any = None

        def files(self, total: int) -> None:
            self.files_task = bars.add_task("parsing files", total=total)

        def file_done(self) -> None:
            bars.advance(self.files_task)

        def embedding(self, total: int) -> None:
            if total:
                self.embed_task = bars.add_task("embedding passages", total=total)

        def embedded(self, count: int) -> None:
            bars.advance(self.embed_task, count)

    with bars:
        yield _Bars()


def _summary(report: IngestReport) -> None:
    from rich.table import Table

    docs = report.documents
    table = Table(title=f"ingest: tenant {report.tenant}", show_header=True, title_justify="left")
    for col in ("added", "updated", "unchanged", "deleted", "rejected", "passages", "embedded", "seconds"):
        table.add_column(col, justify="right")
    table.add_row(
        *(str(n) for n in (docs.added, docs.updated, docs.unchanged, docs.deleted, len(docs.rejected), report.passages, report.embedded)),
        f"{report.seconds:.1f}",
    )
    console().print(table)
    if not report.published:
        console().print("[dim]nothing changed; the published index was kept[/dim]")
