"""Sphinx-only markup under docutils: the roles and directives docutils does not know, read as Sphinx shows them.

docutils fails on a role or directive it does not know; Sphinx defines hundreds. While ``rst`` parses, every
unknown name is run by the ones here (``lenient_lookups``):

* a role is the text Sphinx shows (``crossrefs.role_text``): ``:ref:`Title <target>``` → Title, a label or a
  document the folder has → its title, ``:func:`~a.b``` → ``b``; a ``:ref:`` to a section of the same page
  shows that section's title (``resolve_refs``) even when the file is converted on its own;
* a directive keeps its content, parsed as reStructuredText, under its argument as a label
  (``.. seealso:: x``) and after the options its page shows (``.. conf::`` with ``:keys: x`` and ``:default: 1``:
  ``fences.shown_options``), a layout directive (``grid``, ``tab-set``, ``only``) its content alone; an object's
  description (``.. autofunction:: attrs.validators.in_``, ``.. py:class::``,
  ``.. class::``, which Sphinx reads as Python's) shows its signature as written, on a line of its own before its
  content (a heading-like line: a long one is not the lead of every later part); code-like ones are code (a
  ``:caption:`` the sentence before it; a doctest's setup and cleanup, and a block with ``:hide:``, are not
  shown), version notes (``versionadded``...) labelled prose, and navigation or build directives (``toctree``,
  ``index``, ``highlight``, ``literalinclude``...) add nothing; a ``glossary`` is a definition list (``term:
  definition``, terms that share a definition joined: ``source directory, root``);
* ``.. |d| date::`` is nothing: its text would be the day of the ingest.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from typing import Any

from .crossrefs import EXPLICIT_TITLE, is_code_role, kind_of, role_text
from .fences import (
    DESCRIPTIONS,
    GROUP_ARGUMENT,
    HIDDEN_CODE,
    LAYOUT_DIRECTIVES,
    glossary_entries,
    option_lead,
    sentence_end,
    shown_options,
    signature_labels,
)
from .mdwriter import colon

_CODE_DIRECTIVES = {
    "code-cell", "ipython", "doctest", "testcode", "testoutput", "testsetup", "testcleanup",
    "jupyter-execute", "productionlist", "prompt", "mermaid", "graphviz", "digraph", "graph", "plantuml",
}  # fmt: skip
_SPHINX_CODE = {"code-block", "sourcecode", "code"}
_VERSION_DIRECTIVES = {
    "versionadded": "New in version",
    "versionchanged": "Changed in version",
    "deprecated": "Deprecated since version",
    "versionremoved": "Removed in version",
}
_LABELS = {"seealso": "See also", "todo": "Todo"}
_ARGUMENT_IS_TEXT = {"centered"}
_SILENT_DIRECTIVES = {
    "toctree", "index", "highlight", "currentmodule", "module", "tabularcolumns", "sectionauthor", "moduleauthor",
    "codeauthor", "literalinclude", "autosummary", "automodule", "include", "default-domain", "program",
    *HIDDEN_CODE,
}  # fmt: skip

_PYTHON_CONTEXT = {"module", "currentmodule", "automodule", "default-domain"}
"""Directives after which ``.. class::`` describes a Python class even with no content (as do ``py:...`` ones)."""
_EXAMPLE_CODE = {"click:example"}
"""An extension's directive whose body is Python the page shows as code (pallets-sphinx-themes' ``click:example``)."""
_GENERATED_OUTPUT = {"click:run"}
"""An extension's directive whose body drives a run at build time: the page shows the run's output, not the body."""
_CSS_CLASSES = re.compile(r"[a-z][a-z0-9_-]*(?:\s+[a-z][a-z0-9_-]*)*")
"""docutils' ``class`` argument: lower-case class names (a Python class is capitalised, dotted or called)."""


def shown_text(
    name: str, rawtext: str, text: str, lineno: int, inliner: Any, options: Any = None, content: Any = None
) -> Any:
    """The role docutils runs for a role it does not know: the text Sphinx would show."""
    from docutils import nodes
    from docutils.utils import unescape

    shown_as = role_text(name, unescape(text))
    if is_code_role(name) and shown_as:  # a code span, as in MyST: ``--ignore-glob='*_01.py'`` keeps its star
        return [nodes.literal(rawtext, shown_as)], []
    shown = nodes.inline(rawtext, shown_as)
    if kind_of(name) == "ref" and not EXPLICIT_TITLE.match(unescape(text)):
        shown[_REF] = " ".join(unescape(text).lower().split())  # the section's title, if this page has it
    return [shown], []


