"""``ragcli watch``: re-ingest a folder whenever it changes, one ingest at a time."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from .console import error, printable
from .ingest import ingest_job, report_rejections, report_warnings
from .options import (
    DEFAULT_INDEX,
    AclOpt,
    IndexOpt,
    KeepOnErrorOpt,
    MaxFileSizeOpt,
    RayAddressOpt,
    RayOpt,
    SharedIndexOpt,
    TenantOpt,
)

if TYPE_CHECKING:
    from ..ingestion import IngestReport

EPILOG = "Example: ragcli watch ./docs --tenant acme --acl everyone"


def watch(
    path: Annotated[Path, typer.Argument(metavar="PATH", help="Folder to watch and ingest.", show_default=False)],
    tenant: TenantOpt,
    acl: AclOpt = None,
    debounce: Annotated[
        int,
        typer.Option(
            "--debounce",
            metavar="MS",
            help="Wait this long after the last change before ingesting.",
            min=10,
            max=60_000,
        ),
    ] = 500,
    max_file_size: MaxFileSizeOpt = 64,
    index: IndexOpt = DEFAULT_INDEX,
    ray: RayOpt = False,
    ray_address: RayAddressOpt = None,
    keep_on_error: KeepOnErrorOpt = False,
    allow_shared_index: SharedIndexOpt = False,
) -> None:
    """Ingest PATH now, then again after every change (Ctrl-C stops; exit 130).

    Each ingest is the same as ``ragcli ingest`` with the same options: atomic
    publish, mirroring of PATH, unchanged files skipped, the embedding on Ray
    with --ray (one Ray session for the whole watch). A rejected file is
    reported and the document it held is withdrawn (--keep-on-error keeps it);
    the rest is committed and watching goes on.
    """
    from ..ingestion.watch import watch as run_watch

    root = Path(path)
    with ingest_job(
        root,
        tenant,
        acl=acl,
        max_file_size=max_file_size,
        index=index,
        ray=ray,
        ray_address=ray_address,
        keep_on_error=keep_on_error,
        shared_index=allow_shared_index,
    ) as job:
        run_watch(
            job,
            debounce_ms=debounce,
            on_ready=lambda: _note(f"watching {printable(str(root))} for tenant {tenant} (Ctrl-C to stop)"),
            on_report=lambda report: _report(report, root),
            on_error=error,
        )


def _line(text: str) -> None:
    import sys

    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def _note(text: str) -> None:
    _line(text)


def _report(report: IngestReport, root: Path) -> None:
    docs = report.documents
    if report.published:
        _line(
            f"ingested: {docs.added} added, {docs.updated} updated, {docs.deleted} deleted, "
            f"{docs.unchanged} unchanged; {report.passages} passages ({report.embedded} embedded); "
            f"generation {report.generation}"
        )
    else:
        _line(f"no change; generation {printable(report.generation or '-')} kept")
    report_warnings(report, root, write=_line)
    report_rejections(report, root)
