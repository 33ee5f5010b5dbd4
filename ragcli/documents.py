"""Loading source files into Documents: text plus validated metadata.

Formats: Markdown (YAML front matter), plain text, HTML, PDF and JSONL corpora
(one document per line, BEIR's ``corpus.jsonl`` as it is). Metadata of a
non-Markdown file comes from a sidecar ``NAME.meta.yaml`` beside it.

A file that cannot be trusted is *rejected* with a reason, never half-loaded:
the ingest keeps that document's previously indexed version.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator, model_validator

from .errors import InputError

Format = Literal["markdown", "text", "html", "pdf"]

SUFFIX_FORMATS: dict[str, Format] = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".txt": "text",
    ".text": "text",
    ".html": "html",
    ".htm": "html",
    ".pdf": "pdf",
}
JSONL_SUFFIX = ".jsonl"
SIDECAR_SUFFIX = ".meta.yaml"
DEFAULT_MAX_FILE_BYTES = 64 * 1024 * 1024

_ID_FORBIDDEN = re.compile(r"[@#\s]")


class DocumentRejected(InputError):
    """One source (file or JSONL line) that cannot be ingested, with the reason."""

    def __init__(self, source: str, reason: str) -> None:
        self.source = source
        self.reason = " ".join(reason.split())
        super().__init__(f"{source}: {self.reason}")


@dataclass(frozen=True)
class Document:
    """One source document, ready to be cut into passages."""

    doc_id: str
    """Stable identifier; the first part of every passage ID."""
    title: str
    version: str
    """Explicit ``version``, else ``effective_from``, else a short content hash."""
    acl: tuple[str, ...]
    """Groups (or ``user:NAME`` entries) allowed to see the document; never empty."""
    effective_from: dt.date | None
    superseded_on: dt.date | None
    source: str
    """The file it came from (``path:line`` for a JSONL line)."""
    source_url: str | None
    text: str
    """Body text; Markdown for Markdown and HTML sources."""
    format: Format
    fingerprint: str
    """Hash of everything the passages depend on; unchanged means nothing to redo."""


class Metadata(BaseModel):
    """Metadata as found in front matter, a sidecar or a JSONL line (validated here)."""

    model_config = ConfigDict(extra="ignore")

    id: str | None = None
    title: str | None = None
    version: str | None = None
    acl: list[str] | None = None
    effective_from: dt.date | None = None
    superseded_on: dt.date | None = None
    source_url: str | None = None

    @field_validator("id", "version", mode="before")
    @classmethod
    def _scalar_to_str(cls, value: Any) -> Any:
        # YAML reads `version: 2026-09-01` as a date and JSON ids are often numbers.
        if isinstance(value, (int, dt.date)) and not isinstance(value, bool):
            return value.isoformat() if isinstance(value, dt.date) else str(value)
        if isinstance(value, float):
            # 4.10 would silently become "4.1": only the author knows the intended text.
            raise ValueError(f"{value!r} was read as a number; write it in quotes (for example \"4.10\")")
        return value

    @field_validator("title", mode="before")
    @classmethod
    def _title_to_str(cls, value: Any) -> Any:
        if isinstance(value, (int, float, dt.date)) and not isinstance(value, bool):
            return str(value)
        return value

    @field_validator("id", "version")
    @classmethod
    def _no_separators(cls, value: str | None) -> str | None:
        if value is not None and (not value or _ID_FORBIDDEN.search(value) or len(value) > 200):
            raise ValueError("must be 1-200 characters without spaces, '@' or '#'")
        return value

    @field_validator("acl", mode="before")
    @classmethod
    def _acl_is_list(cls, value: Any) -> Any:
        if value is not None and not isinstance(value, list):
            raise ValueError("must be a list of group names (or user:NAME entries), not a single value")
        return value

    @field_validator("acl")
    @classmethod
    def _acl_entries(cls, value: list[str] | None) -> list[str] | None:
        if value is not None:
            for entry in value:
                if not entry.strip() or len(entry) > 256:
                    raise ValueError("entries must be non-empty names")
        return value

    @field_validator("effective_from", "superseded_on", mode="before")
    @classmethod
    def _strict_date(cls, value: Any) -> Any:
        if isinstance(value, dt.datetime):
            return value.date()
        if isinstance(value, str):
            try:
                return dt.date.fromisoformat(value)
            except ValueError:
                raise ValueError(f"{value!r} is not an ISO date (YYYY-MM-DD)") from None
        if value is not None and not isinstance(value, dt.date):
            raise ValueError("must be an ISO date (YYYY-MM-DD)")
        return value

    @model_validator(mode="after")
    def _dates_in_order(self) -> Metadata:
        if self.effective_from and self.superseded_on and self.superseded_on <= self.effective_from:
            raise ValueError("superseded_on must be after effective_from")
        return self


def slugify(text: str, *, fallback: str = "section") -> str:
    """Lowercase ASCII slug: runs of anything but a-z and 0-9 become one '-'."""
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug[:80].strip("-") or fallback


# --------------------------------------------------------------------------- discovery


@dataclass(frozen=True)
class SourceFile:
    """A file found under the ingested path."""

    path: Path
    """Absolute path."""
    relative: str
    """Path relative to the ingested folder, with '/' separators."""


def discover(root: Path) -> tuple[list[SourceFile], list[DocumentRejected]]:
    """List ingestable files under ``root`` (a folder or one file).

    Symlinks are never followed out of ``root``: a link that leaves it is
    rejected, so an ingest cannot be tricked into indexing /etc.
    """
    root = root.resolve()
    if root.is_file():
        return [SourceFile(root, root.name)], []
    found: list[SourceFile] = []
    rejected: list[DocumentRejected] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if name.startswith(".") or name.endswith(SIDECAR_SUFFIX):
                continue
            path = Path(dirpath) / name
            if _format_of(path) is None and path.suffix.lower() != JSONL_SUFFIX:
                continue
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                target = path.resolve()
                if not target.is_relative_to(root):
                    rejected.append(DocumentRejected(str(path), "symlink points outside the ingested folder; not followed"))
                    continue
            if not path.is_file():  # reading a named pipe would block forever, a device never end
                rejected.append(DocumentRejected(str(path), "not a regular file (a pipe, socket, device or broken link); not read"))
                continue
            found.append(SourceFile(path, rel))
    return found, rejected


def _format_of(path: Path) -> Format | None:
    return SUFFIX_FORMATS.get(path.suffix.lower())


# --------------------------------------------------------------------------- reading


def read_bytes(path: Path, max_bytes: int) -> bytes:
    """Read a file with the size limit applied before reading it all."""
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise DocumentRejected(str(path), f"file is {size:,} bytes, over the {max_bytes:,}-byte limit (--max-file-size)")
        return path.read_bytes()
    except OSError as exc:
        raise DocumentRejected(str(path), f"cannot read file: {exc.strerror or exc}") from None


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


_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?\n)?---[ \t]*(?:\n|\Z)", re.DOTALL)


def split_front_matter(text: str, source: str) -> tuple[dict[str, Any], str]:
    """Split YAML front matter from a Markdown body."""
    match = _FRONT_MATTER.match(text)
    if not match:
        return {}, text
    return load_yaml_mapping(match.group(1) or "", source), text[match.end() :]


def load_yaml_mapping(text: str, source: str) -> dict[str, Any]:
    import yaml  # only when there is YAML to read

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise DocumentRejected(source, f"broken YAML metadata{where}") from None
    except (ValueError, OverflowError, RecursionError) as exc:
        # PyYAML reads an unquoted 2026-02-30 as a timestamp and then fails to build
        # the date with a plain ValueError; deep nesting overflows its recursion.
        raise DocumentRejected(source, f"broken YAML metadata: {exc}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise DocumentRejected(source, "YAML metadata must be a mapping of keys to values")
    return data


def validate_metadata(data: dict[str, Any], source: str) -> Metadata:
    try:
        meta = Metadata.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "metadata"
        msg = first["msg"].removeprefix("Value error, ")
        raise DocumentRejected(source, f"metadata field '{field}': {msg}") from None
    # A YAML or JSON "\ud800" escape decodes to a lone surrogate that no later step can encode.
    for value in (meta.id, meta.title, meta.version, meta.source_url, *(meta.acl or ())):
        if value is not None and any("\ud800" <= c <= "\udfff" for c in value):
            raise DocumentRejected(source, "metadata holds an unpaired surrogate escape (\\ud800-\\udfff), not text")
    return meta


def content_hash(raw: bytes) -> str:
    """Short hash of a document's own bytes: the default version, independent of how it is ingested."""
    return hashlib.sha256(raw).hexdigest()[:10]


