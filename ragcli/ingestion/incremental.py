"""What an ingest can keep from the generation it replaces.

A source whose fingerprint (bytes, sidecar, relative path, default ACL,
chunker version, model) is unchanged is neither re-parsed nor re-embedded:
its passages and vector rows are taken as they are. A passage whose text is
unchanged reuses its vector even when its document's metadata changed (an ACL
edit costs no embedding). Nothing is reused across a model or chunker change.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..index.manifest import DocumentEntry, PdfEntry
from ..index.previous import PreviousGeneration
from ..passage import Passage
from .loaders import Document

if TYPE_CHECKING:
    import numpy as np


def text_hash(p: Passage) -> str:
    """What vector reuse keys on: the text both rankers see."""
    return hashlib.sha256(p.index_text.encode("utf-8")).hexdigest()[:32]


@dataclass
class Loaded:
    """One document's passages, ready for the new generation."""

    key: str
    """Manifest key: the file path, or ``path::id`` for a JSONL line."""
    doc: Document | None
    """The freshly loaded document; None when reused unchanged from the previous generation."""
    passages: list[Passage]
    text_hashes: list[str]
    reused_rows: list[int | None]
    """Per passage, the previous generation's row whose vector it keeps (None: embed or match by text)."""
    fingerprint: str
    declared_version: str | None
    """The version its metadata declares (``version``, else ``effective_from``); None when only the text's hash."""
    pdf: PdfEntry | None = None
    """A PDF's pages: what documents.json keeps of them."""

    @classmethod
    def fresh(cls, key: str, doc: Document, passages: list[Passage]) -> Loaded:
        hashes = [text_hash(p) for p in passages]
        pdf = None
        if doc.pdf is not None:
            pages = doc.pdf
            pdf = PdfEntry(
                pages=pages.count, ocr=list(pages.ocr), unread=list(pages.unread), unread_because=pages.unread_because
            )
        return cls(key, doc, passages, hashes, [None] * len(passages), doc.fingerprint, doc.declared_version, pdf)

    @property
    def doc_id(self) -> str:
        return self.passages[0].doc_id

    @property
    def file(self) -> str:
        """The file it came from (a JSONL line's key is ``path::id``)."""
        return self.key.split("::", 1)[0]

    def entry(self) -> DocumentEntry:
        first = self.passages[0]
        return DocumentEntry(
            key=self.key,
            doc_id=first.doc_id,
            version=first.version,
            declared_version=self.declared_version,
            source=first.source,
            fingerprint=self.fingerprint,
            passage_ids=[p.id for p in self.passages],
            pdf=self.pdf,
        )


class Incremental:
    """The previous generation (if any and built the same way), asked what can be kept."""

    def __init__(self, previous: PreviousGeneration | None, *, model_sha256: str, chunker_version: int) -> None:
        self.previous = previous
        self.compatible = previous is not None and previous.built_with(model_sha256, chunker_version)
        self.documents: dict[str, DocumentEntry] = previous.documents if previous is not None else {}

    def fingerprint_of(self, key: str) -> str | None:
        """The recorded fingerprint of ``key``, if its passages could be reused as they are: not for a PDF with
        pages left unread for want of OCR once OCR is available (its scans can be read now)."""
        entry = self.documents.get(key) if self.compatible else None
        if entry is not None and entry.pdf is not None and entry.pdf.unread_because == "no_ocr":
            from .pdf_ocr import missing

            if missing() is None:
                return None
        return entry.fingerprint if entry is not None else None

    def reuse(self, key: str) -> Loaded | None:
        """An unchanged document's passages and vector rows, if all of them are there."""
        entry = self.documents.get(key)
        if not self.compatible or entry is None or self.previous is None:
            return None
        rows = [self.previous.row_of_id.get(pid) for pid in entry.passage_ids]
        if None in rows:
            return None
        return self._loaded(key, entry, [r for r in rows if r is not None], keep_rows=True)

    def keep(self, key: str) -> Loaded | None:
        """A document this run does not replace (another path, or a file that failed to load now)."""
        entry = self.documents.get(key)
        if entry is None or self.previous is None:
            return None
        rows = [r for r in (self.previous.row_of_id.get(pid) for pid in entry.passage_ids) if r is not None]
        return self._loaded(key, entry, rows, keep_rows=self.compatible)

    def _loaded(self, key: str, entry: DocumentEntry, rows: list[int], *, keep_rows: bool) -> Loaded:
        assert self.previous is not None
        passages = [self.previous.passage(r) for r in rows]
        reused: list[int | None] = list(rows) if keep_rows else [None] * len(rows)
        # An index written before versions carried the text's hash (format 2) recorded no declared version.
        declared = entry.declared_version if self.previous.current_format else entry.version
        hashes = [text_hash(p) for p in passages]
        return Loaded(key, None, passages, hashes, reused, entry.fingerprint, declared, entry.pdf)

    def reused_vectors(self, items: list[Loaded], dim: int) -> tuple[np.ndarray, list[np.ndarray], list[int]]:
        """The new generation's embedding matrix and unit vectors with every reusable vector copied in, and the
        rows left to embed (a row whose units have no vectors yet is embedded again: one model run gives both)."""
        import numpy as np

        hashes = [h for item in items for h in item.text_hashes]
        reused = [r for item in items for r in item.reused_rows]
        vectors = np.zeros((len(hashes), dim), dtype=np.float32)
        units: list[np.ndarray] = [np.zeros((0, dim), dtype=np.float32)] * len(hashes)
        todo: list[int] = []
        previous = self.previous if self.compatible else None
        for i, (row, h) in enumerate(zip(reused, hashes, strict=True)):
            source_row = row if row is not None else (previous.row_of_text.get(h) if previous is not None else None)
            kept = previous.units(source_row) if previous is not None and source_row is not None else None
            if previous is not None and source_row is not None and kept is not None:
                vectors[i] = previous.vector(source_row)
                units[i] = kept
            else:
                todo.append(i)
        return vectors, units, todo
