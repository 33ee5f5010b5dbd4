"""Writing Markdown from a document's structure: what the Word, reStructuredText, CSV and PDF loaders produce,
and the one shape of a labelled container (``Note: ...``, ``macOS:`` before a list or code) every reader gives.

The chunker reads Markdown (``markdown.markdown_sections``), so a format turned
into these shapes gets the passages a Markdown file would: heading paths, lists
split by items, tables by rows with the header repeated, code blocks whole.
Text from the source is escaped where it would otherwise read as markup: a
paragraph that starts with ``#``, ``- `` or ``1.`` stays a paragraph, a ``|``
in a table cell stays in its cell, a code block holding a fence stays one block.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

# A line start CommonMark (or a doc-site dialect the Markdown reader unfolds) reads as markup.
_MARKUP_START = re.compile(
    r"^(?:#{1,6}(?:\s|$)|[-*+](?:\s|$)|>|```|~~~|<|(?:[-*_][ \t]*){3,}$|=+[ \t]*$|!!!|\?\?\?|===|:::|\{\{)"
)
_ORDERED_START = re.compile(r"^(\d{1,9})([.)])(\s|$)")
_BLOCK_START = re.compile(r"^(```|~~~|[-*+] |\d+[.)] |\||>|#|<)")
"""A block a label goes on its own line before (code, a list, a table, a quote, a heading, HTML), not into."""
_BACKTICKS = re.compile(r"`+")
_PAGE_MARK = re.compile(r"^\f(\d{1,6})( ocr)?$")


def one_line(text: str) -> str:
    """Whitespace (line breaks included) collapsed to single spaces."""
    return " ".join(text.split())


def escape_start(line: str) -> str:
    """A backslash before a line start that would read as markup (``\\# not a heading``, ``1\\. not a list``)."""
    ordered = _ORDERED_START.match(line)
    if ordered:
        return f"{ordered.group(1)}\\{line[len(ordered.group(1)) :]}"
    return "\\" + line if _MARKUP_START.match(line) else line


def paragraph(text: str) -> str:
    """One paragraph on one line, escaped."""
    return escape_start(one_line(text))


def heading(level: int, text: str) -> str:
    """``## Text`` (levels past 6 are written as 6); "" for a heading without text."""
    text = one_line(text)
    if not text:
        return ""
    if re.search(r"(?:^|\s)#+$", text):  # a closing "#" run would be dropped from the heading
        text = text[:-1] + "\\#"
    return "#" * min(max(level, 1), 6) + " " + text


@dataclass(frozen=True)
class Item:
    """One list item: its nesting depth (0 = top level), numbered or bulleted, its text and blocks kept under it."""

    depth: int
    ordered: bool
    text: str
    blocks: tuple[str, ...] = ()
    """Markdown blocks (code, a table, a second paragraph) that belong to the item, written indented under it."""


def list_block(items: Sequence[Item]) -> str:
    """Items as one Markdown list; a child is indented under its parent's text, numbers count per level."""
    lines: list[str] = []
    indents: list[int] = []  # the content column of each open level
    numbers: list[int] = []
    kinds: list[bool] = []
    for item in items:
        text = paragraph(item.text)
        if not text and not item.blocks:
            continue
        depth = min(item.depth, len(indents))  # a level cannot be skipped
        if depth < len(indents) and kinds[depth] != item.ordered:
            numbers[depth] = 0  # a bulleted run after a numbered one (or back) starts counting again
        del indents[depth + 1 :], numbers[depth + 1 :], kinds[depth + 1 :]
        if depth == len(indents):
            indents.append(indents[-1] if indents else 0)
            numbers.append(0)
            kinds.append(item.ordered)
        indent = indents[depth - 1] if depth else 0
        numbers[depth] += 1
        kinds[depth] = item.ordered
        marker = f"{numbers[depth]}. " if item.ordered else "- "
        indents[depth] = indent + len(marker)
        # The text keeps its escape: after "- " a "#" or "1." would still open a heading or a list.
        lines.append(" " * indent + marker + text)
        for block in item.blocks:
            pad = " " * indents[depth]
            lines += ["", *(pad + line if line else "" for line in block.split("\n"))]
    return "\n".join(lines)


def table(rows: Sequence[Sequence[str]]) -> str:
    """The first row as the header, the rest as body rows; every row padded to the widest one."""
    cleaned = [[one_line(cell).replace("|", "\\|") for cell in row] for row in rows]
    cleaned = [row for row in cleaned if any(row)]
    if not cleaned:
        return ""
    width = max(len(row) for row in cleaned)
    lines = ["| " + " | ".join([*row, *[""] * (width - len(row))]) + " |" for row in cleaned]
    lines.insert(1, "|" + "---|" * width)
    return "\n".join(lines)


def code_span(text: str) -> str:
    """``text`` as an inline code span, CommonMark's way: a backtick run longer than any inside, and a space inside
    each end when the code starts or ends with a backtick (CommonMark strips that one space again)."""
    text = one_line(text) if text.strip() else text
    if not text:
        return ""
    fence = "`" * (_longest_backticks(text) + 1)
    pad = " " if text[0] == "`" or text[-1] == "`" else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def code(text: str, language: str = "") -> str:
    """A fenced code block, its fence longer than any backtick run inside."""
    text = text.strip("\n")
    if not text.strip():
        return ""
    fence = "`" * max(3, _longest_backticks(text) + 1)
    return f"{fence}{one_line(language)}\n{text}\n{fence}"


def _longest_backticks(text: str) -> int:
    """The longest run of backticks in ``text``: a code span's or block's fence must be longer."""
    return max((len(run) for run in _BACKTICKS.findall(text)), default=0)


def quote(blocks: Iterable[str]) -> str:
    """Blocks inside a blockquote."""
    body = join(blocks).rstrip("\n")
    return "\n".join("> " + line if line else ">" for line in body.split("\n")) if body else ""


def colon(label: str) -> str:
    """``label`` ending in one colon, as a label before its text or block: a label the page wrote with its own colon
    (Jinja's ```truncate.leeway``:`` definition term) gets no second one."""
    return label.rstrip().rstrip(":") + ":"


def label_body(label: str, body: list[str], indent: str = "") -> list[str]:
    """``labelled`` for a container's lines (the dialects' admonitions, alerts, tabs, cards, details, Hugo shortcodes,
    MyST directives), every line of ``body`` put back at ``indent``. A label with no body is a paragraph of its own,
    as the page shows a title-only box (Textual's ``!!! tip "Added in version 0.30.0"``), not a colon leading
    nowhere."""
    first = next((n for n, line in enumerate(body) if line.strip()), None)
    content = [indent + line if line else "" for line in body]
    if not label.strip():
        return ["", *content, ""]
    if first is None:
        return ["", f"{indent}{label}", ""]
    if not _BLOCK_START.match(body[first].lstrip()):
        content[first] = f"{indent}{colon(label)} {body[first].lstrip()}"
        return ["", *content, ""]
    return ["", f"{indent}{colon(label)}", "", *content, ""]


def name_label(text: str) -> str:
    """A directive, shortcode or option name as a label: ``seealso`` → ``See also``, ``warning`` → ``Warning``,
    ``version_added`` → ``Version added``."""
    text = {"seealso": "See also", "versionadded": "Added", "versionchanged": "Changed"}.get(text, text)
    return text.replace("-", " ").replace("_", " ").strip().capitalize()


def labelled(label: str, blocks: Sequence[str]) -> list[str]:
    """``Label: first sentence...`` before prose; ``Label:`` on its own before a list, table or code; a label with
    nothing under it, a paragraph of its own.

    The same shape the Markdown reader gives an admonition, so a note or a warning
    reads as prose that names what it is.
    """
    blocks = [b for b in blocks if b.strip()]
    label = one_line(label)
    if not label:
        return blocks
    if not blocks:
        return [label]
    if not _BLOCK_START.match(blocks[0]):
        first = blocks[0][1:] if blocks[0].startswith("\\") else blocks[0]  # no longer at a line start
        return [f"{colon(label)} {first}", *blocks[1:]]
    return [colon(label), *blocks]


def join(blocks: Iterable[str]) -> str:
    """Blocks separated by blank lines (empty ones dropped), ending in a newline."""
    return "\n\n".join(b for b in blocks if b.strip()) + "\n"


def page_mark(page: int, ocr: bool = False) -> str:
    """The line a PDF's Markdown puts before the blocks of its page ``page`` (1-based), `` ocr`` when OCR read it.

    A form feed starts it: no text a PDF loader writes does (``paragraph`` collapses whitespace), and the
    chunker reads the marks off into each passage's ``pages`` and ``ocr`` (``read_page_mark``)."""
    return f"\f{page}" + (" ocr" if ocr else "")


def read_page_mark(block: str) -> tuple[int, bool] | None:
    """(page, read by OCR) if ``block`` is a ``page_mark``, else None."""
    found = _PAGE_MARK.match(block)
    return (int(found.group(1)), bool(found.group(2))) if found else None
