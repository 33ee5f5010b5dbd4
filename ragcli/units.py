"""The units an answer may quote, cut from a passage's blocks (``structure``), and their vectors.

``unit_spans`` cuts a passage into units (sentences, list items and what an item holds after its first paragraph,
table rows, a sentence with the block it leads to) as character spans, and ``embed_passages`` gives a passage and
each of its units a vector from one model run. The local answerer builds its statements on these spans
(``backends.local.evidence``), and ingest stores one vector per span beside each passage's vector, so both always
cut a passage the same way (at ingest from the blocks the chunker read off its document's parse,
``Passage.blocks``: the same blocks, ``spans_in``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

from .structure import Block, blocks, line_offsets
from .text import (
    LIST_MARKER,
    TABLE_RULE,
    block_fence,
    fence_of,
    fenced_chunks,
    only_definitions,
    shown_lines,
    split_sentences,
    table_cells,
)

if TYPE_CHECKING:
    import numpy as np

    from .embedder import Embedder
    from .passage import Passage

UnitKind = Literal["sentence", "item", "row", "introduced", "block"]

UNITS_VERSION = 5
"""Bump whenever ``unit_spans`` can cut the same text differently: vectors stored per unit at ingest
(see ``index``) are only used while the version they were cut with is this one."""
BLOCK_MAX_LINES = 12
"""A carried block longer than this is shown (and quoted) through its first lines only, whole lines each."""


@dataclass(frozen=True)
class Span:
    """One unit of a passage's text: ``text[start:end]`` is what it quotes, verbatim."""

    kind: UnitKind
    start: int
    end: int
    block: int
    """Which top-level block it belongs to (for a sentence that carries a block: its paragraph)."""
    sentence_end: int = 0
    """For ``introduced``: where its sentence ends (the block it carries follows)."""
    shown: tuple[str, ...] = ()
    """For ``introduced`` and ``block``: the block's lines as shown (fences kept, at most BLOCK_MAX_LINES)."""
    header: tuple[str, ...] = ()
    """For ``row``: the table's header cells."""
    item_start: int = -1
    """For a list item's second and later units (its later sentences, paragraphs and the sentences carrying its
    code): where the item's first sentence starts (else -1)."""


def unit_spans(text: str) -> list[Span]:
    """Every unit of ``text`` in reading order: sentences of prose (and of block quotes), list items'
    sentences, table rows, and code. A paragraph's last sentence carries what follows it (``introduced``,
    colon or not): a code block (its first part, when it is long), or a short table or list whole. The
    rest of a long code block, and a code block no sentence introduces, are ``block`` units of whole lines."""
    return spans_in(text, blocks(text))


def spans_in(text: str, parsed: Sequence[Block]) -> list[Span]:
    """``unit_spans(text)`` cut from ``parsed``, the blocks of ``text`` (``blocks(text)``, or the same blocks the
    chunker read off its document's parse: ``Passage.blocks``)."""
    offsets = line_offsets(text)
    spans: list[Span] = []
    for n, block in enumerate(parsed):
        carried = n > 0 and _carries(text, parsed[n - 1], block)
        if block.kind in ("paragraph", "quote"):
            spans += _sentences(text, offsets, block, n)
            following = parsed[n + 1] if n + 1 < len(parsed) else None
            if block.kind == "paragraph" and following is not None and _carries(text, block, following) and spans:
                last = spans[-1]
                if last.block == n and last.kind == "sentence":
                    _, end, shown = _parts(text, offsets, following)[0]
                    spans[-1] = Span("introduced", last.start, end, n, sentence_end=last.end, shown=shown)
        elif block.kind == "code":
            parts = _parts(text, offsets, block)[1 if carried else 0 :]
            spans += [Span("block", start, end, n, shown=shown) for start, end, shown in parts]
        elif carried:
            continue
        elif block.kind == "list":
            spans += _item_sentences(text, offsets, block, n)
        elif block.kind == "table":
            spans += _rows(text, offsets, block, n)
    return spans


