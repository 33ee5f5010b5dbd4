"""One seeded set of documents written in every format ragcli reads, for ``format_bench.py``.

Each document has a title, sections two levels deep, paragraphs, a bulleted and a
numbered list, a table and a code block; every writer expresses exactly that
structure in its own format (Markdown, HTML, Word, reStructuredText, a Jupyter
notebook whose Markdown cells hold the prose and code cells the code, a PDF whose
outline holds the headings). CSV can hold only rows: its files are tables with as
many rows as a document has sentences, so its passages are rows, not prose.

Not a script: the benchmark imports it.
"""

from __future__ import annotations

import html
import io
import json
import random
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

WORDS = (
    "refund invoice billing account policy support ticket escalation server deploy backup restore password token "
    "rotate webhook retry latency quota region cluster storage archive audit report budget salary contract vendor "
    "laptop office travel expense approval manager review release customer partner contract renewal incident "
    "outage pager rotation schedule handbook onboarding training laptop badge access request network firewall"
).split()


@dataclass
class Section:
    level: int
    heading: str
    blocks: list[tuple[str, Any]] = field(default_factory=list)
    """("para", text), ("bullets" | "numbers", [items]), ("table", rows), ("code", text)."""


@dataclass
class Doc:
    name: str
    title: str
    sections: list[Section]


def sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 18))).capitalize() + "."


def make_docs(n: int, seed: int) -> list[Doc]:
    rng = random.Random(seed)
    docs = []
    for i in range(n):
        sections = []
        for s in range(6):
            section = Section(1 if s % 2 == 0 else 2, f"{rng.choice(WORDS).title()} {rng.choice(WORDS)} {s + 1}")
            section.blocks += [("para", " ".join(sentence(rng) for _ in range(rng.randint(3, 5)))) for _ in range(2)]
            if s in (1, 4):
                section.blocks.append((("bullets", "numbers")[s % 2], [sentence(rng) for _ in range(5)]))
            if s == 2:
                header = ["Item", "Owner", "Amount"]
                rows = [
                    [f"{rng.choice(WORDS)} {r}", rng.choice(WORDS), f"{rng.randint(10, 999)} EUR"] for r in range(8)
                ]
                section.blocks.append(("table", [header, *rows]))
            if s == 3:
                code = "\n".join(f"{rng.choice(WORDS)}_{k} = run('{rng.choice(WORDS)}', retries={k})" for k in range(8))
                section.blocks.append(("code", code))
            sections.append(section)
        docs.append(Doc(f"doc{i:03d}", f"{rng.choice(WORDS).title()} {rng.choice(WORDS)} guide {i}", sections))
    return docs


# --------------------------------------------------------------------------- writers


def to_markdown(doc: Doc) -> str:
    out = [f"# {doc.title}"]
    for section in doc.sections:
        out.append("#" * (section.level + 1) + " " + section.heading)
        out += [_md_block(kind, value) for kind, value in section.blocks]
    return "\n\n".join(out) + "\n"


def _md_block(kind: str, value: Any) -> str:
    if kind == "para":
        return value
    if kind in ("bullets", "numbers"):
        return "\n".join((f"{n}. " if kind == "numbers" else "- ") + item for n, item in enumerate(value, start=1))
    if kind == "table":
        head, *rows = value
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows])
    return f"```python\n{value}\n```"


