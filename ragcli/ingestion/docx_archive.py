"""A Word archive checked before python-docx opens it: what it would cost to read, and what it must not hold.

``check_unpacked_size`` refuses an archive that declares more bytes unpacked
than the file-size limit (zipfile never inflates past what it declares), so a
small zip bomb cannot fill memory. ``check_work`` counts paragraphs, list
items, table rows and cells of the body as it streams (constant memory) and
refuses a body over the bounds of ``sources``, before python-docx builds a tree
of about 500 bytes per paragraph; it also refuses a DOCTYPE in any part, since
its entities would not be expanded and the text after one would be lost.
"""

from __future__ import annotations

import io
import zipfile

from ..errors import DocumentRejected
from .sources import MAX_CELLS, MAX_LIST_ITEMS, MAX_PARAGRAPHS, MAX_ROWS, over_bound

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
"""WordprocessingML's namespace: the body's elements (``w:p``, ``w:tr``...)."""


def check_unpacked_size(raw: bytes, source: str, max_bytes: int) -> None:
    """The sizes the archive declares (zipfile never inflates past them) must fit the file-size limit."""
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as archive:
            unpacked = sum(info.file_size for info in archive.infolist())
    except (zipfile.BadZipFile, ValueError, OSError):
        raise DocumentRejected(source, "not a Word document (not a valid .docx archive)") from None
    if unpacked > max_bytes:
        raise DocumentRejected(
            source, f"unpacks to {unpacked:,} bytes, over the {max_bytes:,}-byte limit (--max-file-size)"
        )


def check_work(raw: bytes, source: str) -> None:
    """Count paragraphs, list items, rows and cells of the body, streaming, before python-docx builds its tree.

    A tree costs about 500 bytes per paragraph: 60 MB of one-letter paragraphs held 3.8 GB. Counting with
    ``iterparse`` (each element dropped once counted) takes constant memory and one pass.
    """
    from lxml import etree

    counts = dict.fromkeys(("p", "numPr", "tr", "tc"), 0)
    tags = [f"{{{W}}}{name}" for name in counts]
    with zipfile.ZipFile(io.BytesIO(raw)) as archive:
        if _DOCUMENT_PART not in archive.namelist():
            return  # python-docx finds the main part through the relationships; it will say what is wrong
        _check_no_doctype(archive, source)
        with archive.open(_DOCUMENT_PART) as stream:
            events = etree.iterparse(stream, events=("end",), tag=tags, resolve_entities=False, no_network=True)
            try:
                for _, element in events:
                    counts[element.tag.rpartition("}")[2]] += 1
                    if element.tag == tags[0]:  # a paragraph: drop it and what came before it
                        element.clear(keep_tail=True)
                        parent = element.getparent()
                        while parent is not None and element.getprevious() is not None:
                            del parent[0]
            except (etree.XMLSyntaxError, zipfile.BadZipFile):
                return  # python-docx reads it again and rejects it with its own reason
            if events.root is not None and events.root.getroottree().docinfo.doctype:
                raise DocumentRejected(source, _DOCTYPE)
    over_bound(
        source,
        {
            "paragraphs": (counts["p"], MAX_PARAGRAPHS),
            "list items": (counts["numPr"], MAX_LIST_ITEMS),
            "table rows": (counts["tr"], MAX_ROWS),
            "table cells": (counts["tc"], MAX_CELLS),
        },
    )


_DOCUMENT_PART = "word/document.xml"
_DOCTYPE = (
    "holds a DOCTYPE (entity declarations), which Word never writes: its entities are not expanded, "
    "so the text after one would be lost"
)


def _check_no_doctype(archive: zipfile.ZipFile, source: str) -> None:
    """No XML part but the body (checked as it is streamed) may declare entities: an unexpanded one drops text."""
    for info in archive.infolist():
        if info.filename.endswith((".xml", ".rels")) and info.filename != _DOCUMENT_PART:
            with archive.open(info) as part:
                if b"<!DOCTYPE" in part.read():
                    raise DocumentRejected(source, _DOCTYPE)
