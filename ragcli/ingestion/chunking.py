"""Cutting Documents into Passages: structure first, size second.

Markdown (and HTML, converted to Markdown) is split into sections by heading
(``markdown``); every passage keeps its heading path. Inside a section, blocks
(paragraphs, lists, tables, code) are packed whole while they fit the token
cap. A paragraph stays in the same passage as the code block, list or table
right after it; when the block itself must be split, a sentence that
introduces it (it ends with ':') is repeated by every part, another paragraph
leads the first part only. A block over the cap is
split on its own structure: table rows (with the header row repeated), list
items, code lines, and for prose sentence boundaries with a one-sentence
overlap. Only a single sentence longer than the cap is cut by words (the cutting
and the token counts are ``sizing``'s).

Passage IDs are ``{doc_id}@{version}#{section}`` with ``-2``, ``-3`` for later
parts of one section, so they stay the same across runs while the content
does. Bump CHUNKER_VERSION whenever the output for the same input can change:
the index records it, and a new value re-chunks every document.
"""

from __future__ import annotations

from ..embedder import MAX_MODEL_TOKENS, SPECIAL_TOKENS
from ..passage import HEADING_SEPARATOR, Passage, passage_id
from ..text import slugify, split_sentences
from .layout import Shape, joined, part_shapes, text_shape
from .loaders import Document
from .markdown import Block, Section, markdown_sections, plain_sections
from .mdwriter import read_page_mark
from .sizing import Counts, Sizer, TokenCounter

CHUNKER_VERSION = 30
"""3: soft wraps joined, admonitions and tabs unfolded, an introducing sentence kept with its block.
4: a PDF with an outline is cut by its bookmarks (Markdown, Word, reStructuredText, notebook and CSV loaders).
5: passages record their file relative to the ingested folder and the length of a carried introduction.
6: doc-site dialects unfolded (Hugo, Docusaurus, MyST, GitHub alerts, comments; ``dialects``).
7: code in list items and quotes split by lines; titles from front matter, H1 or file name; headings as plain
text; Material/pymdownx/mkdocstrings markup and Sphinx captions, tab titles and references read as text; PDF
passages record their pages (and OCR) and a page starts a new passage; ruled tables are tables; a PDF without an
outline has no ``Page N`` section per page (its passages have pages instead).
8: Sphinx and MyST cross-references show their target's title from the folder (``references``).
9: MyST code directives (``doctest``...) are code, footnotes kept, mkdocstrings in containers dropped, MyST
directives in list items kept in them; rst signatures as written on a line of their own, undefined substitutions
empty.
10: HTML in Markdown read as its text (tags in sentences, blocks: ``html_markup``); MyST ``{eval-rst}`` read as
reStructuredText, ``{list-table}`` as a table, glossaries and definition lists as ``term: definition``.
11: HTML's struck-out text as ``~~x~~`` (not glued to what replaces it), two ``<kbd>`` keys apart; MyST's
``<project:...>`` autolinks as their target's title; a ``:doc:`` to a document the folder lacks as its name made
readable (``Names``); ``<code>a \\| b</code>`` a code span.
12: MyST's links without text (``[](intro.md)``, ``[](label)``) as their target's title, a reference to another
page's heading (``intro.md#-get-started``) as that heading, ``<path:x>`` and ``<inv:...#name>`` as their names.
13: reference-style links the page defines (``[Docusaurus]``, ``[text][label]``) as their text (``link_refs``).
14: a code span is read as CommonMark reads it in every inline step (``escape.CODE_SPAN``): `` `a``b` `` is one span,
```` ``a` ```` none, so the markup after an unclosed run is read as text.
15: a snippet include (``--8<-- "x.svg"``) inside an HTML block dropped with the HTML, and a code block with no code
dropped (Textual's screenshots); an admonition with more classes (``!!! tip inline end "T"``) unfolded; a part of a
long list that starts inside an item loses the item's indentation (alone, it read as code); rst's inline literals
are code spans and a MyST role is read outside code spans only; VitePress's code groups and block titles;
``click:example`` is code and ``click:run`` nothing; a long code block is cut into even parts (no last line alone);
the Rust Book's ``<Listing>`` shows its number, caption and file; an rst table cell drops docutils' messages.
16: a titled admonition with nothing under it is its title (not ``Title:``), a content tab left with nothing to read
(a screenshot, an included file) is dropped with its title.
17: a directive's options that its page shows are text (``:default:``, ``:type:``, tox's ``:keys:``), layout options
and a layout directive's argument are not; a ``{grid-item-card}`` title labels its text; icon roles show nothing.
18: a paragraph is never cut from the code block, list or table right after it, colon or not (it leads the block's
first part when the block is split).
19: MyST ``{meta}`` is not text, and build options (``:include-source:``) show nothing; an option whose value shows
nothing is left out.
20: an HTML comment written in a code span is text (`` `<!-- prettier-ignore-start -->` ``); only comments are
dropped.
21: Material's ``<!-- md:default x -->`` written in a code span is code, not the badge ``Default: x.``.
22: a Material icon takes the space after it (``**:octicons-package-24: Type**`` is bold ``Type``, not
``** Type**``).
23: an object's description (``.. confval:: x``, ``{py:function} f(x)``) reads as ``signature: ...``, its signature
labelling its options' sentence or its first paragraph, as a glossary's term labels its definition.
24: a description's signature is code, as Sphinx sets it, and both readers label it alike (``mdwriter.labelled``);
a signature ending in its colon stays on its own line; an icon keeps its gap after a word and a hard break's spaces.
25: a label the page wrote with its own colon (a definition term ```x``:``, a tab's title) gets no second one
(``mdwriter.colon``).
26: emphasis around dropped site data (``**{{ site.data.ruby.min_version }}**``) goes with it, and so does the
doubled gap it left.
27: ... but not emphasis markers inside a word (``my_{{ lang }}_file.yml``) or between code spans.
28: a reference link the page defines reads as its text before a colon too ("a workflow for [GitHub Actions]:").
29: a list item too long for a passage, cut, leaves out its link definitions (they ran into one line of text).
30: a definition in a quote or over two lines stays as written (28 rewrote its label as text); code is code."""
INTRODUCED_KINDS = ("code", "list", "table")
WRITTEN_IN_MARKDOWN = frozenset({"markdown", "notebook"})
"""Formats whose Markdown was written by people (a notebook's Markdown cells), its HTML markup; the Markdown the
other converters write holds text, where ``<backend>`` is what the document says."""

