"""Markdown (and plain text) as sections of blocks: what the chunker packs.

Four steps, each keeping the text a passage will quote from:

0. Doc-site dialects (Hugo shortcodes, Docusaurus and MyST admonitions,
   GitHub alerts, comments, ...) are unfolded into plain Markdown
   (``dialects``).
1. MkDocs-style admonitions (``!!! note "Title"``) and content tabs
   (``=== "macOS"``) indent their content, which CommonMark would read as a
   code block. Their content is dedented and labelled (``Note: ...``,
   ``macOS:``), so prose stays prose and a tab's code keeps its label.
2. Soft-wrapped lines of a paragraph (also inside list items and quotes) are
   joined, so a sentence is never split by the source's line wrapping; hard
   breaks (two trailing spaces, a backslash) are kept.
3. Headings open sections (with their heading path); the blocks between are
   paragraphs, lists, tables, code and quotes.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, field
from typing import Any, Literal

from ..structure import block_tokens, inline_children
from ..text import unix_newlines
from .dialects import indented_body, unfold_dialects
from .inline_markup import inline
from .layout import Shape, token_shape
from .link_refs import references_as_text
from .mdwriter import label_body

BlockKind = Literal["text", "list", "table", "code", "quote"]

_ADMONITION = re.compile(
    r'^(?P<indent>[ \t]*)(?:!!!|\?\?\?\+?)[ \t]+(?P<kind>[\w-]+)(?:[ \t]+[\w-]+)*(?:[ \t]+"(?P<title>[^"]*)")?[ \t]*$'
)
"""``!!! note "Title"``; the words after the kind are more classes (Material's ``inline end``, ``annotate``)."""
_TAB = re.compile(r'^(?P<indent>[ \t]*)===\+?[ \t]+"(?P<title>[^"]*)"[ \t]*$')
_KINDS: dict[str, BlockKind] = {
    "bullet_list_open": "list",
    "ordered_list_open": "list",
    "table_open": "table",
    "fence": "code",
    "code_block": "code",
    "blockquote_open": "quote",
}


@dataclass
class Block:
    kind: BlockKind
    text: str
    pages: tuple[int, ...] = ()
    """The PDF pages (1-based) it comes from; () for every other format (see ``chunking``)."""
    ocr: bool = False
    """Whether OCR read it from a scanned PDF page."""
    shape: Shape | None = None
    """Its top-level blocks as its document's parse found them (``layout``); None when not read from one."""

    @property
    def introduces(self) -> bool:
        """A paragraph whose last sentence ends with ':' introduces the block after it."""
        return self.kind == "text" and self.text.rstrip().endswith(":")


@dataclass
class Section:
    path: tuple[str, ...]
    blocks: list[Block] = field(default_factory=list)


# --------------------------------------------------------------------------- 1. admonitions and tabs


def expand_mkdocs(text: str) -> str:
    """Dedent admonition and tab content and label it; leave everything else as it is."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        match = _ADMONITION.match(lines[i]) or _TAB.match(lines[i])
        if match is None or _in_fence(out):
            out.append(lines[i])
            i += 1
            continue
        indent = match.group("indent")
        # A tab (``=== "..."``) has no kind: an empty title leaves its content unlabelled.
        kind = match.groupdict().get("kind") or ""
        label = match.group("title") or kind.replace("-", " ").capitalize()
        body, i = indented_body(lines, i + 1, indent + "    ")
        content = expand_mkdocs("\n".join(body)).split("\n")  # tabs inside admonitions
        if not kind and not any(c.strip() for c in content):
            continue  # a tab left with nothing to read (a screenshot, an included file): its title alone says nothing
        out += label_body(label, content, indent)
    return "\n".join(out)


def _in_fence(lines: list[str]) -> bool:
    """Whether the text so far ends inside an open code fence (a marker there is code, not markup)."""
    return sum(1 for line in lines if line.lstrip().startswith(("```", "~~~"))) % 2 == 1


# --------------------------------------------------------------------------- the one parse


@dataclass(frozen=True)
class Parsed:
    """One markdown-it parse of a text: its lines, its block tokens and its link references (``env``)."""

    text: str
    lines: list[str]
    tokens: list[Any]
    env: dict[str, Any]


def parse_markdown(text: str) -> Parsed:
    env: dict[str, Any] = {}
    return Parsed(text, text.split("\n"), block_tokens(text, env), env)


# --------------------------------------------------------------------------- 2. soft wraps


def unwrap_paragraphs(text: str) -> str:
    """Join the soft-wrapped lines of every paragraph into one line (hard breaks are kept)."""
    return unwrapped(parse_markdown(text)).text


def unwrapped(doc: Parsed) -> Parsed:
    """``doc`` with the soft-wrapped lines of every paragraph joined, and its tokens' line maps moved to the
    joined lines: the parse of the joined text, without parsing it again.

    Joining a paragraph's lines leaves every block where it was (a paragraph's lines are its lines because no
    line after its first could open a block), except where the first line is only a beginning: a link
    reference definition (``[x]: <a``) or an HTML tag (``<span``) completed by the next line; a line kept
    after a hard break, or a line after the paragraph that reads as a table's rule, that makes the joined
    line a table's header. Those texts are parsed again (as before: their passages stay the same).
    """
    lines = doc.lines
    joined: dict[int, str] = {}
    dropped: list[int] = []
    again = False
    for i, tok in enumerate(doc.tokens):
        if tok.type != "paragraph_open" or tok.map is None:
            continue
        start, end = tok.map
        if end - start < 2:
            continue
        kept, joins = _join(lines, start, end, joined, dropped)
        again = again or (joins and (kept or _could_open(doc, i, end)))
    if not dropped:
        return doc
    skip = set(dropped)
    text = "\n".join(joined.get(n, lines[n]) for n in range(len(lines)) if n not in skip)
    if again:
        return parse_markdown(text)
    for tok in doc.tokens:
        if tok.map is not None:
            tok.map = [tok.map[0] - bisect_left(dropped, tok.map[0]), tok.map[1] - bisect_left(dropped, tok.map[1])]
    return Parsed(text, text.split("\n"), doc.tokens, doc.env)


def _join(lines: list[str], start: int, end: int, joined: dict[int, str], dropped: list[int]) -> tuple[bool, bool]:
    """Join lines ``start``..``end`` of one paragraph into ``joined`` (the line each joined run starts on) and
    ``dropped`` (the lines joined into another); whether a hard break kept a line, and whether any was joined."""
    line = lines[start]
    kept = joins = False
    for n in range(start + 1, end):
        if line.endswith("  ") or line.endswith("\\"):
            joined[start] = line
            start, line, kept = n, lines[n], True
            continue
        line = f"{line.rstrip()} {_continuation(lines[n])}"
        dropped.append(n)
        joins = True
    joined[start] = line
    return kept, joins


def _could_open(doc: Parsed, i: int, end: int) -> bool:
    """Whether the paragraph opened by ``doc.tokens[i]`` (ending before line ``end``), once joined, could read as
    another block: a reference definition or HTML tag its first line only began, or a table's header row."""
    content = doc.tokens[i + 1].content if i + 1 < len(doc.tokens) else ""
    after = doc.lines[end] if end < len(doc.lines) else ""
    return (
        content.startswith("<")
        or (content.startswith("[") and "]:" in content)
        or bool(_RULE_LIKE.fullmatch(after))  # a table's first line after it reads as the joined line's rule
    )


