"""PDF text with pypdf, page by page; headings from the outline (bookmarks) when the PDF has one.

Without an outline the text is the pages' text separated by form feeds, which
the chunker reads as one section per page (``Page 3``). With one, every
bookmark becomes a Markdown heading at its depth, placed where a line of its
target page reads as its title (else at the top of that page), and the text
between bookmarks is written as paragraphs: passages then carry the outline's
heading path (``Installation > Linux``) instead of page numbers.
"""

from __future__ import annotations

import io
import logging
import re
from dataclasses import dataclass
from typing import Any

from ..errors import DocumentRejected
from . import mdwriter as md

_SECTION_NUMBER = re.compile(r"^(?:\d+(?:\.\d+)*\.?|[ivxlc]+\.|[a-z]\.)\s+")


@dataclass(frozen=True)
class Bookmark:
    level: int
    """1 for a top-level bookmark, 2 for its children..."""
    title: str
    page: int
    """0-based index of the page it points to."""


def pdf_text(raw: bytes, source: str) -> tuple[str, bool]:
    """(text, whether it is Markdown with outline headings); a PDF that fails to parse is rejected."""
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    # pypdf logs its repairs ("invalid pdf header", "EOF marker not found") straight to
    # stderr; a PDF it cannot read is reported once, as a rejection, and nothing else.
    logging.getLogger("pypdf").setLevel(logging.CRITICAL)

    try:
        reader = PdfReader(io.BytesIO(raw))
        pages = [(page.extract_text() or "").strip() for page in reader.pages]
    except (PyPdfError, ValueError, KeyError, TypeError, OSError, RecursionError, AttributeError) as exc:
        raise DocumentRejected(source, f"PDF could not be parsed ({type(exc).__name__})") from None
    marks = bookmarks(reader, len(pages)) if any(pages) else []  # a scan without text has nothing to index
    if not marks:
        # Form feeds keep page boundaries for the chunker without inventing headings.
        return "\n\n\f\n\n".join(p for p in pages if p), False
    return outlined_markdown(pages, marks), True


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


def outlined_markdown(pages: list[str], marks: list[Bookmark]) -> str:
    """Pages as Markdown paragraphs with a heading for each bookmark, in outline order."""
    lines = [page.split("\n") for page in pages]
    blocks: list[str] = []
    page, line = 0, 0  # where the text not yet written starts
    for mark in marks:
        # An entry pointing back to an earlier page starts where the text has got to.
        target = max(mark.page, page)
        start = line if target == page else 0
        found = _title_line(lines[target], start, mark.title)
        stop = found if found is not None else start
        blocks += _paragraphs(lines, (page, line), (target, stop))
        blocks.append(md.heading(mark.level, mark.title))
        page, line = target, stop + (found is not None)
    blocks += _paragraphs(lines, (page, line), (len(lines), 0))
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


def _paragraphs(lines: list[list[str]], start: tuple[int, int], stop: tuple[int, int]) -> list[str]:
    """The text from ``start`` up to ``stop`` (page, line) as paragraphs; a page boundary ends a paragraph."""
    out: list[str] = []
    for page in range(start[0], min(stop[0], len(lines) - 1) + 1):
        first = start[1] if page == start[0] else 0
        last = stop[1] if page == stop[0] else len(lines[page])
        text = "\n".join(lines[page][first:last])
        out += [md.paragraph(p) for p in re.split(r"\n\s*\n", text) if p.strip()]
    return out
