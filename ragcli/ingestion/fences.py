"""Where fenced code begins and ends, and the indented body of a container: the line structure ``dialects`` walks.

A fence opens with three or more backticks or tildes (an info string may follow, but a backtick fence's info has
no backtick: that is an inline code span) and closes with a line of the same character, at least as long. A
fence with an info string inside a backtick fence opens a nested block (a MyST directive's example).

A MyST directive whose body is code (```` ```{doctest} ````, ```` ```{code-block} python ````) is a code block like
any fence: ``code_directive`` writes it as one, its options dropped and a ``:caption:`` the sentence before it, as
the reStructuredText reader writes ``.. doctest::`` and ``.. code-block::`` (``sphinx_markup``).

Which of a directive's options a page shows as text (``shown_options``: a ``:default:``, not a ``:class:``) and
which directives only lay a page out (``LAYOUT_DIRECTIVES``) or describe an object (``DESCRIPTIONS``) are decided
here for both readers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from ..text import closes_fence
from .mdwriter import colon, name_label

FENCE_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<marker>`{3,}|~{3,})(?P<info>.*)$")
ITEM_FENCE = re.compile(r"^[ \t]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)+(?P<marker>`{3,}|~{3,})(?P<info>.*)$")
"""A fence opened on a list item's first line (``- ```text``, ``* - ```md`` in a MyST list-table)."""
DIRECTIVE_INFO = re.compile(r"^\{(?P<name>[\w:.-]+)\}[ \t]*(?P<args>.*)$")
"""A MyST directive's info string: ``{note}``, ``{code-block} python``."""
CODE_DIRECTIVES = frozenset(
    "code-block code sourcecode code-cell doctest testcode testoutput ipython jupyter-execute".split()
)
"""MyST (and Sphinx) directives whose body is code the page shows."""
SOURCE_DIRECTIVES = frozenset({"myst-example", "myst", "myst-to-html"})
"""Directives that show their body as MyST source (the MyST docs' own examples)."""
HIDDEN_CODE = frozenset({"testsetup", "testcleanup"})
"""sphinx.ext.doctest's setup and cleanup code: run by the tests, "not shown in the output" of the page."""
GROUP_ARGUMENT = frozenset({"doctest", "testcode", "testoutput"})
"""Directives whose argument names a test group, not a language."""
LAYOUT_DIRECTIVES = frozenset(
    {"only", "ifconfig", "hlist", "grid", "grid-item", "rst-class", "cssclass", "tab-set", "tabs", "div", "container"}
)
"""Directives whose argument is a condition, a layout or CSS classes, not text (``{grid} 1 2 2 2``): their content
alone, in either reader."""
DESCRIPTIONS = frozenset(
    "function class method classmethod staticmethod attribute property data exception decorator decoratormethod "
    "type member macro struct union enum enumerator var option envvar confval directive role describe object".split()
)
"""Directives that describe an object (Sphinx's domains: ``py:function``, ``confval``, ``envvar``): the argument is
a signature, which labels what the page shows under it when it is a name (``signature_labels``), in either reader."""
_LABEL_SIGNATURE = 60
"""The longest signature that labels its description's first paragraph, in characters."""


def signature_labels(signature: str) -> bool:
    """Whether a description's signature labels its first paragraph (```faulthandler_timeout`: Type: float ...``): a
    name (``PYTEST_ADDOPTS``, ``-k EXPRESSION``), not a call's parameters (``attr.s(these=None, repr_ns=None, ...)``)
    nor a signature that ends in its own colon (``.. toctree::``), which stay on a line of their own, as Sphinx sets
    them above the text."""
    a_name = "(" not in signature and not signature.endswith(":")
    return bool(signature) and a_name and len(signature) <= _LABEL_SIGNATURE


_LAYOUT_OPTIONS = frozenset(
    "class name caption align width height alt scale target figwidth figclass loading linenos lineno-start "
    "lineno-match emphasize-lines dedent force language highlight hidden maxdepth titlesonly glob numbered reversed "
    "includehidden caption-class noindex no-index no-index-entry nocontentsentry no-contents-entry no-typesetting "
    "module canonical annotation sync key selected open color icon shadow columns gutter margin padding child-align "
    "child-direction text-align outline expand tooltip link link-type link-alt ref-type chevron animate members "
    "undoc-members inherited-members special-members private-members exclude-members imported-members member-order "
    "show-inheritance no-value nosignatures recursive template toctree file url encoding header header-rows "
    "stub-columns widths delim quote keepspace escape label depth local backlinks start-after end-before start-line "
    "end-line parser renderer tab-width literal code number-lines relative-docs relative-images heading-offset "
    "format sorted include-source show-source-link nofigs context".split()
)
"""Directive options that say how a page is laid out or built (CSS classes, sizes, links, which members autodoc
documents, what an include takes), not what it says: never shown as text."""
_LAYOUT_PREFIXES = ("class-", "img-", "sd-")
_OPTION = re.compile(r"^[ \t]*:(?P<key>[\w-]+):(?:[ \t]+(?P<value>.*))?$")
_YAML_OPTION = re.compile(r"^[ \t]*(?P<key>[\w-]+):(?:[ \t]+(?P<value>.*))?$")