_RULE_LIKE = re.compile(r"[ \t>|:]*-[ \t>|:-]*")
"""A line that could be a table's delimiter row (``|---|:--|``), in a quote or not."""


def _continuation(line: str) -> str:
    """A paragraph's continuation line without its indentation or blockquote markers."""
    return re.sub(r"^[ \t]*(?:>[ \t]?)*", "", line).strip()


# --------------------------------------------------------------------------- 3. sections


def markdown_sections(text: str, title: str, *, html: bool = True) -> list[Section]:
    """Sections (by heading) of blocks, after expanding admonitions and joining soft wraps (one parse); ``html``:
    whether HTML in ``text`` is markup (written in Markdown) or text (converted from another format)."""
    # The line numbers markdown-it maps blocks to must index ``lines`` (text from the Python API may hold "\r").
    text = unix_newlines(text)
    doc = unwrapped(parse_markdown(expand_mkdocs(unfold_dialects(text, html=html))))
    # ``[Docusaurus]`` defined at the page's end reads as the page shows it: its text (``link_refs``).
    tokens, lines = doc.tokens, references_as_text(doc.lines, doc.env.get("references", {}))
    sections = [Section(())]
    stack: list[tuple[int, str]] = []
    for i, tok in enumerate(tokens):
        if tok.level != 0 or tok.map is None:
            continue
        if tok.type == "heading_open":
            level = int(tok.tag[1])
            heading = heading_text(tokens[i + 1], doc.env) if i + 1 < len(tokens) else ""
            while stack and stack[-1][0] >= level:
                stack.pop()
            # A top heading that repeats the title adds nothing to the path (``## Custom Keybindings`` on a page
            # without an H1, titled by its file name, is the title again).
            if not (not stack and heading.casefold() == title.casefold()):
                stack.append((level, heading or "section"))
            sections.append(Section(tuple(h for _, h in stack)))
            continue
        start, end = tok.map
        # A block runs from its first line to its last that is not blank (markdown-it's blank: spaces and tabs
        # only), as ``structure.parsed_blocks`` finds it in the passage's text: a list's map takes in a line of
        # spaces after it, which would end the passage's text and its list one line later.
        while end > start and not lines[end - 1].strip(" \t"):
            end -= 1
        while start < end and not lines[start].strip(" \t"):
            start += 1
        block_text = "\n".join(lines[start:end])
        if block_text.strip():
            shape = token_shape(tokens, i, lines, start, block_text)
            sections[-1].blocks.append(Block(_KINDS.get(tok.type, "text"), block_text, shape=shape))
    return [s for s in sections if s.blocks]


