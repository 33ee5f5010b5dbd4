"""Word (``.docx``) documents to Markdown and metadata, with python-docx.

Paragraphs in a heading style (``Heading 1``..., or a style based on one) are
headings; numbered and bulleted paragraphs (numbering on the paragraph or its
style) are list items at their level; tables are tables with their first row as
the header; quote and preformatted styles are quotes and code. Tracked changes
read as accepted: inserted text is kept, deleted and moved-away text is not.
A table of contents is navigation, not content, and is left out.

Metadata: the core ``title`` (else the first paragraph in the ``Title``
style), then custom properties (File > Properties > Custom) named like the
front matter keys, as text: ``acl`` is a comma-separated list of groups, dates
are ``YYYY-MM-DD``.

The archive is checked before python-docx opens it (``docx_archive``): a
small zip bomb cannot fill memory, nor a huge body python-docx's tree.
"""

from __future__ import annotations

import datetime as dt
import functools
import io
import re
import zipfile
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import DocumentRejected
from . import mdwriter as md
from .docx_archive import W, check_unpacked_size, check_work
from .metadata import text_fields

if TYPE_CHECKING:
    from docx.document import Document as WordDocument
    from docx.styles.style import ParagraphStyle

_NS = {
    "w": W,
    "mc": "http://schemas.openxmlformats.org/markup-compatibility/2006",
    "cp": "http://schemas.openxmlformats.org/officeDocument/2006/custom-properties",
    "vt": "http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes",
}
CUSTOM_PROPERTIES = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/custom-properties"
# Runs whose text is not in the accepted document, or is a second copy of text kept elsewhere.
# Hidden text (w:vanish, unless switched off with w:val="false"/"0") is not shown by Word: a place for words
# no reviewer sees, so it is not indexed either.
_HIDDEN = "w:rPr/w:vanish[not(@w:val='false' or @w:val='0' or @w:val='off')]"
_RUNS = (
    ".//w:r[not(ancestor::w:del) and not(ancestor::w:moveFrom)"
    f" and not(ancestor::mc:Fallback) and not(ancestor::w:txbxContent) and not({_HIDDEN})]"
)
_HIDDEN_RUNS = f".//w:r[{_HIDDEN} and string(.) != '']"
HIDDEN_TEXT = "runs of hidden text (w:vanish)"
"""What ``docx_to_markdown`` reports it left out, counted."""
_HEADING_STYLE = re.compile(r"^heading (\d)$", re.IGNORECASE)
_LIST_STYLE = re.compile(r"^list (bullet|number)(?: (\d))?$", re.IGNORECASE)
_CODE_STYLES = {"html preformatted", "macro text", "macro", "code", "source code", "plain text"}
_QUOTE_STYLES = {"quote", "intense quote"}


def docx_to_markdown(raw: bytes, source: str, max_bytes: int) -> tuple[dict[str, Any], str, dict[str, int]]:
    """(metadata as front matter would give it, the body as Markdown, what was left out by kind and count);
    DocumentRejected if unreadable."""
    check_unpacked_size(raw, source, max_bytes)
    from docx import Document as open_document
    from docx.opc.exceptions import OpcError
    from lxml.etree import LxmlError

    try:
        check_work(raw, source)  # a damaged member (bad CRC) is a BadZipFile, rejected below
        document = open_document(io.BytesIO(raw))
        meta = _metadata(document, source)
        converter = _Body(document)
        if "title" not in meta and converter.title_paragraph():
            meta["title"] = converter.title_paragraph()
        body = converter.markdown(md.one_line(str(meta.get("title", ""))))
        hidden = len(_hidden_xpath()(document.element.body))
    except DocumentRejected:
        raise
    except (
        OpcError,
        LxmlError,
        zipfile.BadZipFile,
        KeyError,
        IndexError,
        ValueError,
        TypeError,
        AttributeError,
    ) as exc:
        raise DocumentRejected(source, f"Word document could not be read ({type(exc).__name__})") from None
    return meta, body, ({HIDDEN_TEXT: hidden} if hidden else {})


# --------------------------------------------------------------------------- metadata


def _metadata(document: WordDocument, source: str) -> dict[str, Any]:
    fields: dict[str, str] = {}
    title = (document.core_properties.title or "").strip()
    if title:
        fields["title"] = title
    return {**fields, **text_fields(_custom_properties(document, source), source)}


