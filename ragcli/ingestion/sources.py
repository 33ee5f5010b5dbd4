"""Finding and reading source files: discovery, size limits, strict UTF-8, fingerprints.

Symlinks are never followed out of the ingested folder, pipes and devices are
never opened, and a file over the size limit is refused before it is read.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ..errors import DocumentRejected

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


@dataclass(frozen=True)
class SourceFile:
    """A file found under the ingested path."""

    path: Path
    """Absolute path."""
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
        return self.path.with_name(self.path.name.removesuffix(self.path.suffix) + SIDECAR_SUFFIX)


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


def discover(root: Path) -> tuple[list[SourceFile], list[DocumentRejected]]:
    """List ingestable files under ``root`` (a folder or one file), with the ones refused on sight."""
    found = discover_all(root)
    return found.files, found.rejected


def discover_all(root: Path) -> Discovery:
    """Every file under ``root`` (a folder or one file): ingestable, refused on sight, or skipped by type.

    A symlink that leaves ``root`` is rejected, so an ingest cannot be tricked
    into indexing /etc; hidden files and folders are skipped without a word.
    """
    root = root.resolve()
    if root.is_file():
        return Discovery(files=[SourceFile(root, root.name)])
    out = Discovery()
    found, rejected = out.files, out.rejected
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not is_hidden(d))
        for name in sorted(filenames):
            if is_hidden(name) or name.endswith(SIDECAR_SUFFIX):
                continue
            src = SourceFile(Path(dirpath) / name, (Path(dirpath) / name).relative_to(root).as_posix())
            if src.format is None and not src.is_jsonl:
                suffix = src.path.suffix.lower() or NO_SUFFIX
                out.skipped[suffix] = out.skipped.get(suffix, 0) + 1
                continue
            if src.path.is_symlink() and not src.path.resolve().is_relative_to(root):
                rejected.append(
                    DocumentRejected(str(src.path), "symlink points outside the ingested folder; not followed")
                )
                continue
            if not src.path.is_file():  # reading a named pipe would block forever, a device never end
                rejected.append(
                    DocumentRejected(
                        str(src.path), "not a regular file (a pipe, socket, device or broken link); not read"
                    )
                )
                continue
            found.append(src)
    return out


def read_bytes(path: Path, max_bytes: int) -> bytes:
    """Read a file with the size limit applied before reading it all."""
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise DocumentRejected(
                str(path), f"file is {size:,} bytes, over the {max_bytes:,}-byte limit (--max-file-size)"
            )
        return path.read_bytes()
    except OSError as exc:
        raise DocumentRejected(str(path), f"cannot read file: {exc.strerror or exc}") from None


def read_sidecar(src: SourceFile) -> bytes:
    """The sidecar's bytes, or b"" when there is none."""
    return read_bytes(src.sidecar, MAX_SIDECAR_BYTES) if src.sidecar.is_file() else b""


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
    return text.replace("\r\n", "\n").replace("\r", "\n")


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


def file_fingerprint(src: SourceFile, raw: bytes, sidecar_raw: bytes, default_acl: tuple[str, ...], salt: str) -> str:
    """Everything a file's passages depend on, including the relative path its default id comes from."""
    return fingerprint(raw, sidecar_raw, src.relative, ",".join(default_acl), salt)