Piece = tuple[str, tuple[int, ...], bool, Shape | None]
"""Text that fits, the PDF pages it comes from, whether OCR read it (() and False for other formats), and its
top-level blocks if known (``layout``)."""
Cut = tuple[str, Shape | None]
"""A text and its top-level blocks if known."""


# --------------------------------------------------------------------------- packing a section


def _pieces(blocks: list[Block], sizer: Sizer) -> list[Piece]:
    """The section as pieces that each fit: blocks whole or split, a paragraph glued to the block right after it."""
    pieces: list[Piece] = []
    i = 0
    while i < len(blocks):
        block = blocks[i]
        following = blocks[i + 1] if i + 1 < len(blocks) else None
        if block.kind == "text" and following is not None and following.kind in INTRODUCED_KINDS:
            pages = _merged(block.pages, following.pages)
            ocr = block.ocr or following.ocr
            pieces += [(text, pages, ocr, shape) for text, shape in _introduced(block, following, sizer)]
            i += 2
        else:
            pieces += [(text, block.pages, block.ocr, shape) for text, shape in _split(block, sizer)]
            i += 1
    return pieces


def _split(block: Block, sizer: Sizer) -> list[Cut]:
    """``sizer.split_block(block)``, each part with its shape."""
    parts = sizer.split_block(block)
    return list(zip(parts, part_shapes(block.kind, block.text, block.shape, parts), strict=True))


def _led(lead: str, part: Cut) -> Cut:
    """A part with the sentence that introduces it before it."""
    return f"{lead}\n\n{part[0]}", joined([(lead, text_shape(lead)), part])