CARRY_MAX_ROWS = 4
"""A table or list this short reads as one with the sentence before it; a longer one is read row by row."""


def _carries(text: str, previous: Block, block: Block) -> bool:
    """Whether a paragraph's last sentence carries the block right after it: any code block; a short table
    or list (a long one is better answered row by row, each row saying its headers)."""
    if previous.kind != "paragraph":
        return False
    if block.kind == "code":
        return True
    if block.kind == "list":
        return len(block.items) <= CARRY_MAX_ROWS
    if block.kind == "table":
        return block.end - block.start - 2 <= CARRY_MAX_ROWS  # header and rule lines
    return False


def _sentences(text: str, offsets: list[int], block: Block, n: int) -> list[Span]:
    return _split(text, offsets[block.start] + block.indent, offsets[block.end] - 1, "sentence", n)


def _item_sentences(text: str, offsets: list[int], block: Block, n: int) -> list[Span]:
    """Each item's sentences, then what else the item holds up to the next item: its later paragraphs' sentences
    and its code blocks (``_item_rest``). A numbered step's command is in the item, under its sentence."""
    out = []
    taken = {k for first, last in block.items for k in range(first, last)}  # every item's first paragraph
    indents = [_indent(text[offsets[first] : offsets[first + 1] - 1]) for first, _ in block.items]
    for index, (first, last) in enumerate(block.items):
        following = _next_sibling(block, indents, index)
        raw = text[offsets[first] : offsets[last] - 1]
        marker = LIST_MARKER.match(raw)
        item_start = offsets[first] + (marker.end() if marker else len(raw) - len(raw.lstrip()))
        sentences = _split(text, item_start, offsets[last] - 1, "item", n)
        sentences = sentences[:1] + [replace(s, item_start=sentences[0].start) for s in sentences[1:]]
        column = item_start - offsets[first]  # where the item's text begins on its marker's line
        out += _item_rest(text, offsets, last, following, n, sentences, column, taken)
    return sorted(out, key=lambda span: span.start)  # an item's text after its nested list comes after that list


def _next_sibling(block: Block, indents: list[int], index: int) -> int:
    """The line of the next item of ``block`` that is not nested in item ``index`` (its marker, at ``indents``, no
    more indented), or the block's end: what lies between is the item's, its nested list included."""
    later = (first for k, (first, _) in enumerate(block.items) if k > index and indents[k] <= indents[index])
    return next(later, block.end)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _item_rest(
    text: str, offsets: list[int], start: int, end: int, n: int, first: list[Span], column: int, taken: set[int]
) -> list[Span]:
    """A list item's units: the sentences of its ``first`` paragraph, then, from lines ``start``..``end``, each
    later paragraph's sentences and each fenced code block, carried by the sentence right before it in the item
    (``introduced``) or a ``block`` of its own; shown moved left by its fence's indentation. The lines of a list
    nested in the item are its own items' (``_own_lines``); a paragraph after that list is this item's again."""
    item = first[0].start if first else -1
    out = list(first)
    for begin, stop in _own_lines(text, offsets, start, end, column, taken):
        out = _item_part(text, offsets, begin, stop, n, item, out)
    return out


def _own_lines(
    text: str, offsets: list[int], start: int, end: int, column: int, taken: set[int]
) -> list[tuple[int, int]]:
    """The runs of lines ``start``..``end`` that are the item's own, its text at ``column``: a nested list's items
    (a marker at or past ``column``), what is indented under them and the lines of any item's first paragraph
    (``taken``: a lazy line continues the paragraph before it) are theirs; a line less indented than ``column``,
    or a marker before it (the next item), ends the item."""
    runs: list[tuple[int, int]] = []
    begin = start
    nested = -1  # the content column of the nested item being skipped (-1: none)
    lines = [text[offsets[k] : offsets[k + 1] - 1] for k in range(start, end)]
    code = [is_code for is_code, chunk in fenced_chunks(lines) for _ in chunk]  # a code line is no marker
    for k, line in enumerate(lines, start=start):
        if not line.strip() or (k in taken and nested >= 0) or (code[k - start] and not fence_of(line)):
            continue
        indent = _indent(line)
        marker = _ITEM_START.match(line)
        if indent < column:
            end = k  # the next item (``- ```bash`` is in no ``block.items`` span) or text after the list
            break
        if marker and indent < column + 4:  # four more spaces would be code, not a list
            if nested < 0:
                runs.append((begin, k))
            nested = marker.end() if marker.end() < len(line) else indent + 2
        elif nested >= 0 and indent < nested:
            nested, begin = -1, k  # back at the item's own column, after its nested list
    if nested < 0:
        runs.append((begin, end))
    return [(a, b) for a, b in runs if b > a]


