"""The index layer: one tenant's passages on disk, and the only ways to read them.

    layout      where things live: CURRENT, gen-*, .build-*, lock (the only code that knows)
    manifest    the generation's own description, validated; checksums
    rows        passages.jsonl + offsets.npy: passage records by row
    bm25        the Tantivy schema, BM25 writing and permission-filtered queries
    reader      ``TenantIndex``: a published generation opened read-only (cheap checks)
    view        ``View``: the index as one scope may see it; the only way to rank or fetch passages
    writer      the write lock, building a generation aside, atomic publish, pruning
    previous    the generation a writer replaces, read whole, under the write lock only
    audit       ``ragcli status``: full checksum verification and cross-checks

Permission is structure: a reader opens a ``View`` for a ``Scope``; the view
builds the permission mask once and can only rank or return rows that pass
it. Only the writer (holding the lock) and the audit read rows unscoped.
"""

from .audit import Audit, StatusReport, audit_index, audit_tenant, list_tenants
from .reader import TenantIndex
from .view import Hit, View

__all__ = ["Audit", "Hit", "StatusReport", "TenantIndex", "View", "audit_index", "audit_tenant", "list_tenants"]
