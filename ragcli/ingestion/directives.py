"""MyST directives as what their page shows.

The walk (``dialects``) finds a directive (```` ```{note} ````, ``:::{tip}``) and its body; here it is unfolded:
an admonition as labelled prose (``mdwriter.label_body``), a code directive as code and a directive that shows its
own source as a ``markdown`` block (``fences``), ``{eval-rst}`` read as reStructuredText (``rst``), a ``{glossary}`` as
``term: definition``, a ``{list-table}`` as a table (its cells' code kept as code: row by row, each cell labelled
by its column), a container as its content; markup that renders to nothing a reader sees, or to content ragcli
does not have (includes, table-of-contents trees, images), is dropped. A directive's content is unfolded by the
walk's ``unfold``, passed in.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from . import fences, mdwriter
from .fences import FENCE_OPEN
from .inline_markup import inline
from .mdwriter import label_body, name_label

Unfold = Callable[[list[str]], list[str]]
"""The walk's ``unfold``: every dialect in a container's body unfolded."""

_MYST_ADMONITIONS = frozenset(
    "note tip hint important warning caution danger attention error seealso admonition dropdown "
    "versionadded versionchanged deprecated topic sidebar margin".split()
)
_MYST_DROP = frozenset(
    "toctree include literalinclude image figure contents raw myst-config math csv-table meta "
    "automodule autoclass autofunction autodoc bibliography only index tableofcontents".split()
)
_TITLED = frozenset(
    {"admonition", "dropdown", "topic", "sidebar", "card", "grid-item-card", "tab-item", "tab", "details"}
)
"""Containers whose argument is a title their content reads under (``{grid-item-card} CommonMark-plus``)."""


def _directive_body(lines: list[str]) -> list[str]:
    """A directive's content without its options (``:class: x`` lines or a ``---`` YAML block at the top)."""
    return fences.directive_options(lines)[1]


def unfold_directive(name: str, args: str, body: list[str], fence: str, unfold: Unfold) -> list[str]:
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
        return _glossary(_directive_body(body), unfold)
    if name == "list-table":
        return _list_table(args, body, unfold)
    if name in {"versionadded", "versionchanged", "deprecated"}:
        label = f"{name_label(name)} in version {args.strip()}" if args.strip() else name_label(name)
        if name == "deprecated":
            label = f"Deprecated since version {args.strip()}" if args.strip() else "Deprecated"
        return label_body(label, unfold(_directive_body(body)))
    if name == "rubric":
        return ["", args.strip(), ""] if args.strip() else [""]
    if name in _TITLED and args.strip():
        return label_body(args.strip(), unfold(_directive_body(body)))
    if name in _MYST_ADMONITIONS:
        return label_body(args.strip() or name_label(name), unfold(_directive_body(body)))
    # Layout containers (tab-set, grid, div, ...): their content. An object's description (``{confval} x``): its
    # signature labelling the options the page shows (``:default: 1``) or its content. Directives ragcli does not
    # know: their content, after their argument when they have one (``{myst-admonitions} attention, caution``).
    options, content = fences.directive_options(body)
    if name in fences.LAYOUT_DIRECTIVES:
        return ["", *unfold(content), ""]
    values = [(label, text) for label, value in fences.shown_options(options) if (text := inline(value).strip())]
    shown = "".join(fences.option_lead(n, label) + text for n, (label, text) in enumerate(values))
    shown += fences.sentence_end(shown)
    signature = " ".join(args.split())
    if name.rsplit(":", 1)[-1] in fences.DESCRIPTIONS and signature:  # ``{confval} x``: code, as Sphinx sets it
        body = [*([shown, ""] if shown else []), *unfold(content)]
        if fences.signature_labels(signature):  # a name labels what follows it
            return label_body(mdwriter.code_span(signature), body)
        return ["", mdwriter.code_span(signature), "", *body, ""]
    lead = [*([args.strip()] if args.strip() else []), *(["", shown, ""] if shown else [])]
    return ["", *lead, *unfold(content), ""]


def _eval_rst(body: list[str]) -> list[str]:
    """``{eval-rst}``: its content is reStructuredText, read as a ``.rst`` file is (``rst``); nothing if it fails."""
    from ..errors import DocumentRejected
    from .rst import rst_body_to_markdown

    try:
        return ["", *rst_body_to_markdown("\n".join(body), "eval-rst").rstrip("\n").split("\n"), ""]
    except DocumentRejected:
        return [""]


def _glossary(body: list[str], unfold: Unfold) -> list[str]:
    """``{glossary}``: each entry ``term: definition`` (``term, other term:`` for terms that share one), the rest
    of a long definition after it, as a container's label leads its content."""
    out: list[str] = []
    for terms, definition in fences.glossary_entries(body):
        out += label_body(", ".join(inline(term).strip() for term in terms), unfold(definition))
    return out or [""]


def _list_table(args: str, body: list[str], unfold: Unfold) -> list[str]:
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
    title = [mdwriter.colon(inline(args.strip())), ""] if args.strip() else []
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


def nested(name: str, args: str, body: list[str], fence: str, indent: str, unfold: Unfold) -> list[str]:
    """A directive opened at ``indent`` (in a list item: ``   :::{warning}``) unfolded as at the top, then put back
    at that indentation, so the list item it belongs to goes on around it."""
    if not indent:
        return unfold_directive(name, args, body, fence, unfold)
    width = len(indent)
    dedented = [line[width:] if not line[:width].strip() else line.lstrip() for line in body]
    return [indent + line if line.strip() else "" for line in unfold_directive(name, args, dedented, fence, unfold)]
