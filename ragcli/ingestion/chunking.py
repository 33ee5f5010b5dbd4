"""Cutting Documents into Passages: structure first, size second.

Markdown (and HTML, converted to Markdown) is split into sections by heading
(``markdown``); every passage keeps its heading path. Inside a section, blocks
(paragraphs, lists, tables, code) are packed whole while they fit the token
cap. A sentence that introduces a code block, list or table (it ends with
':') stays in the same passage as that block; when the block itself must be
split, every part repeats the introducing sentence. A block over the cap is
split on its own structure: table rows (with the header row repeated), list
items, code lines, and for prose sentence boundaries with a one-sentence
overlap. Only a single sentence longer than the cap is cut by words.

Passage IDs are ``{doc_id}@{version}#{section}`` with ``-2``, ``-3`` for later
parts of one section, so they stay the same across runs while the content
does. Bump CHUNKER_VERSION whenever the output for the same input can change:
the index records it, and a new value re-chunks every document.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ..embedder import MAX_MODEL_TOKENS, SPECIAL_TOKENS
from ..passage import HEADING_SEPARATOR, Passage
from ..text import slugify, split_sentences
from .loaders import Document
from .markdown import Block, Section, markdown_sections, plain_sections
from .mdwriter import read_page_mark

CHUNKER_VERSION = 8
"""3: soft wraps joined, admonitions and tabs unfolded, an introducing sentence kept with its block.
4: a PDF with an outline is cut by its bookmarks (Markdown, Word, reStructuredText, notebook and CSV loaders).
5: passages record their file relative to the ingested folder and the length of a carried introduction.
6: doc-site dialects unfolded (Hugo, Docusaurus, MyST, GitHub alerts, comments; ``dialects``).
7: code in list items and quotes split by lines; titles from front matter, H1 or file name; headings as plain
text; Material/pymdownx/mkdocstrings markup and Sphinx captions, tab titles and references read as text; PDF
passages record their pages (and OCR) and a page starts a new passage; ruled tables are tables; a PDF without an
outline has no ``Page N`` section per page (its passages have pages instead).
8: Sphinx and MyST cross-references show their target's title from the folder (``references``)."""
OVERLAP_MAX_TOKENS = 48
"""A sentence repeated at the start of the next part must be short, or it crowds out new text."""
INTRODUCED_KINDS = ("code", "list", "table")

Piece = tuple[str, tuple[int, ...], bool]
"""Text that fits, the PDF pages it comes from and whether OCR read it (() and False for other formats)."""

TokenCounter = Callable[[Sequence[str]], list[int]]
"""Counts model tokens (without special tokens) for each text."""

