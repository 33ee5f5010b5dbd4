"""Doc-site dialects unfolded into plain Markdown before a document is cut into passages.

Real documentation is rarely plain CommonMark: every site generator adds its
own markup, and left alone that markup reaches the embedder, the snippets and
the answers (``{{< tabpane >}}`` as an answer sentence). Each dialect is
unfolded the way the site would render it, as prose or code a person reads:

- containers with a title (admonitions, alerts, tabs, cards, details) become
  a labelled paragraph (``Note: ...``, ``macOS:``), like MkDocs admonitions
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
Hugo shortcodes (``{{< x >}}``, ``{{% x %}}``), Docusaurus (``:::note``, ``<Tabs>``/``<TabItem>``, MDX
``import``), MyST (```` ```{note} ````, ``:::{tip}``, ``(label)=``, ``{ref}`x```, ``% comment``), GitHub alerts
(``> [!NOTE]``), Liquid/Jinja tags, mdBook ``{{#include}}``, HTML (comments, tags, blocks); footnotes
(``[^1]``) are numbered and their text kept first (``footnotes``).
Code blocks are left as they are, except that Hugo's escaped shortcodes (``{{</* x */>}}``) read as the site
shows them.

Every rule works on lines outside code fences; the output never holds more
text than the input (nothing is invented), and a document in none of these
dialects comes out unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from . import fences, footnotes, html_markup, material, mdwriter
from .fences import DIRECTIVE_INFO, FENCE_OPEN, closes, collect, fenced_chunks
from .fences import indented_body as indented_body  # ``markdown`` reads it from here too
from .inline_markup import HUGO_SHORTCODE, MDBOOK, code_line, inline

# --------------------------------------------------------------------------- directive fences

_COLON_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<marker>:{3,})[ \t]*(?P<rest>.*)$")


# --------------------------------------------------------------------------- labels


def label_body(label: str, body: list[str], indent: str = "") -> list[str]:
    """``Label: first sentence ...`` for prose; ``Label:`` on its own line before a list, table or code;
    every line of ``body`` put back at ``indent``."""
    first = next((n for n, line in enumerate(body) if line.strip()), None)
    content = [indent + line if line else "" for line in body]
    if not label.strip():
        return ["", *content, ""]
    if first is not None and not _BLOCK_START.match(body[first].lstrip()):
        content[first] = f"{indent}{label}: {body[first].lstrip()}"
        return ["", *content, ""]
    return ["", f"{indent}{label}:", "", *content, ""]


_BLOCK_START = re.compile(r"^(```|~~~|[-*+] |\d+[.)] |\||>|#|<)")


def _title(text: str) -> str:
    """A directive or shortcode name as a label: ``seealso`` → ``See also``, ``warning`` → ``Warning``."""
    text = {"seealso": "See also", "versionadded": "Added", "versionchanged": "Changed"}.get(text, text)
    return text.replace("-", " ").replace("_", " ").strip().capitalize()


# --------------------------------------------------------------------------- MyST and Docusaurus blocks

_MYST_ADMONITIONS = frozenset(
    "note tip hint important warning caution danger attention error seealso admonition dropdown "
    "versionadded versionchanged deprecated topic sidebar margin".split()
)
_MYST_DROP = frozenset(
    "toctree include literalinclude image figure contents raw myst-config math csv-table "
    "automodule autoclass autofunction autodoc bibliography only index tableofcontents".split()
)
_DOCUSAURUS_OPEN = re.compile(r"^(?P<kind>[a-z]+)(?:\[(?P<bracket>[^\]]*)\]|[ \t]+(?P<title>.+))?[ \t]*$")


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


def _directive_body(lines: list[str]) -> list[str]:
    """A directive's content without its options (``:class: x`` lines or a ``---`` YAML block at the top)."""
    return fences.directive_options(lines)[1]


