"""HTML to the Markdown subset the chunker understands, with the standard library.

Headings become ``#`` lines, list items ``- `` lines, table rows ``| a | b |``
lines and pre blocks fenced code. Script, style and other non-content
elements are dropped: their text is never indexed.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

_SKIP = {"script", "style", "noscript", "template", "svg", "iframe", "object"}
_BLOCK = {
    "p",
    "div",
    "section",
    "article",
    "main",
    "header",
    "footer",
    "nav",
    "aside",
    "blockquote",
    "br",
    "hr",
    "dl",
    "dt",
    "dd",
    "figure",
    "figcaption",
}
_HEADINGS = {f"h{i}": i for i in range(1, 7)}


class _Converter(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.current: list[str] = []
        self.skip_depth = 0
        self.in_pre = False
        self.in_title = False
        self.title = ""
        self.row: list[str] | None = None
        self.cell: list[str] | None = None
        self.header_rows = 0
        self.heading_level = 0

    # -- helpers
    def _flush(self, prefix: str = "") -> None:
        text = " ".join("".join(self.current).split())
        self.current = []
        if text:
            self.lines.append(prefix + text)
            if not prefix.startswith("- "):
                self.lines.append("")

    def _end_cell(self) -> None:
        if self.cell is not None and self.row is not None:
            self.row.append(" ".join("".join(self.cell).split()).replace("|", "\\|"))
        self.cell = None

    def _end_row(self) -> None:
        self._end_cell()  # </td> and </tr> are optional in HTML
        if self.row:
            self.lines.append("| " + " | ".join(self.row) + " |")
            if self.header_rows == 0:
                self.lines.append("|" + "---|" * len(self.row))
            self.header_rows += 1
        self.row = None

    # -- parser callbacks
    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIP:
            self.skip_depth += 1
            return
        if tag == "title":
            self.in_title = True
        elif tag in _HEADINGS:
            self._flush()
            self.heading_level = _HEADINGS[tag]
        elif tag == "li":
            self._flush()
        elif tag == "pre":
            self._flush()
            self.in_pre = True
        elif tag == "tr":
            if self.row is not None:
                self._end_row()
            self.row = []
        elif tag in ("td", "th"):
            if self.row is None:  # a cell outside <tr>: HTML implies the row
                self.row = []
            self._end_cell()
            self.cell = []
        elif tag in _BLOCK:
            self._flush()

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP:
            self.skip_depth = max(0, self.skip_depth - 1)
            return
        if tag == "title":
            self.in_title = False
        elif tag in _HEADINGS:
            self._flush("#" * self.heading_level + " ")
            self.heading_level = 0
        elif tag == "li":
            self._flush("- ")
        elif tag == "pre":
            code = "".join(self.current).strip("\n")
            self.current = []
            if code.strip():
                self.lines += ["```", code, "```", ""]
            self.in_pre = False
        elif tag in ("td", "th") and self.cell is not None and self.row is not None:
            self._end_cell()
        elif tag == "tr" and self.row is not None:
            self._end_row()
        elif tag == "table":
            if self.row is not None:  # last row of a table without </tr> (or <tr>)
                self._end_row()
            self.lines.append("")
            self.header_rows = 0
        elif tag in ("ul", "ol"):
            self.lines.append("")
        elif tag in _BLOCK:
            self._flush()

    def handle_data(self, data: str) -> None:
        if self.skip_depth:
            return
        if self.in_title:
            self.title += data
        elif self.cell is not None:
            self.cell.append(data)
        else:
            self.current.append(data)


_MARKED_SECTION = re.compile(r"<!\[(?!CDATA\[)[^>]*>?")
"""``<![if !IE]>``, ``<![<html>``: a bogus comment to an HTML5 parser, which drops it up to its first ``>``.
Python's parser asserts on most of them (``expected name token``): they go before it reads the page."""


def html_to_markdown(html: str) -> tuple[str, str]:
    """Return (the page's <title>, its content as simple Markdown)."""
    converter = _Converter()
    converter.feed(_MARKED_SECTION.sub("", html))
    converter.close()
    if converter.row is not None:  # a table left open at the end of the page
        converter._end_row()
    converter._flush()
    text = "\n".join(converter.lines)
    return " ".join(converter.title.split()), text.strip() + "\n"
