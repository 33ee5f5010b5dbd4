"""``ragcli status``: what each tenant's index holds, verified in full.

The audit opens the published generation with every checksum (and the
manifest's seal) verified, then cross-checks the views of the rows (the
manifest's documents, the row file, the BM25 index and the embedding
matrix): rows no document owns are orphans, IDs the manifest lists that no
row holds are stale. Both must be 0. The permission columns are checked
against the rows as well: every row's ACL in acl.npy (read through the
manifest's group list), in passages.jsonl and in Tantivy's ``acl`` field
must be the same, and so must its validity days; a disagreement is damage.
It also warns when the index can be read or written by other accounts.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from pydantic import ConfigDict, Field

from .. import dates
from ..errors import IndexCorruptError, InputError
from ..record import Record
from . import layout
from .manifest import read_documents
from .reader import TenantIndex
from .writer import Pruned, prune_generations


class AuditModel(Record):
    model_config = ConfigDict(frozen=True)

    id: str
    sha256: str
    dim: int


class Audit(Record):
    """One tenant's line of ``ragcli status`` (and its ``--json`` shape)."""

    model_config = ConfigDict(frozen=True)

    tenant: str
    generation: str
    last_ingest: str
    documents: int
    passages: int
    model: AuditModel
    chunker_version: int
    disk_bytes: int
    orphan_vectors: int
    """Embedding or BM25 rows that no manifest document owns."""
    stale_entries: int
    """Passage IDs the manifest lists that no row holds."""
    warnings: list[str] = Field(default_factory=list)
    """Folders and files of the index that other accounts may read or write (it holds every passage's text)."""
    pdf_pages_unread: int = 0
    """PDF pages without a text layer that no text was read from (OCR not available at ingest, or over a limit)."""
    pdf_pages_ocr: int = 0
    """PDF pages whose text OCR read."""
    pdf_documents_unread: list[str] = Field(default_factory=list)
    """The documents (their keys: file paths) those unread pages belong to."""

    @property
    def healthy(self) -> bool:
        return self.orphan_vectors == 0 and self.stale_entries == 0


class StatusReport(Record):
    """``ragcli status``: every audited tenant of one index directory (and its ``--json`` shape)."""

    index: str
    tenants: list[Audit]
    pruned: list[Pruned] | None = Field(default=None, exclude_if=lambda v: v is None)
    """Only with ``--prune``: the old generations removed (or still held by a reader) per tenant."""

    @property
    def healthy(self) -> bool:
        return all(a.healthy for a in self.tenants)


def audit_index(root: Path, tenant: str | None, *, model_id: str, model_sha256: str) -> StatusReport:
    """Audit ``tenant`` (or every tenant) under ``root`` against the configured embedding model."""
    tenants = [tenant] if tenant is not None else list_tenants(root)
    if not tenants:
        raise InputError(
            f"no tenant is indexed in {layout.described(root)}; if the index is elsewhere, give --index DIR or set "
            "RAGCLI_INDEX; else run: ragcli ingest PATH --tenant NAME"
        )
    audits = [audit_tenant(root, name, model_id=model_id, model_sha256=model_sha256) for name in tenants]
    return StatusReport(index=str(root), tenants=audits)


def prune_index(root: Path, tenant: str | None) -> list[Pruned]:
    """Remove old generations of ``tenant`` (or every tenant) that no reader holds."""
    tenants = [tenant] if tenant is not None else list_tenants(root)
    return [prune_generations(Path(root), name) for name in tenants]


def list_tenants(root: Path) -> list[str]:
    """Tenants under ``root`` with a published generation."""
    return layout.list_tenants(Path(root))


def audit_tenant(root: Path, tenant: str, *, model_id: str, model_sha256: str) -> Audit:
    """Verify the tenant's published generation and cross-check its rows; also refuse another model."""
    with TenantIndex.open(Path(root), tenant, verify=True) as index:
        result = _audit(index, exposure_warnings(Path(root), index))
        index.check_model(model_id, model_sha256)
    return result


SHOWN_EXPOSED = 3


def exposure_warnings(root: Path, index: TenantIndex) -> list[str]:
    """One line when the index root, the tenant's folder or the published generation is open to other accounts."""
    exposed = [
        *layout.exposed(root, recursive=False),
        *layout.exposed(index.directory, recursive=False),
        *layout.exposed(index.path),
    ]
    if not exposed:
        return []
    more = f" and {len(exposed) - SHOWN_EXPOSED} more" if len(exposed) > SHOWN_EXPOSED else ""
    return [
        f"index of tenant '{index.tenant}' can be read or written by other accounts: "
        f"{', '.join(exposed[:SHOWN_EXPOSED])}{more}; it holds every passage's text (chmod -R go-rwx {root})"
    ]


