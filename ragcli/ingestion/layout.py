"""A passage's top-level blocks read off its document's one parse, so its units are cut without parsing it again.

Ingest stores a vector per unit of each passage (``units.unit_spans``: sentences, items, rows, code), cut from
the passage's top-level blocks (``structure.blocks``, a markdown-it parse of its text). The chunker builds every
passage from pieces of a document it has parsed already: whole blocks, and the parts of a block it had to split
(table rows under their header, code lines fenced again, list items, sentences). Each piece gets a ``Shape``, the
blocks markdown-it finds in it on its own, from the document's tokens (``token_shape``) or from how the piece was
cut (``part_shapes``); a passage's blocks are its pieces' shapes one after another (``joined``), as markdown-it
finds them in the pieces joined by a blank line, which ends every block but a list or indented code (text that
could go on in them makes the shape unknown) and a fence or HTML block left open (so does that).

Where a shape cannot be known for sure (a part cut through an item or a line, ...) it is None, and the passage is
parsed when its units are cut, as before. ``tests/test_markdown_parse_once.py`` holds the blocks against
``structure.parsed_blocks`` on every page of the bench corpora and on generated documents.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from ..structure import Block, blocks, only_paragraphs, token_blocks

_LISTS = ("bullet_list_open", "ordered_list_open")
_RULE = re.compile(r"([-*_])(?:[ \t]*\1){2,}[ \t]*$")
"""A thematic break (``---``, ``* * *``): it ends a list."""
_MARKER = re.compile(r"(?:([-*+])|\d{1,9}([.)]))(?:[ \t]|$)")
"""A list item's marker: a bullet, or a number and its delimiter."""


@dataclass(frozen=True)
class Shape:
    """The top-level blocks of a text (``structure.blocks``), and what a text joined after it needs to know."""

    blocks: tuple[Block, ...]
    """In the text's own lines; a list that ends it ends at its last line (markdown-it's count, see ``_eof``)."""
    tail: str | None
    """The type of the text's last top-level token (``paragraph_open``, ``fence``, ``hr``...); None for no token."""
    items: tuple[int, ...] = ()
    """For one list: the first line of each of its items (where a part of it may start)."""
    marker: str = ""
    """For a list at its end: its bullet (``-``, ``*``, ``+``) or its numbers' delimiter (``.``, ``)``)."""
    open: bool = False
    """Its last block may run on into what follows it: a fence not closed, an HTML block that ran to the end."""


def token_shape(tokens: list[Any], i: int, lines: list[str], first: int, text: str) -> Shape:
    """The shape of ``text``, the lines of top-level token ``tokens[i]`` of a parse of ``lines`` from line ``first``
    (a chunker's block: its map's lines, blank lines at either end dropped)."""
    tok = tokens[i]
    count = _eof(text)
    if tok.type == "paragraph_open":  # the commonest block, and the simplest
        return Shape((Block("paragraph", 0, min(tok.map[1] - first, count)),), tok.type)
    found = tuple(
        Block(
            b.kind,
            b.start - first,
            count if b.kind == "list" else min(b.end - first, count),
            b.indent,
            tuple((a - first, z - first) for a, z in b.items),
        )
        for b in token_blocks(tokens, i, lines)
    )
    items: tuple[int, ...] = ()
    if tok.type in _LISTS:
        starts = []
        for j in range(i + 1, len(tokens)):
            t = tokens[j]
            if t.level == 0:
                break  # the list's closing token
            if t.type == "list_item_open" and t.level == 1 and t.map is not None:
                starts.append(t.map[0] - first)
        items = tuple(starts)
    unclosed = tok.type == "fence" and not _closes(tok.markup, text)
    runs_to_end = tok.type == "html_block" and tok.map is not None and tok.map[1] >= len(lines) - 1
    marker = tok.markup if tok.type in _LISTS else ""
    return Shape(found, tok.type, items, marker, open=unclosed or runs_to_end)


def text_shape(text: str) -> Shape | None:
    """The shape of text that can hold nothing but paragraphs (``structure.only_paragraphs``: known without
    markdown-it); None for any other."""
    if not only_paragraphs(text):
        return None
    found = tuple(blocks(text))
    return Shape(found, "paragraph_open" if found else None)


def part_shapes(kind: str, text: str, shape: Shape | None, parts: Sequence[str]) -> list[Shape | None]:
    """The shapes of ``parts``, what ``sizing.Sizer.split_block`` cut a block (``kind``, ``text``, ``shape``) into:
    the block's own when whole; rows under the table's header, lines of a closed fence fenced again, and whole
    items of a list, when every part is made of the block's own lines; else what ``text_shape`` knows."""
    if list(parts) == [text]:
        return [shape if shape is not None else text_shape(text)]
    known: list[Shape | None] = [None] * len(parts)
    if shape is not None and len(shape.blocks) == 1:
        if kind == "table" and shape.tail == "table_open":
            known = [_table_part(text, part) for part in parts]
        elif kind == "code" and shape.tail == "fence" and not shape.open:
            known = [_fence_part(text, part) for part in parts]
        elif kind == "code" and shape.tail == "code_block":
            known = [_indented_part(text, part) for part in parts]
        elif kind == "list" and shape.tail in _LISTS:
            known = _list_parts(text, shape, parts)
    return [k if k is not None else text_shape(part) for k, part in zip(known, parts, strict=True)]


