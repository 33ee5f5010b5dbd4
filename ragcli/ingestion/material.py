"""Material for MkDocs, pymdownx and mkdocstrings markup, read as what the site shows.

The rules ``dialects`` applies for these three (its walk decides where each applies):

- pymdownx blocks (``/// note | Title`` … ``///``, ``/// version-added | v2.10``, ``/// details``,
  ``/// tab``): their YAML options are dropped and the block is labelled like an admonition;
- a code fence's attribute list and options (```` ```python {lint="skip"} ````, ```` ``` { .yaml
  .annotate } ````, ``title="mkdocs.yml"``) are reduced to the language; a ``title`` labels the block;
- code annotations (``# (1)!``, ``// (2)``) are removed from the code (the numbered list after the
  block, which says what they mean, stays as it is: prose after the block);
- a ``--8<--`` list of files to include is dropped (one ``--8<-- "file"`` line is dropped by ``dialects``);
- mkdocstrings directives (``::: pkg.module`` and their indented ``options:``) are dropped, at the top level
  or inside an admonition, tab or list item: the API reference they stand for is generated from code, which
  ragcli does not have; an admonition or tab that holds nothing else goes with it (its title alone, a
  collapsed "API Reference" box, says nothing);
- emoji shortcodes (``:white_check_mark:``) become their character (``inline_markup.emoji``).
"""

from __future__ import annotations

import re
from collections.abc import Callable

BLOCK_OPEN = re.compile(
    r"^(?P<indent>[ \t]*)(?P<slashes>/{3,})[ \t]*(?P<kind>[A-Za-z][\w-]*)(?:[ \t]*\|[ \t]*(?P<title>.*?))?[ \t]*$"
)
"""``/// note | Title``: a pymdownx block opens (``////`` for one nested in another)."""
_BLOCK_OPTION = re.compile(r"^[ \t]+[\w-]+:(?:[ \t].*)?$")
_VERSION_KINDS = {"added": "Added in", "changed": "Changed in", "removed": "Removed in", "deprecated": "Deprecated in"}
_UNLABELLED = frozenset({"html", "define", "caption"})

MKDOCSTRINGS = re.compile(r"^(?P<indent>[ \t]*):::[ \t]+(?P<target>[\w.:/-]+)[ \t]*$")
"""``::: pydantic.fields``: an API reference mkdocstrings renders from the code."""
_MKDOCSTRINGS_OPTIONS = re.compile(r"^[ \t]+(?:options|handler|selection|rendering|members):")
CONTAINER = re.compile(r"^(?P<indent>[ \t]*)(?:!!!|\?\?\?\+?|===\+?)[ \t]+\S.*$")
"""``!!! note "Title"``, ``??? abstract "API Reference"``, ``=== "Tab"``: a container ``markdown`` unfolds."""

_ATTRS = re.compile(r"\{[^{}]*\}")
_TITLE = re.compile(r"""\btitle=(?:"([^"]*)"|'([^']*)'|(\S+))""")
_BRACKET_TITLE = re.compile(r"(?:^|(?<=\s))\[([^\[\]\n]+)\][ \t]*$")
"""VitePress's block title (a file name, or a code group's tab: ``[npm]``), last in the info string."""
_VITEPRESS_LANG_OPTIONS = re.compile(r"(?:\{[\d,\s-]*\}|:[\w:-]+)$")
"""``js{12-15}`` (lines highlighted), ``ts:line-numbers``: the language is what comes before."""
_LANG_CLASS = re.compile(r"(?:^|\s)\.([\w+#-]+)")
_ANNOTATION_ONLY = re.compile(
    r"(?:^|[ \t]+)(?:(?:#|//)[ \t]*\(\d+\)!?|(?:--|;|%|/\*|<!--)[ \t]*\(\d+\)!)[ \t]*(?:\*/|-->)?[ \t]*$"
)
"""A comment that is only a marker: ``# (1)!``, ``# (2)``, ``/* (1)! */`` (``%(1)`` without ``!`` is Python's ``%``)."""
_ANNOTATION = re.compile(
    r"(?P<comment>(?:^|(?<=\s))(?:#|//|--|;|%|/\*|<!--).*?)[ \t]*\(\d+\)!(?=[ \t]*(?:\*/|-->)?[ \t]*$)"
)
"""``(1)!`` at the end of a comment that says something too: the marker goes, the comment stays."""


# --------------------------------------------------------------------------- pymdownx blocks


def block_label(kind: str, title: str | None) -> str:
    """The label a block's prose gets: ``/// version-added | v2.10`` → "Added in v2.10", ``/// note`` → "Note",
    ``/// details | Why?`` → "Why?"; a block that shows only its content (``html``, ``caption``) gets none."""
    kind, title = kind.lower(), (title or "").strip()
    verb = kind.removeprefix("version-") if kind.startswith("version-") else ""
    if verb:
        said = _VERSION_KINDS.get(verb, verb.capitalize() + " in")
        if title.split(" ", 1)[0].lower() == said.split(" ", 1)[0].lower():
            return title  # ``/// version-added | Added in 1.1.0`` says it already
        return f"{said} {title}" if title else said.removesuffix(" in")
    if kind in _UNLABELLED:
        return ""
    return title or kind.replace("-", " ").capitalize()