_REF = "ragcli_ref"
"""The attribute a ``:ref:`target``` without a title carries until the page's section titles are known."""


def resolve_refs(document: Any) -> None:
    """A ``:ref:`` to a label on this page shows that section's title, as Sphinx would (else the label)."""
    from docutils import nodes

    titles: dict[str, str] = {}
    for section in document.findall(nodes.section):
        title = section.next_node(nodes.title)
        for name in section["names"]:
            titles.setdefault(name, title.astext() if title is not None else name)
    for ref in document.findall(lambda n: isinstance(n, nodes.inline) and _REF in n.attributes):
        title = titles.get(ref[_REF])
        if title:
            ref.children = []
            ref += nodes.Text(title)


def inline_plain(state: Any, text: str, lineno: int) -> str:
    """Inline reStructuredText as the plain text Sphinx shows (a caption, a tab's title): ````x```` → ``x``."""
    parsed, _ = state.inline_text(text, lineno)
    return " ".join("".join(node.astext() for node in parsed).split())


@contextlib.contextmanager
def lenient_lookups() -> Iterator[None]:
    """While parsing, a role or directive docutils does not know is run by ours instead of failing.

    docutils looks roles and directives up through two module functions and has
    no hook for unknown names, so those are wrapped for the duration of the parse.
    """
    from docutils.parsers.rst import directives, roles

    find_directive, find_role = directives.directive, roles.role
    python = False  # the page has set a Python module or domain (``.. module::``, ``.. py:...``) so far

    def directive(name: str, language: Any, document: Any) -> tuple[Any, list[Any]]:
        nonlocal python
        python = python or name.lower() in _PYTHON_CONTEXT or name.lower().startswith("py:")
        if name.lower() == "date":  # the ingest day in the text would make passage IDs depend on the day
            return _no_date(), []
        if name.lower() in _SPHINX_CODE:  # Sphinx's options (:caption:, :linenos:) would fail docutils' own
            return _unknown_directive(), []
        if name.lower() == "class":  # Sphinx renames docutils' ``class`` to ``rst-class``: this is Python's
            return _unknown_directive(css_classes=not python), []
        found, messages = find_directive(name, language, document)
        return (found or _unknown_directive()), messages

    def role(name: str, language: Any, lineno: int, reporter: Any) -> tuple[Any, list[Any]]:
        found, messages = find_role(name, language, lineno, reporter)
        return (found or shown_text), messages

    directives.directive, roles.role = directive, role
    try:
        yield
    finally:
        directives.directive, roles.role = find_directive, find_role


def _no_date() -> Any:
    """``.. |d| date::`` as nothing: its text is the day of the ingest, not of the document (``|d|`` reads as "")."""
    from docutils import nodes
    from docutils.parsers.rst import Directive

    class NoDate(Directive):  # type: ignore[misc]  # docutils ships no types: Directive is Any
        optional_arguments = 1
        final_argument_whitespace = True
        has_content = False

        def run(self) -> list[Any]:
            return [nodes.Text("")]

    return NoDate