def file_fingerprint(src: SourceFile, raw: bytes, sidecar_raw: bytes, default_acl: tuple[str, ...], salt: str) -> str:
    """Everything a file's passages depend on, including the relative path its default id comes from."""
    return fingerprint(raw, sidecar_raw, src.relative, ",".join(default_acl), salt)


def fingerprint(*parts: bytes | str) -> str:
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8") if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()


# --------------------------------------------------------------------------- loaders


def load_file(
    src: SourceFile, *, default_acl: tuple[str, ...], salt: str = "", max_bytes: int = DEFAULT_MAX_FILE_BYTES
) -> Document:
    """Load one non-JSONL file into a Document (raises DocumentRejected)."""
    fmt = _format_of(src.path)
    if fmt is None:
        raise DocumentRejected(str(src.path), "unsupported file type")
    raw = read_bytes(src.path, max_bytes)
    sidecar_path = src.path.with_name(src.path.name.removesuffix(src.path.suffix) + SIDECAR_SUFFIX)
    sidecar_raw = b""
    meta: dict[str, Any] = {}
    if sidecar_path.is_file():
        sidecar_raw = read_bytes(sidecar_path, 1024 * 1024)
        meta = load_yaml_mapping(decode_text(sidecar_raw, str(sidecar_path)), str(sidecar_path))
    source = str(src.path)
    if fmt == "pdf":
        text = _pdf_text(raw, source)
    else:
        text = decode_text(raw, source)
    if fmt == "markdown":
        front, text = split_front_matter(text, source)
        meta = {**front, **meta}
    elif fmt == "html":
        from .html_text import html_to_markdown

        html_title, text = html_to_markdown(text)
        if html_title and "title" not in meta:
            meta["title"] = html_title
    if not text.strip():
        raise DocumentRejected(source, "no text to index")
    fp = file_fingerprint(src, raw, sidecar_raw, default_acl, salt)
    return _build(meta, text, fmt, source, src.relative, default_acl, fp, content_hash(text.encode("utf-8")))


