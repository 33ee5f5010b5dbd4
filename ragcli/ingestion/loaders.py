"""Loading source files into Documents: text plus validated metadata.

Formats: Markdown (YAML front matter), plain text, HTML, PDF, Word (``.docx``),
reStructuredText, Jupyter notebooks, CSV/TSV and JSONL corpora (one document
per line, BEIR's ``corpus.jsonl`` as it is). Every structured format becomes
Markdown (its own module: ``html``, ``docx``, ``rst``, ``notebook``, ``csv``,
``pdf``), so one chunker cuts them all the same way. Metadata comes from the
file where the format has a place for it (front matter, Word properties, a
reStructuredText field list) and from a sidecar ``NAME.meta.yaml`` beside any
file, which wins.

Loaders get the bytes ``folder`` read (``SourceData``: the file and its
sidecar, read once through the ingested folder's descriptor), never a path
to open. A file that cannot be trusted is *rejected* with a reason, never
half-loaded; the ingest then withdraws the document it held (fail closed).
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ..errors import DocumentRejected, DuplicateKey, strict_json
from ..text import slugify
from .crossrefs import INDEX_NAMES, active_salt, readable_name
from .metadata import load_yaml_mapping, reserved_keys, split_front_matter, validate_metadata
from .sources import (
    DEFAULT_MAX_FILE_BYTES,
    Format,
    SourceData,
    SourceFile,
    content_hash,
    decode_text,
    file_fingerprint,
    fingerprint,
)

if TYPE_CHECKING:
    from .pdf import PdfPages

MAX_LINE_CHARS = 100_000
"""A line longer than this rejects its document: work per file stays linear (an 8 MiB line took 17 s and 800 MB)."""
VERSION_HASH_CHARS = 6
"""Hex digits of the text's hash appended to a declared version (``travel@2026-01-01.3f9a1c#meals``)."""

Body = Literal["markdown", "plain"]
"""How the chunker reads a Document's text: Markdown sections or blank-line paragraphs."""

FORMAT_BODIES: dict[Format, Body] = {
    "markdown": "markdown",
    "html": "markdown",
    "docx": "markdown",
    "rst": "markdown",
    "notebook": "markdown",
    "csv": "markdown",
    "tsv": "markdown",
    "text": "plain",
    "pdf": "markdown",
}
TITLE_FROM_FIRST_HEADING: frozenset[Format] = frozenset({"markdown", "html", "rst", "notebook"})
"""Formats whose first heading names the document; a Word file has its Title, a PDF and a CSV their file name."""


@dataclass(frozen=True)
class Document:
    """One source document, ready to be cut into passages."""

    doc_id: str
    """Stable identifier; the first part of every passage ID."""
    title: str
    version: str
    """The declared version (explicit ``version``, else ``effective_from``) and a short hash of the text
    (``2026-01-01.3f9a1c``), else the hash alone: a new text is a new version, so a passage ID names one text."""
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
    body: Body | None = None
    """How the chunker reads ``text``; None: the format's usual way (``FORMAT_BODIES``). An outlined PDF is Markdown."""
    path: str = ""
    """The file relative to the ingested folder (``corpus.jsonl:12`` for a JSONL line): what people and models
    are shown, never an absolute local path."""
    declared_version: str | None = None
    """The version its metadata declares (``version``, else ``effective_from``); None when only the text's hash.
    One file per document ID and declared version (``ingestion.changes``)."""
    pdf: PdfPages | None = None
    """A PDF's pages: how many, which were read by OCR, which had no text OCR could read (``ingestion.pdf``)."""
    left_out: tuple[tuple[str, int], ...] = ()
    """What the converter left out on purpose, by kind and count (``(("runs of hidden text (w:vanish)", 3),)``):
    said in the ingest report."""

    @property
    def reads_as(self) -> Body:
        return self.body or FORMAT_BODIES[self.format]


