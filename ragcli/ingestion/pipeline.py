"""The ingest pipeline: files -> documents -> passages -> vectors -> a new generation.

``ingest PATH`` mirrors PATH, the one folder the tenant is ingested from:
documents that are gone are removed, and a document whose file is rejected
now is withdrawn (fail closed; ``keep_on_error`` keeps its old version).
Another folder is refused unless ``replace`` (see ``changes``). Files are
read through the folder's descriptor only (``folder``). Everything else is
committed in one atomic publish (see ``index.writer``). What can be kept from
the previous generation is decided in ``incremental``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..embedder import Embedder
from ..errors import DocumentRejected, IndexWriteError, LimitError, os_reason, out_of_descriptors
from ..index.manifest import ModelEntry
from ..index.previous import PreviousGeneration
from ..index.writer import NewGeneration, WriteLock, write_generation, write_lock
from ..principal import suspicious_character
from ..settings import ParseLimits, index_root, parse_limits
from .changes import acl_warnings, check_root, check_unique, settle_previous
from .chunking import CHUNKER_VERSION, chunk_document
from .crossrefs import resolving, salt_of
from .embedding import EmbeddingBackend as EmbeddingBackend  # where ``job`` and library users have it
from .embedding import LocalEmbedding, embed_into
from .folder import Folder, open_folder
from .incremental import Incremental, Loaded
from .loaders import Document
from .parsing import Parsed, ParseTask, Refused
from .progress import Progress
from .references import ReferenceTable
from .references import scan as scan_references
from .report import IngestReport, ParsingLimits, PdfReport, UnreadPdf
from .sources import DEFAULT_MAX_FILE_BYTES, SourceFile, file_fingerprint
from .workers import parser

PASSAGE_IDS = 3
"""How passage IDs are made (3: a version carries its text's hash); part of every fingerprint, so a change re-chunks."""

if TYPE_CHECKING:
    from .pdf import PdfPages


@dataclass(frozen=True)
class _Ready:
    """One file's outcome known in this process: rejected when read, reused, or parsed and cut."""

    src: SourceFile
    items: list[Loaded | DocumentRejected | Empty]


@dataclass(frozen=True)
class Empty:
    """A document with no text of its own once its site markup is read (see ``IngestReport.empty``)."""

    source: str


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
    keep_on_error: bool = False,
    replace: bool = False,
    shared_index: bool = False,
    quantize: bool = True,
    limits: ParseLimits | None = None,
) -> IngestReport:
    """Ingest ``path`` (a folder or one file) into ``tenant``'s index and publish it atomically.

    ``embedding`` computes the vectors of the passages that need new ones
    (default: ``embedder`` in this process); the model is ``embedder``'s either way.
    ``keep_on_error`` keeps the indexed version of a document whose file is rejected now (else it is
    withdrawn); ``replace`` lets another folder replace the one the tenant was ingested from;
    ``shared_index`` allows an index directory others may write (a team's shared folder);
    ``quantize`` also writes the vectors' int8 codes (``index.int8_scan``; False: the generation has none); ``limits``
    bound what parsing one file may cost (default: ``settings.parse_limits()``, the RAGCLI_PARSE_* variables).
    """
    started = time.perf_counter()
    run = _Run(
        tenant,
        tuple(default_acl),
        embedder or Embedder(),
        max_file_bytes,
        progress or Progress(),
        embedding or LocalEmbedding(),
        limits or parse_limits(),
    )
    run.report.index = str(index_root(index).absolute())
    try:
        with open_folder(path) as folder, write_lock(index_root(index), tenant, shared=shared_index) as lock:
            previous = PreviousGeneration.open(lock)
            try:
                run.quantize = quantize
                run.ingest(folder, lock, previous, keep_on_error=keep_on_error, replace=replace)
            finally:
                if previous is not None:
                    previous.close()
    except OSError as exc:
        # Out of descriptors anywhere (a folder, a file, a module imported late): one line, never a traceback.
        if not out_of_descriptors(exc):
            raise
        state = "the new index was published" if run.report.published else "the previous index is unchanged"
        raise LimitError(f"cannot ingest: {os_reason(exc)}; {state}") from None
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
        limits: ParseLimits,
    ) -> None:
        self.tenant = tenant
        self.limits = limits
        self.default_acl = default_acl
        self.embedder = embedder
        self.embedding = embedding
        self.max_file_bytes = max_file_bytes
        self.progress = progress
        self.report = IngestReport(tenant=tenant, limits=ParsingLimits.of(limits))
        self.quantize = True
        """Write the vectors' int8 codes too (the default; ``ingest --no-quantize`` writes none)."""
        self.model = ModelEntry(
            id=embedder.model_id, sha256=embedder.sha256, dim=embedder.dim, pooling=embedder.spec.pooling
        )
        # What a passage depends on beyond its file: a change re-chunks everything (vectors are reused by text).
        self.salt = f"chunker={CHUNKER_VERSION};model={self.model.sha256};ids={PASSAGE_IDS}"
        self.references = ReferenceTable()

    def ingest(
        self,
        folder: Folder,
        lock: WriteLock,
        previous: PreviousGeneration | None,
        *,
        keep_on_error: bool = False,
        replace: bool = False,
    ) -> None:
        root = folder.root
        self.report.root = str(root)
        diff = Incremental(previous, model_sha256=self.model.sha256, chunker_version=CHUNKER_VERSION)
        if previous is not None and not diff.compatible:
            self.report.rebuilt = _rebuilt(previous)
        loaded, failed_files = self._load_all(folder, diff)
        kept = settle_previous(diff, loaded, failed_files, self.report, keep_on_error=keep_on_error)
        items = [*kept, *loaded.values()]
        recorded = previous.root if previous is not None else None
        check_root(recorded, root, diff, items, self.tenant, replace=replace)
        check_unique(items, root)
        acl_warnings(items, self.report)
        self._confusable_warnings(items)
        self._count(items, loaded, diff)
        docs = self.report.documents
        unchanged = (
            not (docs.added or docs.updated or docs.deleted or docs.withdrawn)
            and len(items) == len(diff.documents)
            and recorded == str(root)
            and self.quantize == bool(previous is not None and previous.quantized)
        )
        if previous is not None and diff.compatible and previous.current_format and unchanged:
            self.report.passages = previous.size
            self.report.generation = previous.generation
            return
        if previous is None and not items:
            return  # nothing accepted and nothing before: an empty tenant would only answer "no results"
        self._publish(lock, diff, items, str(root))

    # -- loading ----------------------------------------------------------------

    def _load_all(self, folder: Folder, diff: Incremental) -> tuple[dict[str, Loaded], set[str]]:
        """Every source under the folder loaded (or reused), and the files (or folders) that failed to load.

        Files are read here (through the folder's descriptor) and parsed by ``workers`` (other processes, under
        limits); whatever goes wrong with one file is that file's rejection, and the rest are loaded.
        """
        found = folder.discover()
        files = found.files
        self.report.files = len(files) + len(found.rejected)
        self.report.skipped = found.skipped
        failed: set[str] = set()
        for r in found.rejected:
            self.report.reject(r.source, r.reason)
            failed.add(r.source)
        self.progress.files(len(files))
        self.references = scan_references(folder, files, self.max_file_bytes)  # before any file is parsed
        loaded: dict[str, Loaded] = {}
        pool = parser(self.limits)
        try:
            for done in pool.run(self._jobs(folder, files, diff)):
                ready = done if isinstance(done, _Ready) else self._parsed(*done, diff)
                src = ready.src
                for item in ready.items:
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
                self.progress.file_done()
        finally:
            pool.close()
        return loaded, failed

    def _jobs(self, folder: Folder, files: list[SourceFile], diff: Incremental) -> Iterator[_Ready | ParseTask]:
        """Per file: what is known without parsing it (unreadable, unchanged and reused), else a task to parse it."""
        for src in files:
            try:
                data = folder.read(src, self.max_file_bytes)
            except DocumentRejected as rejected:
                yield _Ready(src, [rejected])
                continue
            key = str(src.path)
            titles = self.references.titles_for(src.relative)  # a retitled target makes the file new
            salt = self.salt + salt_of(titles)
            recorded = None if src.is_jsonl else diff.fingerprint_of(key)
            if recorded is not None and file_fingerprint(src, data, self.default_acl, salt) == recorded:
                reused = diff.reuse(key)  # an unchanged file costs one read and one hash
                if reused is not None:
                    yield _Ready(src, [reused])
                    continue
            yield ParseTask(src, data, self.default_acl, salt, self.max_file_bytes, titles)

    def _parsed(self, task: ParseTask, parsed: Parsed, diff: Incremental) -> _Ready:
        """A parsed file's documents cut into passages (or its rejections)."""
        src = task.src
        items: list[Loaded | DocumentRejected | Empty] = []
        for item in parsed:
            if isinstance(item, Refused):
                items.append(item.error())
                continue
            key = f"{src.path}::{item.doc_id}" if src.is_jsonl else str(src.path)
            for what, count in item.left_out:
                self.report.left_out[what] = self.report.left_out.get(what, 0) + count
                self.report.warn(item.source, f"{count:,} {what} left out: what a reader does not see is not indexed")
            try:
                items.append(self._passages(key, item, diff))
            except DocumentRejected as rejected:
                items.append(rejected)
            except (RecursionError, MemoryError, ValueError, KeyError, IndexError) as exc:
                # The text came through its parser; a pathological text must still cost only its document.
                items.append(DocumentRejected(item.source, f"could not be cut into passages ({type(exc).__name__})"))
        return _Ready(src, items)

    def _passages(self, key: str, doc: Document, diff: Incremental) -> Loaded | Empty:
        if diff.fingerprint_of(key) == doc.fingerprint:
            reused = diff.reuse(key)
            if reused is not None:
                return reused
        with resolving(self.references.titles_for(doc.path)):  # MyST roles are rendered as the text is cut
            passages = chunk_document(
                doc, self.tenant, self.embedder.count_tokens, counts_add_up=self.embedder.counts_add_up
            )
        if doc.pdf is not None and (doc.pdf.ocr or doc.pdf.unread):
            _note_scans(self.report, doc.source, doc.pdf)
        if not passages:
            # The loader found text, the chunker none: it was all includes, comments or shortcodes.
            return Empty(doc.source)
        return Loaded.fresh(key, doc, passages)

    # -- deciding ---------------------------------------------------------------

    def _confusable_warnings(self, items: list[Loaded]) -> None:
        """Warn about an ACL entry holding an invisible or look-alike character: it grants nobody it seems to."""
        warned: set[str] = set()
        for item in items:
            for entry in item.passages[0].acl if item.passages else ():
                found = suspicious_character(entry.removeprefix("user:"))
                if found is not None and entry not in warned:
                    warned.add(entry)
                    self.report.warn(
                        item.file,
                        f"ACL entry {entry!r} holds {found}: it matches only a group spelled with that same "
                        "character, not the name it looks like",
                    )

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

    def _publish(self, lock: WriteLock, diff: Incremental, items: list[Loaded], root: str) -> None:
        passages = [p for item in items for p in item.passages]
        vectors, units, todo = diff.reused_vectors(items, self.model.dim)
        embed_into(
            self.embedder, self.embedding, self.progress, self.tenant, vectors, units, todo, [passages[i] for i in todo]
        )
        self.report.embedded = len(todo)
        gen = NewGeneration(
            passages=passages,
            text_hashes=[h for item in items for h in item.text_hashes],
            embeddings=vectors,
            documents=[item.entry() for item in items],
            chunker_version=CHUNKER_VERSION,
            model=self.model,
            units=units,
            root=root,
            quantize=self.quantize,
        )
        try:
            self.report.generation = write_generation(lock, gen)
        except OSError as exc:
            raise IndexWriteError(
                f"cannot write the new index of tenant '{self.tenant}' in {lock.directory}: {os_reason(exc)}; "
                "the previous index is unchanged"
            ) from None
        self.report.published = True
        self.report.passages = len(passages)


