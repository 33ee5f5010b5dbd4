"""PDF as Markdown that keeps its pages: text with pypdf, ruled tables as tables, scanned pages through OCR.

Every page's blocks follow a page mark (``mdwriter.page_mark``), which the chunker reads off into each
passage's ``pages`` (and ``ocr``), so a citation names the page it came from. With an outline
(bookmarks), every bookmark also becomes a Markdown heading at its depth, placed where a line of its
target page reads as its title (else at the top of that page): passages carry both the outline's
heading path (``Installation > Linux``) and their pages.

A page whose content draws ruled cells is read with pdfplumber (``pdf_tables``): its tables become
Markdown tables, split by rows with the header repeated like any table. A page without a usable text
layer (none, or garbage from a font without a Unicode map) that shows an image is read by Tesseract
when the ``ragcli[ocr]`` extra and the binary are there (``pdf_ocr``); else it is counted, and the
ingest says how many pages of which documents it could not read and how to enable OCR. A PDF whose
outline loops, or that is too large to walk, is rejected like any untrusted file.
"""

from __future__ import annotations

import io
import logging
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from ..errors import DocumentRejected
from . import mdwriter as md
from .pdf_ocr import ENABLE_HINT, OcrLimits, check_images, missing, read_pages
from .pdf_tables import PAGE_NUMBER, TABLE_LINE, PageTable, carry_headers, has_rules, read_table_page

_SECTION_NUMBER = re.compile(r"^(?:\d+(?:\.\d+)*\.?|[ivxlc]+\.|[a-z]\.)\s+")
MAX_OUTLINE_ITEMS = 10_000
"""Bookmarks per PDF at most: an outline larger than this is taken for a hostile file, not a manual."""
_PARSE_ERRORS = (ValueError, KeyError, TypeError, OSError, RecursionError, AttributeError, IndexError)

Unread = Literal["no_ocr", "pages", "seconds"]
"""Why pages without text were left unread: OCR is not available, or a per-document OCR limit was reached."""


@dataclass(frozen=True)
class Bookmark:
    level: int
    """1 for a top-level bookmark, 2 for its children..."""
    title: str
    page: int
    """0-based index of the page it points to."""


@dataclass(frozen=True)
class PdfPages:
    """What reading a PDF's pages found: reported by ``ingest`` and kept in documents.json."""

    count: int
    ocr: tuple[int, ...] = ()
    """Pages (1-based) read by OCR."""
    unread: tuple[int, ...] = ()
    """Pages (1-based) with no usable text that OCR did not read."""
    unread_because: Unread | None = None
    ocr_missing: str | None = None
    """What OCR lacks here (None: it is available), when pages needed it."""
    ocr_seconds: float = 0.0
    tables: int = 0
    """Tables read as tables."""


@dataclass(frozen=True)
class PdfText:
    text: str
    """Markdown with a page mark before each page's blocks."""
    pages: PdfPages


@dataclass
class _Page:
    lines: list[str]
    tables: list[PageTable] = field(default_factory=list)
    ocr: bool = False


def read_pdf(raw: bytes, source: str, limits: OcrLimits | None = None) -> PdfText:
    """The PDF as paged Markdown; a PDF that fails to parse, loops its outline or has no text is rejected."""
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    # pypdf logs its repairs ("invalid pdf header", "EOF marker not found") straight to
    # stderr; a PDF it cannot read is reported once, as a rejection, and nothing else.
    logging.getLogger("pypdf").setLevel(logging.CRITICAL)
    try:
        reader = PdfReader(io.BytesIO(raw))
        texts = [(page.extract_text() or "").strip() for page in reader.pages]
        check_outline(reader, source)
    except (PyPdfError, *_PARSE_ERRORS) as exc:
        raise DocumentRejected(source, f"PDF could not be parsed ({type(exc).__name__})") from None
    pages = [_Page(text.split("\n") if text else []) for text in texts]
    tables = _read_tables(raw, reader, pages)
    report = _read_scans(raw, reader, texts, pages, source, limits or OcrLimits())
    report = PdfPages(**{**report.__dict__, "tables": tables})
    if not any(line.strip() for page in pages for line in page.lines):
        raise DocumentRejected(source, _no_text_reason(report))
    marks = bookmarks(reader, len(pages))
    return PdfText(outlined_markdown(pages, marks), report)