def load_file(
    src: SourceFile,
    data: SourceData,
    *,
    default_acl: tuple[str, ...],
    salt: str = "",
    max_bytes: int = DEFAULT_MAX_FILE_BYTES,
) -> Document:
    """Load one non-JSONL file, from the bytes ``folder`` read, into a Document (raises DocumentRejected)."""
    fmt = src.format
    if fmt is None:
        raise DocumentRejected(str(src.path), "unsupported file type")
    raw, sidecar_raw = data.raw, data.sidecar_raw
    meta: dict[str, Any] = {}
    if sidecar_raw:
        meta = load_yaml_mapping(decode_text(sidecar_raw, str(src.sidecar)), str(src.sidecar))
    source = str(src.path)
    pdf = None
    own_meta: dict[str, Any] = {}
    body: Body | None = None  # a PDF reads as its format's Body (Markdown)
    left_out: dict[str, int] = {}
    if fmt == "pdf":
        from .pdf import read_pdf

        read = read_pdf(raw, source)
        text, pdf = read.text, read.pages
    else:
        own_meta, text, body, left_out = _convert(fmt, raw, source, max_bytes)
    meta = {**own_meta, **meta}
    if not text.strip() and not _site_markup_only(fmt, raw):
        raise DocumentRejected(source, "no text to index")
    if fmt not in ("markdown", "text"):  # those were checked line by line as the file has them
        check_line_lengths(text, source, what="a line of its text")
    fp = file_fingerprint(src, data, default_acl, salt)
    body_hash = content_hash((text + active_salt()).encode("utf-8"))  # what its references show is its text too
    doc = _build(meta, text, fmt, source, src.relative, default_acl, fp, body_hash, body)
    if pdf is not None:
        doc = replace(doc, pdf=pdf)
    return replace(doc, left_out=tuple(left_out.items())) if left_out else doc


def _site_markup_only(fmt: Format, raw: bytes) -> bool:
    """A page whose file holds something but whose text is empty once read: front matter alone (a Hugo section's
    ``_index.md``, whose list the theme builds), or reStructuredText of directives alone (``.. include::`` of a file
    outside the folder, ``:orphan:``). It has no text of its own: skipped with a note, as a page of includes is,
    not rejected; a scan or an empty file still is."""
    return fmt in ("markdown", "rst") and bool(raw.strip())


def _convert(fmt: Format, raw: bytes, source: str, max_bytes: int) -> tuple[dict[str, Any], str, Body, dict[str, int]]:
    """The file's own metadata, its text (Markdown for every structured format), how to read that text, and
    what the converter left out (by kind, counted)."""
    if fmt == "docx":
        from .docx import docx_to_markdown

        meta, text, left_out = docx_to_markdown(raw, source, max_bytes)
        return meta, text, "markdown", left_out
    meta, text, body = _convert_text(fmt, raw, source)
    return meta, text, body, {}


def _convert_text(fmt: Format, raw: bytes, source: str) -> tuple[dict[str, Any], str, Body]:
    text = decode_text(raw, source)
    if fmt in ("markdown", "text"):
        check_line_lengths(text, source)  # the file's own lines (other formats are checked once converted)
    if fmt == "markdown":
        front, text = split_front_matter(text, source)
        return front, text, "markdown"
    if fmt == "html":
        from .html import html_to_markdown

        title, text = html_to_markdown(text)
        return ({"title": title} if title else {}), text, "markdown"
    if fmt == "rst":
        from .rst import rst_to_markdown

        meta, text = rst_to_markdown(text, source)
        return meta, text, "markdown"
    if fmt == "notebook":
        from .notebook import notebook_to_markdown

        return {}, notebook_to_markdown(text, source), "markdown"
    if fmt in ("csv", "tsv"):
        from .csv import csv_to_markdown

        return {}, csv_to_markdown(text, source, delimiter="\t" if fmt == "tsv" else None), "markdown"
    return {}, text, "plain"


def load_jsonl(
    src: SourceFile, data: SourceData, *, default_acl: tuple[str, ...], salt: str = ""
) -> Iterator[Document | DocumentRejected]:
    """Yield a Document (or a rejection) per line of a JSONL corpus, from the bytes ``folder`` read."""
    text = decode_text(data.raw, str(src.path))
    for lineno, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        source = f"{src.path}:{lineno}"
        try:
            yield jsonl_document(
                line, source=source, relative=src.relative, default_acl=default_acl, salt=salt, lineno=lineno
            )
        except DocumentRejected as rejected:
            yield rejected


