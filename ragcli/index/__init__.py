"""The index layer: one tenant's passages on disk, and the only ways to read them.

    layout      where things live: CURRENT, gen-*, .build-*, lock (the only code that knows)
    manifest    the generation's own description, validated; checksums
    rows        passages.jsonl + offsets.npy: passage records by row
    bm25        the Tantivy schema, BM25 writing and permission-filtered queries
    dense       dense scoring from the mapped matrix in windows of allowed rows; int8 codes, exact rescoring
    int8_scan   the int8 scan: codes in dimension-major blocks, scored by onnxruntime's integer kernel
    npyfile     the .npy format read without numpy: headers and small columns (a BM25 search imports no numpy)
    reader      ``TenantIndex``: a published generation opened read-only (cheap checks)
    view        ``View``: the index as one scope may see it; the only way to rank or fetch passages
    writer      the write lock, building a generation aside, atomic publish, removing old generations
    previous    the generation a writer replaces, read whole, under the write lock only
    audit       ``ragcli status``: full checksum verification and cross-checks

Permission is structure: a reader opens a ``View`` for a ``Scope``; the view
builds the permission mask once and can only rank or return rows that pass
it. Only the writer (holding the lock) and the audit read rows unscoped.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import export_names, lazy_exports

# Loaded on first use: a search needs the reader and the view, not the audit or the writer.
if TYPE_CHECKING:  # the exports, once: "X as X" for type checkers, read by ``lazy`` for the runtime
    from .audit import Audit as Audit
    from .audit import StatusReport as StatusReport
    from .audit import audit_index as audit_index
    from .audit import audit_tenant as audit_tenant
    from .audit import list_tenants as list_tenants
    from .audit import prune_index as prune_index
    from .reader import TenantIndex as TenantIndex
    from .view import Hit as Hit
    from .view import View as View
    from .writer import Pruned as Pruned
    from .writer import prune_generations as prune_generations

__all__ = export_names(__file__)


__getattr__ = lazy_exports(__name__, __file__)