def joined(pieces: Sequence[tuple[str, Shape | None]]) -> Shape | None:
    """The shape of the pieces' texts joined by a blank line (``"\\n\\n"``), or None where it cannot be known."""
    if len(pieces) == 1:
        return pieces[0][1]
    out: list[Block] = []
    line = 0
    last: Shape | None = None
    for text, shape in pieces:
        if shape is None:
            return None
        if last is None:
            out += shape.blocks
        else:
            after = _after(last, text, shape)
            if after is None:
                return None
            line += 1  # the blank line between
            moved = [_moved(b, line) for b in shape.blocks]
            if last.tail in _LISTS:
                # A list runs to the next line that is not blank, or takes in the next list of its kind.
                ending = out[-1]
                if after == "merge":
                    first = moved.pop(0)
                    out[-1] = Block("list", ending.start, first.end, items=ending.items + first.items)
                else:
                    out[-1] = replace(ending, end=line)
            out += moved
        line += text.count("\n") + 1
        last = shape
    if last is None:
        return Shape((), None)
    return Shape(tuple(out), last.tail, marker=last.marker, open=last.open)


def _after(shape: Shape, following: str, shape_after: Shape) -> Literal["end", "merge"] | None:
    """What a blank line then ``following`` (of ``shape_after``) does to the last block of ``shape``: ``end`` it, or
    (a list's next item of the same kind) ``merge`` with it; None when that is not known for sure (a list or
    indented code may go on in an indented line, an open fence or HTML block in anything)."""
    if shape.open:
        return None
    if shape.tail not in (*_LISTS, "code_block"):
        return "end"
    line = following.split("\n", 1)[0]
    bare = line.lstrip(" ")
    indent = len(line) - len(bare)
    if not bare.strip(" \t") or bare[0] == "\t":
        return None  # a blank line, or a tab in its indentation
    if shape.tail == "code_block":
        return "end" if indent < 4 else None
    if indent > 1:
        return None  # could go on in the last item, whose content starts at column 2 or later
    marker = None if _RULE.match(bare) else _MARKER.match(bare)
    if marker is None or (marker.group(1) or marker.group(2)) != shape.marker:
        return "end"  # a rule, text, or a list of another kind
    lead = shape_after.blocks[0] if shape_after.blocks else None
    return "merge" if lead is not None and lead.kind == "list" and lead.start == 0 else None


def _moved(block: Block, by: int) -> Block:
    items = tuple((a + by, z + by) for a, z in block.items)
    return Block(block.kind, block.start + by, block.end + by, block.indent, items)


def _eof(text: str) -> int:
    """How many lines markdown-it reads in ``text``: a final newline ends the last line, it does not start one."""
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def _closes(markup: str, text: str) -> bool:
    """Whether the last line of ``text`` (a fence opened by ``markup``) is its closing fence: at most 3 spaces, at
    least as many of the same character, then nothing but spaces and tabs."""
    _, newline, line = text.rpartition("\n")
    if not newline or not markup:
        return False
    bare = line.lstrip(" ")
    if len(line) - len(bare) > 3:
        return False
    run = len(bare) - len(bare.lstrip(markup[0]))
    return run >= len(markup) and not bare[run:].strip(" \t")


def _table_part(text: str, part: str) -> Shape | None:
    """A table's header and rule over some of its own rows reads as a table of all its lines."""
    lines, rows = text.split("\n"), part.split("\n")
    if len(rows) < 2 or rows[:2] != lines[:2] or not set(rows[2:]) <= set(lines[2:]):
        return None
    return Shape((Block("table", 0, len(rows)),), "table_open")


def _fence_part(text: str, part: str) -> Shape | None:
    """A closed fence's opening and closing lines around some of its own lines read as one fence."""
    lines, rows = text.split("\n"), part.split("\n")
    if len(rows) < 2 or rows[0] != lines[0] or rows[-1] != lines[-1] or not set(rows[1:-1]) <= set(lines[1:-1]):
        return None
    return Shape((Block("code", 0, len(rows)),), "fence")


def _indented_part(text: str, part: str) -> Shape | None:
    """Some of an indented code block's own lines read as indented code from the first to the last not blank."""
    rows = part.split("\n")
    if not set(rows) <= set(text.split("\n")):
        return None
    filled = [n for n, row in enumerate(rows) if row.strip(" \t")]
    if not filled:
        return Shape((), None)
    return Shape((Block("code", filled[0], filled[-1] + 1),), "code_block")


def _list_parts(text: str, shape: Shape, parts: Sequence[str]) -> list[Shape | None]:
    """Parts that are runs of whole items of the list, in order, read as a list of those items (until a part is not:
    the rest are unknown). A run that starts at a later item holding ``|`` could read as a table's header."""
    lines = text.split("\n")
    (whole,) = shape.blocks
    starts = set(shape.items)
    out: list[Shape | None] = []
    at = 0
    for part in parts:
        rows = part.split("\n")
        end = at + len(rows)
        if (
            at < 0
            or at not in starts
            or lines[at:end] != rows
            or not (end == len(lines) or end in starts)
            or (at > 0 and "|" in lines[at])
        ):
            out.append(None)
            at = -1
            continue
        items = tuple((a - at, z - at) for a, z in whole.items if at <= a and z <= end)
        inside = tuple(s - at for s in shape.items if at <= s < end)
        out.append(Shape((Block("list", 0, _eof(part), items=items),), shape.tail, inside, shape.marker))
        at = end
    return out