_HEADING_ATTRS = re.compile(r"\s*\{:?\s*[#.][^{}]*\}\s*$")


def heading_text(inline_token: Any, env: dict[str, Any]) -> str:
    """A heading as plain text: a link as its text, code without its backticks, inline HTML and anchors dropped.

    ``## Implementing [get](x.md) <a name="impl"></a> {#impl}`` reads ``Implementing get``: the heading path,
    the title and the passage ID's slug are all built from what a reader of the rendered page sees. ``env`` is
    the parse's (its link references).
    """
    parts: list[str] = []
    for child in inline_children(inline_token, env):
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type == "image":
            parts.append(child.content)
    return " ".join(_HEADING_ATTRS.sub("", "".join(parts)).split())


_H1_LINE = re.compile(r"^ {0,3}(?:#(?:[ \t]|$)|=+[ \t]*$)", re.MULTILINE)
"""A line that may be a top-level H1 (``# Title``) or underline one (``===``): no H1 ends before the first."""


def first_h1(text: str) -> str | None:
    """The text of the document's first top-level ``# H1`` (a lower heading is never a title).

    A page's title costs a parse of its first lines: the text up to the first line that may hold an H1 and the line
    after it (a table's header is known by the line after it) is parsed first, and its H1 taken when it ends on
    that line and no ``[`` comes before its end (a link reference defined further on changes a heading's text, and
    a definition's title may run on over lines); else the whole text is parsed."""
    text = unix_newlines(text)
    candidate = _H1_LINE.search(text)
    if candidate is None:
        return None
    end = _line_end(text, candidate.start())
    if "[" not in text[:end]:
        found = _first_h1(parse_markdown(text[: _line_end(text, end + 1)]))
        if found is not None and found[1] == text.count("\n", 0, end) + 1:
            return found[0]
    found = _first_h1(parse_markdown(text))
    return None if found is None else found[0]


def _line_end(text: str, at: int) -> int:
    """Where the line holding offset ``at`` ends (its newline, or the text's end)."""
    end = text.find("\n", min(at, len(text)))
    return len(text) if end < 0 else end


def _first_h1(doc: Parsed) -> tuple[str, int] | None:
    """The first top-level H1 with text in ``doc``: its text, and the line after its last."""
    tokens = doc.tokens
    for i, tok in enumerate(tokens[:-1]):
        if tok.type == "heading_open" and tok.level == 0 and tok.tag == "h1" and tok.map is not None:
            heading = " ".join(inline(heading_text(tokens[i + 1], doc.env)).split())  # icons, roles, attribute lists
            if heading:
                return heading, tok.map[1]
    return None


def plain_sections(text: str) -> list[Section]:
    """Plain text: paragraphs (blank-line separated, soft wraps joined), in one section."""
    blocks = [Block("text", " ".join(p.split())) for p in re.split(r"\n\s*\n", text) if p.strip()]
    return [Section((), blocks)] if blocks else []
