"""Doc-site dialects unfolded into plain Markdown before a document is cut into passages.

Real documentation is rarely plain CommonMark: every site generator adds its
own markup, and left alone that markup reaches the embedder, the snippets and
the answers (``{{< tabpane >}}`` as an answer sentence). Each dialect is
unfolded the way the site would render it, as prose or code a person reads:

- containers with a title (admonitions, alerts, tabs, cards, details) become
  a labelled paragraph (``Note: ...``, ``macOS:``; ``mdwriter.label_body``), like MkDocs admonitions
  (see ``markdown.expand_mkdocs``);
- blocks that show code become fenced code (a Hugo tab with ``lang``, or whose
  header names its language under ``langEqualsHeader``, MyST ``code-block`` and
  ``doctest``, a MyST example's source);
- markup that renders to nothing a reader sees, or to content ragcli does not
  have (includes, table-of-contents trees, comments, anchors, icons,
  imports, block attributes such as ``{style=lower-roman}``), is dropped;
- HTML reads as its text: a tag in a sentence as what it shows (``<kbd>Ctrl</kbd>`` → ``Ctrl``), a block
  (``<div class="note">``, a ``<table>``) as paragraphs, items, a table and code (``html_markup``);
- a MyST ``{list-table}`` is a table (its cells' code kept as code: row by row, each cell labelled by its
  column), ``{eval-rst}`` is read as reStructuredText (``rst``), a ``{glossary}`` and a definition list read
  ``term: definition``.

Dialects: Material for MkDocs, pymdownx and mkdocstrings (``/// note``, ```` ```python {lint="skip"} ````,
``# (1)!``, ``::: pkg.module``, ``--8<--``, ``:material-x:``, ``{ .class }``, ``++ctrl+c++``; see ``material``),
Hugo shortcodes (``{{< x >}}``, ``{{% x %}}``; see ``shortcodes``), Docusaurus (``:::note``, ``<Tabs>``/``<TabItem>``,
MDX ``import``), MyST (```` ```{note} ````, ``:::{tip}``, ``(label)=``, ``{ref}`x```, ``% comment``; the directives'
content: see ``directives``), GitHub alerts (``> [!NOTE]``), Liquid/Jinja tags, mdBook ``{{#include}}``, HTML
(comments, tags, blocks); footnotes (``[^1]``) are numbered and their text kept first (``footnotes``).
Code blocks are left as they are, except that Hugo's escaped shortcodes (``{{</* x */>}}``) read as the site
shows them.

Every rule works on lines outside code fences; the output never holds more
text than the input (nothing is invented), and a document in none of these
dialects comes out unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..text import closes_fence, fence_run
from . import comments, directives, fences, footnotes, html_markup, material, shortcodes
from .fences import DIRECTIVE_INFO, FENCE_OPEN, collect
from .fences import indented_body as indented_body  # ``markdown`` reads it from here too
from .inline_markup import MDBOOK, code_line, inline
from .mdwriter import colon, label_body, name_label

# --------------------------------------------------------------------------- directive fences

_COLON_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<marker>:{3,})[ \t]*(?P<rest>.*)$")
_DOCUSAURUS_OPEN = re.compile(r"^(?P<kind>[a-z]+(?:-[a-z]+)*)(?:\[(?P<bracket>[^\]]*)\]|[ \t]+(?P<title>.+))?[ \t]*$")
_UNLABELLED = frozenset({"code-group"})  # containers that draw only their blocks (VitePress's tabs, each titled)


# --------------------------------------------------------------------------- code spans and definition terms


def _span_after(text: str, run: int) -> int:
    """The backtick run of the code span left open after ``text`` (0 for none), ``run`` the one open before it."""
    for found in re.finditer(r"`+", text):
        length = len(found.group())
        if not run and found.start() and text[found.start() - 1] == "\\":
            length -= 1  # an escaped backtick opens nothing
        if not length:
            continue
        run = length if not run else 0 if length == run else run
    return run


def _term(lines: list[str]) -> list[str]:
    """A definition list's term (the line before ``: definition``) as the start of a paragraph of its own:
    ``term:``, so it reads ``term: definition`` (not ``term definition``) once the lines are joined; a term that is
    a bracketed label (``[markdown-it-py]``) is a line of its own (``[label]:`` would be a link's definition)."""
    last = max((n for n, line in enumerate(lines) if line.strip()), default=None)
    if last is None:
        return lines
    term = lines[last].strip()
    if term.startswith("[") and term.endswith("]"):
        return ["", *lines, ""]  # ``[label]:`` would define a link: the term is a paragraph of its own
    if not term.endswith((".", ":", ";", "!", "?")):
        lines = [*lines[:last], lines[last].rstrip() + ":", *lines[last + 1 :]]
    return ["", *lines]


# --------------------------------------------------------------------------- line rules (outside code)

_DEFINITION = re.compile(r"^(?P<indent>[ \t]*):[ \t]{1,4}(?P<text>\S.*)$")
_MYST_TARGET = re.compile(r"^\s*\([\w/.:-]+\)=\s*$")
_MYST_COMMENT = re.compile(r"^\s*%(?!\S*%)")
_MDX_IMPORT = re.compile(
    r"^(?:import\s.+\sfrom\s+['\"].+['\"];?|import\s+['\"].+['\"];?|export\s+(?:const|default|function)\b.*)\s*$"
)
_QUOTED = re.compile(r"[ \t]*(?:>[ \t]?)*")
"""A line's indentation and quote markers."""
_TAG_ONLY = re.compile(r"^\s*(?:</?[A-Za-z][\w.-]*(?:\s[^<>]*)?/?>\s*)+$")
_SUMMARY = re.compile(r"^\s*<summary>(.*?)</summary>\s*$", re.IGNORECASE)
_ALERT = re.compile(r"^(?P<indent>\s*)>\s*\[!(?P<kind>[A-Za-z]+)\][ \t]*(?P<title>.*)$")
_SNIPPET = re.compile(r"^\s*(?:-{2,}8<-{2,}|\{!>?.*!\}\s*$|\{\*.*\*\}\s*$)")
"""An include: ``--8<-- "file"`` (pymdownx.snippets), ``{!> file !}`` (markdown-include), ``{* file hl[2] *}``."""
_ABBREVIATION = re.compile(r"^\*\[[^\]]+\]:")
_FOOTNOTE_DEF = re.compile(r"^\[\^[^\]\s]+\]:\s*")
_BLOCK_BREAK = re.compile(r"^\s*\+\+\+\s*(?:\{.*\})?\s*$")
_STRAY_CLOSE = re.compile(r"^\s*:{3,}\s*$")
_BLOCK_ATTRS = re.compile(r"""^\s*\{:?(?:\s*(?:[.#][\w-]+|[\w-]+=(?:"[^"]*"|'[^']*'|[^\s"'{}]+)))+\s*\}\s*$""")
"""Attributes of the block below (MyST ``{style=lower-roman}``, kramdown ``{: .note}``): how it renders."""
_DROPPED = (_MYST_TARGET, _MYST_COMMENT, _MDX_IMPORT, _SNIPPET, _ABBREVIATION, _BLOCK_BREAK, _STRAY_CLOSE, _BLOCK_ATTRS)


def _includes_one_file(line: str) -> bool:
    """An include line naming its file (``--8<-- "file"``), not the bare ``--8<--`` that opens or closes a list."""
    return bool(_SNIPPET.match(line)) and line.strip() != "--8<--"


# --------------------------------------------------------------------------- the walk


def unfold(lines: list[str]) -> list[str]:
    """Unfold every dialect in ``lines`` (a document or a container's body)."""
    return list(_Walk(lines).run())


def unfold_dialects(text: str, *, html: bool = True) -> str:
    """A Markdown document with every doc-site dialect unfolded (see the module docstring); ``html``: whether its
    HTML is markup (a page written in Markdown) or text (Markdown a converter wrote, ``-db <backend>``)."""
    text = footnotes.placed(comments.without_comments(text))
    with html_markup.reading_html(html):
        return "\n".join(unfold(text.split("\n")))


def _included(line: str) -> bool:
    """A code line that includes a file instead of holding code (``{{#include x}}``, ``--8<-- "x.py"``)."""
    return bool(MDBOOK.fullmatch(line.strip()) or _SNIPPET.match(line))


class _Walk:
    """One pass over lines: fences and containers are consumed whole, other lines rewritten one by one."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.i = 0
        self.lang_header = False
        # Indented code is kept as written (only text with a line indented four spaces after a blank line may hold it).
        maybe = any(n and not lines[n - 1].strip() and line.startswith(("    ", "\t")) for n, line in enumerate(lines))
        self.code = footnotes.indented_code(lines) if maybe else [False] * len(lines)
        self.item_fence: str | None = None  # the marker of a fence opened after a list item's marker (- ```html)
        self.definition_end = -1  # the line after the last definition read (``: text`` and its indented lines)
        self.span = 0  # the backtick run of a code span the paragraph's lines so far left open (0: none)
        self.quote_run: tuple[int, list[str], bool] = (0, [], False)  # (first line, quoted lines, whole run)

    def run(self) -> Iterator[str]:
        while self.i < len(self.lines):
            yield from self._step()

    def _step(self) -> list[str]:
        line = self.lines[self.i]
        if self.code[self.i]:
            self.i += 1
            return [line]
        if self.item_fence is not None:  # code in a list item (``- ```html``): as written
            self.i += 1
            self.item_fence = None if closes_fence(line, self.item_fence) else self.item_fence
            return [line]
        item_fence = fences.ITEM_FENCE.match(line)
        if item_fence and fence_run(item_fence.group("marker"), item_fence.group("info")):
            self.item_fence = item_fence.group("marker")
        rules = (self._fence, self._generated, self._colon_fence, self._pymdown_block)
        for rule in (*rules, self._hugo_block, self._alert, self._definition, self._footnote, self._html):
            out = rule(line)
            if out is not None:
                self.span = 0
                return out
        self.i += 1
        out = self._line(line)
        self.span = _span_after(line, self.span) if line.strip() else 0
        if line.strip() and self.i < len(self.lines) and _DEFINITION.match(self.lines[self.i]):
            return _term(out)
        return out

    # A fenced block: a MyST directive, or code kept as it is.
    def _fence(self, line: str) -> list[str] | None:
        opened = FENCE_OPEN.match(line)
        if opened is None:
            return None
        marker, info = opened.group("marker"), opened.group("info").strip()
        if marker[0] == "`" and "`" in info:
            return None  # ``` inside a line of prose is an inline code span
        body, self.i = collect(self.lines, self.i + 1, marker)
        directive = DIRECTIVE_INFO.match(info)
        if directive and not directive.group("name").startswith((".", "#")):  # ```{.python} is an attribute list
            return directives.nested(
                directive.group("name"), directive.group("args"), body, marker, opened.group("indent"), unfold
            )
        # The closing fence as written: an indented block (in a list item or a tab) keeps its indentation.
        closing = self.lines[self.i - 1] if closes_fence(self.lines[self.i - 1], marker) and self.i - 1 > 0 else marker
        lang, title = material.fence_info(info)
        opener = line if lang == info else opened.group("indent") + marker + lang  # options dropped, if any
        code = [material.without_annotation(code_line(b)) for b in body if not _included(b)]
        if not any(c.strip() for c in code):
            # Nothing to read: a block that only includes a file, or none at all (Textual's screenshot fences).
            return [""]
        label = [f"{opened.group('indent')}{colon(title)}", ""] if title else []
        return [*label, opener, *code, closing]

    # ``::: pkg.module`` (mkdocstrings) and a ``--8<--`` list of files: text ragcli does not have; an admonition or
    # tab holding only that (``??? abstract "API Reference"`` over ``    ::: starlette.applications.Starlette``).
    def _generated(self, line: str) -> list[str] | None:
        end = material.mkdocstrings_extent(self.lines, self.i) or material.snippets_extent(self.lines, self.i)
        end = end or material.generated_container_extent(self.lines, self.i, self._generated_at)
        if end is None:
            return None
        self.i = end
        return [""]

    def _generated_at(self, i: int) -> int | None:
        if _includes_one_file(self.lines[i]):
            return i + 1
        return material.mkdocstrings_extent(self.lines, i) or material.snippets_extent(self.lines, i)

    # ``/// note | Title`` … ``///`` (pymdownx blocks): labelled prose, like an admonition.
    def _pymdown_block(self, line: str) -> list[str] | None:
        opened = material.BLOCK_OPEN.match(line)
        if opened is None:
            return None
        indent = opened.group("indent")
        body, self.i = material.block_body(self.lines, self.i + 1, indent, opened.group("slashes"))
        label, content = material.block_label(opened.group("kind"), opened.group("title")), unfold(body)
        return label_body(label, content, indent) if any(c.strip() for c in content) else [""]

    # ``:::note`` (Docusaurus) or ``:::{note}`` (MyST colon fence).
    def _colon_fence(self, line: str) -> list[str] | None:
        opened = _COLON_OPEN.match(line)
        if opened is None or not opened.group("rest"):
            return None
        rest = opened.group("rest").strip()
        directive = DIRECTIVE_INFO.match(rest)
        docusaurus = None if directive or len(opened.group("indent")) > 3 else _DOCUSAURUS_OPEN.match(rest)
        if directive is None and docusaurus is None:
            return None
        body, self.i = collect(self.lines, self.i + 1, opened.group("marker"))
        if directive:
            return directives.nested(
                directive.group("name"), directive.group("args"), body, "```", opened.group("indent"), unfold
            )
        assert docusaurus is not None
        title = docusaurus.group("bracket") or docusaurus.group("title") or ""
        kind = docusaurus.group("kind")
        return label_body("" if kind in _UNLABELLED else title.strip() or name_label(kind), unfold(body))

    # A Hugo shortcode alone on its line: a container opens or closes, or a tag that shows nothing.
    def _hugo_block(self, line: str) -> list[str] | None:
        found = shortcodes.block(self.lines, self.i, self.lang_header, unfold)
        if found is None:
            return None
        out, self.i, self.lang_header = found
        return out

    # ``> [!NOTE]`` and the quoted lines after it, as a labelled paragraph.
    def _alert(self, line: str) -> list[str] | None:
        match = _ALERT.match(line)
        if match is None:
            return None
        prefix = re.compile(r"^\s*>[ \t]?")
        body: list[str] = []
        self.i += 1
        while self.i < len(self.lines) and prefix.match(self.lines[self.i]):
            body.append(prefix.sub("", self.lines[self.i], count=1))
            self.i += 1
        title = inline(match.group("title")).strip()  # a Hugo param: its text
        label = title or name_label(match.group("kind").lower())
        return label_body(label, unfold(body))

    # ``:   Definition`` with its body indented four spaces (definition lists: MkDocs, MyST, Pandoc).
    def _definition(self, line: str) -> list[str] | None:
        match = _DEFINITION.match(line)
        if match is None:
            return None
        indent = match.group("indent")
        another = self.i == self.definition_end  # a term's second definition: a paragraph of its own
        body, self.i = indented_body(self.lines, self.i + 1, indent + "    ")
        self.definition_end = self.i
        first = inline(match.group("text"))
        return [*([""] if another else []), indent + first, *(indent + b if b else "" for b in unfold(body))]

    # ``[^1]: ...`` and its indented continuation: a footnote's text sits far from what it annotates, and between
    # a sentence and its code block it would cut them apart.
    def _footnote(self, line: str) -> list[str] | None:
        match = _FOOTNOTE_DEF.match(line.lstrip())
        if match is None:
            return None
        depth = len(line) - len(line.lstrip())
        self.i += 1
        while self.i < len(self.lines):
            following = self.lines[self.i]
            if following.strip() and len(following) - len(following.lstrip()) <= depth:
                break
            self.i += 1
        return [""]

    # A block of HTML (``<div class="note">`` … ``</div>``, ``<h2><code>PrintOK</code></h2>``): what it shows; in a
    # quote too. A tag in a sentence written over lines (``the various <code`` / ``class="option">``): one line.
    def _html(self, line: str) -> list[str] | None:
        if "<" not in line:
            return None
        prefix = _QUOTED.match(line).group()  # type: ignore[union-attr]  # it matches any line
        lines, start = self._quoted(prefix.count(">")) if ">" in prefix else (self.lines, self.i)
        end = html_markup.block_extent(lines, start)
        if end is not None:
            self.i += end - start
            # pymdownx.snippets includes a file wherever its line stands, in HTML too: not the page's text.
            source = "\n".join(line for line in lines[start:end] if not _includes_one_file(line))
            if ">" not in prefix:
                prefix = line[: len(line) - len(line.lstrip())]
            shown = html_markup.block_lines(source, inline)
            return [prefix + out if out else prefix.rstrip() for out in shown]
        if _span_after(line[: line.rfind("<")], self.span):
            return None  # the tag begun at the line's end is in a code span: code, as written
        joined, end = line, start + 1
        while (more := html_markup.tag_continued([joined, *lines[end : end + 10]], 0)) is not None:
            joined = " ".join([joined.rstrip(), *(part.strip() for part in lines[end : end + more - 1])])
            end += more - 1
        if end == start + 1:
            return None
        self.i += end - start
        return self._line(joined)

    def _quoted(self, depth: int) -> tuple[list[str], int]:
        """The lines of the quote this line is in, ``depth`` deep, without their markers, and this line's index in
        them: read once for a run of quoted lines (up to 2,000 at a time), so each is read once."""
        start, found, complete = self.quote_run
        if not (start <= self.i < start + len(found) and (complete or self.i + 500 <= start + len(found))):
            found, complete = [], True
            for line in self.lines[self.i : self.i + 2000]:
                marker = _QUOTED.match(line)
                if marker is None or marker.group().count(">") != depth:
                    break
                found.append(line[marker.end() :])
            else:
                complete = self.i + 2000 >= len(self.lines)
            start = self.i
            self.quote_run = (start, found, complete)
        return found, self.i - start

    def _inline(self, line: str) -> str:
        """``inline(line)``; a line that begins inside a code span an earlier line of its paragraph opened, and holds
        a ``<``, is code up to the span's closing run (``<toolchain`` / ``root>/lib`` stays as written)."""
        if not self.span or "<" not in line:
            return inline(line)
        close = next((m.end() for m in re.finditer(r"`+", line) if len(m.group()) == self.span), None)
        return line if close is None else line[:close] + inline(line[close:])

    def _line(self, line: str) -> list[str]:
        stripped = line.strip()
        for drop in _DROPPED:
            if drop.match(line):
                return []
        label = shortcodes.element_label(line)  # Docusaurus' <TabItem label="macOS">, the Rust Book's <Listing>
        if label is not None:
            return ["", label, ""] if label else [""]
        summary = _SUMMARY.match(line)
        if summary:
            return ["", colon(inline(summary.group(1)).strip()), ""]
        if _TAG_ONLY.match(line):
            return [""]
        rewritten = self._inline(comments.default_badge(line))
        if rewritten.strip() == "" and stripped:
            return [""]
        return [rewritten]