def _audit(index: TenantIndex, warnings: list[str]) -> Audit:
    m = index.manifest
    documents = read_documents(index.path, m)
    listed = {pid for d in documents for pid in d.passage_ids}
    row_ids = _cross_check_rows(index)
    orphan = sum(1 for pid in row_ids if pid not in listed)
    stale = len(listed - set(row_ids))
    try:
        bm25_docs = index._bm25.searcher().num_docs
    except ValueError as exc:
        raise IndexCorruptError.unreadable(index.tenant, "BM25 index unreadable", exc) from None
    orphan += max(0, bm25_docs - index.size) + max(0, int(index.embeddings.shape[0]) - index.size)
    stale += max(0, index.size - bm25_docs)
    return Audit(
        tenant=index.tenant,
        generation=m.generation,
        last_ingest=m.created,
        documents=len(documents),
        passages=m.passages,
        model=AuditModel(id=m.model.id, sha256=m.model.sha256, dim=m.model.dim),
        chunker_version=m.chunker_version,
        disk_bytes=index.disk_bytes(),
        orphan_vectors=orphan,
        stale_entries=stale,
        warnings=warnings,
        pdf_pages_unread=sum(len(d.pdf.unread) for d in documents if d.pdf is not None),
        pdf_pages_ocr=sum(len(d.pdf.ocr) for d in documents if d.pdf is not None),
        pdf_documents_unread=[d.key for d in documents if d.pdf is not None and d.pdf.unread],
    )


def _cross_check_rows(index: TenantIndex) -> list[str]:
    """Every row's tenant, ACL and validity as passages.jsonl, acl.npy (through the manifest's groups) and Tantivy
    hold them must agree; returns the row IDs. A disagreement is damage: searches would filter by the wrong rule."""
    groups = index.manifest.groups
    in_bm25 = _bm25_acl_rows(index, groups)
    ids = []
    for row in range(index.size):
        record = index._rows.record(row)
        ids.append(str(record.get("id")))
        problem = _row_problem(index, row, record, groups, in_bm25)
        if problem is not None:
            raise IndexCorruptError.damaged(index.tenant, f"row {row}: {problem}")
    return ids


def _row_problem(
    index: TenantIndex, row: int, record: dict[str, Any], groups: list[str], in_bm25: dict[str, set[int]]
) -> str | None:
    import numpy as np

    if record.get("tenant") != index.tenant:
        return "passages.jsonl names another tenant"
    acl = record.get("acl")
    if not isinstance(acl, list) or not acl:
        return "passages.jsonl holds no ACL"
    mask = {groups[i] for i in np.flatnonzero(index.acl[row])}
    if set(acl) != mask:
        return "the ACL in acl.npy (read through the manifest's groups) differs from passages.jsonl"
    if {g for g, rows in in_bm25.items() if row in rows} != set(acl):
        return "the ACL in the BM25 index differs from passages.jsonl"
    start = _days(record.get("effective_from"), dates.OPEN_FROM)
    end = _days(record.get("superseded_on"), dates.OPEN_UNTIL)
    if (int(index.valid_from[row]), int(index.valid_until[row])) != (start, end):
        return "valid_from.npy / valid_until.npy differ from the dates in passages.jsonl"
    return None


def _days(value: object, open_bound: int) -> int:
    if value is None:
        return open_bound
    try:
        return dates.day_number(dt.date.fromisoformat(str(value)))
    except ValueError:
        return open_bound - 1  # never equal to a stored day: reported as a disagreement


def _bm25_acl_rows(index: TenantIndex, groups: list[str]) -> dict[str, set[int]]:
    """For each ACL entry the manifest lists, the rows Tantivy's ``acl`` field gives it."""
    import tantivy

    out: dict[str, set[int]] = {}
    try:
        searcher = index._bm25.searcher()
        for group in groups:
            query = tantivy.Query.term_query(index._bm25.schema, "acl", group)
            hits = searcher.search(query, limit=max(1, index.size), count=False).hits
            out[group] = {int(searcher.doc(addr)["row"][0]) for _, addr in hits}
    except ValueError as exc:
        raise IndexCorruptError.unreadable(index.tenant, "BM25 index unreadable", exc) from None
    return out