def _no_text_reason(report: PdfPages) -> str:
    if report.unread and report.ocr_missing:
        return (
            f"no text to index: its {report.count} page(s) have no text layer (a scan?) and OCR is not available "
            f"({report.ocr_missing}); to read them: {ENABLE_HINT}"
        )
    return "no text to index"


# --------------------------------------------------------------------------- the outline


def check_outline(reader: Any, source: str) -> None:
    """Reject an outline that loops (an entry reached twice) or holds over MAX_OUTLINE_ITEMS entries.

    pypdf notices a loop, logs it and stops; ragcli refuses the file, as it refuses any file built to make a
    reader walk forever, instead of indexing a guess at its outline."""
    root = reader.trailer["/Root"].get_object()
    outlines = root.get("/Outlines")
    if outlines is None:
        return
    seen: set[int] = set()
    todo = [outlines.get_object().get("/First")]
    while todo:
        ref = todo.pop()
        while ref is not None:
            key = getattr(ref, "idnum", None)
            if key is not None:
                if key in seen:
                    raise DocumentRejected(source, "its outline (bookmarks) loops back on itself")
                seen.add(key)
            if len(seen) > MAX_OUTLINE_ITEMS:
                raise DocumentRejected(source, f"its outline has over {MAX_OUTLINE_ITEMS:,} bookmarks")
            item = ref.get_object()
            todo.append(item.get("/First"))
            ref = item.get("/Next")


