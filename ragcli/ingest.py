"""The ingest pipeline: files -> documents -> passages -> vectors -> a new generation.

Incremental: a source whose fingerprint (bytes, sidecar, default ACL, chunker
version, model) is unchanged is neither re-parsed nor re-embedded; a passage
whose text is unchanged reuses its vector even when its document's metadata
changed. ``ingest PATH`` mirrors PATH: documents ingested earlier from under
PATH that are gone are removed; documents from other paths stay; a file that
fails to load keeps its previously indexed version.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence, Set
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .chunking import CHUNKER_VERSION, Passage, chunk_document
from .documents import (
    DEFAULT_MAX_FILE_BYTES,
    JSONL_SUFFIX,
    Document,
    DocumentRejected,
    SourceFile,
    discover,
    file_fingerprint,
    load_file,
    load_jsonl,
)
from .embedder import Embedder
from .errors import IndexWriteError, InputError
from .principal import validate_tenant
from .store import (
    DocumentEntry,
    ModelEntry,
    NewGeneration,
    TenantIndex,
    previous_generation,
    row_maps,
    write_generation,
    writer_lock,
)

if TYPE_CHECKING:
    import numpy as np


@dataclass
class Rejection:
    path: str
    reason: str


@dataclass
class IngestReport:
    """What one ingest did; ``--json`` prints it as it is."""

    tenant: str
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    deleted: int = 0
    rejected: list[Rejection] = field(default_factory=list)
    passages: int = 0
    embedded: int = 0
    seconds: float = 0.0
    generation: str | None = None
    published: bool = False

    def to_json(self) -> dict[str, object]:
        return {
            "tenant": self.tenant,
            "documents": {
                "added": self.added,
                "updated": self.updated,
                "unchanged": self.unchanged,
                "deleted": self.deleted,
                "rejected": [{"path": r.path, "reason": r.reason} for r in self.rejected],
            },
            "passages": self.passages,
            "embedded": self.embedded,
            "seconds": round(self.seconds, 3),
            "generation": self.generation,
        }


class Progress:
    """Hooks the CLI uses to draw bars; the library stays silent by default."""

    def files(self, total: int) -> None: ...
    def file_done(self) -> None: ...
    def embedding(self, total: int) -> None: ...
    def embedded(self, count: int) -> None: ...


@dataclass
class _Loaded:
    key: str
    doc: Document | None  # None when reused unchanged
    passages: list[Passage]
    text_hashes: list[str]
    reused_rows: list[int | None]


def text_hash(p: Passage) -> str:
    return hashlib.sha256(p.index_text.encode("utf-8")).hexdigest()[:32]


def ingest(
    path: str | Path,
    tenant: str,
    *,
    index: str | Path | None = None,
    default_acl: Sequence[str] = (),
    embedder: Embedder | None = None,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    progress: Progress | None = None,
) -> IngestReport:
    """Ingest ``path`` (a folder or one file) into ``tenant``'s index and publish it atomically."""
    started = time.perf_counter()
    validate_tenant(tenant)
    root = Path(path)
    if not root.exists():
        raise InputError(f"path not found: {root}")
    embedder = embedder or Embedder()
    progress = progress or Progress()
    report = IngestReport(tenant=tenant)
    with writer_lock(index, tenant) as tenant_dir:
        prev = previous_generation(index, tenant)
        try:
            _ingest_locked(root.resolve(), tenant, tenant_dir, prev, tuple(default_acl), embedder, max_file_bytes, progress, report)
        finally:
            if prev is not None:
                prev.close()
    report.seconds = time.perf_counter() - started
    return report


def _model_entry(embedder: Embedder) -> ModelEntry:
    return ModelEntry(id=embedder.model_id, sha256=embedder.sha256, dim=embedder.dim, pooling=embedder.spec.pooling)