def _item_part(text: str, offsets: list[int], start: int, end: int, n: int, item: int, out: list[Span]) -> list[Span]:
    """``out`` with the units of lines ``start``..``end`` of the item at ``item`` (paragraphs and code) after it."""
    lines = text[offsets[start] : offsets[end] - 1].split("\n") if end > start else []
    out = list(out)
    at = start
    for is_code, chunk in fenced_chunks(lines):
        begin, at = at, at + len(chunk)
        if not is_code:
            out += _item_paragraphs(text, offsets, begin, at, n, item)
            continue
        code = Block("code", begin, at)
        indent = _indent(chunk[0])
        parts = [
            (a, b, tuple(line[indent:] if not line[:indent].strip() else line.strip() for line in shown))
            for a, b, shown in _parts(text, offsets, code)
        ]
        before = out[-1] if out else None
        if before is not None and before.kind == "item" and not text[before.end : parts[0][0]].strip():
            out[-1] = Span(
                "introduced",
                before.start,
                parts[0][1],
                n,
                sentence_end=before.end,
                shown=parts[0][2],
                item_start=before.item_start,
            )
            parts = parts[1:]
        out += [Span("block", a, b, n, shown=shown) for a, b, shown in parts]
    return out


_ITEM_START = re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")
"""A line that opens a list item: its marker, then a space or the line's end (the text may start on the next)."""
_NOT_PROSE = re.compile(r"^[ \t]*(?:\||>|#|<)")
"""A table, quote, heading or HTML inside an item: not read as its sentences."""


def _item_paragraphs(text: str, offsets: list[int], start: int, end: int, n: int, item: int) -> list[Span]:
    """The sentences of the paragraphs in lines ``start``..``end`` of an item, each of the item at ``item``."""
    out: list[Span] = []
    line = start
    while line < end:
        while line < end and not text[offsets[line] : offsets[line + 1] - 1].strip():
            line += 1
        first = line
        while line < end and text[offsets[line] : offsets[line + 1] - 1].strip():
            line += 1
        body = text[offsets[first] : offsets[line] - 1]
        # Link definitions show nothing, so they are no unit (Material's ``  [Docker image]: https://...`` lines).
        if first < line and not _NOT_PROSE.match(body) and not only_definitions(body.split("\n")):
            begin = offsets[first] + len(body) - len(body.lstrip())
            out += [replace(s, item_start=item) for s in _split(text, begin, offsets[line] - 1, "item", n)]
    return out


def _split(text: str, start: int, end: int, kind: UnitKind, n: int) -> list[Span]:
    """``text[start:end]`` cut into sentences, each a span of ``kind``."""
    body = text[start:end]
    out, cursor = [], 0
    for sentence in split_sentences(body):
        at = body.find(sentence, cursor)
        cursor = at + len(sentence)
        out.append(Span(kind, start + at, start + at + len(sentence), n))
    return out


def _rows(text: str, offsets: list[int], block: Block, n: int) -> list[Span]:
    lines = text.split("\n")
    header = tuple(table_cells(lines[block.start]))
    out = []
    for line_no in range(block.start + 1, min(block.end, len(lines))):
        row = lines[line_no]
        if not row.strip() or TABLE_RULE.match(row):
            continue
        start = offsets[line_no] + (len(row) - len(row.lstrip()))
        out.append(Span("row", start, start + len(row.strip()), n, header=header))
    return out


