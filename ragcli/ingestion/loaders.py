"""Loading source files into Documents: text plus validated metadata.

Formats: Markdown (YAML front matter), plain text, HTML, PDF and JSONL corpora
(one document per line, BEIR's ``corpus.jsonl`` as it is). Metadata of a
non-Markdown file comes from a sidecar ``NAME.meta.yaml`` beside it.

A file that cannot be trusted is *rejected* with a reason, never half-loaded:
the ingest keeps that document's previously indexed version.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import DocumentRejected
from ..text import slugify
from .metadata import load_yaml_mapping, split_front_matter, validate_metadata
from .sources import (
    DEFAULT_MAX_FILE_BYTES,
    Format,
    SourceFile,
    content_hash,
    decode_text,
    file_fingerprint,
    fingerprint,
    read_bytes,
    read_sidecar,
)


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


def load_file(
    src: SourceFile, *, default_acl: tuple[str, ...], salt: str = "", max_bytes: int = DEFAULT_MAX_FILE_BYTES
) -> Document:
    """Load one non-JSONL file into a Document (raises DocumentRejected)."""
    fmt = src.format
    if fmt is None:
        raise DocumentRejected(str(src.path), "unsupported file type")
    raw = read_bytes(src.path, max_bytes)
    sidecar_raw = read_sidecar(src)
    meta: dict[str, Any] = {}
    if sidecar_raw:
        meta = load_yaml_mapping(decode_text(sidecar_raw, str(src.sidecar)), str(src.sidecar))
    source = str(src.path)
    text = _pdf_text(raw, source) if fmt == "pdf" else decode_text(raw, source)
    if fmt == "markdown":
        front, text = split_front_matter(text, source)
        meta = {**front, **meta}
    elif fmt == "html":
        from .html import html_to_markdown

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
            yield jsonl_document(line, source=source, relative=src.relative, default_acl=default_acl, salt=salt)
        except DocumentRejected as rejected:
            yield rejected


def jsonl_document(line: str, *, source: str, relative: str, default_acl: tuple[str, ...], salt: str = "") -> Document:
    """One JSONL line (``id`` or ``_id``, ``title``, ``text``, metadata keys) as a Document."""
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
