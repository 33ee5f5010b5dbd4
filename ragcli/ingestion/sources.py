"""Source files: what ragcli reads (formats by suffix, sidecars), strict UTF-8, fingerprints.

How a file is found and read (inside the ingested folder only, by descriptor)
is ``folder``; this module holds what a file *is* once found, and the bytes
loaders get (``SourceData``).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ..errors import DocumentRejected
from ..text import unix_newlines

Format = Literal["markdown", "text", "html", "pdf", "docx", "rst", "notebook", "csv", "tsv"]

SUFFIX_FORMATS: dict[str, Format] = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".txt": "text",
    ".text": "text",
    ".html": "html",
    ".htm": "html",
    ".pdf": "pdf",
    ".docx": "docx",
    ".rst": "rst",
    ".ipynb": "notebook",
    ".csv": "csv",
    ".tsv": "tsv",
}
JSONL_SUFFIX = ".jsonl"
SIDECAR_SUFFIX = ".meta.yaml"
DEFAULT_MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_SIDECAR_BYTES = 1024 * 1024

# Bounds on the work one document may ask for, not only on its bytes: a 220 KB Word file unpacks to 1.7 million
# one-letter paragraphs, a 4 MB CSV holds 2 million rows. Each is counted before the document is built.
MAX_PARAGRAPHS = 100_000
"""Paragraphs (a Word document's, including those in table cells) per document."""
MAX_ROWS = 100_000
"""Table rows (CSV/TSV rows, Word table rows) per document."""
MAX_CELLS = 1_000_000
"""Table cells per document."""
MAX_LIST_ITEMS = 50_000
"""List items (numbered or bulleted paragraphs) per document."""


def over_bound(source: str, counts: dict[str, tuple[int, int]]) -> None:
    """Reject ``source`` when a count is over its bound: ``{"paragraphs": (count, bound)}`` (DocumentRejected)."""
    for what, (count, bound) in counts.items():
        if count > bound:
            raise DocumentRejected(
                source, f"holds {count:,} {what}, over the limit of {bound:,} {what} per document; split it"
            )


@dataclass(frozen=True)
class SourceFile:
    """A file found under the ingested path."""

    path: Path
    """Absolute path (the ingested folder's resolved path joined with ``relative``)."""
    relative: str
    """Path relative to the ingested folder, with '/' separators."""

    @property
    def format(self) -> Format | None:
        """The document format its suffix names; None for JSONL corpora."""
        return SUFFIX_FORMATS.get(self.path.suffix.lower())

    @property
    def is_jsonl(self) -> bool:
        return self.path.suffix.lower() == JSONL_SUFFIX

    @property
    def sidecar(self) -> Path:
        """``NAME.meta.yaml`` beside ``NAME.ext``: metadata for formats without front matter."""
        return self.path.with_name(sidecar_name(self.path.name))

    @property
    def sidecar_relative(self) -> str:
        head, _, name = self.relative.rpartition("/")
        return f"{head}/{sidecar_name(name)}" if head else sidecar_name(name)


def sidecar_name(name: str) -> str:
    suffix = Path(name).suffix
    return (name.removesuffix(suffix) if suffix else name) + SIDECAR_SUFFIX


@dataclass(frozen=True)
class SourceData:
    """A source file's bytes (and its sidecar's), read once through the folder's descriptor; what loaders parse."""

    raw: bytes
    sidecar_raw: bytes = b""
    """The sidecar's bytes, or b"" when there is none."""


@dataclass
class Discovery:
    """What a walk of the ingested path found."""

    files: list[SourceFile] = field(default_factory=list)
    rejected: list[DocumentRejected] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)
    """Files of types ragcli does not read, counted by suffix (``.xlsx``), so a user hears of them once."""


NO_SUFFIX = "(no suffix)"


def is_hidden(name: str) -> bool:
    """A file or folder name ``discover`` never enters (``.git``, ``.ragcli``, an editor's ``.swp``)."""
    return name.startswith(".")


def decode_text(raw: bytes, source: str) -> str:
    """Decode UTF-8 strictly; binary data or other encodings are rejected, not guessed."""
    if b"\x00" in raw:
        raise DocumentRejected(source, "binary file (contains NUL bytes), not text")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DocumentRejected(source, f"not valid UTF-8 (byte {exc.start})") from None
    if not text.strip():
        raise DocumentRejected(source, "empty file")
    return unix_newlines(text)


def content_hash(raw: bytes) -> str:
    """Short hash of a document's own bytes: the default version, independent of how it is ingested."""
    return hashlib.sha256(raw).hexdigest()[:10]


def fingerprint(*parts: bytes | str) -> str:
    """sha256 over length-prefixed parts, so no two different part lists collide."""
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8") if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()


def file_fingerprint(src: SourceFile, data: SourceData, default_acl: tuple[str, ...], salt: str) -> str:
    """Everything a file's passages depend on, including the relative path its default id comes from."""
    return fingerprint(data.raw, data.sidecar_raw, src.relative, ",".join(default_acl), salt)
