"""The ingest pipeline: files -> documents -> passages -> vectors -> a new generation.

``ingest PATH`` mirrors PATH: documents ingested earlier from under PATH that
are gone are removed; documents from other paths stay; a file that fails to
load keeps its previously indexed version. Everything else is committed in
one atomic publish (see ``index.writer``). What can be kept from the previous
generation is decided in ``incremental``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from pydantic import BaseModel, Field, field_serializer

from ..embedder import Embedder
from ..errors import DocumentRejected, IndexWriteError, InputError
from ..index.manifest import ModelEntry
from ..index.previous import PreviousGeneration
from ..index.writer import NewGeneration, WriteLock, write_generation, write_lock
from ..passage import Passage
from ..settings import index_root
from ..structure import Embedded, embed_passages
from .chunking import CHUNKER_VERSION, chunk_document
from .incremental import Incremental, Loaded
from .loaders import Document, load_file, load_jsonl
from .progress import Progress
from .sources import DEFAULT_MAX_FILE_BYTES, SourceFile, discover_all, file_fingerprint, read_bytes, read_sidecar

if TYPE_CHECKING:
    import numpy as np


class Rejection(BaseModel):
    path: str
    reason: str


class DocumentCounts(BaseModel):
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    deleted: int = 0
    rejected: list[Rejection] = Field(default_factory=list)


@dataclass(frozen=True)
class Empty:
    """A document with no text of its own once its site markup is read (see ``IngestReport.empty``)."""

    source: str


class IngestReport(BaseModel):
    """What one ingest did; its JSON is what ``ingest --json`` prints."""

    tenant: str
    documents: DocumentCounts = Field(default_factory=DocumentCounts)
    passages: int = 0
    embedded: int = 0
    seconds: float = 0.0
    generation: str | None = None
    """The published generation; None when nothing was ever published for the tenant."""
    index: str = ""
    """The index directory written to (absolute; the tenant is a folder in it): ``--index`` of later commands."""
    skipped: dict[str, int] = Field(default_factory=dict)
    """Files of types ragcli does not read, by suffix: ``{".xlsx": 3}``."""
    empty: list[str] = Field(default_factory=list)
    """Documents with no text of their own once site markup is read (a page that only includes another file,
    ``--8<-- "CONTRIBUTING.md"``): nothing to index, so skipped rather than rejected."""
    published: bool = Field(default=False, exclude=True)
    """Whether a new generation was published (False when nothing changed)."""
    files: int = Field(default=0, exclude=True)
    """Files seen under the path (ingestable or refused on sight): the "of N" in a summary."""

    @field_serializer("seconds")
    def _round_seconds(self, value: float) -> float:
        return round(value, 3)

    def reject(self, path: str, reason: str) -> None:
        self.documents.rejected.append(Rejection(path=path, reason=reason))


EMBED_STEP = 16
"""Passages per call to the embedder: progress moves this often."""


class EmbeddingBackend(Protocol):
    """Where the vectors of new passages are computed; discovery, diffing and publishing stay in the ingest.

    ``embed_steps`` yields, per step of passages and in step order, what
    ``structure.embed_passages(embedder, step)`` gives: the (len(step), dim)
    passage vectors and each passage's unit vectors. The default runs the
    embedder in this process; ``ray_embed.RayEmbedding`` runs the same model on
    a Ray cluster.
    """

    def embed_steps(self, embedder: Embedder, steps: Sequence[Sequence[Passage]]) -> Iterator[Embedded]: ...


class LocalEmbedding:
    """The default backend: the embedder in this process, one step at a time."""

    def embed_steps(self, embedder: Embedder, steps: Sequence[Sequence[Passage]]) -> Iterator[Embedded]:
        for step in steps:
            yield embed_passages(embedder, step)


def ingest(
    path: str | os.PathLike[str],
    tenant: str,
    *,
    index: str | os.PathLike[str] | None = None,
    default_acl: tuple[str, ...] | list[str] = (),
    embedder: Embedder | None = None,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    progress: Progress | None = None,
    embedding: EmbeddingBackend | None = None,
) -> IngestReport:
    """Ingest ``path`` (a folder or one file) into ``tenant``'s index and publish it atomically.

    ``embedding`` computes the vectors of the passages that need new ones
    (default: ``embedder`` in this process); the model is ``embedder``'s either way.
    """
    started = time.perf_counter()
    root = Path(path)
    if not root.exists():
        raise InputError(f"path not found: {root}")
    run = _Run(
        tenant,
        tuple(default_acl),
        embedder or Embedder(),
        max_file_bytes,
        progress or Progress(),
        embedding or LocalEmbedding(),
    )
    run.report.index = str(index_root(index).absolute())
    with write_lock(index_root(index), tenant) as lock:
        previous = PreviousGeneration.open(lock)
        try:
            run.ingest(root.resolve(), lock, previous)
        finally:
            if previous is not None:
                previous.close()
    run.report.seconds = time.perf_counter() - started
    return run.report


class _Run:
    """One ingest, under the write lock."""

    def __init__(
        self,
        tenant: str,
        default_acl: tuple[str, ...],
        embedder: Embedder,
        max_file_bytes: int,
        progress: Progress,
        embedding: EmbeddingBackend,
    ) -> None:
        self.tenant = tenant
        self.default_acl = default_acl
        self.embedder = embedder
        self.embedding = embedding
        self.max_file_bytes = max_file_bytes
        self.progress = progress
        self.report = IngestReport(tenant=tenant)
        self.model = ModelEntry(
            id=embedder.model_id, sha256=embedder.sha256, dim=embedder.dim, pooling=embedder.spec.pooling
        )
        # What a passage depends on beyond its file: a change re-chunks and re-embeds everything.
        self.salt = f"chunker={CHUNKER_VERSION};model={self.model.sha256}"

    def ingest(self, root: Path, lock: WriteLock, previous: PreviousGeneration | None) -> None:
        diff = Incremental(previous, model_sha256=self.model.sha256, chunker_version=CHUNKER_VERSION)
        loaded, failed_files = self._load_all(root, diff)
        kept = self._kept(root, diff, loaded, failed_files)
        items = self._unique_ids([*kept, *loaded.values()], indexed=set(diff.documents))
        self._count(items, loaded, diff)
        docs = self.report.documents
        unchanged = not (docs.added or docs.updated or docs.deleted) and len(items) == len(diff.documents)
        if previous is not None and diff.compatible and previous.current_format and unchanged:
            self.report.passages = previous.size
            self.report.generation = previous.generation
            return
        if previous is None and not items:
            return  # nothing accepted and nothing before: an empty tenant would only answer "no results"
        self._publish(lock, diff, items)

    # -- loading ----------------------------------------------------------------

    def _load_all(self, root: Path, diff: Incremental) -> tuple[dict[str, Loaded], set[str]]:
        """Every source under ``root`` loaded (or reused), and the files that failed to load."""
        found = discover_all(root)
        files = found.files
        self.report.files = len(files) + len(found.rejected)
        self.report.skipped = found.skipped
        for r in found.rejected:
            self.report.reject(r.source, r.reason)
        self.progress.files(len(files))
        loaded: dict[str, Loaded] = {}
        failed: set[str] = set()
        for src in files:
            try:
                for item in self._load_source(src, diff):
                    if isinstance(item, Empty):
                        self.report.empty.append(item.source)
                    elif isinstance(item, DocumentRejected):
                        self.report.reject(item.source, item.reason)
                        failed.add(str(src.path))
                    elif item.key in loaded:
                        doc_id = item.passages[0].doc_id if item.passages else item.key
                        self.report.reject(item.key, f"duplicate document id '{doc_id}' in one source")
                    else:
                        loaded[item.key] = item
            except DocumentRejected as rej:
                self.report.reject(rej.source, rej.reason)
                failed.add(str(src.path))
            self.progress.file_done()
        return loaded, failed

    def _load_source(self, src: SourceFile, diff: Incremental) -> Iterator[Loaded | DocumentRejected | Empty]:
        """Loaded items (or rejections) for one file: one per JSONL line, else one."""
        if src.is_jsonl:
            for item in load_jsonl(src, default_acl=self.default_acl, salt=self.salt, max_bytes=self.max_file_bytes):
                yield (
                    item
                    if isinstance(item, DocumentRejected)
                    else self._passages(f"{src.path}::{item.doc_id}", item, diff)
                )
            return
        key = str(src.path)
        recorded = diff.fingerprint_of(key)
        if recorded is not None:
            # Fingerprint before parsing: an unchanged file costs one read and one hash.
            raw = read_bytes(src.path, self.max_file_bytes)
            if file_fingerprint(src, raw, read_sidecar(src), self.default_acl, self.salt) == recorded:
                reused = diff.reuse(key)
                if reused is not None:
                    yield reused
                    return
        doc = load_file(src, default_acl=self.default_acl, salt=self.salt, max_bytes=self.max_file_bytes)
        yield self._passages(key, doc, diff)

    def _passages(self, key: str, doc: Document, diff: Incremental) -> Loaded | Empty:
        if diff.fingerprint_of(key) == doc.fingerprint:
            reused = diff.reuse(key)
            if reused is not None:
                return reused
        passages = chunk_document(doc, self.tenant, self.embedder.count_tokens)
        if not passages:
            # The loader found text, the chunker none: it was all includes, comments or shortcodes.
            return Empty(doc.source)
        return Loaded.fresh(key, doc, passages)

    # -- deciding ---------------------------------------------------------------

    def _kept(self, root: Path, diff: Incremental, loaded: dict[str, Loaded], failed_files: set[str]) -> list[Loaded]:
        """Earlier documents this run does not replace: other paths, and files that failed to load now."""
        kept = []
        for key in diff.documents:
            if key in loaded:
                continue
            file_part = key.split("::", 1)[0]
            under_root = Path(file_part) == root or Path(file_part).is_relative_to(root)
            if under_root and file_part not in failed_files:
                self.report.documents.deleted += 1
                continue
            item = diff.keep(key)
            if item is not None:
                kept.append(item)
        return kept

    def _unique_ids(self, items: list[Loaded], indexed: set[str]) -> list[Loaded]:
        """Two sources may not claim the same passage ID (same doc id and version).

        A source already indexed keeps its IDs: a newly added file that reuses them
        is the one rejected, so it cannot replace (or re-permission) that document.
        """
        seen: set[str] = set()
        out = []
        for item in sorted(items, key=lambda i: (i.key not in indexed, i.key)):
            ids = {p.id for p in item.passages}
            if ids & seen:
                first = item.passages[0]
                self.report.reject(
                    item.key,
                    f"document id '{first.doc_id}@{first.version}' is already used by another file; "
                    "give it its own id or version",
                )
                continue
            seen |= ids
            out.append(item)
        return out

    def _count(self, items: list[Loaded], loaded: dict[str, Loaded], diff: Incremental) -> None:
        docs = self.report.documents
        for item in items:
            if item.key not in loaded:
                continue
            if item.doc is None:
                docs.unchanged += 1
            elif item.key in diff.documents:
                docs.updated += 1
            else:
                docs.added += 1

    # -- writing ----------------------------------------------------------------

    def _publish(self, lock: WriteLock, diff: Incremental, items: list[Loaded]) -> None:
        passages = [p for item in items for p in item.passages]
        vectors, units, todo = diff.reused_vectors(items, self.model.dim)
        self._embed(vectors, units, todo, [passages[i] for i in todo])
        self.report.embedded = len(todo)
        gen = NewGeneration(
            passages=passages,
            text_hashes=[h for item in items for h in item.text_hashes],
            embeddings=vectors,
            documents=[item.entry() for item in items],
            chunker_version=CHUNKER_VERSION,
            model=self.model,
            units=units,
        )
        try:
            self.report.generation = write_generation(lock, gen)
        except OSError as exc:
            raise IndexWriteError(
                f"cannot write the new index of tenant '{self.tenant}' in {lock.directory}: {exc.strerror or exc}; "
                "the previous index is unchanged"
            ) from None
        self.report.published = True
        self.report.passages = len(passages)

    def _embed(self, vectors: np.ndarray, units: list[np.ndarray], rows: list[int], passages: list[Passage]) -> None:
        """Embed ``passages`` into ``vectors[rows]`` and their units into ``units[rows]``, shortest first,
        reporting progress in model work."""
        texts = [p.index_text for p in passages]
        tokens = self.embedder.count_tokens(texts) if texts else []
        order = sorted(range(len(texts)), key=tokens.__getitem__)
        steps = [order[start : start + EMBED_STEP] for start in range(0, len(order), EMBED_STEP)]
        work = [self.embedder.batch_work([tokens[i] for i in step]) for step in steps]
        self.progress.embedding(len(texts), sum(work))
        results = iter(self.embedding.embed_steps(self.embedder, [[passages[i] for i in step] for step in steps]))
        for step, step_work in zip(steps, work, strict=True):
            # A backend that returns less (or other shapes) than asked must not publish zero vectors.
            embedded = next(results, None)
            if embedded is None or embedded[0].shape != (len(step), vectors.shape[1]) or len(embedded[1]) != len(step):
                raise IndexWriteError(
                    f"the embedding backend of tenant '{self.tenant}' returned incomplete vectors; "
                    "the previous index is unchanged"
                )
            vectors[[rows[i] for i in step]] = embedded[0]
            for i, matrix in zip(step, embedded[1], strict=True):
                units[rows[i]] = matrix
            self.progress.embedded(step_work)