def block_body(lines: list[str], start: int, indent: str, slashes: str) -> tuple[list[str], int]:
    """The content of a block opened on the line before ``start``, without its YAML options, and the index after
    its closing ``///`` (the end of the text when it is never closed)."""
    close = re.compile(r"^" + re.escape(indent) + re.escape(slashes) + r"[ \t]*$")
    i = start
    while i < len(lines) and _BLOCK_OPTION.match(lines[i]) and not close.match(lines[i]):
        i += 1  # ``    type: warning``, ``    open: True``: how the block renders, not what it says
    body: list[str] = []
    while i < len(lines) and not close.match(lines[i]):
        body.append(lines[i][len(indent) :] if lines[i].startswith(indent) else lines[i])
        i += 1
    return body, min(i + 1, len(lines))


# --------------------------------------------------------------------------- code fences


def fence_info(info: str) -> tuple[str, str]:
    """The language and title in a fence's info string: ```` ```python {lint="skip"} ```` → ("python", ""),
    ```` ``` { .yaml .annotate title="mkdocs.yml" } ```` → ("yaml", "mkdocs.yml"), VitePress's ```` ```js{12-15}
    twoslash [vite.config.js] ```` → ("js", "vite.config.js") (its ``[npm]`` names a code group's tab); everything
    else dropped."""
    title_match = _TITLE.search(info)
    title = next((g for g in title_match.groups() if g is not None), "") if title_match else ""
    bracket = _BRACKET_TITLE.search(info)
    if bracket:
        info = info[: bracket.start()]
        title = title or bracket.group(1).strip()
    bare = _ATTRS.sub(" ", info).strip()
    lang = bare.split()[0] if bare and not bare.split()[0].startswith(("title=", "linenums=", "hl_lines=")) else ""
    lang = _VITEPRESS_LANG_OPTIONS.sub("", lang)
    if not lang:
        classes = [c for attrs in _ATTRS.findall(info) for c in _LANG_CLASS.findall(attrs)]
        lang = next((c for c in classes if c not in ("annotate", "no-copy", "copy", "select")), "")
    return lang, title


def without_annotation(line: str) -> str:
    """A code line without its annotation marker: ``blog_dir: . # (1)!`` → ``blog_dir: .``."""
    if "(" not in line:
        return line
    stripped = _ANNOTATION_ONLY.sub("", line)
    return stripped if stripped != line else _ANNOTATION.sub(r"\g<comment>", line)


# --------------------------------------------------------------------------- generated text


def snippets_extent(lines: list[str], start: int) -> int | None:
    """The index after a ``--8<--`` … ``--8<--`` list of files to include (pymdownx.snippets), or None."""
    if lines[start].strip() != "--8<--":
        return None
    end = next((n for n in range(start + 1, len(lines)) if lines[n].strip() == "--8<--"), start)
    return end + 1


def mkdocstrings_extent(lines: list[str], start: int) -> int | None:
    """The index after a ``::: target`` line and its options (the lines indented deeper), or None when the line at
    ``start`` is not one (``::: tip`` with a closing ``:::`` is a Docusaurus admonition)."""
    match = MKDOCSTRINGS.match(lines[start])
    if match is None:
        return None
    following = lines[start + 1] if start + 1 < len(lines) else ""
    if not any(c in match.group("target") for c in ".:/") and not _MKDOCSTRINGS_OPTIONS.match(following):
        return None
    depth = _depth(lines[start])
    i = start + 1
    while i < len(lines) and (not lines[i].strip() or _depth(lines[i]) > depth):
        i += 1
    while i > start + 1 and not lines[i - 1].strip():
        i -= 1  # the blank lines after belong to what follows
    return i


def generated_container_extent(lines: list[str], start: int, generated: Callable[[int], int | None]) -> int | None:
    """The index after an admonition or tab (``??? abstract "API Reference"``) whose body is only text ragcli does
    not have (``generated`` gives the index after such text at a line, or None), or None when it holds more."""
    opened = CONTAINER.match(lines[start])
    if opened is None:
        return None
    depth, i, end = _depth(lines[start]), start + 1, None
    while i < len(lines) and (not lines[i].strip() or _depth(lines[i]) > depth):
        if not lines[i].strip():
            i += 1
            continue
        after = generated(i)
        if after is None:
            return None
        i = end = after
    return end


def _depth(line: str) -> int:
    """The columns of a line's indentation (a tab to the next multiple of four, as Python-Markdown reads it)."""
    expanded = line.expandtabs(4)
    return len(expanded) - len(expanded.lstrip())
