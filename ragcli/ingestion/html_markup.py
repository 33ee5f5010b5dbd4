"""HTML written in a Markdown page (a tag in a sentence, a block of HTML) read as the text the page shows.

Markdown lets a page hold raw HTML, and doc sites use it: Jekyll's notes and tables (``<div class="note">``,
``<table>``), mkdocstrings' previews (``<h2><code>PrintOK</code></h2>``), Material's ``<small>optional</small>``,
``<br>``, ``<kbd>``, ``<a href>`` and ``<img>`` in sentences. A browser shows none of the tags, only their text:

- in a sentence, a tag CommonMark reads as HTML (markdown-it's own grammar, ``HTML_TAG_RE``: an autolink such
  as ``<https://x>`` or ``<project:intro.md>`` is not one) is replaced by what it shows: nothing for most
  (``<a href=...>text</a>`` reads ``text``, ``<kbd>Ctrl</kbd>`` ``Ctrl``), a space for ``<br>``, its ``alt``
  text for an ``<img>``; ``<code>x</code>`` is the code span ```x``` (``inline_html``); what the page draws as a
  mark on the text is kept in it: ``<del>x</del>`` as ``~~x~~``, two ``<kbd>`` keys apart (``marked``);
- a block (a line that opens with an HTML tag, through the tag that closes it) is read by ``html.parser``
  into paragraphs, list items, a table (``<tr>``/``<td>``), fenced code (``<pre>``, a ``<textarea>``'s text)
  and code spans (``<code>``); a ``<summary>`` labels what follows (``Title:``); scripts, styles and SVG show
  nothing (``block_extent``, ``block_lines``).

A block ends at the tag that closes its first element, as Python-Markdown and kramdown read it (Material,
mkdocstrings, Jekyll), or earlier at a blank line followed by Markdown (a fence, or a line not indented past
the tag that does not open with ``<``), as CommonMark reads it: what follows is Markdown, read as such. An element
whose content is Markdown (``markdown``, ``markdown="1"``: md_in_html, kramdown) is not a block here: its lines
are read as Markdown. Neither is a JSX component (``<Tabs>``, capitalised: ``dialects`` reads Docusaurus).
Entities stay as written in prose (as everywhere in a passage's Markdown) and are decoded in code.
"""

from __future__ import annotations

import contextlib
import contextvars
import html
import re
from collections.abc import Callable, Iterator
from html.parser import HTMLParser

from markdown_it.common.html_blocks import block_names
from markdown_it.common.html_re import HTML_TAG_RE

from . import mdwriter as md

TAG = re.compile(HTML_TAG_RE.pattern.removeprefix("^"))
"""A tag, a comment, a declaration or a processing instruction, as CommonMark reads one (markdown-it's grammar)."""
_NAME = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]*)")
_SIMPLE_CODE = re.compile(r"<code(?:\s[^<>]*)?>((?:[^<>`\\\n]|\\\|)+)</code\s*>", re.IGNORECASE)
"""``<code>x</code>`` holding text only (an escaped pipe, ``a \\| b``, too): a code span."""
_BLOCK = frozenset(
    "address article aside blockquote body caption center colgroup dd details dialog dir div dl dt fieldset "
    "figcaption figure footer form frameset h1 h2 h3 h4 h5 h6 header hr html legend li main menu nav ol optgroup "
    "option p search section summary table tbody td tfoot th thead tr ul br".split()
)
"""Elements that start a new line of text where they open and close (``br`` ends one)."""
_HIDDEN = frozenset("script style svg template noscript iframe object head title".split())
"""Elements whose content the page does not show as text."""
_RAW = frozenset({"pre", "script", "style", "textarea"})
"""Elements whose content runs over blank lines (CommonMark's HTML blocks of type 1)."""
_OPENS_BLOCK = frozenset(block_names) | _RAW
"""Tags that open an HTML block at a line's start (CommonMark's kinds 1 and 6); another tag there is in a sentence."""
_FENCE = re.compile(r"[ \t]*(?:`{3,}|~{3,})")
_VOID = frozenset("area base br col embed hr img input link meta param source track wbr".split())
_MAX_LINES = 500
"""The most lines one HTML block is read over (an element not closed by then ends there)."""


_READ = contextvars.ContextVar("read_html", default=True)


