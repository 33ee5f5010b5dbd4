"""Building real Word files with python-docx, with the parts python-docx has no API for written as OOXML:
custom document properties, tracked changes, multi-level numbering, a table-of-contents content control."""

from __future__ import annotations

import io
from typing import Any

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
CUSTOM_TYPE = "application/vnd.openxmlformats-officedocument.custom-properties+xml"
CUSTOM_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/custom-properties"
FMTID = "{D5CDD505-2E9C-101B-9397-08002B2CF9AE}"


def new_document(title: str | None = None) -> Any:
    import docx

    document = docx.Document()
    if title is not None:
        document.core_properties.title = title
    return document


def docx_bytes(document: Any) -> bytes:
    buf = io.BytesIO()
    document.save(buf)
    return buf.getvalue()


def set_custom_properties(document: Any, props: dict[str, tuple[str, str]]) -> None:
    """File > Properties > Custom: ``{name: (vt type, value)}``, e.g. ``{"acl": ("lpwstr", "hr, finance")}``."""
    from xml.sax.saxutils import escape, quoteattr

    from docx.opc.packuri import PackURI
    from docx.opc.part import Part

    entries = "".join(
        f'<property fmtid="{FMTID}" pid="{pid}" name={quoteattr(name)}>'
        f"<vt:{kind}>{escape(value)}</vt:{kind}></property>"
        for pid, (name, (kind, value)) in enumerate(props.items(), start=2)
    )
    xml = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/custom-properties" '
        'xmlns:vt="http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes">' + entries + "</Properties>"
    )
    package = document.part.package
    part = Part(PackURI("/docProps/custom.xml"), CUSTOM_TYPE, xml.encode("utf-8"), package)
    package.relate_to(part, CUSTOM_REL)


def add_tracked_changes(paragraph: Any, kept: str, inserted: str, deleted: str, moved_away: str = "") -> None:
    """Runs as Word writes them with Track Changes on: plain, inserted (w:ins), deleted (w:del), moved (w:moveFrom)."""
    from docx.oxml import parse_xml

    attrs = f'xmlns:w="{W}" w:id="{{}}" w:author="Reviewer" w:date="2026-05-01T00:00:00Z"'
    paragraph.add_run(kept)
    paragraph._p.append(
        parse_xml(f"<w:ins {attrs.format(1)}><w:r><w:t xml:space='preserve'>{inserted}</w:t></w:r></w:ins>")
    )
    paragraph._p.append(
        parse_xml(f"<w:del {attrs.format(2)}><w:r><w:delText xml:space='preserve'>{deleted}</w:delText></w:r></w:del>")
    )
    if moved_away:
        paragraph._p.append(
            parse_xml(
                f"<w:moveFrom {attrs.format(3)}><w:r><w:t xml:space='preserve'>{moved_away}</w:t></w:r></w:moveFrom>"
            )
        )


def number(paragraph: Any, num_id: int, level: int) -> None:
    """Numbering on the paragraph itself (what Word writes for a multi-level list): numId and ilvl."""
    from docx.oxml import parse_xml

    p_pr = paragraph._p.get_or_add_pPr()
    p_pr.append(parse_xml(f'<w:numPr xmlns:w="{W}"><w:ilvl w:val="{level}"/><w:numId w:val="{num_id}"/></w:numPr>'))


def add_multilevel_numbering(document: Any, num_id: int, formats: list[str]) -> None:
    """A numbering definition whose level N uses ``formats[N]`` ("decimal", "bullet"...), as numId ``num_id``."""
    from docx.oxml import parse_xml

    numbering = document.part.numbering_part.element
    levels = "".join(
        f'<w:lvl w:ilvl="{n}"><w:start w:val="1"/><w:numFmt w:val="{fmt}"/><w:lvlText w:val="%{n + 1}."/></w:lvl>'
        for n, fmt in enumerate(formats)
    )
    abstract_id = 90 + num_id
    numbering.insert(
        0, parse_xml(f'<w:abstractNum xmlns:w="{W}" w:abstractNumId="{abstract_id}">{levels}</w:abstractNum>')
    )
    numbering.append(
        parse_xml(f'<w:num xmlns:w="{W}" w:numId="{num_id}"><w:abstractNumId w:val="{abstract_id}"/></w:num>')
    )


def add_table_of_contents(document: Any, entries: list[str]) -> None:
    """A table of contents as Word inserts it: a content control (w:sdt) of "TOC 1" paragraphs."""
    from docx.oxml import parse_xml

    paragraphs = "".join(f"<w:p><w:r><w:t>{entry}</w:t></w:r></w:p>" for entry in entries)
    sdt = parse_xml(
        f'<w:sdt xmlns:w="{W}"><w:sdtPr><w:docPartObj><w:docPartGallery w:val="Table of Contents"/>'
        f"</w:docPartObj></w:sdtPr><w:sdtContent>{paragraphs}</w:sdtContent></w:sdt>"
    )
    document.element.body.insert(0, sdt)
