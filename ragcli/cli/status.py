"""``ragcli status``: each tenant's index, verified in full."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated

import typer

from .console import console, emit_json, fail, safe
from .options import DEFAULT_INDEX, IndexOpt, JsonOpt

if TYPE_CHECKING:
    from ..index import Audit

EPILOG = "Example: ragcli status --tenant acme --json"


def status(
    tenant: Annotated[
        str | None, typer.Option("--tenant", "-t", metavar="TENANT", help="Only this tenant.", show_default=False)
    ] = None,
    index: IndexOpt = DEFAULT_INDEX,
    as_json: JsonOpt = False,
    prune: Annotated[
        bool,
        typer.Option(
            "--prune", help="First remove old generations no reader holds open (deleted text stays on disk until then)."
        ),
    ] = False,
) -> None:
    """Show each tenant's index: documents, passages, model, chunker, size, last ingest, and integrity counts.

    Every file is checked against its checksum. Exit 2 if an index is damaged
    (the message names the tenant and the fix).
    """
    from ..embedder import Embedder
    from ..index import audit_index, prune_index
    from ..settings import index_root

    root = index_root(index)
    pruned = prune_index(root, tenant) if prune else None
    embedder = Embedder()
    report = audit_index(root, tenant, model_id=embedder.model_id, model_sha256=embedder.sha256)
    report.pruned = pruned
    for p in [] if as_json else pruned or []:
        sys.stderr.write(
            f"pruned {p.tenant}: {len(p.removed)} old generation(s) removed, {len(p.in_use)} still open by a reader\n"
        )
    for audit in report.tenants:
        for warning in audit.warnings:
            sys.stderr.write(f"warning: {warning}\n")
        if audit.pdf_pages_unread and not as_json:
            sys.stderr.write(_unread_note(audit) + "\n")
    if as_json:
        emit_json(report)
    else:
        _table(report.tenants)
    if not report.healthy:
        fail("index has orphan vectors or stale entries; re-ingest the tenant")


def human_bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)


STATUS_COLUMNS = ("tenant", "docs", "passages", "model", "chunker", "size", "last ingest", "orphans", "stale")


def _table(audits: list[Audit]) -> None:
    """In a pipe, tab-separated rows with every value whole; on a terminal, a table that fits 80 columns."""
    from .console import plain_output, tsv

    if plain_output():
        rows = [
            [
                a.tenant,
                a.documents,
                a.passages,
                f"{a.model.id} {a.model.sha256}",
                f"v{a.chunker_version}",
                human_bytes(a.disk_bytes),
                a.last_ingest,
                a.orphan_vectors,
                a.stale_entries,
            ]
            for a in audits
        ]
        tsv(STATUS_COLUMNS, rows)
        return
    from rich.markup import escape
    from rich.table import Table

    # The model and chunker are the same for most tenants: said once under the table, the rows fit 80 columns.
    table = Table(title="ragcli index", title_justify="left")
    for col in ("tenant", "docs", "passages", "size", "last ingest", "orphans", "stale"):
        table.add_column(col, justify="left" if col in ("tenant", "last ingest") else "right", overflow="fold")
    builds: dict[str, list[str]] = {}
    for a in audits:
        table.add_row(
            escape(safe(a.tenant)),
            str(a.documents),
            str(a.passages),
            human_bytes(a.disk_bytes),
            a.last_ingest[:16].replace("T", " "),
            _flag(a.orphan_vectors),
            _flag(a.stale_entries),
        )
        builds.setdefault(f"model {a.model.id} (sha256 {a.model.sha256[:8]}), chunker v{a.chunker_version}", []).append(
            a.tenant
        )
    console().print(table)
    for build, tenants in builds.items():
        console().print(
            escape(safe(build)) + ("" if len(builds) == 1 else f": {escape(safe(', '.join(tenants)))}"), highlight=False
        )


def _unread_note(audit: Audit) -> str:
    """``note: acme: 3 PDF pages of 2 documents have no text (scans): ...``: what OCR would add to the index."""
    from ..ingestion.pdf_ocr import ENABLE_HINT
    from .console import plural, printable

    docs = audit.pdf_documents_unread
    names = ", ".join(printable(d) for d in docs[:3]) + (", …" if len(docs) > 3 else "")
    return (
        f"note: {safe(audit.tenant)}: {plural(audit.pdf_pages_unread, 'PDF page')} of "
        f"{plural(len(docs), 'document')} had no text to index (scans?): {names}; to read them, {ENABLE_HINT}, "
        "then ingest again"
    )


def _flag(n: int) -> str:
    return "0" if n == 0 else f"[bold red]{n}[/bold red]"