def _parts(text: str, offsets: list[int], block: Block) -> list[tuple[int, int, tuple[str, ...]]]:
    """A block as (start, end, shown lines) parts of whole lines. Code longer than BLOCK_MAX_LINES is cut
    into parts of at most that many lines, at a blank line where there is one; each part is shown fenced,
    with ``…`` where it goes on. A table or list is one part (shown as written)."""
    lines = text[offsets[block.start] : offsets[block.end] - 1].split("\n")
    if block.kind != "code":
        return [(offsets[block.start], offsets[block.end] - 1, shown_lines(lines))]
    opened, fence, closed = block_fence(lines)  # ```` for Markdown that shows a ``` block
    first, last = block.start + (opened is not None), block.end - closed
    info = lines[0].strip()[len(fence) :].strip() if opened else ""
    cuts = _cut_points(text, offsets, first, last)
    parts = []
    for i, (a, b) in enumerate(cuts):
        body = tuple(text[offsets[k] : offsets[k + 1] - 1].rstrip() for k in range(a, b))
        shown = (f"{fence}{info}", *(("…",) if i else ()), *body, *(("…",) if i < len(cuts) - 1 else ()), fence)
        start = offsets[block.start] if i == 0 else offsets[a]
        end = offsets[block.end] - 1 if i == len(cuts) - 1 else offsets[b] - 1
        parts.append((start, end, shown))
    return parts or [(offsets[block.start], offsets[block.end] - 1, (f"{fence}{info}", fence))]


def _cut_points(text: str, offsets: list[int], first: int, last: int) -> list[tuple[int, int]]:
    """Line ranges [a, b) of at most BLOCK_MAX_LINES lines covering first..last, cut after a blank line when
    one falls in the second half of a range (a config file's sections stay whole)."""
    out = []
    a = first
    while a < last:
        b = min(a + BLOCK_MAX_LINES, last)
        if b < last:
            blank = [k for k in range(a + BLOCK_MAX_LINES // 2, b) if not text[offsets[k] : offsets[k + 1] - 1].strip()]
            if blank:
                b = blank[-1] + 1
        out.append((a, b))
        a = b
        while a < last and not text[offsets[a] : offsets[a + 1] - 1].strip():
            a += 1  # a part never starts on a blank line
    return out


# --------------------------------------------------------------------------- units' vectors
Embedded = tuple["np.ndarray", list["np.ndarray"]]
"""Passage vectors (n, dim) and, per passage, its units' vectors (units, dim), from one model run."""


def embed_passages(embedder: Embedder, passages: Sequence[Passage]) -> Embedded:
    """Each passage's vector (its ``index_text``, as ``embedder.embed`` gives it) and one vector per unit of
    ``unit_spans(passage.text)`` (cut from ``passage.blocks`` when the chunker gave them: the same units, without
    a parse): the unit's tokens, read in their passage, plus its heading.

    A unit's vector is the normalised sum of two unit vectors: its own tokens pooled in context and the
    passage's heading label pooled the same way, so "Annual plans are refundable within 30 days" is read
    as being about refunds. Ingest stores them beside the passage vectors (``index``); the local answerer
    computes the same ones when an index has none.
    """
    import numpy as np

    texts, spans = [], []
    for passage in passages:
        shift = len(passage.index_text) - len(passage.text)
        heading = (0, max(1, shift - 2))
        cut = unit_spans(passage.text) if passage.blocks is None else spans_in(passage.text, passage.blocks)
        spans.append([heading, *((s.start + shift, s.end + shift) for s in cut)])
        texts.append(passage.index_text)
    whole, pooled = embedder.embed_with_spans(texts, spans)
    units = []
    for matrix in pooled:
        combined = matrix[1:] + matrix[0]
        norms = np.maximum(np.linalg.norm(combined, axis=1, keepdims=True), 1e-12)
        units.append((combined / norms).astype(np.float32))
    return whole, units
