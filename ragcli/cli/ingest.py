"""``ragcli ingest``: index a folder for a tenant, with progress bars and a summary."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from .console import console, emit_json, err_console, error, footer, plain_output, plural, printable, tsv
from .options import (
    DEFAULT_INDEX,
    AclOpt,
    IndexOpt,
    JsonOpt,
    KeepOnErrorOpt,
    MaxFileSizeOpt,
    RayAddressOpt,
    RayOpt,
    SharedIndexOpt,
    TenantOpt,
)

if TYPE_CHECKING:
    from ..ingestion import IngestJob, IngestReport

EPILOG = "Example: ragcli ingest ./docs --tenant acme --acl everyone"
MIB = 1024 * 1024


def ingest(
    path: Annotated[
        Path,
        typer.Argument(
            metavar="PATH",
            help="Folder (or one file) to ingest: .md .markdown .txt .html .pdf .docx .rst .ipynb .csv .tsv .jsonl.",
            show_default=False,
        ),
    ],
    tenant: TenantOpt,
    acl: AclOpt = None,
    max_file_size: MaxFileSizeOpt = 64,
    index: IndexOpt = DEFAULT_INDEX,
    as_json: JsonOpt = False,
    ray: RayOpt = False,
    ray_address: RayAddressOpt = None,
    keep_on_error: KeepOnErrorOpt = False,
    replace: Annotated[
        bool,
        typer.Option(
            "--replace",
            help="PATH replaces the folder the tenant was ingested from: documents that get another ID are renamed, "
            "those not under PATH removed (without it, such an ingest is refused with the list).",
        ),
    ] = False,
    allow_shared_index: SharedIndexOpt = False,
    quantize: Annotated[
        bool,
        typer.Option(
            "--quantize",
            help="Also store int8 codes of the vectors (a quarter of their bytes), which a dense search scans "
            "first with an integer kernel, scoring its best 256 again exactly; kept by later ingests. Pays off on "
            "large tenants: at 1M passages the dense stage takes 0.3-0.5x the time of the float32 scan.",
        ),
    ] = False,
) -> None:
    """Index documents for a tenant: cut them into passages, embed them, publish atomically.

    Unchanged files are skipped; files removed from PATH are removed from the
    index. A file that fails to load is reported, and a document it held is
    withdrawn from the index (fail closed; --keep-on-error keeps the old version).
    Exit 0, or 2 when any file was rejected (the rest is still committed).
    With --ray only the embedding runs on the cluster; the index is the same.
    """
    with (
        ingest_job(
            path,
            tenant,
            acl=acl,
            max_file_size=max_file_size,
            index=index,
            ray=ray,
            ray_address=ray_address,
            keep_on_error=keep_on_error,
            replace=replace,
            shared_index=allow_shared_index,
            quantize=quantize,
        ) as job,
        _progress(enabled=not as_json) as progress,
    ):
        report = job.run(progress=progress)
    if as_json:
        emit_json(report)
    else:
        _summary(report)
        report_skipped(report)
        report_scans(report, path)
        if report.rebuilt:
            _stderr(f"note: {report.rebuilt}")
    report_warnings(report, path)
    report_rejections(report, path)
    if report.generation is None:
        why = (
            "every file was rejected"
            if report.documents.rejected
            else f"no file of a supported type under {printable(str(path))}"
        )
        error(f"nothing was indexed for tenant '{tenant}': {why}; no index was created")
    if report.documents.rejected or report.documents.withdrawn or report.generation is None:
        raise typer.Exit(2)


SHOWN_PATHS = 3
"""Paths named per group of identical rejections; the rest are counted."""


def _stderr(line: str) -> None:
    sys.stderr.write(line + "\n")


def report_skipped(report: IngestReport, write: Callable[[str], None] = _stderr) -> None:
    """One note per file type ragcli does not read (``skipped 3 .xlsx files: unsupported type``)."""
    for suffix, n in sorted(report.skipped.items()):
        write(f"note: skipped {plural(n, printable(suffix) + ' file')}: unsupported type")
    if report.empty:
        names = ", ".join(printable(source) for source in report.empty[:3]) + (", …" if len(report.empty) > 3 else "")
        what = plural(len(report.empty), "document")
        why = "includes, site markup, or an API reference generated from code"
        write(f"note: skipped {what} with no text of its own ({why}): {names}")


def report_scans(report: IngestReport, root: Path, write: Callable[[str], None] = _stderr) -> None:
    """Once per run: the PDF pages OCR read (and its limits), and the pages without text left unread, by document."""
    from ..ingestion.pdf_ocr import ENABLE_HINT

    pdf = report.pdf
    if pdf is None:
        return
    limits = f"limits per document: {pdf.page_limit} pages, {pdf.seconds_limit:g} s"
    if pdf.ocr_pages:
        write(f"note: OCR read {plural(pdf.ocr_pages, 'scanned PDF page')} in {pdf.ocr_seconds:.1f} s ({limits})")
    for reason in ("no_ocr", "pages", "seconds"):
        unread = [u for u in pdf.unread if u.reason == reason]
        if not unread:
            continue
        pages = sum(len(u.pages) for u in unread)
        named = [f"{_shown_path(u.path, root)} ({_pages(u.pages)})" for u in unread[:SHOWN_PATHS]]
        names = ", ".join(named) + (", …" if len(unread) > SHOWN_PATHS else "")
        counted = f"{plural(pages, 'PDF page')} of {plural(len(unread), 'document')}"
        if reason == "no_ocr":
            write(
                f"note: no text read from {counted} (no text layer: scans?): {names}; OCR is not available "
                f"({pdf.ocr_missing}); to read them, {ENABLE_HINT}"
            )
        else:
            limit = "page" if reason == "pages" else "time"
            write(f"note: OCR stopped at its {limit} limit ({limits}): {counted} left unread: {names}")


def _pages(pages: list[int]) -> str:
    shown = ", ".join(map(str, pages[:5])) + (", …" if len(pages) > 5 else "")
    return ("p. " if len(pages) == 1 else "pp. ") + shown


def report_warnings(report: IngestReport, root: Path, write: Callable[[str], None] = _stderr) -> None:
    """One ``warning:`` line each: an ACL entry spelt like another but for case or spaces, a version kept on error."""
    for w in report.warnings:
        write(f"warning: {_shown_path(w.path, root)}: {printable(w.message)}")


def report_rejections(report: IngestReport, root: Path, write: Callable[[str], None] = error) -> None:
    """Rejections grouped by reason: one ``error:`` line per reason (``write``), then a summary when there are
    several.

    A folder of 81 files without an ACL gets one line, not 81 identical ones;
    ``--json`` still lists every rejected path.
    """
    groups: dict[str, list[str]] = {}
    for r in report.documents.rejected:
        groups.setdefault(r.reason, []).append(_shown_path(r.path, root))
    files = len({_file_of(r.path) for r in report.documents.rejected})
    of_total = f" of {max(report.files, files)}" if len(groups) == 1 else ""
    for reason, paths in sorted(groups.items(), key=lambda g: -len(g[1])):  # the most common reason first
        if len(paths) == 1:
            write(f"rejected {paths[0]}: {printable(reason)}")
            continue
        named = ", ".join(paths[:SHOWN_PATHS]) + (
            f" and {len(paths) - SHOWN_PATHS} more" if len(paths) > SHOWN_PATHS else ""
        )
        write(f"rejected {len(paths)}{of_total} files: {printable(reason)} ({named})")
    if len(groups) > 1:
        write(f"rejected {files} of {max(report.files, files)} files ({len(groups)} reasons); the rest was indexed")
    withdrawn = report.documents.withdrawn
    if withdrawn:
        named = ", ".join(f"{printable(w.doc_id)} ({_shown_path(w.path, root)})" for w in withdrawn[:SHOWN_PATHS])
        more = f" and {len(withdrawn) - SHOWN_PATHS} more" if len(withdrawn) > SHOWN_PATHS else ""
        write(
            f"withdrew {plural(len(withdrawn), 'document')} whose new version was rejected: {named}{more}; "
            "they are not searchable until fixed (--keep-on-error keeps the old version)"
        )


def _file_of(path: str) -> str:
    """A JSONL line is rejected as ``FILE:LINE``; it counts toward its file."""
    head, _, tail = path.rpartition(":")
    return head if head and tail.isdigit() else path


def _shown_path(path: str, root: Path) -> str:
    """A rejected path relative to the ingested folder (the user typed that folder; the rest is noise)."""
    try:
        base = root.resolve()
        relative = Path(path).relative_to(base if base.is_dir() else base.parent)
        return printable(relative.as_posix())
    except ValueError:
        return printable(path)


@contextmanager
def ingest_job(
    path: Path,
    tenant: str,
    *,
    acl: list[str] | None,
    max_file_size: int,
    index: Path | None,
    ray: bool,
    ray_address: str | None,
    keep_on_error: bool = False,
    replace: bool = False,
    shared_index: bool = False,
    quantize: bool = False,
) -> Iterator[IngestJob]:
    """The one ``IngestJob`` the options of ``ingest`` and ``watch`` describe, its Ray backend running for
    ``--ray`` (stopped on the way out, Ctrl-C included)."""
    from ..ingestion import IngestJob

    with _embedding(ray or ray_address is not None, ray_address) as embedding:
        yield IngestJob(
            path,
            tenant,
            index=index,
            default_acl=tuple(acl or ()),
            max_file_bytes=max_file_size * MIB,
            embedding=embedding,
            keep_on_error=keep_on_error,
            replace=replace,
            shared_index=shared_index,
            quantize=quantize,
        )


@contextmanager
def _embedding(use_ray: bool, address: str | None) -> Iterator[Any]:
    """The Ray backend for --ray (stopped on the way out, Ctrl-C included), else None: embed in this process."""
    if not use_ray:
        yield None
        return
    from contextlib import redirect_stdout

    from ..ingestion.ray_embed import RayEmbedding

    # Ray prints what its raylets report (a worker died, a task is retried) on stdout from a
    # thread of its own; stdout is for the summary and --json, so until Ray is shut down
    # those notes go to stderr.
    with redirect_stdout(sys.stderr), RayEmbedding(address) as backend:
        yield backend


@contextmanager
def _progress(enabled: bool) -> Iterator[Any]:
    """Progress bars on stderr for files parsed and model work embedded (only on a terminal).

    The embedding bar's time left comes from ``RemainingTime``: model work (padding and
    sequence length as the model sees them) over a moving rate, not Rich's estimate in tokens.
    """
    from ..ingestion import Progress

    if not enabled or not err_console().is_terminal:
        yield Progress()
        return
    import time

    from rich.progress import BarColumn, ProgressColumn, TaskProgressColumn, TextColumn
    from rich.progress import Progress as Bars
    from rich.text import Text

    from ..ingestion import RemainingTime

    class _TimeLeft(ProgressColumn):
        def render(self, task: Any) -> Text:
            estimate = task.fields.get("estimate")
            seconds = estimate.seconds_left(time.monotonic()) if estimate is not None else task.time_remaining
            return Text(clock(seconds), style="progress.remaining")

    bars = Bars(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.fields[count]}"),
        TaskProgressColumn(),
        _TimeLeft(),
        console=err_console(),
        transient=True,
    )

    class _Bars(Progress):
        files_task: Any = None
        embed_task: Any = None
        total_files = 0
        estimate: RemainingTime | None = None
        done = 0.0

        def files(self, total: int) -> None:
            self.total_files = total
            self.files_task = bars.add_task("parsing files", total=total, count=f"0/{total}")

        def file_done(self) -> None:
            bars.advance(self.files_task)
            done = int(bars.tasks[self.files_task].completed)
            bars.update(self.files_task, count=f"{done}/{self.total_files}")

        def embedding(self, passages: int, work: float) -> None:
            if passages:
                self.estimate = RemainingTime(work)
                self.estimate.start(time.monotonic())
                description = f"embedding {plural(passages, 'passage')}"
                self.embed_task = bars.add_task(description, total=work, count="", estimate=self.estimate)

        def embedded(self, work: float) -> None:
            self.done += work
            if self.estimate is not None:
                self.estimate.update(self.done, time.monotonic())
            bars.advance(self.embed_task, work)

    with bars:
        yield _Bars()


def clock(seconds: float | None) -> str:
    """``0:01:05``; ``-:--:--`` while there is no estimate yet."""
    if seconds is None:
        return "-:--:--"
    whole = int(round(seconds))
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"


def _summary(report: IngestReport) -> None:
    """The counts, and where the index is (``index``: what later commands find, or take as ``--index``)."""
    from ..settings import index_origin

    docs = report.documents
    header = ("added", "updated", "unchanged", "deleted", "rejected", "passages", "embedded", "seconds", "index")
    row = [
        *(
            str(n)
            for n in (
                docs.added,
                docs.updated,
                docs.unchanged,
                docs.deleted,
                len(docs.rejected),
                report.passages,
                report.embedded,
            )
        ),
        f"{report.seconds:.1f}",
    ]
    kept = report.generation is not None and not report.published
    if plain_output():
        tsv(header, [[*row, report.index]])
        if kept:
            _stderr("note: nothing changed; the published index was kept")
        return
    from rich.markup import escape
    from rich.table import Table

    origin = index_origin(Path(report.index))
    where = printable(report.index) + (f" ({printable(origin)})" if origin else "")
    table = Table(title=escape(f"ingest: tenant {report.tenant} in {where}"), show_header=True, title_justify="left")
    for col in header[:-1]:
        table.add_column(col, justify="right")
    table.add_row(*row)
    console().print(table)
    if kept:
        footer("note: nothing changed; the published index was kept")
