"""The structure of a passage's Markdown: its top-level blocks, with line spans, in reading order.

One reader for everything that needs more than plain text: the chunker
(``ingestion.markdown``) parses with ``parser``, the conflict rule
(``answer.conflicts``) reads ``blocks``, and the local answerer reads units.
``blocks`` names the top-level blocks markdown-it-py finds (CommonMark plus
tables) and their lines; ``unit_spans`` cuts a passage into the units an answer may quote
(sentences, list items, table rows, a sentence with the block it leads to),
as character spans, and ``embed_passages`` gives a passage and each of its
units a vector from one model run. The local answerer builds its statements on these spans
(``backends.local.evidence``), and ingest stores one vector per span beside each
passage's vector, so both always cut a passage the same way (at ingest from the blocks the
chunker read off its document's parse, ``Passage.blocks``: the same blocks, ``spans_in``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

from .text import LIST_MARKER, TABLE_RULE, blank_lines_dropped, block_fence, split_sentences, table_cells

if TYPE_CHECKING:
    import numpy as np

    from .embedder import Embedder
    from .passage import Passage

BlockKind = Literal["paragraph", "list", "table", "code", "quote", "heading", "html"]

_TOKEN_KINDS: dict[str, BlockKind] = {
    "paragraph_open": "paragraph",
    "bullet_list_open": "list",
    "ordered_list_open": "list",
    "table_open": "table",
    "fence": "code",
    "code_block": "code",
    "blockquote_open": "quote",
    "heading_open": "heading",
    "html_block": "html",
}
_QUOTE_MARKER = re.compile(r"^[ \t]*(?:>[ \t]?)+")


@dataclass(frozen=True)
class Block:
    """One top-level block: lines ``start`` to ``end`` (exclusive) of the text."""

    kind: BlockKind
    start: int
    end: int
    indent: int = 0
    """Characters before the content on its first line (a quote's ``> `` markers)."""
    items: tuple[tuple[int, int], ...] = field(default=())
    """For a list: the line span of each item's first paragraph (nested items included), in order."""


@functools.lru_cache(maxsize=1)
def parser() -> Any:
    """The one Markdown parser: CommonMark with tables (imported on first use), reading blocks only.

    Its core ``inline`` and ``text_join`` rules are off: block tokens (types, levels, line maps) do not
    depend on them, and they were a third of every parse. The one reader of inline content, a heading's
    text, asks for it with ``inline_children``.
    """
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark").enable("table")
    md.core.ruler.disable(["inline", "text_join"])
    return md


def block_tokens(text: str, env: dict[str, Any] | None = None) -> list[Any]:
    """The block tokens of ``text``; ``env`` receives its link reference definitions (``inline_children`` needs
    them: ``[text][ref]`` is a link only where ``ref`` is defined)."""
    return list(parser().parse(text, {} if env is None else env))


def inline_children(token: Any, env: dict[str, Any]) -> list[Any]:
    """An ``inline`` token's children as a full parse gives them: the core ``inline`` then ``text_join`` rules
    run on this one token, with the ``env`` of the parse it came from (once: a block parse leaves them empty)."""
    if not token.children:
        from markdown_it.rules_core import inline, text_join
        from markdown_it.rules_core.state_core import StateCore

        state = StateCore(token.content, parser(), env)
        state.tokens = [token]
        inline(state)
        text_join(state)
    return list(token.children or ())


def line_offsets(text: str) -> list[int]:
    """The character offset where each line starts, plus one past the end: ``text[o[i]:o[i+1]-1]`` is line i."""
    offsets = [0]
    for line in text.split("\n"):
        offsets.append(offsets[-1] + len(line) + 1)
    return offsets


def blocks(text: str) -> list[Block]:
    """The top-level blocks of ``text``; a block quote becomes one ``quote`` block per line of prose in it."""
    if only_paragraphs(text):
        return _paragraphs(text)
    return parsed_blocks(text)


_ORDERED_MARKER = re.compile(r"\d{1,9}[.)](?:[ \t]|$)")
"""What opens an ordered list item: 1-9 digits, then a dot or parenthesis, then a space, a tab or the line end."""


def only_paragraphs(text: str) -> bool:
    """Whether ``text`` can hold no Markdown block but paragraphs: every line is blank or starts, at its first
    character, with a letter or digit that is not an ordered list's marker. No heading, list, quote, fence,
    rule, HTML block, link definition, setext underline or indented code starts so, nor a table's
    delimiter row (``|``, ``-`` or ``:`` first), so markdown-it could find nothing else.

    Such text (nearly every SciFact abstract) is cut without markdown-it, whose import alone costs a cold
    ``ask`` ~20-30 ms; ``_paragraphs`` gives the very blocks markdown-it gives (``tests/test_units.py``
    holds the two side by side).
    """
    if "\r" in text:  # markdown-it ends a line at a lone CR too
        return False
    return all(line[0].isalnum() and not _ORDERED_MARKER.match(line) for line in text.split("\n") if line.strip(" \t"))


def _paragraphs(text: str) -> list[Block]:
    """The paragraphs of ``text`` that ``only_paragraphs``: runs of lines that are not blank (markdown-it's
    blank: spaces and tabs only), each ending at the blank line after it or at the text's end."""
    out: list[Block] = []
    start: int | None = None
    lines = text.split("\n")
    for n, line in enumerate(lines):
        blank = not line.strip(" \t")
        if blank and start is not None:
            out.append(Block("paragraph", start, n))
            start = None
        elif not blank and start is None:
            start = n
    if start is not None:
        out.append(Block("paragraph", start, len(lines)))
    return out


def parsed_blocks(text: str) -> list[Block]:
    """The top-level blocks of ``text`` as markdown-it finds them (``blocks`` skips it for plain paragraphs)."""
    tokens = block_tokens(text)
    lines = text.split("\n")
    return [block for i in range(len(tokens)) for block in token_blocks(tokens, i, lines)]


def token_blocks(tokens: list[Any], i: int, lines: list[str]) -> list[Block]:
    """The blocks ``tokens[i]`` opens if it is a top-level block ``blocks`` reads (none for a rule or a closing token),
    in the lines of the parsed text; a block quote gives one per line of prose in it."""
    tok = tokens[i]
    if tok.level != 0 or tok.map is None or tok.type not in _TOKEN_KINDS:
        return []
    kind = _TOKEN_KINDS[tok.type]
    start, end = tok.map
    if kind == "quote":
        return _quote_lines(lines, start, end)
    if kind == "list":
        return [Block("list", start, end, items=_items(tokens, i))]
    return [Block(kind, start, end)]


def _closing(tokens: list[Any], i: int) -> int:
    """The index just past the token that closes ``tokens[i]``."""
    opening = tokens[i].type
    close = opening.replace("_open", "_close")
    depth, j = 1, i + 1
    while j < len(tokens) and depth:
        depth += (tokens[j].type == opening) - (tokens[j].type == close)
        j += 1
    return j


def _items(tokens: list[Any], i: int) -> tuple[tuple[int, int], ...]:
    spans = []
    for j in range(i + 1, _closing(tokens, i)):
        tok = tokens[j]
        if tok.type == "paragraph_open" and tok.map is not None and tokens[j - 1].type == "list_item_open":
            spans.append((tok.map[0], tok.map[1]))
    return tuple(spans)


def _quote_lines(lines: list[str], start: int, end: int) -> list[Block]:
    out = []
    for n in range(start, min(end, len(lines))):
        marker = _QUOTE_MARKER.match(lines[n])
        indent = marker.end() if marker else 0
        if lines[n][indent:].strip():
            out.append(Block("quote", n, n + 1, indent=indent))
    return out


# --------------------------------------------------------------------------- units: what an answer may quote

UnitKind = Literal["sentence", "item", "row", "introduced", "block"]

UNITS_VERSION = 1
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
    """For a list item's second and later sentences: where the item's first sentence starts (else -1)."""


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
    out = []
    for first, last in block.items:
        raw = text[offsets[first] : offsets[last] - 1]
        marker = LIST_MARKER.match(raw)
        item_start = offsets[first] + (marker.end() if marker else len(raw) - len(raw.lstrip()))
        sentences = _split(text, item_start, offsets[last] - 1, "item", n)
        out += sentences[:1] + [replace(s, item_start=sentences[0].start) for s in sentences[1:]]
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
        return [(offsets[block.start], offsets[block.end] - 1, blank_lines_dropped(lines))]
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