def _merged(*pages: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(sorted({n for group in pages for n in group}))


def _introduced(intro: Block, block: Block, sizer: Sizer) -> list[Cut]:
    """A paragraph with the code block, list or table right after it, never a passage boundary between them (its
    last sentence carries the block, ``structure``) while they fit together. When they do not, a sentence ending in
    ':' leads every part of the block; another paragraph leads only the first part of a block too long for a
    passage ("tox automatically injects several environment variables ..." before the table of them), and
    otherwise stands apart from it (a block that fits is never cut)."""
    whole = f"{intro.text}\n\n{block.text}"
    if sizer.fits(whole, (intro.text, block.text)):
        return [(whole, joined([(intro.text, intro.shape), (block.text, block.shape)]))]
    if not intro.introduces and sizer.fits(block.text):
        return _split(intro, sizer) + _split(block, sizer)  # a block that fits stays whole, in a passage of its own
    sentences = split_sentences(intro.text) or [intro.text]
    lead = sentences[-1]
    if not intro.introduces and sizer.tokens(intro.text) <= sizer.budget // 3:
        lead = intro.text  # said once, a short paragraph leads the first part whole
    room = max(16, sizer.budget - sizer.tokens(lead) - 2)
    if room < sizer.budget // 4:  # an introduction as long as a passage: no room to repeat it
        return _split(intro, sizer) + _split(block, sizer)
    parts = _split(block, sizer.within(room))
    before = intro.text.rstrip()[: -len(lead)].strip()
    earlier = _split(Block("text", before), sizer) if before else []
    first_lead = lead
    if earlier and sizer.fits(f"{earlier[-1][0]} {lead}\n\n{parts[0][0]}", (earlier[-1][0], lead, parts[0][0])):
        first_lead = f"{earlier.pop()[0]} {lead}"
    later = parts[1:] if not intro.introduces else [_led(lead, part) for part in parts[1:]]
    return [*earlier, _led(first_lead, parts[0]), *later]


def _pack_section(blocks: list[Block], sizer: Sizer) -> list[Piece]:
    """Pieces together while they fit; a piece that does not fit with the others starts a new passage."""
    parts: list[Piece] = []
    current: list[Piece] = []

    def close() -> None:
        text = "\n\n".join(p[0] for p in current)
        shape = joined([(p[0], p[3]) for p in current])
        parts.append((text, _merged(*(p[1] for p in current)), any(p[2] for p in current), shape))

    for piece in _pieces(blocks, sizer):
        # A PDF's next page starts a new passage: its citation names one page, and OCR marks only what it read.
        next_page = bool(current and piece[1] and current[-1][1] and piece[1][0] > current[-1][1][-1])
        texts = [*(p[0] for p in current), piece[0]]
        if current and (next_page or not sizer.fits("\n\n".join(texts), texts)):
            close()
            current = []
        current.append(piece)
    if current:
        close()
    return parts


# --------------------------------------------------------------------------- passages


def chunk_document(
    doc: Document,
    tenant: str,
    count_tokens: TokenCounter,
    max_tokens: int = MAX_MODEL_TOKENS,
    *,
    counts_add_up: bool = False,
) -> list[Passage]:
    """Cut one document into passages of at most ``max_tokens``
    model tokens, special tokens and heading line included.

    ``counts_add_up``: texts joined by whitespace count the sum of their tokens with ``count_tokens``
    (``Embedder.counts_add_up``), so packing adds counts up (``sizing.Counts``); the passages are the same."""
    if doc.reads_as == "markdown":
        sections = markdown_sections(doc.text, doc.title, html=doc.format in WRITTEN_IN_MARKDOWN)
    else:
        sections = plain_sections(doc.text)
    if doc.format == "pdf":
        sections = _paged(sections)
    passages: list[Passage] = []
    used: set[str] = set()
    counts = Counts(count_tokens, add_up=counts_add_up)
    headers = [HEADING_SEPARATOR.join((doc.title, *section.path)) + "\n\n" for section in sections]
    # Every header and block counted in one batch: most blocks fit whole, and are never counted again.
    counts.prime([*headers, *(block.text for section in sections for block in section.blocks)])
    for section, header in zip(sections, headers, strict=True):
        # The embedder adds its special tokens ([CLS], [SEP]) to every input.
        budget = max(32, max_tokens - counts.of(header) - SPECIAL_TOKENS)
        parts = _pack_section(section.blocks, Sizer(counts, budget))
        slug = _section_slug(section.path, used)
        for n, (text, pages, ocr, shape) in enumerate(parts, start=1):
            key = _unique(slug if n == 1 else f"{slug}-{n}", used)
            passages.append(
                Passage(
                    id=passage_id(doc.doc_id, doc.version, key),
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
                    blocks=None if shape is None else shape.blocks,
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