@contextlib.contextmanager
def reading_html(read: bool) -> Iterator[None]:
    """While ``read`` is False, ``<`` is text, never a tag: the Markdown a converter wrote from reStructuredText,
    Word, HTML or a PDF, where ``-db <backend>`` is what the page says (``dialects.unfold_dialects``)."""
    token = _READ.set(read)
    try:
        yield
    finally:
        _READ.reset(token)


# --------------------------------------------------------------------------- a tag in a sentence


def inline_html(text: str, *, in_row: bool = False) -> str:
    """``text`` (Markdown outside code spans) with each HTML tag replaced by what the page shows in its place.

    ``in_row``: ``text`` is in a line that may be a table row, where ``\\|`` is how a cell holds a pipe."""
    if "<" not in text or not _READ.get():
        return text
    pieces = _SIMPLE_CODE.split(marked(text))  # [text, code, text, code, ..., text]
    return "".join(_without_tags(piece) if n % 2 == 0 else _code_span(piece, in_row) for n, piece in enumerate(pieces))


_STRUCK = re.compile(
    r"<(del|s|strike)(?:\s[^<>]*)?>(?=\S)((?:(?!</?\1\b)(?!</?(?:p|div|ul|ol|li|table|pre|blockquote|h[1-6])\b).)*?\S)"
    r"</\1\s*>",
    re.IGNORECASE | re.DOTALL,
)
"""Struck-out text (``<del>one</del>``), which a page draws through: ``~~one~~``, GFM's and pymdownx's own way.
Not struck-out blocks (``<del><p>..</p></del>``): a ``~~`` around paragraphs would stand alone between them."""
_KEYS_APART = re.compile(r"(</kbd\s*>)(<kbd\b)", re.IGNORECASE)
"""Two keys written with nothing between them, which the page draws as two keycaps."""


def marked(source: str) -> str:
    """The elements a page draws as marks on their text, written so the text keeps them: struck-out text as
    ``~~x~~`` (``<del>one</del><ins>a single</ins>`` is not the word "onea single"), two keys side by side apart
    (``Ctrl Alt``, not ``CtrlAlt``). A raised or lowered number stays a digit (``CO<sub>2</sub>`` is ``CO2``): the
    search reads a query's ``CO₂`` as ``co2`` (NFKC), so an index holding ``co₂`` could never be matched."""
    if "<" not in source:
        return source
    source = _STRUCK.sub(r"~~\2~~", source)
    return _KEYS_APART.sub(r"\1 \2", source)


def _code_span(code: str, in_row: bool) -> str:
    """``<code>`` content as a code span. The element's ``a \\| b`` shows ``a | b`` (Markdown escapes apply in
    HTML's text, not in a code span's); in a table row the escape stays, as GFM reads ``\\|`` in a cell's code
    span as the pipe, and a bare one would end the cell."""
    code = html.unescape(code)
    return "`" + (code if in_row else code.replace("\\|", "|")) + "`"


def _without_tags(text: str) -> str:
    """Each tag in ``text`` replaced by what it shows; where a tag showed nothing between two words, one space."""
    out = ""
    end = 0
    for match in TAG.finditer(text):
        out += text[end : match.start()]
        end = match.end()
        shown = _tag_text(match.group())
        after = text[end : end + 1]
        if not shown.strip() and out.strip():  # "a <a name='x'></a> b" reads "a b", "a<br>b" "a b"
            if after in (" ", "\t"):  # the space after the tag is the one between the words
                out, shown = out.rstrip(" \t"), ""
            elif out[-1] in " \t":
                shown = ""
        out += shown
    return out + text[end:]


def _tag_text(tag: str) -> str:
    """What one tag shows: its ``alt`` for an image, a space for a line break, nothing for any other."""
    name = _NAME.match(tag)
    if name is None or name.group(1):
        return ""
    element = name.group(2).lower()
    if element == "br":
        return " "
    if element == "img":
        reader = _Fragment()
        reader.feed(tag)
        reader.close()
        return " ".join("".join(reader.current).split())
    return ""


_TAG_BEGUN = re.compile(r"<[A-Za-z][A-Za-z0-9-]*(?:\s[^<>`]*)?$")
"""A tag begun at the end of a line (``the various <code``), its attributes on the next (``class="option">``)."""