def to_html(doc: Doc) -> str:
    out = [f"<html><head><title>{html.escape(doc.title)}</title></head><body><h1>{html.escape(doc.title)}</h1>"]
    for section in doc.sections:
        out.append(f"<h{section.level + 1}>{html.escape(section.heading)}</h{section.level + 1}>")
        for kind, value in section.blocks:
            if kind == "para":
                out.append(f"<p>{html.escape(value)}</p>")
            elif kind in ("bullets", "numbers"):
                tag = "ol" if kind == "numbers" else "ul"
                out.append(f"<{tag}>" + "".join(f"<li>{html.escape(i)}</li>" for i in value) + f"</{tag}>")
            elif kind == "table":
                cells = ["<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in value]
                out.append("<table>" + "".join(cells) + "</table>")
            else:
                out.append(f"<pre>{html.escape(value)}</pre>")
    return "\n".join(out) + "</body></html>\n"


def to_rst(doc: Doc) -> str:
    bar = "=" * len(doc.title)
    out = [f"{bar}\n{doc.title}\n{bar}"]
    for section in doc.sections:
        out.append(f"{section.heading}\n{('=' if section.level == 1 else '-') * len(section.heading)}")
        for kind, value in section.blocks:
            if kind == "para":
                out.append(textwrap.fill(value, 79))
            elif kind in ("bullets", "numbers"):
                out.append("\n".join(("#. " if kind == "numbers" else "- ") + item for item in value))
            elif kind == "table":
                head, *rows = value
                cells = "\n".join(f"   * - {r[0]}\n     - {r[1]}\n     - {r[2]}" for r in [head, *rows])
                out.append(f".. list-table::\n   :header-rows: 1\n\n{cells}")
            else:
                out.append(".. code-block:: python\n\n" + textwrap.indent(value, "   "))
    return "\n\n".join(out) + "\n"


def to_notebook(doc: Doc) -> str:
    cells: list[dict[str, Any]] = [_cell("markdown", f"# {doc.title}")]
    for section in doc.sections:
        prose = ["#" * (section.level + 1) + " " + section.heading]
        for kind, value in section.blocks:
            if kind == "code":
                cells.append(_cell("markdown", "\n\n".join(prose)))
                cells.append(_cell("code", value))
                prose = []
            else:
                prose.append(_md_block(kind, value))
        if prose:
            cells.append(_cell("markdown", "\n\n".join(prose)))
    meta = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": meta, "cells": cells}, indent=1)


def _cell(kind: str, source: str) -> dict[str, Any]:
    cell: dict[str, Any] = {"cell_type": kind, "metadata": {}, "source": source.splitlines(keepends=True)}
    return cell | ({"outputs": [], "execution_count": None} if kind == "code" else {})


def to_docx(doc: Doc) -> bytes:
    import docx

    document = docx.Document()
    document.core_properties.title = doc.title
    document.add_paragraph(doc.title, style="Title")
    for section in doc.sections:
        document.add_heading(section.heading, level=section.level)
        for kind, value in section.blocks:
            if kind == "para":
                document.add_paragraph(value)
            elif kind in ("bullets", "numbers"):
                for item in value:
                    document.add_paragraph(item, style="List Number" if kind == "numbers" else "List Bullet")
            elif kind == "table":
                table = document.add_table(rows=len(value), cols=len(value[0]))
                for r, row in enumerate(value):
                    for c, text in enumerate(row):
                        table.cell(r, c).text = text
            else:
                for line in value.split("\n"):
                    document.add_paragraph(line, style="macro")
    buf = io.BytesIO()
    document.save(buf)
    return buf.getvalue()


def to_pdf(doc: Doc) -> bytes:
    """Lines of text (prose wrapped at 90 columns) on Letter pages, one bookmark per section heading."""
    from pypdf import PdfWriter
    from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

    lines: list[tuple[str, Section | None]] = [(doc.title, None)]
    for section in doc.sections:
        lines.append((section.heading, section))
        for kind, value in section.blocks:
            if kind == "para":
                lines += [(line, None) for line in textwrap.wrap(value, 90)] + [("", None)]
            elif kind == "table":
                lines += [("  ".join(row), None) for row in value] + [("", None)]
            elif kind == "code":
                lines += [(line, None) for line in value.split("\n")] + [("", None)]
            else:
                lines += [(line, None) for item in value for line in textwrap.wrap("- " + item, 90)] + [("", None)]
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
    per_page = 44
    parents: dict[int, Any] = {}
    for start in range(0, len(lines), per_page):
        page = writer.add_blank_page(612, 792)
        page[NameObject("/Resources")] = DictionaryObject(
            {NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})}
        )
        shown = []
        for text, section in lines[start : start + per_page]:
            escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
            shown.append(b"(" + escaped.encode("latin-1") + b") Tj 0 -16 Td")
            if section is not None:
                parent = parents.get(section.level - 1)
                item = writer.add_outline_item(title=section.heading, page_number=start // per_page, parent=parent)
                parents[section.level] = item
        stream = DecodedStreamObject()
        stream.set_data(b"BT /F1 10 Tf 50 750 Td " + b" ".join(shown) + b" ET")
        page[NameObject("/Contents")] = writer._add_object(stream)
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()


def to_csv(doc: Doc) -> str:
    """A table with one row per sentence of the document: as many rows as the others have sentences."""
    import csv

    rows = [["Section", "Owner", "Amount", "Note"]]
    rng = random.Random(doc.name)
    for section in doc.sections:
        for kind, value in section.blocks:
            if kind == "para":
                for note in value.split(". "):
                    rows.append([section.heading, rng.choice(WORDS), f"{rng.randint(10, 999)} EUR", note.strip(".")])
    buf = io.StringIO()
    csv.writer(buf).writerows(rows)
    return buf.getvalue()


WRITERS: dict[str, tuple[str, Callable[[Doc], str | bytes]]] = {
    "markdown": (".md", to_markdown),
    "html": (".html", to_html),
    "docx": (".docx", to_docx),
    "rst": (".rst", to_rst),
    "notebook": (".ipynb", to_notebook),
    "pdf (outline)": (".pdf", to_pdf),
    "csv": (".csv", to_csv),
}


def write_corpora(docs: list[Doc], root: Path) -> dict[str, Path]:
    """One folder per format, each holding every document: {format: folder}."""
    folders = {}
    for name, (suffix, writer) in WRITERS.items():
        folder = root / name.split()[0]
        folder.mkdir(parents=True, exist_ok=True)
        for doc in docs:
            content = writer(doc)
            path = folder / f"{doc.name}{suffix}"
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content, encoding="utf-8")
        folders[name] = folder
    return folders