def _unfold_directive(name: str, args: str, body: list[str], fence: str) -> list[str]:
    """One MyST directive (or Docusaurus admonition) as what its page shows."""
    name = name.lower()
    if name in _MYST_DROP:
        if name == "figure":  # the caption is prose a reader sees
            caption = [line for line in _directive_body(body) if line.strip()]
            return label_body("Figure", unfold(caption)) if caption else [""]
        return [""]
    if name in fences.CODE_DIRECTIVES or name in fences.HIDDEN_CODE:
        return fences.code_directive(name, args, body, inline)
    if name in fences.SOURCE_DIRECTIVES:
        source = _directive_body(body)
        # Longer than any fence in the source (a ``:::{myst-example}`` holding ```` ```{math} ````): one block.
        runs = [
            len(m.group("marker")) for line in source if (m := FENCE_OPEN.match(line)) and m.group("marker")[0] == "`"
        ]
        fence = "`" * max([len(fence) if fence[0] == "`" else 3, *(n + 1 for n in runs)])
        return ["", f"{fence}markdown", *source, fence, ""]
    if name == "eval-rst":
        return _eval_rst(body)
    if name == "glossary":
        return _glossary(_directive_body(body))
    if name == "list-table":
        return _list_table(args, body)
    if name in {"versionadded", "versionchanged", "deprecated"}:
        label = f"{_title(name)} in version {args.strip()}" if args.strip() else _title(name)
        if name == "deprecated":
            label = f"Deprecated since version {args.strip()}" if args.strip() else "Deprecated"
        return label_body(label, unfold(_directive_body(body)))
    if name == "rubric":
        return ["", args.strip(), ""] if args.strip() else [""]
    if name in {"admonition", "dropdown", "topic", "sidebar", "card", "tab-item", "tab", "details"} and args.strip():
        return label_body(args.strip(), unfold(_directive_body(body)))
    if name in _MYST_ADMONITIONS:
        return label_body(args.strip() or _title(name), unfold(_directive_body(body)))
    # Containers (tab-set, grid, div, container, ...) and directives ragcli does not know: their content,
    # after their argument when they have one (``{myst-admonitions} attention, caution``).
    return (
        ["", args.strip(), *unfold(_directive_body(body)), ""]
        if args.strip()
        else ["", *unfold(_directive_body(body)), ""]
    )


def _eval_rst(body: list[str]) -> list[str]:
    """``{eval-rst}``: its content is reStructuredText, read as a ``.rst`` file is (``rst``); nothing if it fails."""
    from ..errors import DocumentRejected
    from .rst import rst_body_to_markdown

    try:
        return ["", *rst_body_to_markdown("\n".join(body), "eval-rst").rstrip("\n").split("\n"), ""]
    except DocumentRejected:
        return [""]


def _glossary(body: list[str]) -> list[str]:
    """``{glossary}``: each entry ``term: definition`` (``term, other term:`` for terms that share one), the rest
    of a long definition after it, as a container's label leads its content."""
    out: list[str] = []
    for terms, definition in fences.glossary_entries(body):
        out += label_body(", ".join(inline(term).strip() for term in terms), unfold(definition))
    return out or [""]


def _list_table(args: str, body: list[str]) -> list[str]:
    """``{list-table}`` (a list of rows, each a list of cells) as a table: its header row (``:header-rows:``, else
    the first row) and rows, its title the sentence before it, as the reStructuredText reader writes one. A table
    whose cells hold more than a line of text (code, lists) is read row by row, each cell labelled by its column's
    header (``Example:`` and its code), so its code stays code."""
    options, content = fences.directive_options(body)
    read = _list_rows(content)
    if read is None:  # not a uniform two-level list: its content, as a container's
        return ["", *([args.strip()] if args.strip() else []), *unfold(content), ""]
    rows, simple = read
    cells = [[unfold(cell) for cell in row] for row in rows]
    title = [f"{inline(args.strip()).rstrip(':')}:", ""] if args.strip() else []
    if simple:
        table = mdwriter.table([[" ".join(" ".join(cell).split()) for cell in row] for row in cells])
        return ["", *title, *table.split("\n"), ""] if table else [""]
    header_rows = int(options["header-rows"]) if options.get("header-rows", "").isdigit() else 0
    header = [" ".join(" ".join(cell).split()) for cell in cells[0]] if header_rows else []
    out = ["", *title]
    for row in cells[header_rows:] if header_rows else cells:
        for n, cell in enumerate(row):
            out += label_body(header[n] if n < len(header) else "", cell)
    return [*out, ""]


def _list_rows(lines: list[str]) -> tuple[list[list[list[str]]], bool] | None:
    """A list-table's rows, each its cells' lines (dedented to the cell's content), and whether every cell is at
    most a paragraph; None when the content is not a list of lists of the same length."""
    from ..structure import block_tokens

    rows: list[list[list[str]]] = []
    simple = True
    paragraphs = 0  # in the current cell
    for tok in block_tokens("\n".join(lines)):
        if tok.level in (0, 2) and tok.type not in ("bullet_list_open", "bullet_list_close"):
            return None  # text beside the rows, or in a row beside its cells
        if tok.type == "list_item_open" and tok.level == 1:
            rows.append([])
        elif tok.type == "list_item_open" and tok.level == 3 and rows and tok.map is not None:
            rows[-1].append(_cell_lines(lines[tok.map[0] : tok.map[1]]))
            paragraphs = 0
        elif tok.level == 4 and tok.type == "paragraph_open":
            paragraphs += 1
            simple = simple and paragraphs == 1
        elif tok.level == 4 and tok.type != "paragraph_close":
            simple = False  # code, a list, a quote in a cell
    if not rows or any(not row for row in rows) or len({len(row) for row in rows}) > 1:
        return None
    return rows, simple