def _custom_properties(document: WordDocument, source: str) -> list[tuple[str, str]]:
    """(name, value as text) of each custom property; a Date is its UTC day, refused when it has a time of day."""
    from docx.oxml.parser import parse_xml

    package = document.part.package
    parts = [rel.target_part for rel in package.rels.values() if rel.reltype == CUSTOM_PROPERTIES]
    out: list[tuple[str, str]] = []
    for part in parts:
        for prop in parse_xml(part.blob).findall("cp:property", _NS):
            name = prop.get("name") or ""
            value = prop[0] if len(prop) else None
            if value is None:
                continue
            text = (value.text or "").strip()
            if value.tag == f"{{{_NS['vt']}}}filetime":
                text = _filetime_day(name, text, source)
            out.append((name, text))
    return out


def _filetime_day(name: str, text: str, source: str) -> str:
    """Word stores a Date property as a UTC instant: midnight UTC is that day; any other time is ambiguous."""
    try:
        moment = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise DocumentRejected(source, f"custom property '{name}': {text!r} is not a date") from None
    if moment.time() != dt.time(0, 0):
        raise DocumentRejected(
            source,
            f"custom property '{name}' is a Date stored as {text} (UTC), which is not one calendar day: "
            "set it as Text, for example 2026-09-01",
        )
    return moment.date().isoformat()


# --------------------------------------------------------------------------- body


class _Body:
    """The document body in order: paragraphs, lists (consecutive numbered paragraphs), tables."""

    def __init__(self, document: WordDocument) -> None:
        self.document = document
        self.title = ""
        self.blocks: list[str] = []
        self.items: list[md.Item] = []
        self.code: list[str] = []
        self.formats = _NumberFormats(document)
        self.styles: dict[str | None, _Style] = {}

    def title_paragraph(self) -> str:
        """The text of the first paragraph in the Title style ("" when there is none)."""
        for paragraph in self.document.paragraphs:
            if self._style(paragraph).names[:1] == ["title"]:
                return md.one_line(_text(paragraph._p))
        return ""

    def markdown(self, title: str) -> str:
        """The body; a Title-styled paragraph repeating ``title`` is left out (the title heads every passage)."""
        self.title = title
        self._walk(self.document.element.body)
        self._close()
        return md.join(self.blocks)

    def _walk(self, container: Any) -> None:
        from docx.table import Table
        from docx.text.paragraph import Paragraph

        for child in container.iterchildren():
            if child.tag == f"{{{W}}}p":
                self._paragraph(Paragraph(child, self.document.part))
            elif child.tag == f"{{{W}}}tbl":
                self._close()
                self.blocks.append(md.table(_table_rows(Table(child, self.document.part))))
            elif child.tag == f"{{{W}}}sdt" and not _is_table_of_contents(child):
                content = child.find("w:sdtContent", _NS)
                if content is not None:
                    self._walk(content)

    def _paragraph(self, paragraph: Any) -> None:
        style = self._style(paragraph)
        styles = style.names
        text = _text(paragraph._p)
        if styles[0].startswith("toc ") or (styles[0] == "title" and md.one_line(text) == self.title):
            return  # a table of contents is navigation; the title heads every passage already
        if styles[0] in _CODE_STYLES:
            self._close(keep_code=True)
            self.code.append(text)
            return
        if not text.strip():
            return
        level = _heading_level(styles)
        numbering = None if level else _numbering(paragraph, style)
        if numbering is not None:
            self._close(keep_items=True)
            num_id, ilvl, extra_depth = numbering
            self.items.append(md.Item(ilvl + extra_depth, self.formats.ordered(num_id, ilvl, styles), text))
            return
        self._close()
        if level:
            self.blocks.append(md.heading(level, text))
        elif styles[0] in _QUOTE_STYLES:
            self.blocks.append(md.quote([md.paragraph(text)]))
        else:
            self.blocks.append(md.paragraph(text))

    def _style(self, paragraph: Any) -> _Style:
        """The paragraph's style, resolved once per style id: python-docx finds a style by scanning them all."""
        key = paragraph._p.style
        if key not in self.styles:
            self.styles[key] = _Style.of(paragraph.style)
        return self.styles[key]

    def _close(self, keep_items: bool = False, keep_code: bool = False) -> None:
        """End the list or code block being collected, unless the next paragraph continues it."""
        if self.items and not keep_items:
            self.blocks.append(md.list_block(self.items))
            self.items = []
        if self.code and not keep_code:
            self.blocks.append(md.code("\n".join(self.code)))
            self.code = []


def _text(p: Any) -> str:
    """The paragraph's accepted text: its runs, inserted ones included, without deleted or moved-away text."""
    return "".join(run.text for run in _runs_xpath()(p))


