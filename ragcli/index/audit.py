"""``ragcli status``: what each tenant's index holds, verified in full.

The audit opens the published generation with every checksum verified, then
cross-checks the three views of the rows (the manifest's documents, the row
file, the BM25 index and the embedding matrix): rows no document owns are
orphans, IDs the manifest lists that no row holds are stale. Both must be 0.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from ..errors import IndexCorruptError, InputError
from . import layout
from .manifest import read_documents
from .reader import TenantIndex
from .writer import Pruned, prune_generations


class AuditModel(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str
    sha256: str
    dim: int


class Audit(BaseModel):
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

    @property
    def healthy(self) -> bool:
        return self.orphan_vectors == 0 and self.stale_entries == 0


class StatusReport(BaseModel):
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
        result = _audit(index)
        index.check_model(model_id, model_sha256)
    return result


def _audit(index: TenantIndex) -> Audit:
    m = index.manifest
    documents = read_documents(index.path, m)
    listed = {pid for d in documents for pid in d.passage_ids}
    row_ids = [index._rows.record(row)["id"] for row in range(index.size)]
    orphan = sum(1 for pid in row_ids if pid not in listed)
    stale = len(listed - set(row_ids))
    try:
        bm25_docs = index._bm25.searcher().num_docs
    except ValueError as exc:
        raise IndexCorruptError.damaged(index.tenant, f"BM25 index unreadable ({exc})") from None
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
    )