def check_line_lengths(text: str, source: str, *, what: str = "") -> None:
    """Reject a document holding a line over MAX_LINE_CHARS (a generated dump, a file without line breaks)."""
    start = 0
    lineno = 1
    while start <= len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        if end - start > MAX_LINE_CHARS:
            where = what or f"line {lineno}"
            raise DocumentRejected(
                source,
                f"{where} is {end - start:,} characters long, over the {MAX_LINE_CHARS:,}-character limit "
                "per line; break it into lines or paragraphs",
            )
        start, lineno = end + 1, lineno + 1


def jsonl_document(
    line: str, *, source: str, relative: str, default_acl: tuple[str, ...], salt: str = "", lineno: int | None = None
) -> Document:
    """One JSONL line (``id`` or ``_id``, ``title``, ``text``, metadata keys) as a Document."""
    try:
        record = strict_json(line)
        # "\ud800" escapes decode to lone surrogates, which no later step can encode.
        json.dumps(record, ensure_ascii=False).encode("utf-8")
    except json.JSONDecodeError as exc:
        raise DocumentRejected(source, f"not valid JSON: {exc.msg}") from None
    except DuplicateKey as exc:
        raise DocumentRejected(source, f"{exc}; remove one (the last copy would silently win)") from None
    except RecursionError:
        raise DocumentRejected(source, "not valid JSON: nested too deeply") from None
    except UnicodeEncodeError:
        raise DocumentRejected(source, "not valid Unicode: an unpaired surrogate escape (\\ud800-\\udfff)") from None
    if not isinstance(record, dict):
        raise DocumentRejected(source, "each line must be a JSON object")
    record = reserved_keys(record, source)  # "ID", "Title" read as in every other format
    if "id" not in record and "_id" in record:
        record["id"] = record["_id"]
    if record.get("id") is None:
        raise DocumentRejected(source, "missing 'id' (or '_id')")
    body = record.get("text")
    if not isinstance(body, str) or not body.strip():
        raise DocumentRejected(source, "missing or empty 'text'")
    check_line_lengths(body, source)
    fp = fingerprint(line, ",".join(default_acl), salt)
    doc = _build(record, body, "text", source, relative, default_acl, fp, content_hash(body.encode("utf-8")))
    return replace(doc, path=f"{relative}:{lineno}" if lineno is not None else relative)


def _build(
    meta_raw: dict[str, Any],
    text: str,
    fmt: Format,
    source: str,
    relative: str,
    default_acl: tuple[str, ...],
    fp: str,
    body_hash: str,
    body: Body | None = None,
) -> Document:
    meta = validate_metadata(meta_raw, source)
    acl = tuple(dict.fromkeys(meta.acl if meta.acl is not None else default_acl))
    if not acl:
        raise DocumentRejected(source, "no ACL: give 'acl' in its metadata or ingest with --acl GROUP")
    doc_id = meta.id or slugify(Path(relative).with_suffix("").as_posix(), fallback="document")
    title = (meta.title or "").strip() or _first_heading(text, fmt) or _untitled(relative, fmt)
    declared = meta.version or (meta.effective_from.isoformat() if meta.effective_from else None)
    version = f"{declared}.{body_hash[:VERSION_HASH_CHARS]}" if declared else body_hash
    return Document(
        doc_id=doc_id,
        title=" ".join(title.split())[:300],
        version=version,
        declared_version=declared,
        acl=acl,
        effective_from=meta.effective_from,
        superseded_on=meta.superseded_on,
        source=source,
        source_url=meta.source_url,
        text=text,
        format=fmt,
        fingerprint=fp,
        body=body,
        path=relative,
    )


def _first_heading(text: str, fmt: Format) -> str | None:
    """The first ``# H1`` as plain text (parsed, so a ``# comment`` in a code block is no heading)."""
    if fmt not in TITLE_FROM_FIRST_HEADING:
        return None
    from .markdown import first_h1

    return first_h1(text)


def _untitled(relative: str, fmt: Format) -> str:
    """A page of a documentation site is titled by its file name made readable; a data file keeps its stem."""
    return title_from_path(relative) if fmt in TITLE_FROM_FIRST_HEADING else Path(relative).stem


def title_from_path(relative: str) -> str:
    """A file name made readable: ``concepts/fields.md`` → "Fields", ``guides/getting-started/index.md`` →
    "Getting started" (an index page is titled by its folder)."""
    path = Path(relative)
    stem = path.stem
    if stem.lower() in INDEX_NAMES and path.parent.name:
        stem = path.parent.name
    return readable_name(stem)
