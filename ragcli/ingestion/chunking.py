"""Cutting Documents into Passages: structure first, size second.

Markdown (and HTML, converted to Markdown) is split into sections by heading;
every passage keeps its heading path. Inside a section, blocks (paragraphs,
lists, tables, code) are packed whole while they fit the token cap. A block
over the cap is split on its own structure: table rows (with the header row
repeated), list items, code lines, and for prose sentence boundaries with a
one-sentence overlap. Only a single sentence longer than the cap is cut by
words.

Passage IDs are ``{doc_id}@{version}#{section}`` with ``-2``, ``-3`` for later
parts of one section, so they stay the same across runs while the content
does. Bump CHUNKER_VERSION whenever the output for the same input can change:
the index records it, and a new value re-chunks every document.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..embedder import MAX_MODEL_TOKENS, SPECIAL_TOKENS
from ..passage import HEADING_SEPARATOR, Passage
from ..text import slugify, split_sentences
from .loaders import Document

CHUNKER_VERSION = 2
OVERLAP_MAX_TOKENS = 48
"""A sentence repeated at the start of the next part must be short, or it crowds out new text."""

TokenCounter = Callable[[Sequence[str]], list[int]]
"""Counts model tokens (without special tokens) for each text."""


@dataclass
class _Block:
    kind: str  # "text" | "list" | "table" | "code"
    text: str


@dataclass
class _Section:
    path: tuple[str, ...]
    blocks: list[_Block] = field(default_factory=list)


_EXCEPTION_START = re.compile(r"^(except|unless|however|but|exception|this does not apply|note:|only if)\b", re.IGNORECASE)


# --------------------------------------------------------------------------- structure


def _markdown_sections(text: str, title: str) -> list[_Section]:
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark").enable("table")
    tokens = md.parse(text)
    lines = text.split("\n")
    sections = [_Section(())]
    stack: list[tuple[int, str]] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok.level != 0 or tok.map is None:
            i += 1
            continue
        if tok.type == "heading_open":
            level = int(tok.tag[1])
            heading = " ".join(tokens[i + 1].content.split()) if i + 1 < len(tokens) else ""
            while stack and stack[-1][0] >= level:
                stack.pop()
            # An H1 that repeats the title adds nothing to the path.
            if not (level == 1 and not stack and heading.casefold() == title.casefold()):
                stack.append((level, heading or "section"))
            sections.append(_Section(tuple(h for _, h in stack)))
            i += 1
            continue
        start, end = tok.map
        block_text = "\n".join(lines[start:end]).strip("\n")
        kind = {
            "bullet_list_open": "list",
            "ordered_list_open": "list",
            "table_open": "table",
            "fence": "code",
            "code_block": "code",
        }.get(tok.type, "text")
        if block_text.strip():
            sections[-1].blocks.append(_Block(kind, block_text))
        i += 1
    return [s for s in sections if s.blocks]


def _plain_sections(text: str, is_pdf: bool) -> list[_Section]:
    pages = text.split("\f") if is_pdf else [text]
    sections = []
    for number, page in enumerate(pages, start=1):
        blocks = [_Block("text", p.strip()) for p in re.split(r"\n\s*\n", page) if p.strip()]
        if blocks:
            sections.append(_Section((f"Page {number}",) if is_pdf and len(pages) > 1 else (), blocks))
    return sections


# --------------------------------------------------------------------------- sizing


class _Sizer:
    """Packs units into parts of at most ``budget`` tokens, counting with the model's tokenizer."""

    def __init__(self, count: TokenCounter, budget: int) -> None:
        self.count = count
        self.budget = budget

    def tokens(self, text: str) -> int:
        return self.count([text])[0]

    def fits(self, text: str) -> bool:
        return self.tokens(text) <= self.budget

    def split_block(self, block: _Block) -> list[str]:
        if self.fits(block.text):
            return [block.text]
        if block.kind == "table":
            return self._split_table(block.text)
        if block.kind == "list":
            return self._pack(_list_items(block.text), joiner="\n")
        if block.kind == "code":
            return self._pack(block.text.split("\n"), joiner="\n")
        return self._split_prose(block.text)

    def _split_table(self, text: str) -> list[str]:
        rows = text.split("\n")
        header = "\n".join(rows[:2])
        body = rows[2:]
        room = _Sizer(self.count, max(16, self.budget - self.tokens(header) - 1))
        return [f"{header}\n{part}" for part in room._pack(body, joiner="\n")]

    def _split_prose(self, text: str) -> list[str]:
        sentences = _glue_exceptions(split_sentences(" ".join(text.split())), self)
        parts: list[str] = []
        current: list[str] = []
        for sentence in sentences:
            for unit in self._words_if_needed(sentence):
                candidate = " ".join([*current, unit])
                if current and not self.fits(candidate):
                    parts.append(" ".join(current))
                    last = current[-1]
                    # Overlap: repeat the previous sentence so a part does not start mid-thought.
                    keep = [last] if self.tokens(last) <= OVERLAP_MAX_TOKENS and self.fits(f"{last} {unit}") else []
                    current = [*keep, unit]
                else:
                    current.append(unit)
        if current:
            parts.append(" ".join(current))
        return parts

    def _pack(self, units: list[str], joiner: str) -> list[str]:
        parts: list[str] = []
        current: list[str] = []
        for raw in units:
            for unit in self._words_if_needed(raw):
                if current and not self.fits(joiner.join([*current, unit])):
                    parts.append(joiner.join(current))
                    current = []
                current.append(unit)
        if current:
            parts.append(joiner.join(current))
        return parts

    def _words_if_needed(self, unit: str) -> list[str]:
        """The last resort: cut one over-long unit into word windows."""
        if self.fits(unit):
            return [unit]
        words = unit.split()
        pieces: list[str] = []
        current: list[str] = []
        for word in words:
            if current and not self.fits(" ".join([*current, word])):
                pieces.append(" ".join(current))
                current = []
            current.append(word)
        if current:
            pieces.append(" ".join(current))
        # A single "word" over the cap (a base64 blob): cut it by characters.
        out: list[str] = []
        for piece in pieces:
            while not self.fits(piece) and len(piece) > 1:
                cut = max(1, len(piece) * self.budget // max(1, self.tokens(piece)) - 1)
                # Tokens are not spread evenly over characters ("!!!!" is one token
                # per character, "aaaa" a few for many): shrink until the cut fits.
                while cut > 1 and not self.fits(piece[:cut]):
                    cut = max(1, min(cut - 1, cut * self.budget // max(1, self.tokens(piece[:cut]))))
                out.append(piece[:cut])
                piece = piece[cut:]
            out.append(piece)
        return out


def _list_items(text: str) -> list[str]:
    """Top-level items of a Markdown list, each with its nested lines."""
    items: list[str] = []
    for line in text.split("\n"):
        if re.match(r"^([-*+]|\d+[.)])\s", line) or not items:
            items.append(line)
        else:
            items[-1] += "\n" + line
    return items


def _glue_exceptions(sentences: list[str], sizer: _Sizer) -> list[str]:
    """Keep a rule and the exception that follows it in one unit when they fit."""
    out: list[str] = []
    for sentence in sentences:
        if out and _EXCEPTION_START.match(sentence) and sizer.fits(f"{out[-1]} {sentence}"):
            out[-1] = f"{out[-1]} {sentence}"
        else:
            out.append(sentence)
    return out


def _pack_section(blocks: list[_Block], sizer: _Sizer) -> list[str]:
    """Whole blocks together while they fit; an over-long block is split on its own."""
    parts: list[str] = []
    current: list[str] = []
    for block in blocks:
        pieces = sizer.split_block(block)
        for piece in pieces:
            candidate = "\n\n".join([*current, piece])
            if current and not sizer.fits(candidate):
                parts.append("\n\n".join(current))
                current = []
            current.append(piece)
    if current:
        parts.append("\n\n".join(current))
    return parts


# --------------------------------------------------------------------------- passages


def chunk_document(doc: Document, tenant: str, count_tokens: TokenCounter, max_tokens: int = MAX_MODEL_TOKENS) -> list[Passage]:
    """Cut one document into passages of at most ``max_tokens`` model tokens, special tokens and heading line included."""
    if doc.format in ("markdown", "html"):
        sections = _markdown_sections(doc.text, doc.title)
    else:
        sections = _plain_sections(doc.text, is_pdf=doc.format == "pdf")
    passages: list[Passage] = []
    used: set[str] = set()
    for section in sections:
        header = HEADING_SEPARATOR.join((doc.title, *section.path)) + "\n\n"
        # The embedder adds its special tokens ([CLS], [SEP]) to every input.
        budget = max(32, max_tokens - count_tokens([header])[0] - SPECIAL_TOKENS)
        parts = _pack_section(section.blocks, _Sizer(count_tokens, budget))
        slug = _section_slug(section.path, used)
        for n, text in enumerate(parts, start=1):
            key = _unique(slug if n == 1 else f"{slug}-{n}", used)
            passages.append(
                Passage(
                    id=f"{doc.doc_id}@{doc.version}#{key}",
                    doc_id=doc.doc_id,
                    version=doc.version,
                    section=key,
                    tenant=tenant,
                    acl=doc.acl,
                    effective_from=doc.effective_from,
                    superseded_on=doc.superseded_on,
                    title=doc.title,
                    heading_path=section.path,
                    source=doc.source,
                    source_url=doc.source_url,
                    text=text,
                )
            )
    return passages


def _section_slug(path: tuple[str, ...], used: set[str]) -> str:
    """The last heading's slug; the whole path's if that is taken; then a counter."""
    candidates = [slugify(path[-1], fallback="top") if path else "top"]
    if path:
        candidates.append(slugify("-".join(path)))
    for candidate in candidates:
        if candidate not in used:
            return candidate
    n = 2
    while f"{candidates[-1]}-s{n}" in used:
        n += 1
    return f"{candidates[-1]}-s{n}"


def _unique(key: str, used: set[str]) -> str:
    """Guard against a part key (``tier-1`` part 2 = ``tier-1-2``) meeting a heading slug."""
    unique, n = key, 2
    while unique in used:
        unique, n = f"{key}-x{n}", n + 1
    used.add(unique)
    return unique
