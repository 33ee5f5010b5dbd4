"""The structure of a passage's Markdown: its top-level blocks, with line spans, in reading order.

One reader for everything that needs more than plain text: the chunker
(``ingestion.markdown``) parses with ``parser``, the conflict rule
(``answer.conflicts``) reads ``blocks``, and the units an answer may quote are cut from them (``units``).
``blocks`` names the top-level blocks markdown-it-py finds (CommonMark plus
tables) and their lines.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    pass

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