def load_jsonl(
    src: SourceFile, *, default_acl: tuple[str, ...], salt: str = "", max_bytes: int = DEFAULT_MAX_FILE_BYTES
) -> Iterator[Document | DocumentRejected]:
    """Yield a Document (or a rejection) per line of a JSONL corpus."""
    raw = read_bytes(src.path, max_bytes)
    text = decode_text(raw, str(src.path))
    for lineno, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        source = f"{src.path}:{lineno}"
        try:
            yield _jsonl_document(line, source, src.relative, default_acl, salt)
        except DocumentRejected as rejected:
            yield rejected


def _jsonl_document(line: str, source: str, relative: str, default_acl: tuple[str, ...], salt: str) -> Document:
    try:
        record = json.loads(line)
        # "\ud800" escapes decode to lone surrogates, which no later step can encode.
        json.dumps(record, ensure_ascii=False).encode("utf-8")
    except json.JSONDecodeError as exc:
        raise DocumentRejected(source, f"not valid JSON: {exc.msg}") from None
    except RecursionError:
        raise DocumentRejected(source, "not valid JSON: nested too deeply") from None
    except UnicodeEncodeError:
        raise DocumentRejected(source, "not valid Unicode: an unpaired surrogate escape (\\ud800-\\udfff)") from None
    if not isinstance(record, dict):
        raise DocumentRejected(source, "each line must be a JSON object")
    if "id" not in record and "_id" in record:
        record["id"] = record["_id"]
    if record.get("id") is None:
        raise DocumentRejected(source, "missing 'id' (or '_id')")
    body = record.get("text")
    if not isinstance(body, str) or not body.strip():
        raise DocumentRejected(source, "missing or empty 'text'")
    fp = fingerprint(line, ",".join(default_acl), salt)
    return _build(record, body, "text", source, relative, default_acl, fp, content_hash(body.encode("utf-8")))


def _build(
    meta_raw: dict[str, Any],
    text: str,
    fmt: Format,
    source: str,
    relative: str,
    default_acl: tuple[str, ...],
    fp: str,
    body_hash: str,
) -> Document:
    meta = validate_metadata(meta_raw, source)
    acl = tuple(dict.fromkeys(meta.acl if meta.acl is not None else default_acl))
    if not acl:
        raise DocumentRejected(source, "no ACL: give 'acl' in its metadata or ingest with --acl GROUP")
    doc_id = meta.id or slugify(Path(relative).with_suffix("").as_posix(), fallback="document")
    title = (meta.title or "").strip() or _first_heading(text, fmt) or Path(relative).stem
    version = meta.version or (meta.effective_from.isoformat() if meta.effective_from else body_hash)
    return Document(
        doc_id=doc_id,
        title=" ".join(title.split())[:300],
        version=version,
        acl=acl,
        effective_from=meta.effective_from,
        superseded_on=meta.superseded_on,
        source=source,
        source_url=meta.source_url,
        text=text,
        format=fmt,
        fingerprint=fp,
    )


def _first_heading(text: str, fmt: Format) -> str | None:
    if fmt in ("markdown", "html"):
        # Parsed, not matched line by line: a "# comment" in a code block is no heading.
        from markdown_it import MarkdownIt

        tokens = MarkdownIt("commonmark").parse(text)
        for i, tok in enumerate(tokens[:-1]):
            if tok.type == "heading_open" and tok.level == 0:
                heading = " ".join(tokens[i + 1].content.split())
                if heading:
                    return heading
    return None


def _pdf_text(raw: bytes, source: str) -> str:
    """Extract a PDF's text page by page; a PDF that fails to parse is rejected."""
    import io
    import logging

    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    # pypdf logs its repairs ("invalid pdf header", "EOF marker not found") straight to
    # stderr; a PDF it cannot read is reported once, as a rejection, and nothing else.
    logging.getLogger("pypdf").setLevel(logging.CRITICAL)

    try:
        reader = PdfReader(io.BytesIO(raw))
        pages = [page.extract_text() or "" for page in reader.pages]
    except (PyPdfError, ValueError, KeyError, TypeError, OSError, RecursionError, AttributeError) as exc:
        raise DocumentRejected(source, f"PDF could not be parsed ({type(exc).__name__})") from None
    # Form feeds keep page boundaries for the chunker without inventing headings.
    return "\n\n\f\n\n".join(p.strip() for p in pages if p.strip())