def tag_continued(lines: list[str], start: int) -> int | None:
    """The index after the line that ends a tag begun at the end of line ``start`` (a sentence's tag written over
    lines: ``<code`` / ``class="option">options</code>``); None when no tag is left open there."""
    begun = _TAG_BEGUN.search(lines[start])
    if begun is None or not _READ.get():
        return None
    for end in range(start + 1, min(len(lines), start + 10)):
        if not lines[end].strip():
            return None
        if ">" not in lines[end]:
            continue  # a tag ends on a line with a ">"
        found = TAG.match("\n".join([lines[start][begun.start() :], *lines[start + 1 : end + 1]]))
        if found is not None:
            return end + 1 if found.group().count("\n") == end - start else None
    return None


# --------------------------------------------------------------------------- a block of HTML


def block_extent(lines: list[str], start: int) -> int | None:
    """Where the HTML block opening on line ``start`` ends (the index after its last line); None when the line does
    not open one: it does not begin with a block-level element's tag (a tag in a sentence is ``inline_html``'s), or
    the element's content is Markdown (``markdown`` attribute), or it is a JSX component."""
    stripped = lines[start].lstrip()
    name = _NAME.match(stripped)
    if name is None or name.group(2)[0].isupper() or not _READ.get():
        return None  # not a tag, or a JSX component (Docusaurus' <Tabs>): dialects reads those
    tag = TAG.match("\n".join(lines[start : start + 20]).lstrip())
    if tag is None:
        return None
    closing, element = name.group(1), name.group(2).lower()
    lines_of_tag = tag.group().count("\n") + 1
    if element not in _OPENS_BLOCK:
        # A tag in a sentence; one written over several lines (``<select\n  class="x"\n>``) is read whole here.
        return start + lines_of_tag if lines_of_tag > 1 else None
    if not closing and re.search(r"\smarkdown(?:\s*=|[\s/>])", tag.group()):
        return None  # md_in_html / kramdown: the content is Markdown, read line by line
    if closing or element in _VOID or tag.group().endswith("/>"):
        return start + lines_of_tag
    return _closed_at(lines, start, element)


def _closed_at(lines: list[str], start: int, element: str) -> int:
    """The index after the line that closes the ``element`` opened on line ``start``; earlier, a blank line that
    Markdown follows, or a fence (for an element whose content is not raw text); at most ``_MAX_LINES`` lines (an
    element never closed is HTML as far as its lines are, so every line is read once)."""
    indent = len(lines[start]) - len(lines[start].lstrip())
    raw = element in _RAW
    marks = re.compile(rf"<(/?){element}(?=[\s/>]|$)", re.IGNORECASE)
    depth = 0
    end = min(len(lines), start + _MAX_LINES)
    for i in range(start, end):
        line = lines[i]
        if not line.strip():
            if not raw and _markdown_after(lines, i, indent, end):
                return i
            continue
        if i > start and not raw and _FENCE.match(line):
            return i  # code in Markdown: read as code
        for found in marks.finditer(line):
            depth += -1 if found.group(1) else 1
            if depth <= 0:
                return i + 1
    return end


def _markdown_after(lines: list[str], blank: int, indent: int, end: int) -> bool:
    """Whether what follows blank line ``blank`` (before ``end``) is Markdown, not more of the HTML: the end of the
    text, a fence, or a line indented less than four columns past the block's tag that does not begin with ``<``."""
    following = next((lines[n] for n in range(blank + 1, end) if lines[n].strip()), None)
    if following is None or _FENCE.match(following):
        return True
    stripped = following.lstrip()
    return len(following) - len(stripped) < indent + 4 and not stripped.startswith("<")


def block_lines(source: str, text: Callable[[str], str] = str) -> list[str]:
    """An HTML block as Markdown lines: its paragraphs, list items, table and code, a blank line between two
    (and before and after when it holds a block-level element: it stands on its own); ``text`` is applied to the
    text of each paragraph, item and cell (a dialect's inline markup). An empty list when it shows nothing
    inline, ``[""]`` when it shows nothing between blocks."""
    reader = _Fragment(text)
    try:
        reader.feed(marked(source))
        reader.close()
    except AssertionError:  # html.parser on a marked section it does not know (``<![foo[``): the text, tags dropped
        shown = " ".join(text(inline_html(source)).split())
        return ["", md.escape_start(shown), ""] if shown else [""]
    reader.end()
    if not reader.blocks:
        return [""] if reader.broken else []
    out: list[str] = [""] if reader.broken else []
    for n, (kind, block) in enumerate(reader.blocks):
        if n and not (kind == "item" and reader.blocks[n - 1][0] == "item"):
            out.append("")
        out += block.split("\n")
    return [*out, ""] if reader.broken else out