_EXCEPTION_START = re.compile(
    r"^(except|unless|however|but|exception|this does not apply|note:|only if)\b", re.IGNORECASE
)


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

    def split_block(self, block: Block) -> list[str]:
        if self.fits(block.text):
            return [block.text]
        if block.kind == "table":
            return self._split_table(block.text)
        if block.kind == "list":
            items = _list_items(block.text)
            return self._pack([u for item in items for u in self._container_units(item)], joiner="\n")
        if block.kind == "code":
            return self._split_code(block.text)
        if block.kind == "quote":
            return self._pack(self._container_units(block.text), joiner="\n")
        return self._split_prose(block.text)

    def _container_units(self, text: str) -> list[str]:
        """A list item or a quote that does not fit, cut on its own structure as a top-level section is: its
        paragraphs whole (or by sentences), its code by lines with every part fenced again and the sentence that
        introduces the code repeated; never by words through the middle of a line of code."""
        if self.fits(text):
            return [text]
        units: list[str] = []
        lead = ""
        for is_code, lines in _segments(text.split("\n")):
            if not is_code:
                for paragraph in _paragraphs(lines):
                    units += [paragraph] if self.fits(paragraph) else self._split_prose(_unquoted(paragraph))
                lead = units[-1] if units and units[-1].rstrip().endswith(":") else ""
                continue
            code = "\n".join(lines)
            room = max(16, self.budget - self.tokens(lead) - 1) if lead else 0
            if lead and not self.fits(f"{lead}\n{code}") and room >= self.budget // 2:
                # Every part of the code says what it is for, as the parts of a top-level block do.
                parts = _Sizer(self.count, room)._split_code(code)
                units[-1] = f"{lead}\n{parts[0]}"
                units += [f"{lead}\n{part}" for part in parts[1:]]
            else:
                units += self._split_code(code)
            lead = ""
        return units

    def _split_table(self, text: str) -> list[str]:
        rows = text.split("\n")
        header = "\n".join(rows[:2])
        body = rows[2:]
        room = _Sizer(self.count, max(16, self.budget - self.tokens(header) - 1))
        return [f"{header}\n{part}" for part in room._pack(body, joiner="\n")]

    def _split_code(self, text: str) -> list[str]:
        """Code by lines; a fenced block's parts are each fenced again, so every part still reads as code."""
        lines = text.split("\n")
        first, last = _bare(lines[0]), _bare(lines[-1]) if len(lines) > 1 else ""
        fenced = len(lines) > 2 and first.startswith(("```", "~~~")) and last in ("```", "~~~", first[:3])
        if not fenced:
            return self._pack(lines, joiner="\n")
        opener, closer = lines[0], lines[-1]
        room = _Sizer(self.count, max(16, self.budget - self.tokens(f"{opener}\n{closer}") - 2))
        return [f"{opener}\n{part}\n{closer}" for part in room._pack(lines[1:-1], joiner="\n")]

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
        start = 0
        while start < len(words):
            count = self._words_that_fit(words, start)
            pieces.append(" ".join(words[start : start + count]))
            start += count
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

    def _words_that_fit(self, words: list[str], start: int) -> int:
        """How many words from ``start`` fit together (at least 1): the same greedy cut as adding one word at a
        time (a prefix's token count only grows with its words), found with O(log n) token counts instead of one
        per word, so a very long line costs time linear in its length."""

        def fits(n: int) -> bool:
            return self.fits(" ".join(words[start : start + n]))

        left = len(words) - start
        good, bad = 1, 2
        while bad <= left and fits(bad):
            good, bad = bad, bad * 2
        bad = min(bad, left + 1)
        while bad - good > 1:
            middle = (good + bad) // 2
            good, bad = (middle, bad) if fits(middle) else (good, middle)
        return good


_QUOTE_PREFIX = re.compile(r"^[ \t]*(?:>[ \t]?)+")
_FENCE_MARK = re.compile(r"^(`{3,}|~{3,})")


def _bare(line: str) -> str:
    """A line without its indentation and blockquote markers."""
    return _QUOTE_PREFIX.sub("", line).strip()


def _segments(lines: list[str]) -> list[tuple[bool, list[str]]]:
    """Runs of lines, each a fenced code block (True, fences included) or what lies between (False); a fence
    may be indented (in a list item) or quoted (``> ```python``)."""
    out: list[tuple[bool, list[str]]] = []
    marker: str | None = None
    for line in lines:
        bare = _bare(line)
        opened = _FENCE_MARK.match(bare)
        if marker is None and opened and not (opened.group(1)[0] == "`" and "`" in bare[opened.end() :]):
            marker = opened.group(1)
            out.append((True, [line]))
        elif marker is not None:
            out[-1][1].append(line)
            if bare and set(bare) == {marker[0]} and len(bare) >= len(marker):
                marker = None
        elif out and not out[-1][0]:
            out[-1][1].append(line)
        else:
            out.append((False, [line]))
    return out


def _paragraphs(lines: list[str]) -> list[str]:
    """Non-blank runs of lines (a list item's lead line, a quoted paragraph)."""
    text = "\n".join(lines)
    return [p.strip("\n") for p in re.split(r"\n(?:[ \t>]*\n)+", text) if p.strip(" \t\n>")]


def _unquoted(text: str) -> str:
    """A quoted paragraph without its ``>`` markers, to be cut by sentences."""
    return "\n".join(_QUOTE_PREFIX.sub("", line) for line in text.split("\n"))


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


def _pieces(blocks: list[Block], sizer: _Sizer) -> list[Piece]:
    """The section as pieces that each fit: blocks whole or split, an introducing sentence glued to its block."""
    pieces: list[Piece] = []
    i = 0
    while i < len(blocks):
        block = blocks[i]
        following = blocks[i + 1] if i + 1 < len(blocks) else None
        if block.introduces and following is not None and following.kind in INTRODUCED_KINDS:
            pages = _merged(block.pages, following.pages)
            ocr = block.ocr or following.ocr
            pieces += [(text, pages, ocr) for text in _introduced(block, following, sizer)]
            i += 2
        else:
            pieces += [(text, block.pages, block.ocr) for text in sizer.split_block(block)]
            i += 1
    return pieces


