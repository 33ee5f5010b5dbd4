"""``ragcli status``: each tenant's index, verified in full."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Optional

import typer

from .console import console, emit_json, fail
from .options import DEFAULT_INDEX, IndexOpt, JsonOpt

if TYPE_CHECKING:
    from ..index import Audit

EPILOG = "Example: ragcli status --tenant acme --json"


def status(
    tenant: Annotated[Optional[str], typer.Option("--tenant", "-t", help="Only this tenant.", show_default=False)] = None,
    index: IndexOpt = DEFAULT_INDEX,
    as_json: JsonOpt = False,
) -> None:
    """Show each tenant's index: documents, passages, model, chunker, size, last ingest, and integrity counts.

    Every file is checked against its checksum. Exit 2 if an index is damaged
    (the message names the tenant and the fix).
    """
    from ..embedder import Embedder
    from ..index import audit_index

    embedder = Embedder()
    report = audit_index(index, tenant, model_id=embedder.model_id, model_sha256=embedder.sha256)
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


def _table(audits: list[Audit]) -> None:
    from rich.table import Table

    table = Table(title="ragcli index", title_justify="left")
    for col, just in (
        ("tenant", "left"),
        ("docs", "right"),
        ("passages", "right"),
        ("model", "left"),
        ("chunker", "right"),
        ("size", "right"),
        ("last ingest", "left"),
        ("orphans", "right"),
        ("stale", "right"),
    ):
        table.add_column(col, justify=just)  # type: ignore[arg-type]
    for a in audits:
        table.add_row(
            a.tenant,
            str(a.documents),
            str(a.passages),
            f"{a.model.id} ({a.model.sha256[:12]})",
            f"v{a.chunker_version}",
            human_bytes(a.disk_bytes),
            a.last_ingest,
            _flag(a.orphan_vectors),
            _flag(a.stale_entries),
        )
    console().print(table)


def _flag(n: int) -> str:
    return "0" if n == 0 else f"[bold red]{n}[/bold red]"