def _note_scans(report: IngestReport, source: str, pages: PdfPages) -> None:
    """Add what a PDF's pages without text cost (OCR) or left unread to the report."""
    from .pdf_ocr import OcrLimits

    if report.pdf is None:
        limits = OcrLimits()
        report.pdf = PdfReport(
            ocr_available=pages.ocr_missing is None,
            ocr_missing=pages.ocr_missing,
            page_limit=limits.pages,
            seconds_limit=limits.seconds,
        )
    report.pdf.ocr_pages += len(pages.ocr)
    report.pdf.ocr_seconds = round(report.pdf.ocr_seconds + pages.ocr_seconds, 3)
    if pages.unread and pages.unread_because is not None:
        report.pdf.unread.append(UnreadPdf(path=source, pages=list(pages.unread), reason=pages.unread_because))


def _rebuilt(previous: PreviousGeneration) -> str:
    """Why nothing of the published index is kept as it is: its chunker or its model is not this ingest's."""
    built = previous.manifest
    if built.chunker_version != CHUNKER_VERSION:
        return (
            f"the index was cut by chunker v{built.chunker_version}, this ragcli cuts with v{CHUNKER_VERSION}: "
            "every document is read, cut and embedded again"
        )
    return (
        f"the index was built with another embedding model (sha256 {built.model.sha256[:8]}): "
        "every passage is embedded again"
    )