def _merged(*pages: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(sorted({n for group in pages for n in group}))


def _introduced(intro: Block, block: Block, sizer: _Sizer) -> list[str]:
    """A paragraph ending in ':' with the block it introduces;
    each part of a split block repeats the introducing sentence."""
    whole = f"{intro.text}\n\n{block.text}"
    if sizer.fits(whole):
        return [whole]
    sentences = split_sentences(intro.text) or [intro.text]
    lead = sentences[-1]
    room = max(16, sizer.budget - sizer.tokens(lead) - 2)
    if room < sizer.budget // 4:  # an introduction as long as a passage: no room to repeat it
        return sizer.split_block(intro) + sizer.split_block(block)
    parts = _Sizer(sizer.count, room).split_block(block)
    before = intro.text.rstrip()[: -len(lead)].strip()
    earlier = sizer.split_block(Block("text", before)) if before else []
    first_lead = lead
    if earlier and sizer.fits(f"{earlier[-1]} {lead}\n\n{parts[0]}"):
        first_lead = f"{earlier.pop()} {lead}"
    return [*earlier, f"{first_lead}\n\n{parts[0]}", *(f"{lead}\n\n{part}" for part in parts[1:])]


def _pack_section(blocks: list[Block], sizer: _Sizer) -> list[Piece]:
    """Pieces together while they fit; a piece that does not fit with the others starts a new passage."""
    parts: list[Piece] = []
    current: list[Piece] = []

    def close() -> None:
        text = "\n\n".join(p[0] for p in current)
        parts.append((text, _merged(*(p[1] for p in current)), any(p[2] for p in current)))

    for piece in _pieces(blocks, sizer):
        # A PDF's next page starts a new passage: its citation names one page, and OCR marks only what it read.
        next_page = bool(current and piece[1] and current[-1][1] and piece[1][0] > current[-1][1][-1])
        if current and (next_page or not sizer.fits("\n\n".join([*(p[0] for p in current), piece[0]]))):
            close()
            current = []
        current.append(piece)
    if current:
        close()
    return parts


# --------------------------------------------------------------------------- passages


def chunk_document(
    doc: Document, tenant: str, count_tokens: TokenCounter, max_tokens: int = MAX_MODEL_TOKENS
) -> list[Passage]:
    """Cut one document into passages of at most ``max_tokens``
    model tokens, special tokens and heading line included."""
    if doc.reads_as == "markdown":
        sections = markdown_sections(doc.text, doc.title)
    else:
        sections = plain_sections(doc.text)
    if doc.format == "pdf":
        sections = _paged(sections)
    passages: list[Passage] = []
    used: set[str] = set()
    for section in sections:
        header = HEADING_SEPARATOR.join((doc.title, *section.path)) + "\n\n"
        # The embedder adds its special tokens ([CLS], [SEP]) to every input.
        budget = max(32, max_tokens - count_tokens([header])[0] - SPECIAL_TOKENS)
        parts = _pack_section(section.blocks, _Sizer(count_tokens, budget))
        slug = _section_slug(section.path, used)
        for n, (text, pages, ocr) in enumerate(parts, start=1):
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
                    path=doc.path,
                    carried=carried_lead(parts[n - 2][0], text) if n > 1 else 0,
                    pages=pages,
                    ocr=ocr,
                )
            )
    return passages


def _paged(sections: list[Section]) -> list[Section]:
    """A PDF's sections with its page marks (``mdwriter.page_mark``) read off into the pages of the blocks
    after them; a mark before a heading still holds for the blocks under it."""
    page: tuple[int, ...] = ()
    ocr = False
    out = []
    for section in sections:
        blocks = []
        for block in section.blocks:
            mark = read_page_mark(block.text) if block.kind == "text" else None
            if mark is not None:
                page, ocr = (mark[0],), mark[1]
                continue
            block.pages, block.ocr = page, ocr
            blocks.append(block)
        if blocks:
            out.append(Section(section.path, blocks))
    return out


def carried_lead(before: str, text: str) -> int:
    """How many leading characters of ``text`` repeat a paragraph of the part ``before`` it.

    When a block is split, each part repeats the sentence that introduces it, so the part
    means what it says to the rankers; a snippet should show what the part adds.
    """
    lead, sep, rest = text.partition("\n\n")
    if not sep or not rest.strip() or not lead.strip():
        return 0
    lead = lead.strip()
    repeated = any(p.strip().endswith(lead) for p in before.split("\n\n"))
    return len(text) - len(rest) if repeated else 0


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