def _ingest_locked(
    root: Path,
    tenant: str,
    tenant_dir: Path,
    prev: TenantIndex | None,
    default_acl: tuple[str, ...],
    embedder: Embedder,
    max_file_bytes: int,
    progress: Progress,
    report: IngestReport,
) -> None:
    model = _model_entry(embedder)
    compatible = prev is not None and prev.manifest.model.sha256 == model.sha256 and prev.manifest.chunker_version == CHUNKER_VERSION
    salt = f"chunker={CHUNKER_VERSION};model={model.sha256}"
    prev_docs = {d.key: d for d in prev.manifest.documents} if prev is not None else {}
    prev_row_of, prev_row_of_text = row_maps(prev) if prev is not None else ({}, {})

    files, rejected = discover(root)
    for r in rejected:
        report.rejected.append(Rejection(r.source, r.reason))
    progress.files(len(files))

    loaded: dict[str, _Loaded] = {}
    touched_files: set[str] = set()  # sources whose earlier documents must be kept (rejections)
    for src in files:
        try:
            for item in _load_source(src, tenant, default_acl, salt, max_file_bytes, embedder, prev_docs if compatible else {}, prev, prev_row_of):
                if isinstance(item, DocumentRejected):
                    report.rejected.append(Rejection(item.source, item.reason))
                    touched_files.add(str(src.path))
                    continue
                if item.key in loaded:
                    report.rejected.append(Rejection(item.key, f"duplicate document id '{item.passages[0].doc_id if item.passages else item.key}' in one source"))
                    continue
                loaded[item.key] = item
        except DocumentRejected as rej:
            report.rejected.append(Rejection(rej.source, rej.reason))
            touched_files.add(str(src.path))
        progress.file_done()

    # Keep earlier documents that this run does not replace: other paths, and
    # files that failed to load now.
    kept: dict[str, _Loaded] = {}
    for key, entry in prev_docs.items():
        if key in loaded:
            continue
        file_part = key.split("::", 1)[0]
        under_root = Path(file_part) == root or Path(file_part).is_relative_to(root)
        if under_root and file_part not in touched_files:
            report.deleted += 1
            continue
        assert prev is not None
        rows = [prev_row_of[pid] for pid in entry.passage_ids if pid in prev_row_of]
        passages = [prev.passage(r) for r in rows]
        kept[key] = _Loaded(key, None, passages, [text_hash(p) for p in passages], rows if compatible else [None] * len(rows))

    everything = _dedupe_passage_ids([*kept.values(), *loaded.values()], report, indexed=set(prev_docs))
    for item in everything:
        if item.key not in loaded:
            continue
        if item.doc is None:
            report.unchanged += 1
        elif item.key in prev_docs:
            report.updated += 1
        else:
            report.added += 1
    if not (report.added or report.updated or report.deleted) and prev is not None and compatible and len(everything) == len(prev_docs):
        report.passages = prev.size
        report.generation = prev.generation
        return

    passages: list[Passage] = []
    hashes: list[str] = []
    reuse: list[int | None] = []
    entries: list[DocumentEntry] = []
    for item in everything:
        passages += item.passages
        hashes += item.text_hashes
        reuse += item.reused_rows
        first = item.passages[0]
        entries.append(
            DocumentEntry(
                key=item.key,
                doc_id=first.doc_id,
                version=first.version,
                source=first.source,
                fingerprint=item.doc.fingerprint if item.doc is not None else prev_docs[item.key].fingerprint,
                passage_ids=[p.id for p in item.passages],
            )
        )
    vectors = _vectors(passages, hashes, reuse, prev if compatible else None, prev_row_of_text, embedder, progress, report)
    gen = NewGeneration(tenant, passages, hashes, vectors, entries, CHUNKER_VERSION, model)
    try:
        report.generation = write_generation(tenant_dir, gen)
    except OSError as exc:
        raise IndexWriteError(
            f"cannot write the new index of tenant '{tenant}' in {tenant_dir}: {exc.strerror or exc}; "
            "the previous index is unchanged"
        ) from None
    report.published = True
    report.passages = len(passages)


def _load_source(
    src: SourceFile,
    tenant: str,
    default_acl: tuple[str, ...],
    salt: str,
    max_file_bytes: int,
    embedder: Embedder,
    prev_docs: dict[str, DocumentEntry],
    prev: TenantIndex | None,
    prev_row_of: dict[str, int],
):  # type: ignore[no-untyped-def]
    """Yield _Loaded items (or DocumentRejected) for one file."""
    if src.path.suffix.lower() == JSONL_SUFFIX:
        for item in load_jsonl(src, default_acl=default_acl, salt=salt, max_bytes=max_file_bytes):
            if isinstance(item, DocumentRejected):
                yield item
            else:
                yield _from_document(f"{src.path}::{item.doc_id}", item, tenant, embedder, prev_docs, prev, prev_row_of)
        return
    key = str(src.path)
    unchanged = _unchanged_file(src, key, default_acl, salt, prev_docs, max_file_bytes)
    reused = _reuse(key, unchanged, prev, prev_row_of) if unchanged is not None else None
    if reused is not None:
        yield reused
        return
    doc = load_file(src, default_acl=default_acl, salt=salt, max_bytes=max_file_bytes)
    yield _from_document(key, doc, tenant, embedder, prev_docs, prev, prev_row_of)