def _cell_lines(lines: list[str]) -> list[str]:
    """A cell's lines without its marker (``  - ``, or ``* - `` for a row's first cell), dedented to its content's
    column."""
    marker = re.match(r"^(?:[ \t]*[-*+](?:[ \t]+|$))+", lines[0])
    width = marker.end() if marker is not None else 0
    if marker is not None and not lines[0][width:].strip():
        width = len(lines[0]) - len(lines[0].lstrip()) + 2  # ``- `` alone: the content starts on the next line
    out = [lines[0][width:]]
    for line in lines[1:]:
        out.append(line[width:] if not line[:width].strip() else line.lstrip())
    while out and not out[-1].strip():
        out.pop()
    return out


def _nested(name: str, args: str, body: list[str], fence: str, indent: str) -> list[str]:
    """A directive opened at ``indent`` (in a list item: ``   :::{warning}``) unfolded as at the top, then put back
    at that indentation, so the list item it belongs to goes on around it."""
    if not indent:
        return _unfold_directive(name, args, body, fence)
    width = len(indent)
    dedented = [line[width:] if not line[:width].strip() else line.lstrip() for line in body]
    return [indent + line if line.strip() else "" for line in _unfold_directive(name, args, dedented, fence)]


# --------------------------------------------------------------------------- line rules (outside code)

_HTML_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_MD_DEFAULT = re.compile(r"<!--\s*md:default\s+(.+?)\s*-->")
"""Material for MkDocs' documentation macro that its site renders as a "Default: value" badge."""
_DEFINITION = re.compile(r"^(?P<indent>[ \t]*):[ \t]{1,4}(?P<text>\S.*)$")
_HUGO_ATTR = re.compile(r'([\w-]+)\s*=\s*(?:"([^"]*)"|\'([^\']*)\'|([^\s"\']+))')
_HUGO_POSITIONAL = re.compile(r"""^\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=]+)(?!\S|\s*=))""")
"""A shortcode's first positional parameter, whole when quoted (its words are one parameter)."""
_MYST_TARGET = re.compile(r"^\s*\([\w/.:-]+\)=\s*$")
_MYST_COMMENT = re.compile(r"^\s*%(?!\S*%)")
_MDX_IMPORT = re.compile(
    r"^(?:import\s.+\sfrom\s+['\"].+['\"];?|import\s+['\"].+['\"];?|export\s+(?:const|default|function)\b.*)\s*$"
)
_QUOTED = re.compile(r"[ \t]*(?:>[ \t]?)*")
"""A line's indentation and quote markers."""
_TAG_ONLY = re.compile(r"^\s*(?:</?[A-Za-z][\w.-]*(?:\s[^<>]*)?/?>\s*)+$")
_TAB_ITEM = re.compile(r"^\s*<TabItem\b([^>]*)>\s*$")
_SUMMARY = re.compile(r"^\s*<summary>(.*?)</summary>\s*$", re.IGNORECASE)
_JSX_ATTR = re.compile(r'([\w-]+)\s*=\s*(?:"([^"]*)"|\'([^\']*)\'|\{["\']([^"\']*)["\']\})')
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


def _attrs(text: str, pattern: re.Pattern[str] = _HUGO_ATTR) -> dict[str, str]:
    return {m.group(1).lower(): next((g for g in m.groups()[1:] if g is not None), "") for m in pattern.finditer(text)}


# --------------------------------------------------------------------------- the walk


def unfold(lines: list[str]) -> list[str]:
    """Unfold every dialect in ``lines`` (a document or a container's body)."""
    return list(_Walk(lines).run())


def unfold_dialects(text: str, *, html: bool = True) -> str:
    """A Markdown document with every doc-site dialect unfolded (see the module docstring); ``html``: whether its
    HTML is markup (a page written in Markdown) or text (Markdown a converter wrote, ``-db <backend>``)."""
    text = footnotes.placed(_without_comments(text))
    with html_markup.reading_html(html):
        return "\n".join(unfold(text.split("\n")))


