"""Tables on PDF pages, found by their rules with pdfplumber and kept as rows under their header.

pdfplumber (MIT, on pdfminer.six, MIT) finds a table from the lines and boxes drawn around its cells,
which is how reports, invoices and price lists print them. camelot needs Ghostscript or OpenCV and is
slower; PyMuPDF is AGPL (every user of ragcli would be bound by it). pdfplumber parses a page far more
slowly than pypdf reads its text, so only a page whose content stream draws paths (``has_rules``) is
given to it: a page of prose costs what it did before.

A table that runs on over the next page without repeating its header row (common in exported reports)
keeps its first page's header: ``carry_headers`` gives the continued part the same header, so every row
is still read with the names of its columns.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

TABLE_LINE = "\x00table "
"""A page's text line standing for its table number N (``\\x00table N``): where the table sits among the lines."""
_PATH_OPS = re.compile(rb"(?:^|\s)(?:re|l)\s")
_PAINT_OPS = re.compile(rb"(?:^|\s)(?:S|s|f\*?|F|B\*?|b\*?)\s")
PAGE_NUMBER = re.compile(r"^(?:page\s*)?\d{1,5}(?:\s*(?:of|/)\s*\d{1,5})?$", re.IGNORECASE)
"""A line that is only a page number (``12``, ``Page 3 of 9``): a running footer, not the page's text."""
COLUMN_TOLERANCE = 2.0
"""Points by which a continued table's column edges may differ from the part before it."""


@dataclass
class PageTable:
    """One table of one page: its rows (the header first) and where its columns are."""

    rows: list[list[str]]
    columns: tuple[float, ...]
    """The x of every column edge, left to right: a table continued on the next page has the same ones."""
    carried: bool = False
    """Whether its header row was carried from the part on the page before."""


@dataclass
class TablePage:
    """A page read with pdfplumber: its text lines with a ``TABLE_LINE`` where each table sits."""

    lines: list[str]
    tables: list[PageTable] = field(default_factory=list)


def has_rules(content: bytes) -> bool:
    """Whether a page's content stream draws and paints paths: the only pages a ruled table can be on."""
    return bool(_PATH_OPS.search(content)) and bool(_PAINT_OPS.search(content))


def read_table_page(page: Any) -> TablePage | None:
    """The page's text and tables (None when pdfplumber finds no table: its pypdf text stands)."""
    found = sorted(page.find_tables(), key=lambda t: t.bbox[1])
    tables = []
    for table in found:
        rows = [[" ".join((cell or "").split()) for cell in row] for row in table.extract()]
        rows = [row for row in rows if any(row)]
        if rows and max(len(row) for row in rows) >= 2:  # a boxed paragraph is no table
            tables.append((table.bbox, rows, _column_edges(table)))
    if not tables:
        return None
    boxes = [bbox for bbox, _, _ in tables]
    outside = page.filter(lambda obj: obj.get("object_type") != "char" or not _inside(obj, boxes))
    lines: list[str] = []
    top = 0.0
    for number, (bbox, _, _) in enumerate(tables):
        lines += _text_lines(outside, top, bbox[1])
        lines.append(f"{TABLE_LINE}{number}")
        top = bbox[3]
    lines += _text_lines(outside, top, float(page.height))
    return TablePage(lines, [PageTable(rows, edges) for _, rows, edges in tables])


def _column_edges(table: Any) -> tuple[float, ...]:
    first = table.rows[0].cells if table.rows else []
    edges = sorted({round(c[0], 1) for c in first if c} | {round(c[2], 1) for c in first if c})
    return tuple(edges)


def _inside(obj: dict[str, Any], boxes: Sequence[tuple[float, float, float, float]]) -> bool:
    x = (obj["x0"] + obj["x1"]) / 2
    y = (obj["top"] + obj["bottom"]) / 2
    return any(x0 <= x <= x1 and top <= y <= bottom for x0, top, x1, bottom in boxes)


def _text_lines(page: Any, top: float, bottom: float) -> list[str]:
    if bottom - top < 1:
        return []
    region = page.crop((0, max(0.0, top), float(page.width), min(float(page.height), bottom)), strict=False)
    return (region.extract_text() or "").split("\n")


def carry_headers(pages: Sequence[TablePage | None]) -> None:
    """A table at the top of a page that continues the table at the bottom of the page before (same columns,
    its first row not that table's header) gets that table's header as its first row."""
    for before, page in zip(pages, pages[1:], strict=False):
        if before is None or page is None or not before.tables or not page.tables:
            continue
        if _edge_line(before.lines, reverse=True) != f"{TABLE_LINE}{len(before.tables) - 1}":
            continue
        if _edge_line(page.lines, reverse=False) != f"{TABLE_LINE}0":
            continue
        last, first = before.tables[-1], page.tables[0]
        if _same_columns(last.columns, first.columns) and first.rows[0] != last.rows[0]:
            first.rows.insert(0, list(last.rows[0]))
            first.carried = True


def _edge_line(lines: list[str], *, reverse: bool) -> str | None:
    """The first (or last) line that is not blank and not a page number footer."""
    for line in reversed(lines) if reverse else lines:
        if line.strip() and not PAGE_NUMBER.match(line.strip()):
            return line
    return None


def _same_columns(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return len(a) == len(b) and all(abs(x - y) <= COLUMN_TOLERANCE for x, y in zip(a, b, strict=True))
