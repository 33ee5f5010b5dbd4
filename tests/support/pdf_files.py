"""Building real PDFs for the PDF tests: text pages with an outline, ruled tables, image-only (scanned) pages.

Text and tables are written as PDF content streams with pypdf (Helvetica, one of the standard 14 fonts, so
no font file is needed); a scanned page is a text page rendered to pixels with pypdfium2 and saved as an
image-only PDF by Pillow, so the test knows every word the OCR should find.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

PAGE_W, PAGE_H = 612, 792


@dataclass
class Table:
    """A ruled table drawn at ``top`` (points from the page's top edge): every cell boxed by lines."""

    rows: Sequence[Sequence[str]]
    top: float = 120
    col_width: float = 150
    row_height: float = 22
    left: float = 72


@dataclass
class Page:
    lines: Sequence[str] = ()
    """Text lines from the top of the page, 16 points apart."""
    tables: Sequence[Table] = field(default_factory=list)
    """Tables, drawn below ``lines`` (give each a ``top`` under the text)."""


def _escape(text: str) -> bytes:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)").encode("latin-1")


def _content(page: Page) -> bytes:
    ops = [b"BT /F1 12 Tf 72 720 Td"]
    for line in page.lines:
        ops.append(b"(" + _escape(line) + b") Tj 0 -16 Td")
    ops.append(b"ET")
    for table in page.tables:
        width = table.col_width * max(len(r) for r in table.rows)
        y_top = PAGE_H - table.top
        height = table.row_height * len(table.rows)
        ops.append(b"0.8 w")
        for r in range(len(table.rows) + 1):  # horizontal rules
            y = y_top - r * table.row_height
            ops.append(f"{table.left} {y} m {table.left + width} {y} l S".encode())
        for c in range(max(len(r) for r in table.rows) + 1):  # vertical rules
            x = table.left + c * table.col_width
            ops.append(f"{x} {y_top} m {x} {y_top - height} l S".encode())
        for r, row in enumerate(table.rows):
            y = y_top - (r + 1) * table.row_height + 7
            for c, cell in enumerate(row):
                x = table.left + c * table.col_width + 5
                ops.append(b"BT /F1 11 Tf " + f"{x} {y}".encode() + b" Td (" + _escape(cell) + b") Tj ET")
    return b"\n".join(ops)


def make_pdf(pages: Sequence[Page | str], outline: Sequence[tuple[str, int, int | None]] = ()) -> bytes:
    """A PDF of ``pages`` (a string is a page of lines split at "\\n"); ``outline``: (title, page index,
    index of the parent bookmark or None)."""
    from pypdf import PdfWriter
    from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

    writer = PdfWriter()
    font = writer._add_object(
        DictionaryObject(
            {
                NameObject("/Type"): NameObject("/Font"),
                NameObject("/Subtype"): NameObject("/Type1"),
                NameObject("/BaseFont"): NameObject("/Helvetica"),
            }
        )
    )
    for spec in pages:
        page_spec = Page(lines=spec.split("\n")) if isinstance(spec, str) else spec
        page = writer.add_blank_page(PAGE_W, PAGE_H)
        page[NameObject("/Resources")] = DictionaryObject(
            {NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})}
        )
        stream = DecodedStreamObject()
        stream.set_data(_content(page_spec))
        page[NameObject("/Contents")] = writer._add_object(stream)
    items: list[Any] = []
    for title, page_index, parent in outline:
        items.append(
            writer.add_outline_item(
                title=title, page_number=page_index, parent=None if parent is None else items[parent]
            )
        )
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()


def scanned(pdf: bytes, dpi: int = 300) -> bytes:
    """The same pages as images only (no text layer), rendered at ``dpi``: what a scanner makes of a print-out."""
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(pdf)
    images = [document[i].render(scale=dpi / 72).to_pil().convert("L") for i in range(len(document))]
    document.close()
    buf = io.BytesIO()
    images[0].save(buf, "PDF", resolution=dpi, save_all=True, append_images=images[1:])
    return buf.getvalue()


def joined(*pdfs: bytes) -> bytes:
    """The pages of several PDFs, in order, as one PDF (a text page followed by a scanned one)."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    for pdf in pdfs:
        for page in PdfReader(io.BytesIO(pdf)).pages:
            writer.add_page(page)
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()