def _without_comments(text: str) -> str:
    """HTML comments removed outside code fences (a comment may span lines); a Material default badge kept."""
    if "<!--" not in text:
        return text
    out: list[str] = []
    open_comment = False  # a comment that holds a code fence: it ends in a later chunk
    for is_code, chunk in fenced_chunks(text.split("\n")):
        joined = "\n".join(chunk)
        if open_comment:
            end = joined.find("-->")
            if end < 0:
                continue
            joined, open_comment = joined[end + 3 :], False
        elif is_code:
            out.append(joined)
            continue
        joined = _HTML_COMMENT.sub("", _MD_DEFAULT.sub(r"Default: \1.", joined))
        start = joined.find("<!--")
        if start >= 0 and joined[:start].split("\n")[-1].strip() == "":  # a comment block left open at a line start
            joined, open_comment = joined[:start], True
        out.append(joined)
    return "\n".join(out)


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
            self.item_fence = None if closes(line, self.item_fence) else self.item_fence
            return [line]
        item_fence = fences.ITEM_FENCE.match(line)
        if item_fence and not (item_fence.group("marker")[0] == "`" and "`" in item_fence.group("info")):
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
            return _nested(directive.group("name"), directive.group("args"), body, marker, opened.group("indent"))
        # The closing fence as written: an indented block (in a list item or a tab) keeps its indentation.
        closing = self.lines[self.i - 1] if closes(self.lines[self.i - 1], marker) and self.i - 1 > 0 else marker
        lang, title = material.fence_info(info)
        opener = line if lang == info else opened.group("indent") + marker + lang  # options dropped, if any
        code = [material.without_annotation(code_line(b)) for b in body if not _included(b)]
        if body and not any(c.strip() for c in code):
            return [""]  # a block that only includes a file: the code is not in the page
        label = [f"{opened.group('indent')}{title}:", ""] if title else []
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
        if _SNIPPET.match(self.lines[i]) and self.lines[i].strip() != "--8<--":
            return i + 1  # ``--8<-- "file"``: one file included
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
            return _nested(directive.group("name"), directive.group("args"), body, "```", opened.group("indent"))
        assert docusaurus is not None
        title = docusaurus.group("bracket") or docusaurus.group("title") or ""
        return label_body(title.strip() or _title(docusaurus.group("kind")), unfold(body))

    # A Hugo shortcode alone on its line: a container opens or closes, or a tag that shows nothing.
    def _hugo_block(self, line: str) -> list[str] | None:
        stripped, taken = line.strip(), 1
        if stripped.startswith(("{{<", "{{%")) and not stripped.endswith((">}}", "%}}")):
            # A tag whose attributes run over several lines: read it whole.
            end = next((n for n in range(self.i + 1, min(self.i + 30, len(self.lines))) if "}}" in self.lines[n]), None)
            if end is not None:
                stripped = " ".join(part.strip() for part in self.lines[self.i : end + 1])
                taken = end + 1 - self.i
        match = HUGO_SHORTCODE.fullmatch(stripped)
        if match is None:
            return None
        delimiter, closing, name, attrs, self_closing = match.groups()
        self.i += taken
        name = name.lower()
        if name == "tabpane":  # ``langEqualsHeader=true``: each tab's header names its code's language
            self.lang_header = not closing and _attrs(attrs).get("langequalsheader") == "true"
        if closing or self_closing or name in {"tabpane", "cardpane", "blocks/section", "pageinfo"}:
            return [""]
        close = re.compile(r"^\s*\{\{[<%]\s*/\s*" + re.escape(name) + r"\s*[>%]\}\}\s*$")
        end = next((n for n in range(self.i, len(self.lines)) if close.match(self.lines[n])), None)
        if end is None:
            return [""]  # a tag with no content (param, readfile, figure, ...)
        body, self.i = self.lines[self.i : end], end + 1
        if name == "comment":
            return [""]
        values = _attrs(attrs)
        first = _HUGO_POSITIONAL.match(attrs)  # ``{{< tab toml >}}``, ``{{< tab "Linux and macOS" >}}``
        positional = next((g for g in first.groups() if g is not None), "") if first else ""
        label = values.get("header") or values.get("title") or values.get("summary") or positional
        lang = values.get("lang") or (label if name == "tab" and self.lang_header and label else None)
        if delimiter == "<" and lang is not None:  # a tab of raw code, shown highlighted
            return label_body(label, ["```" + lang, *body, "```"])
        if not label and name in {"alert", "note", "warning", "tip", "notice", "callout"}:
            label = _title(values.get("color", "") if name == "alert" and values.get("color") == "warning" else name)
            label = "Note" if label == "Alert" else label
        return label_body(label, unfold(body))

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
        label = inline(match.group("title")).strip() or _title(match.group("kind").lower())  # a Hugo param: its text
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
            source = "\n".join(lines[start:end])
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
        tab = _TAB_ITEM.match(line)
        if tab:
            values = _attrs(tab.group(1), _JSX_ATTR)
            label = values.get("label") or values.get("value") or ""
            return ["", f"{label}:", ""] if label else [""]
        summary = _SUMMARY.match(line)
        if summary:
            return ["", f"{inline(summary.group(1)).strip()}:", ""]
        if _TAG_ONLY.match(line):
            return [""]
        rewritten = self._inline(_MD_DEFAULT.sub(r"Default: \1.", line))
        if rewritten.strip() == "" and stripped:
            return [""]
        return [rewritten]
