"""reStructuredText (Sphinx sources too) to Markdown and metadata, with docutils.

docutils parses; this module writes its document tree as the Markdown the
chunker reads: sections as headings, bullet, numbered, definition, field and
option lists as lists, tables (grid, simple, list-table, csv-table) with their
header row and spans repeated, literal blocks as code, admonitions as labelled
prose (``Note: ...``), block quotes as quotes.

Sphinx-only markup degrades to its text, never to an error or to markup: the
roles and directives docutils does not know are run by ``sphinx_markup``
(a cross-reference shows its target's title, ``crossrefs``).

Nothing is read from outside the file: ``include``, ``raw`` and file or URL
options are disabled. A field list at the very top (before or right after the
title) is metadata, read like front matter through ``metadata.text_fields``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ..errors import DocumentRejected
from . import mdwriter as md
from .metadata import text_fields
from .sphinx_markup import lenient_lookups, resolve_refs

_SETTINGS = {
    "report_level": 5,  # no message is printed; unknown markup is handled below
    "halt_level": 5,
    "warning_stream": False,
    "file_insertion_enabled": False,  # include, raw :file:, csv-table :url: would read outside the file
    "raw_enabled": False,
    "_disable_config": True,  # no docutils.conf from the working directory
    "doctitle_xform": False,  # the title stays a section: it becomes the first heading
    "docinfo_xform": False,  # the top field list stays a field list: it becomes metadata
    "sectsubtitle_xform": False,
    "syntax_highlight": "none",
    "smart_quotes": False,
    "language_code": "en",
    "strip_comments": True,
}
_SKIPPED = frozenset(
    {"comment", "target", "substitution_definition", "system_message", "raw", "pending", "decoration", "docinfo"}
    | {"meta", "transition", "image", "problematic", "footnote_reference"}
)
"""Node types that hold no text of the page (or whose text is handled where they occur)."""


def rst_to_markdown(text: str, source: str) -> tuple[dict[str, Any], str]:
    """Return (metadata from the top field list, the body as Markdown); DocumentRejected if docutils fails."""
    document = _parse(text, source)
    resolve_refs(document)
    meta = _top_fields(document, source)
    return meta, md.join(_blocks(document.children, depth=1))


def rst_body_to_markdown(text: str, source: str) -> str:
    """reStructuredText written inside another page (MyST's ``{eval-rst}``) as Markdown: no field list is taken as
    metadata; DocumentRejected if docutils fails."""
    document = _parse(text, source)
    resolve_refs(document)
    return md.join(_blocks(document.children, depth=1))


def _parse(text: str, source: str) -> Any:
    from docutils.core import publish_doctree
    from docutils.parsers.rst import Parser
    from docutils.utils import SystemMessage

    try:
        with lenient_lookups():
            return publish_doctree(text, source_path=source, parser=Parser(), settings_overrides=dict(_SETTINGS))
    except (SystemMessage, RecursionError, ValueError, TypeError, AttributeError, IndexError) as exc:
        raise DocumentRejected(source, f"reStructuredText could not be parsed ({type(exc).__name__})") from None


# --------------------------------------------------------------------------- metadata


def _top_fields(document: Any, source: str) -> dict[str, Any]:
    """The field list before the first content (or right after the title), taken out of the body as metadata."""
    from docutils import nodes

    container = document
    while True:
        first = next((c for c in container.children if c.tagname not in _SKIPPED and c.tagname != "title"), None)
        if isinstance(first, nodes.field_list):
            fields = [(f[0].astext(), _field_value(f[1])) for f in first.children if isinstance(f, nodes.field)]
            container.remove(first)
            return text_fields(fields, source)
        if container is not document or not isinstance(first, nodes.section):
            return {}
        container = first  # the title's section: its field list comes right after the title


def _field_value(body: Any) -> str:
    """A field's text; a bullet list in it (``:acl:`` with one group per item) joined with commas."""
    from docutils import nodes

    items = [i.astext() for bl in body.findall(nodes.bullet_list) for i in bl.children]
    return ", ".join(" ".join(i.split()) for i in items) if items else " ".join(body.astext().split())


# --------------------------------------------------------------------------- the tree as Markdown


def _blocks(children: Any, depth: int) -> list[str]:
    out: list[str] = []
    for node in children:
        out += _block(node, depth)
    return out


def _block(node: Any, depth: int) -> list[str]:
    from docutils import nodes

    if node.tagname in _SKIPPED or isinstance(node, nodes.Invisible) or "contents" in node.get("classes", ()):
        return []  # .. contents:: is a generated table of contents: navigation, not text
    if isinstance(node, nodes.section):
        title = node.next_node(nodes.title)
        head = [md.heading(depth, inline(title))] if title is not None else []
        return head + _blocks([c for c in node.children if c is not title], depth + 1)
    if isinstance(node, (nodes.bullet_list, nodes.enumerated_list, nodes.definition_list, nodes.field_list)):
        return [md.list_block(list(_items(node, 0)))]
    if isinstance(node, nodes.option_list):
        return [md.list_block(list(_items(node, 0)))]
    if isinstance(node, (nodes.literal_block, nodes.doctest_block)):
        classes = [c for c in node.get("classes", []) if c != "code"]
        return [md.code(node.astext(), node.get("language") or (classes[0] if classes else ""))]
    if isinstance(node, nodes.math_block):
        return [md.code(node.astext(), "math")]
    if isinstance(node, nodes.table):
        return _table(node)
    if isinstance(node, nodes.line_block):
        lines = [md.paragraph(inline(line)) for line in node.findall(nodes.line) if inline(line).strip()]
        return ["  \n".join(lines)] if lines else []
    if isinstance(node, nodes.block_quote):
        inner = _blocks(node.children, depth)
        return [md.quote(inner)] if inner else []
    if isinstance(node, nodes.attribution):
        return [md.paragraph("— " + inline(node))]
    if isinstance(node, (nodes.Admonition, nodes.topic, nodes.sidebar)):
        title = next((c for c in node.children if isinstance(c, nodes.title)), None)
        label = inline(title) if title is not None else node.tagname.replace("_", " ").capitalize()
        return md.labelled(label, _blocks([c for c in node.children if c is not title], depth))
    if isinstance(node, (nodes.footnote, nodes.citation)):
        label = node.next_node(nodes.label)
        body = _blocks([c for c in node.children if c is not label], depth)
        return md.labelled(f"[{label.astext()}]" if label is not None else "", body)
    if isinstance(node, nodes.figure):
        return _blocks([c for c in node.children if not isinstance(c, nodes.image)], depth)
    if isinstance(node, nodes.TextElement):  # paragraph, rubric, caption, title outside a section...
        return [md.paragraph(inline(node))]
    return _blocks(node.children, depth)  # container, compound, legend...


def inline(node: Any) -> str:
    """The text of an inline element; markup that failed to resolve shows as its text, not as markup."""
    from docutils import nodes

    parts: list[str] = []
    for child in node.children:
        if isinstance(child, nodes.Text):
            parts.append(child.astext())  # escapes undone: ``v\ |version|`` holds a NUL before the escaped space
        elif isinstance(child, nodes.problematic):
            shown = _unmarked(child.astext())
            if not shown and parts:  # "v\ |version|." reads "v.", not "v ."
                parts[-1] = parts[-1].rstrip()
            parts.append(shown)
        elif isinstance(child, nodes.literal) and child.get("classes") in ([], ["code"]):
            # ``depends = 3.*`` is code: as a code span it is printed as written (as text, the reader of Markdown
            # took its ``*`` for emphasis). A role's literal (``:py:mod:`fnmatch```) reads as its text, as before.
            parts.append(md.code_span(child.astext()))
        elif isinstance(child, nodes.footnote_reference):
            parts.append(f"[{child.astext()}]")
        elif isinstance(child, nodes.image):
            parts.append(child.get("alt", ""))
        elif child.tagname not in ("system_message", "comment", "raw"):
            parts.append(inline(child))
    return " ".join("".join(parts).split())


def _unmarked(raw: str) -> str:
    """```text`_`` (a link without a target): its text; ``|name|``, a substitution the file does not define (Sphinx
    fills ``|version|`` from a configuration ragcli does not read): nothing, as ``.. |d| date::`` reads."""
    if re.fullmatch(r"\|.*\|_{0,2}", raw, flags=re.DOTALL):
        return ""
    raw = re.sub(r"^`(.*)`_{1,2}$", r"\1", raw, flags=re.DOTALL)
    return re.sub(r"^(.*?)_{1,2}$", r"\1", raw, flags=re.DOTALL)


def _items(node: Any, depth: int) -> Iterator[md.Item]:
    """List items of any docutils list kind, nested lists one level deeper, other blocks under their item."""
    from docutils import nodes

    ordered = isinstance(node, nodes.enumerated_list)
    for item in node.children:
        if isinstance(item, nodes.definition_list_item):
            term = " ".join(inline(c) for c in item.children if isinstance(c, (nodes.term, nodes.classifier)))
            body = next((c for c in item.children if isinstance(c, nodes.definition)), None)
        elif isinstance(item, nodes.field):
            term, body = inline(item[0]), item[1]
        elif isinstance(item, nodes.option_list_item):
            term, body = ", ".join(o.astext() for o in item[0].children), item[1]
        else:
            term, body = "", item
        yield from _item(term, body, depth, ordered)


def _item(term: str, body: Any, depth: int, ordered: bool) -> list[md.Item]:
    """One item: ``term: first paragraph``, its nested lists as deeper items, other blocks under the item before."""
    from docutils import nodes

    children = list(body.children) if body is not None else []
    lead = inline(children.pop(0)) if children and isinstance(children[0], nodes.paragraph) else ""
    out = [md.Item(depth, ordered, f"{md.colon(term)} {lead}" if term and lead else term or lead)]
    for child in children:
        if isinstance(child, (nodes.bullet_list, nodes.enumerated_list)):
            out += _items(child, depth + 1)
        else:  # kept in reading order: after a nested list, a block belongs under its last item
            last = out[-1]
            out[-1] = md.Item(last.depth, last.ordered, last.text, (*last.blocks, *_block(child, 1)))
    return out


def _table(node: Any) -> list[str]:
    """Rows of cell texts, a spanning cell repeated in each cell it spans, the title as the sentence introducing it."""
    from docutils import nodes

    title = node.next_node(nodes.title)
    rows: list[list[str]] = []
    carried: dict[int, tuple[int, str]] = {}  # column -> (rows still spanned, text)
    for row in node.findall(nodes.row):
        cells: list[str] = []
        entries = iter(row.children)
        while True:
            column = len(cells)
            if column in carried:
                left, text = carried[column]
                cells.append(text)
                carried = {**carried, column: (left - 1, text)} if left > 1 else _without(carried, column)
                continue
            entry = next(entries, None)
            if entry is None:
                break
            shown = [p for p in entry.children if p.tagname not in _SKIPPED]
            text = " ".join(inline(p) if isinstance(p, nodes.TextElement) else p.astext() for p in shown)
            for _ in range(1 + int(entry.get("morecols", 0))):
                if entry.get("morerows"):
                    carried[len(cells)] = (int(entry["morerows"]), text)
                cells.append(text)
        rows.append(cells)
    intro = [md.paragraph(md.colon(inline(title)))] if title is not None else []
    return [*intro, md.table(rows)]


def _without(carried: dict[int, tuple[int, str]], column: int) -> dict[int, tuple[int, str]]:
    return {k: v for k, v in carried.items() if k != column}