class _Fragment(HTMLParser):
    """HTML read into blocks of Markdown (``block_lines``): ``current`` is the text of the paragraph, item or table
    cell being read, ``rows`` the table being read."""

    def __init__(self, text: Callable[[str], str] = str) -> None:
        super().__init__(convert_charrefs=False)
        self.shown = text
        self.blocks: list[tuple[str, str]] = []
        self.current: list[str] = []
        self.hidden = 0
        self.pre: list[str] | None = None
        self.code: int | None = None  # where in ``current`` the open <code> began
        self.item = self.summary = False
        self.rows: list[list[str]] | None = None
        self.cell = False
        self.broken = False  # a block-level element was met: the block stands on lines of its own

    def _take(self) -> str:
        """The text read since the last block, whitespace collapsed, and forget it."""
        text = " ".join("".join(self.current).split())
        self.current, self.code = [], None
        return self.shown(text).strip() if text else ""

    def _break(self) -> None:
        """A block-level tag: the paragraph or item read so far ends."""
        self.broken = True
        text = self._take()
        if text:
            if self.summary and not text.endswith(":"):
                text += ":"  # a <details> box's title labels what it holds, as dialects labels a container
            self.blocks.append(("item", "- " + text) if self.item else ("text", md.escape_start(text)))
        self.item = self.summary = False

    def end(self) -> None:
        """What is left when the source ends (a table or a paragraph never closed)."""
        if self.rows is not None:
            self.handle_endtag("table")
        text = self._take()
        if text:
            self.blocks.append(("item", "- " + text) if self.item else ("text", md.escape_start(text)))

    # -- text
    def handle_data(self, data: str) -> None:
        if self.hidden:
            return
        if self.pre is not None:
            self.pre.append(data)
        elif self.rows is None or self.cell:
            self.current.append(data)
        elif data.strip():  # text in a table outside a cell (a caption): a paragraph before the table
            self.current.append(data)

    def handle_entityref(self, name: str) -> None:
        self.handle_data(f"&{name};")

    def handle_charref(self, name: str) -> None:
        self.handle_data(f"&#{name};")

    # -- tags
    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _HIDDEN:
            self.hidden += 1
            return
        if self.hidden:
            return
        if tag == "img":
            alt = " ".join((dict(attrs).get("alt") or "").split())
            self.handle_data(f" {alt} " if alt else "")
        elif tag == "code" and self.pre is None:
            self.code = len(self.current)
        elif tag in ("pre", "textarea"):
            self._break()
            self.pre = []
        elif tag == "table" and self.rows is None:
            self._break()
            self.rows = []
        elif self.rows is not None and tag == "tr":
            self._end_cell()
            self.rows.append([])
        elif self.rows is not None and tag in ("td", "th"):
            self._end_cell()
            if not self.rows:
                self.rows.append([])
            if self.current and not self.cell:
                self._break()  # a caption before the first cell
            self.cell = True
        elif self.rows is not None and tag in _BLOCK:
            self.handle_data(" ")  # a paragraph, a list or a line break in a cell: the cell's text goes on
        elif tag in _BLOCK:
            self._break()
            self.item, self.summary = tag == "li", tag == "summary"

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in _VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in _HIDDEN:
            self.hidden = max(0, self.hidden - 1)
            return
        if self.hidden:
            return
        if tag == "code" and self.code is not None:
            # Template tags in it are the site's (Liquid runs before Markdown); entities show as their characters.
            inner = html.unescape(self.shown(" ".join("".join(self.current[self.code :]).split())).strip())
            if inner and "`" not in inner:
                self.current[self.code :] = [f"`{inner}`"]
            self.code = None
        elif tag in ("pre", "textarea") and self.pre is not None:
            code = md.code(html.unescape("".join(self.pre)))
            self.pre = None
            if code:
                self.blocks.append(("code", code))
        elif self.rows is not None and tag in ("td", "th", "tr"):
            self._end_cell()
        elif tag == "table" and self.rows is not None:
            self._end_cell()
            rows, self.rows = self.rows, None
            table = md.table(rows)
            if table:
                self.blocks.append(("table", table))
        elif self.rows is not None and tag in _BLOCK:
            self.handle_data(" ")
        elif tag in _BLOCK:
            self._break()

    def _end_cell(self) -> None:
        if self.cell and self.rows is not None:
            self.rows[-1].append(self._take())
        self.cell = False