def _unchanged_file(
    src: SourceFile, key: str, default_acl: tuple[str, ...], salt: str, prev_docs: dict[str, DocumentEntry], max_bytes: int
) -> DocumentEntry | None:
    """The previous entry if the file's fingerprint is the same: no parse needed."""
    entry = prev_docs.get(key)
    if entry is None:
        return None
    from .documents import SIDECAR_SUFFIX, read_bytes

    raw = read_bytes(src.path, max_bytes)
    sidecar = src.path.with_name(src.path.name.removesuffix(src.path.suffix) + SIDECAR_SUFFIX)
    sidecar_raw = read_bytes(sidecar, 1024 * 1024) if sidecar.is_file() else b""
    return entry if file_fingerprint(src, raw, sidecar_raw, default_acl, salt) == entry.fingerprint else None


def _reuse(key: str, entry: DocumentEntry, prev: TenantIndex | None, prev_row_of: dict[str, int]) -> _Loaded | None:
    """An unchanged document's passages and vector rows from the previous generation, if all are there."""
    rows = [prev_row_of.get(pid) for pid in entry.passage_ids]
    if prev is None or None in rows:
        return None
    passages = [prev.passage(r) for r in rows]  # type: ignore[arg-type]
    return _Loaded(key, None, passages, [text_hash(p) for p in passages], rows)  # type: ignore[arg-type]


def _from_document(
    key: str,
    doc: Document,
    tenant: str,
    embedder: Embedder,
    prev_docs: dict[str, DocumentEntry],
    prev: TenantIndex | None,
    prev_row_of: dict[str, int],
) -> _Loaded:
    entry = prev_docs.get(key)
    reused = _reuse(key, entry, prev, prev_row_of) if entry is not None and entry.fingerprint == doc.fingerprint else None
    if reused is not None:
        return reused
    passages = chunk_document(doc, tenant, embedder.count_tokens)
    if not passages:
        raise DocumentRejected(doc.source, "no text to index")
    return _Loaded(key, doc, passages, [text_hash(p) for p in passages], [None] * len(passages))


def _dedupe_passage_ids(items: list[_Loaded], report: IngestReport, indexed: Set[str] = frozenset()) -> list[_Loaded]:
    """Two sources may not claim the same passage ID (same doc id and version).

    A source already indexed keeps its IDs: a newly added file that reuses them
    is the one rejected, so it cannot replace (or re-permission) that document.
    """
    seen: set[str] = set()
    out = []
    for item in sorted(items, key=lambda i: (i.key not in indexed, i.key)):
        ids = {p.id for p in item.passages}
        if ids & seen:
            report.rejected.append(Rejection(item.key, f"document id '{item.passages[0].doc_id}@{item.passages[0].version}' is already used by another file; give it its own id or version"))
            continue
        seen |= ids
        out.append(item)
    return out


def _vectors(
    passages: list[Passage],
    hashes: list[str],
    reuse: list[int | None],
    prev: TenantIndex | None,
    prev_row_of_text: dict[str, int],
    embedder: Embedder,
    progress: Progress,
    report: IngestReport,
) -> np.ndarray:
    import numpy as np

    dim = embedder.dim
    vectors = np.zeros((len(passages), dim), dtype=np.float32)
    todo: list[int] = []
    for i, (row, h) in enumerate(zip(reuse, hashes)):
        source_row = row if row is not None else prev_row_of_text.get(h)
        if prev is not None and source_row is not None:
            vectors[i] = prev.embeddings[source_row]
        else:
            todo.append(i)
    progress.embedding(len(todo))
    if todo:
        vectors[todo] = embedder.embed([passages[i].index_text for i in todo], progress=progress.embedded)
    report.embedded = len(todo)
    return vectors