def _unknown_directive(css_classes: bool = False) -> Any:
    """``css_classes``: a ``.. class::`` with no content whose argument is CSS classes (``.. class:: special``) is
    docutils' own, which gives the next element its classes: it shows nothing."""
    from docutils import nodes
    from docutils.parsers.rst import Directive, directives

    class AnyOption(dict[str, Any]):
        """Every option name is accepted as text (one entry keeps it truthy, so docutils parses options at all)."""

        def __missing__(self, key: str) -> Any:
            return directives.unchanged

    class Unknown(Directive):  # type: ignore[misc]  # docutils ships no types: Directive is Any
        optional_arguments = 1
        final_argument_whitespace = True
        has_content = True
        option_spec = AnyOption(caption=directives.unchanged)

        def run(self) -> list[Any]:
            full = self.name.lower()
            name = full.rsplit(":", 1)[-1]  # py:function -> function
            argument = " ".join(self.arguments)
            if name in _SILENT_DIRECTIVES or full in _GENERATED_OUTPUT:
                return []
            if full in _EXAMPLE_CODE:
                return self.code("python")
            if css_classes and full == "class" and not self.content and _CSS_CLASSES.fullmatch(argument):
                return []
            if name in _CODE_DIRECTIVES or name in _SPHINX_CODE:
                hidden = "hide" in self.options
                return [] if hidden else self.code("" if name in GROUP_ARGUMENT else argument)
            if name in DESCRIPTIONS or name.startswith("auto"):
                return self.description(argument)
            if name == "glossary":
                return self.glossary()
            label, lead = inline_plain(self.state, argument, self.lineno) if argument else "", ""
            if name in LAYOUT_DIRECTIVES:
                label = ""
            elif name in _ARGUMENT_IS_TEXT:
                label, lead = "", argument
            elif name in _VERSION_DIRECTIVES:
                version, _, lead = " ".join(argument.split()).partition(" ")
                label = f"{_VERSION_DIRECTIVES[name]} {version}".strip()
            elif name in _LABELS:
                label, lead = _LABELS[name], argument
            box = nodes.admonition() if label else nodes.container()
            if label:
                box += nodes.title(label, label)
            if lead.strip():
                inline, messages = self.state.inline_text(lead, self.lineno)
                box += nodes.paragraph(lead, "", *inline)
            if name not in LAYOUT_DIRECTIVES:
                box.extend(self.fields())
            if self.content:
                self.state.nested_parse(self.content, self.content_offset, box)
            if len(box.children) > (1 if label else 0):
                return [box]
            # A version note without text still says something: "New in version 2.0."
            return [nodes.paragraph(label, label + ".")] if name in _VERSION_DIRECTIVES else []

        def description(self, signature: str) -> list[Any]:
            """The signature as written (``in_`` is a name, not a reference), as code as Sphinx sets it, then the
            content; an ``auto...`` one without content is nothing (its signature and text come from the code). A
            name's signature (``fences.signature_labels``) labels what the page shows under it, as a glossary's term
            labels its definition: written as an admonition, the Markdown writer gives it the one label shape
            (``mdwriter.labelled``: ```faulthandler_timeout`: Type: float; Default: 0 (disabled).``)."""
            box = nodes.container()
            if self.content:
                self.state.nested_parse(self.content, self.content_offset, box)
            if not box.children and self.name.lower().rsplit(":", 1)[-1].startswith("auto"):
                return []
            shown = " ".join(re.sub(r"\\(.)", r"\1", signature).split())
            body = [*self.fields(), *box.children]
            if not shown:
                return body
            name = nodes.literal(shown, shown)
            if not signature_labels(shown):  # a call's parameters: a line of their own, above the text
                return [nodes.paragraph("", "", name), *body]
            return [nodes.admonition("", nodes.title("", "", name), *body)]

        def fields(self) -> list[Any]:
            """The options the page shows (``fences.shown_options``) as one sentence: ``Type: str; Default: ''.``"""
            line = nodes.paragraph()
            shown = [
                (label, self.state.inline_text(value, self.lineno)[0]) for label, value in shown_options(self.options)
            ]
            shown = [(label, parsed) for label, parsed in shown if "".join(n.astext() for n in parsed).strip()]
            for n, (label, parsed) in enumerate(shown):
                line += nodes.Text(option_lead(n, label))
                line.extend(parsed)
            if end := sentence_end(line.astext()):
                line += nodes.Text(end)
            return [line] if line.children else []

        def glossary(self) -> list[Any]:
            """A definition list: each entry's terms (``source directory, root``: several share one definition,
            Sphinx's rule, ``fences.glossary_entries``) and its definition, parsed as reStructuredText."""
            from docutils.statemachine import StringList

            found = nodes.definition_list()
            for terms, definition in glossary_entries(list(self.content)):
                shown = ", ".join(terms)
                term, _ = self.state.inline_text(shown, self.lineno)
                body = nodes.definition()
                if definition:
                    self.state.nested_parse(StringList(definition), self.content_offset, body)
                found += nodes.definition_list_item(shown, nodes.term(shown, "", *term), body)
            return [found] if found.children else []

        def code(self, language: str) -> list[Any]:
            """A literal block; a ``:caption:`` is the sentence introducing it."""
            code = "\n".join(self.content)
            if not code.strip():
                return []
            caption = inline_plain(self.state, str(self.options.get("caption", "")), self.lineno)
            intro = [nodes.paragraph(caption, colon(caption))] if caption else []
            return [*intro, nodes.literal_block(code, code, language=language)]

    return Unknown