def collect(lines: list[str], start: int, marker: str) -> tuple[list[str], int]:
    """The lines after an opening fence up to its closing one; (body, index after the close)."""
    body: list[str] = []
    i = start
    depth_markers: list[str] = []
    while i < len(lines):
        line = lines[i]
        if not depth_markers and closes_fence(line, marker):
            return body, i + 1
        opened = (FENCE_OPEN.match(line) or ITEM_FENCE.match(line)) if marker[0] != ":" else None
        if opened and marker[0] == "`" and opened.group("info").strip():
            depth_markers.append(opened.group("marker"))  # a nested fence with an info string opens
        elif depth_markers and closes_fence(line, depth_markers[-1]):
            depth_markers.pop()
        body.append(line)
        i += 1
    return body, i  # never closed: the rest of the document


def indented_body(lines: list[str], start: int, prefix: str) -> tuple[list[str], int]:
    """The lines indented by ``prefix`` (and blank lines between them) from ``start``, dedented once."""
    body: list[str] = []
    i = start
    while i < len(lines) and (not lines[i].strip() or lines[i].startswith(prefix)):
        body.append(lines[i][len(prefix) :] if lines[i].strip() else "")
        i += 1
    while body and not body[-1].strip():  # trailing blank lines belong to what follows
        body.pop()
        i -= 1
    return body, i


def directive_options(lines: list[str]) -> tuple[dict[str, str], list[str]]:
    """A MyST directive's options (``:class: x`` lines, or a ``---`` YAML block at the top) and its content."""
    options: dict[str, str] = {}
    body = list(lines)
    if body and body[0].strip() == "---":
        end = next((n for n in range(1, len(body)) if body[n].strip() == "---"), None)
        if end is not None:
            for line in body[1:end]:
                found = _YAML_OPTION.match(line)
                if found:
                    options[found.group("key")] = (found.group("value") or "").strip()
            body = body[end + 1 :]
    while body and (found := _OPTION.match(body[0])):
        options[found.group("key")] = (found.group("value") or "").strip()
        body = body[1:]
    return options, body


def shown_options(options: Mapping[str, str | None]) -> list[tuple[str, str]]:
    """The options of a directive that its page shows as text, as ``(label, value)``: Sphinx's ``.. confval:: x``
    with ``:type: str`` and ``:default: 'x'`` shows "Type" and "Default" under the name; tox's ``.. conf::``
    shows its ``:keys:`` and ``:default:``. An option without a value (a flag) and a layout option
    (``_LAYOUT_OPTIONS``) show nothing."""
    return [
        (name_label(key), " ".join(value.split()))
        for key, value in options.items()
        if value
        and value.strip()
        and key.lower() not in _LAYOUT_OPTIONS
        and not key.lower().startswith(_LAYOUT_PREFIXES)
    ]


def option_lead(n: int, label: str) -> str:
    """What goes before the ``n``-th shown option's value in its sentence: ``Type: str; Default: ''.``"""
    return f"{'; ' if n else ''}{label}: "


def sentence_end(text: str) -> str:
    """The stop that ends the options' sentence, so it does not run on into the text after it."""
    return "" if not text.strip() or text.rstrip().endswith((".", "!", "?")) else "."


def code_directive(name: str, args: str, lines: list[str], caption_text: Callable[[str], str]) -> list[str]:
    """A code directive's body as a fenced block (the language its argument, where it names one); a ``:caption:``
    (as ``caption_text`` reads it) the sentence before it; nothing for hidden or empty code."""
    options, body = directive_options(lines)
    while body and not body[0].strip():
        body = body[1:]
    while body and not body[-1].strip():
        body = body[:-1]
    if name in HIDDEN_CODE or "hide" in options or not body:
        return [""]
    language = args.split()[0] if args.split() and name not in GROUP_ARGUMENT else ""
    runs = [len(m.group("marker")) for line in body if (m := FENCE_OPEN.match(line)) and m.group("marker")[0] == "`"]
    fence = "`" * max([3, *(n + 1 for n in runs)])
    caption = caption_text(options.get("caption", "")).strip()
    return ["", *([colon(caption), ""] if caption else []), f"{fence}{language}", *body, fence, ""]


def glossary_entries(lines: list[str]) -> list[tuple[list[str], list[str]]]:
    """A Sphinx ``glossary``'s content (MyST's ``{glossary}`` too) as its entries, each its terms and its definition.

    Sphinx's rule: an entry is one or more terms, each a line of its own at the left margin (several terms share one
    definition), then its definition, indented; a blank line ends an entry. The definition's lines come back
    dedented (as Markdown or reStructuredText to read); a comment line (``..``) is no term."""
    entries: list[tuple[list[str], list[str]]] = []
    terms: list[str] = []
    definition: list[str] = []

    def close() -> None:
        while definition and not definition[-1].strip():
            definition.pop()
        if terms:
            width = min((len(d) - len(d.lstrip()) for d in definition if d.strip()), default=0)
            entries.append((list(terms), [d[width:] for d in definition]))
        terms.clear()
        definition.clear()

    for line in lines:
        if line.strip() and not line[0].isspace():
            if line.startswith(".."):
                continue
            if definition:  # a term after a definition: the next entry
                close()
            terms.append(line.strip())
        elif terms and (line.strip() or definition):
            definition.append(line)
    close()
    return entries
