"""What the local answerer can quote: the answerable units of a passage, and how to show them.

A unit is a sentence of prose, a list item, or a table row, never a lone line
of code or a code comment, and never a pointer elsewhere ("For more details,
see the X documentation"). A sentence that introduces a code block, list or
table (it ends with ':') carries that block with it, so ``uv lock`` or
``classifiers = ["Private :: Do Not Upload"]`` reaches the user. Every unit's
``quote`` is a verbatim slice of the passage text (the citation checks
compare against it); its ``statement`` is what a person reads: link text
without the URL, no emphasis markers or backticks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

from ..answer.citations import MIN_QUOTE_WORDS, quote_words
from ..passage import Passage
from ..text import FENCE, LIST_MARKER, TABLE_RULE, split_sentences, table_cells

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

UnitKind = Literal["sentence", "item", "row", "introduced"]

_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_REF_LINK = re.compile(r"\[([^\]]+)\]\[[^\]]*\]")
_STRONG = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_EM_STAR = re.compile(r"(?<![\w*])\*(?=\S)(.+?)(?<=\S)\*(?![\w*])")
_EM_UNDERSCORE = re.compile(r"(?<![\w])_(?=\S)(.+?)(?<=\S)_(?![\w])")
_CODE_SPAN = re.compile(r"`+([^`]+?)`+")
# "For more details on X, see the Y documentation." points elsewhere; it answers nothing.
_POINTER = re.compile(
    r"^(?:or,?\s+)?(?:(?:for|to learn|to read) more\b[^.]*?,\s*)?(?:please\s+)?"
    r"(?:see|refer to|read on|read more|learn more|check out|consult)\b",
    re.IGNORECASE,
)
INTRODUCED_MAX_LINES = 12
"""A code block longer than this is cut in the statement (the quote keeps the introducing sentence only)."""


@dataclass(frozen=True)
class Unit:
    """One thing the local answerer may claim, from one passage."""

    passage: Passage
    kind: UnitKind
    quote: str
    """A verbatim slice of ``passage.text``."""
    statement: str
    """The same content as a person reads it."""
    block: int = 0
    """Which block of the passage it comes from (a paragraph, a list, a table), in reading order."""


def readable(markdown: str) -> str:
    """Inline Markdown as plain text: link text without URLs, no emphasis markers or backticks, one line."""
    text = _LINK.sub(r"\1", markdown)
    text = _REF_LINK.sub(r"\1", text)
    text = _CODE_SPAN.sub(lambda m: "\0" + m.group(1) + "\0", text)  # protect code from emphasis rules
    pieces = text.split("\0")
    for i in range(0, len(pieces), 2):
        piece = _STRONG.sub(r"\2", pieces[i])
        piece = _EM_STAR.sub(r"\1", piece)
        pieces[i] = _EM_UNDERSCORE.sub(r"\1", piece)
    return " ".join("".join(pieces).split())


def code_lines(block: str) -> list[str]:
    """The lines of a code block without its fences."""
    return [line for line in block.split("\n") if not FENCE.match(line)]


def _parser() -> MarkdownIt:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table")


def units(passage: Passage) -> list[Unit]:
    """Every unit of ``passage`` with a quote of at least the minimum length, in reading order."""
    text = passage.text
    lines = text.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    blocks = _blocks(_parser().parse(text))
    found: list[Unit] = []
    for n, (kind, start, end, tokens) in enumerate(blocks):
        following = blocks[n + 1] if n + 1 < len(blocks) else None
        if kind == "paragraph":
            here = _prose(passage, offsets, start, end, following)
        elif kind == "list":
            here = _list_items(passage, offsets, tokens)
        elif kind == "table":
            here = _rows(passage, lines, offsets, start, end)
        else:
            continue
        found += [replace(u, block=n) for u in here]
    return [u for u in found if quote_words(u.quote) >= MIN_QUOTE_WORDS and not is_pointer(u.statement)]


def is_pointer(statement: str) -> bool:
    """A sentence that sends the reader elsewhere (``See the lockfile documentation for more details.``)."""
    return bool(_POINTER.match(statement))


def _blocks(tokens: list[Any]) -> list[tuple[str, int, int, list[Any]]]:
    """Top-level blocks as (kind, first line, end line, their tokens)."""
    names = {
        "paragraph_open": "paragraph",
        "bullet_list_open": "list",
        "ordered_list_open": "list",
        "table_open": "table",
        "fence": "code",
        "code_block": "code",
        "blockquote_open": "quote",
    }
    out: list[tuple[str, int, int, list[Any]]] = []
    for i, tok in enumerate(tokens):
        if tok.level == 0 and tok.map is not None and tok.type in names:
            close = tok.type.replace("_open", "_close")
            j = i + 1
            if tok.type.endswith("_open"):
                depth = 1
                while j < len(tokens) and depth:
                    depth += (tokens[j].type == tok.type) - (tokens[j].type == close)
                    j += 1
            out.append((names[tok.type], tok.map[0], tok.map[1], tokens[i:j]))
    return out


def _slice(text: str, offsets: list[int], start_line: int, end_line: int) -> str:
    return text[offsets[start_line] : offsets[end_line] - 1]


def _prose(
    passage: Passage, offsets: list[int], start: int, end: int, following: tuple[str, int, int, list[Any]] | None
) -> list[Unit]:
    paragraph = _slice(passage.text, offsets, start, end)
    sentences = split_sentences(paragraph)
    out = [Unit(passage, "sentence", s, readable(s)) for s in sentences]
    if (
        sentences
        and sentences[-1].endswith(":")
        and following is not None
        and following[0] in ("code", "list", "table")
    ):
        out[-1] = _introduced(passage, offsets, sentences[-1], paragraph, start, following)
    return out


def _introduced(
    passage: Passage,
    offsets: list[int],
    sentence: str,
    paragraph: str,
    start: int,
    block: tuple[str, int, int, list[Any]],
) -> Unit:
    """The introducing sentence with its block: quoted verbatim through the block's end, shown as sentence + block."""
    kind, block_start, block_end, _tokens = block
    body = _slice(passage.text, offsets, block_start, block_end)
    lines = (
        code_lines(body)
        if kind == "code"
        else [
            readable(LIST_MARKER.sub("- ", line))
            for line in body.split("\n")
            if line.strip() and not TABLE_RULE.match(line)
        ]
    )
    if len(lines) > INTRODUCED_MAX_LINES:
        lines = [*lines[:INTRODUCED_MAX_LINES], "…"]
    sentence_at = offsets[start] + paragraph.rfind(sentence)
    quote = passage.text[sentence_at : offsets[block_end] - 1]
    if len(code_lines(body)) > INTRODUCED_MAX_LINES:
        quote = sentence  # a long block is shown cut; the quote must not claim more than is shown
    return Unit(passage, "introduced", quote, readable(sentence) + "\n" + "\n".join(lines))


def _list_items(passage: Passage, offsets: list[int], tokens: list[Any]) -> list[Unit]:
    """Each item's own text (its first paragraph, marker dropped), as sentences."""
    out = []
    for i, tok in enumerate(tokens):
        if tok.type != "paragraph_open" or tok.map is None or i == 0 or tokens[i - 1].type != "list_item_open":
            continue
        item = LIST_MARKER.sub("", _slice(passage.text, offsets, tok.map[0], tok.map[1]).strip())
        out += [Unit(passage, "item", s, readable(s)) for s in split_sentences(item)]
    return out


def _rows(passage: Passage, lines: list[str], offsets: list[int], start: int, end: int) -> list[Unit]:
    """Each body row, shown as ``Header: cell`` pairs so a row reads on its own."""
    header = [readable(c) for c in table_cells(lines[start])]
    out = []
    for n in range(start + 1, end):
        row = lines[n]
        if not row.strip() or TABLE_RULE.match(row):
            continue
        cells = [readable(c) for c in table_cells(row)]
        pairs = [f"{h}: {c}" if h else c for h, c in zip(header, cells, strict=False) if c]
        out.append(Unit(passage, "row", row.strip(), "; ".join(pairs) + "."))
    return out