@functools.cache
def _hidden_xpath() -> Any:
    from lxml import etree

    return etree.XPath(_HIDDEN_RUNS, namespaces=_NS)


@functools.cache
def _runs_xpath() -> Any:
    from lxml import etree

    return etree.XPath(_RUNS, namespaces=_NS)


@dataclass(frozen=True)
class _Style:
    names: list[str]
    """The style's name and the names of the styles it is based on, lowercased."""
    elements: list[Any]
    """Their XML elements, in the same order (where list numbering set by a style is found)."""

    @classmethod
    def of(cls, style: ParagraphStyle | None) -> _Style:
        names: list[str] = []
        elements: list[Any] = []
        while style is not None and len(names) < 10:  # a cycle of base styles ends here
            names.append((style.name or "").lower())
            elements.append(style.element)
            style = style.base_style
        return cls(names or [""], elements)  # no style at all (no default style defined) reads as Normal


def _heading_level(styles: list[str]) -> int:
    for name in styles:
        match = _HEADING_STYLE.match(name)
        if match:
            return int(match.group(1))
    return 0


def _numbering(paragraph: Any, style: _Style) -> tuple[str, int, int] | None:
    """(numId, level, extra depth of a "List Bullet 2" style) of a list paragraph; None for any other paragraph.

    The paragraph's own numbering wins over its style's, a style's over the style it is based on.
    """
    extra = next((int(m.group(2) or 1) - 1 for m in map(_LIST_STYLE.match, style.names) if m), None)
    own = paragraph._p.pPr
    candidates = [own.find("w:numPr", _NS) if own is not None else None]
    candidates += [element.find("w:pPr/w:numPr", _NS) for element in style.elements]
    num_id = next((v for v in (_val(c.find("w:numId", _NS)) for c in candidates if c is not None) if v), None)
    ilvl = next((v for v in (_val(c.find("w:ilvl", _NS)) for c in candidates if c is not None) if v), None)
    if num_id == "0" or (num_id is None and extra is None):
        return None  # numId 0 is Word's "numbering removed"
    return num_id or "", int(ilvl or 0), extra or 0


def _val(element: Any) -> str | None:
    return None if element is None else element.get(f"{{{W}}}val")


class _NumberFormats:
    """Whether a numbering level counts (decimal, letters, roman) or bullets, from the numbering part."""

    def __init__(self, document: WordDocument) -> None:
        try:
            self.numbering = document.part.numbering_part.element
        except (KeyError, NotImplementedError):  # python-docx's answer for a document without a numbering part
            self.numbering = None

    def ordered(self, num_id: str, ilvl: int, styles: list[str]) -> bool:
        fmt = self._format(num_id, ilvl)
        if fmt is None:
            return any("number" in name for name in styles)
        return fmt not in ("bullet", "none")

    def _format(self, num_id: str, ilvl: int) -> str | None:
        # Matched by comparing attribute values, never by an ElementPath predicate built from them: a value
        # is the document's text, and a quote in it (``w:val="1'"``) made the predicate invalid.
        if self.numbering is None or not num_id:
            return None
        num = _child_with(self.numbering, "w:num", "numId", num_id)
        abstract = num.find("w:abstractNumId", _NS) if num is not None else None
        if abstract is None:
            return None
        definition = _child_with(self.numbering, "w:abstractNum", "abstractNumId", _val(abstract) or "")
        lvl = _child_with(definition, "w:lvl", "ilvl", str(ilvl)) if definition is not None else None
        return _val(lvl.find("w:numFmt", _NS)) if lvl is not None else None


def _child_with(parent: Any, tag: str, attribute: str, value: str) -> Any:
    """The first ``tag`` child of ``parent`` whose ``w:attribute`` equals ``value``, or None."""
    name = f"{{{W}}}{attribute}"
    return next((child for child in parent.iterfind(tag, _NS) if child.get(name) == value), None)


def _table_rows(table: Any) -> list[list[str]]:
    """Cell texts row by row (a row deleted as a tracked change left out); a merged cell's text in each column."""
    rows = []
    for row in table.rows:
        if row._tr.find("w:trPr/w:del", _NS) is not None:
            continue
        # Every paragraph of the cell, those of a table nested in it too: nothing in a cell is lost.
        rows.append([" ".join(_text(p) for p in cell._tc.iter(f"{{{W}}}p")) for cell in row.cells])
    return rows


def _is_table_of_contents(sdt: Any) -> bool:
    gallery = sdt.find("w:sdtPr/w:docPartObj/w:docPartGallery", _NS)
    return gallery is not None and (_val(gallery) or "").lower() == "table of contents"