def bookmarks(reader: Any, page_count: int) -> list[Bookmark]:
    """The outline in reading order; a damaged outline counts as none (the pages are still read)."""
    from pypdf.errors import PyPdfError

    out: list[Bookmark] = []

    def walk(items: list[Any], level: int) -> None:
        for item in items:
            if isinstance(item, list):
                walk(item, level + 1)
                continue
            page = reader.get_destination_page_number(item)
            title = md.one_line(str(getattr(item, "title", "") or ""))
            if title and page is not None and 0 <= page < page_count:
                out.append(Bookmark(level, title, page))

    try:
        walk(reader.outline, 1)
    except (PyPdfError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
        return []
    return out


# --------------------------------------------------------------------------- tables and scans


def _read_tables(raw: bytes, reader: Any, pages: list[_Page]) -> int:
    """Read the pages that draw rules with pdfplumber; a table it finds replaces that page's text. The count."""
    ruled = [n for n, page in enumerate(reader.pages) if _draws_paths(page)]
    if not ruled:
        return 0
    import pdfplumber

    read: list[Any] = [None] * len(pages)
    try:
        with pdfplumber.open(io.BytesIO(raw)) as plumbed:
            for n in ruled:
                read[n] = read_table_page(plumbed.pages[n])
    # Tables improve text pypdf has already read: pdfminer failing on a page it finds odd must not reject
    # a document that reads, so its pages keep their pypdf text.
    except Exception:
        return 0
    carry_headers(read)
    for n, table_page in enumerate(read):
        if table_page is not None:
            pages[n] = _Page(table_page.lines, table_page.tables)
    return sum(len(t.tables) for t in read if t is not None)


def _draws_paths(page: Any) -> bool:
    try:
        contents = page.get_contents()
        return contents is not None and has_rules(contents.get_data())
    except _PARSE_ERRORS:
        return False


def _read_scans(
    raw: bytes, reader: Any, texts: list[str], pages: list[_Page], source: str, limits: OcrLimits
) -> PdfPages:
    """OCR the pages without usable text that show an image (when OCR is available, within ``limits``)."""
    wanted = [n for n, text in enumerate(texts) if garbled(text) or (not text and _shows_image(reader.pages[n]))]
    if not wanted:
        return PdfPages(count=len(pages))
    lacking = missing()
    if lacking is not None:
        return PdfPages(len(pages), unread=_numbers(wanted), unread_because="no_ocr", ocr_missing=lacking)
    check_images(reader, wanted, source)
    run = read_pages(raw, wanted, limits)
    for n, text in run.texts.items():
        if text.strip():
            pages[n] = _Page(text.strip().split("\n"), ocr=True)
    return PdfPages(
        len(pages),
        ocr=_numbers(run.texts),
        unread=_numbers(run.unread),
        unread_because=run.limit if run.unread else None,  # type: ignore[arg-type]
        ocr_seconds=round(run.seconds, 3),
    )


def _numbers(indexes: Any) -> tuple[int, ...]:
    return tuple(sorted(n + 1 for n in indexes))


def _shows_image(page: Any) -> bool:
    try:
        xobjects = page["/Resources"].get_object().get("/XObject")
        return xobjects is not None and any(
            ref.get_object().get("/Subtype") == "/Image" for ref in xobjects.get_object().values()
        )
    except (*_PARSE_ERRORS, LookupError):
        return False


_UNMAPPED = re.compile(r"\(cid:\d+\)|[\ufffd\ue000-\uf8ff\x00-\x08\x0e-\x1f]")


def garbled(text: str) -> bool:
    """A text layer that is not text: mostly unmapped glyphs (``(cid:12)``, U+FFFD, private-use characters) or
    symbols, as a font without a Unicode map or a scan's invisible OCR of poor quality gives."""
    visible = [ch for ch in text if not ch.isspace()]
    if len(visible) < 20:
        return False  # too little to judge; an empty page is decided by its images
    unmapped = sum(len(m) for m in _UNMAPPED.findall(text))
    letters = sum(ch.isalnum() for ch in visible)
    return unmapped / len(visible) > 0.1 or letters / len(visible) < 0.4


# --------------------------------------------------------------------------- Markdown


def outlined_markdown(pages: list[_Page], marks: list[Bookmark]) -> str:
    """Pages as Markdown blocks, each page's after its page mark, with a heading for each bookmark."""
    lines = [page.lines for page in pages]
    blocks: list[str] = []
    page, line = 0, 0  # where the text not yet written starts
    for mark in marks:
        # An entry pointing back to an earlier page starts where the text has got to.
        target = max(mark.page, page)
        start = line if target == page else 0
        found = _title_line(lines[target], start, mark.title)
        stop = found if found is not None else start
        blocks += _blocks(pages, (page, line), (target, stop))
        blocks.append(md.heading(mark.level, mark.title))
        page, line = target, stop + (found is not None)
    blocks += _blocks(pages, (page, line), (len(lines), 0))
    return md.join(blocks)


def _title_line(page_lines: list[str], start: int, title: str) -> int | None:
    """The first line from ``start`` that reads as the title (case, spacing and a section number aside)."""
    wanted = _plain(title)
    for n in range(start, len(page_lines)):
        if wanted and _plain(page_lines[n]) == wanted:
            return n
    return None


def _plain(text: str) -> str:
    return " ".join(re.sub(r"[^\w]+", " ", _SECTION_NUMBER.sub("", text.strip().casefold())).split())


def _blocks(pages: list[_Page], start: tuple[int, int], stop: tuple[int, int]) -> list[str]:
    """The blocks from ``start`` up to ``stop`` (page, line), each page's after its page mark; a page boundary
    ends a paragraph, a table line is its table."""
    out: list[str] = []
    for n in range(start[0], min(stop[0], len(pages) - 1) + 1):
        page = pages[n]
        first = start[1] if n == start[0] else 0
        last = stop[1] if n == stop[0] else len(page.lines)
        numbers = _page_numbers(page.lines)
        blocks: list[str] = []
        paragraph: list[str] = []
        for at, text in [*enumerate(page.lines[first:last], start=first), (last, "")]:
            if text.startswith(TABLE_LINE) or not text.strip() or at in numbers:
                if paragraph:
                    blocks.append(md.paragraph(_joined(paragraph)))
                    paragraph = []
                if text.startswith(TABLE_LINE):
                    blocks.append(md.table(page.tables[int(text[len(TABLE_LINE) :])].rows))
            else:
                paragraph.append(text)
        if any(b.strip() for b in blocks):
            out += [md.page_mark(n + 1, page.ocr), *blocks]
    return out


def _page_numbers(lines: list[str]) -> set[int]:
    """The first and last text lines of a page when they are only a page number (a running header or footer)."""
    filled = [n for n, line in enumerate(lines) if line.strip()]
    return {n for n in filled[:1] + filled[-1:] if PAGE_NUMBER.match(lines[n].strip())}


_HYPHENATED = re.compile(r"[^\W\d_]-$")


def _joined(lines: list[str]) -> str:
    """A paragraph's lines as one: a word hyphenated at a line break (``mainte-`` / ``nance``) made whole again."""
    out = lines[0].strip()
    for line in lines[1:]:
        line = line.strip()
        if _HYPHENATED.search(out) and line[:1].islower():
            out = out[:-1] + line
        else:
            out = f"{out} {line}"
    return out
