"""Inline markup of the doc-site dialects as the text a reader sees.

The line-level half of ``dialects``: MyST roles (``{ref}`text <target>``` → ``text``, a target's title
through ``crossrefs``), Hugo shortcodes inside a line, Liquid/Jinja tags and variables, mdBook includes,
Material icons, attribute lists, keys (``++ctrl+c++`` → ``Ctrl+C``), emoji shortcodes
(``:white_check_mark:`` → ✅), MyST's autolinks (``<project:intro.md>`` → the page's title, through ``crossrefs``;
``<path:example.txt>`` → example.txt) and links without text (``[](intro.md)`` → the page's title),
references to footnotes that are not there and HTML tags (``<kbd>Ctrl</kbd>`` → ``Ctrl``, ``html_markup``).
Code spans are left as they are, except that Hugo renders a shortcode even inside one and escapes them as
``{{</* x */>}}``.
"""

from __future__ import annotations

import functools
import re
from importlib import resources

from ..escape import CODE_SPAN
from .crossrefs import (
    EMPTY_LINK,
    MYST_AUTOLINK,
    PROJECT_LINK,
    autolink_text,
    empty_link_text,
    is_code_role,
    project_text,
    role_text,
)
from .html_markup import inline_html

HUGO_SHORTCODE = re.compile(r"\{\{([<%])\s*(/?)\s*([\w/.-]+)((?:[^{}]|\{[^{}]*\})*?)\s*(/?)\s*[>%]\}\}")
_LIQUID_TAG = re.compile(r"\{%-?.*?-?%\}")
_TEMPLATE_VAR = re.compile(r"\{\{(?![<%#]).*?\}\}")
MDBOOK = re.compile(r"\{\{#[\w-]+[^}]*\}\}")
_ROLE_NAME = re.compile(r"\{([\w:.-]+)\}$")
"""The ``{name}`` of a MyST role, at the end of the text before the role's content (a code span)."""
_ICON = re.compile(r":(?:material|octicons|fontawesome|simple)-[\w-]+:(?:\{[^}]*\})?(?P<gap>[ \t](?=\S|$))?")
"""A Material icon with its attribute list, and the one space after it when a word or a code span follows."""
_OPENS = frozenset(" \t*_([{")
"""What may stand right before an icon for the icon to take its gap with it: a space (``a :x: b`` is ``a b``),
an emphasis marker or an opening bracket (``**:octicons-package-24: Type**`` is bold ``Type``, not ``** Type**``).
After a word (``Yes:material-check: and no``) the gap stays, and so do the spaces of a hard line break."""
_ATTR_LIST = re.compile(r"\{:?\s*(?:[.#][\w-]+|[\w-]+=\"[^\"]*\")(?:\s+(?:[.#][\w-]+|[\w-]+=(?:\"[^\"]*\"|\S+)))*\s*\}")
_KEYS = re.compile(r"\+\+([\w+-]+?)\+\+")
_FOOTNOTE_REF = re.compile(r"[ \t]*\[\^[^\]\s]+\](?!:)")
"""A reference to a note the page does not define (``footnotes`` numbered the others), with the space before it."""


_BARE_PIPE = re.compile(r"(?<!\\)\|")


def _role(role: str, content: str) -> str:
    """``{ref}`Explicit text <target>``` → ``Explicit text``; ``{ref}`label``` → the section's title when the folder
    has it (``crossrefs``); ``{py:class}`~a.b.C``` → ``C``; ``{term}`x``` → ``x``; code roles stay code."""
    text = role_text(role, content)
    return f"`{text}`" if is_code_role(role) and text else text


def _no_icon(match: re.Match[str], opens_line: bool) -> str:
    """An icon shows nothing; its gap goes with it at the line's start and after a space, an emphasis marker or a
    bracket (``_OPENS``), but not after a code span (``a `x`:icon: b``: the text was split there)."""
    start = match.start()
    takes_gap = match.string[start - 1] in _OPENS if start else opens_line
    return "" if takes_gap else match.group("gap") or ""


def _keys(match: re.Match[str]) -> str:
    """``++ctrl+alt+del++`` → ``Ctrl+Alt+Del``."""
    return "+".join(part.capitalize() for part in match.group(1).split("+") if part)


def inline(line: str) -> str:
    """Inline markup of every dialect as its visible text (or nothing); code spans are left as they are."""
    pieces = CODE_SPAN.split(line)
    # split() with two groups yields [text, ticks, code, text, ticks, code, ..., text].
    # A line with a bare pipe may be a table row, where ``\|`` is a cell's pipe: ``<code>a \| b</code>`` keeps it.
    in_row = _BARE_PIPE.search(CODE_SPAN.sub("", line)) is not None
    out = []
    role_at = -1  # the code piece a MyST role took as its content
    for n, piece in enumerate(pieces):
        if n % 3 == 0:
            # A role is text ending in ``{name}`` before a one-backtick code span (``{ref}`label```); a ``{name}``
            # inside a code span is code (``env_base.{name}``), read as code like the rest of the span.
            role = _ROLE_NAME.search(piece) if n + 2 < len(pieces) and pieces[n + 1] == "`" else None
            text = piece[: role.start()] if role else piece
            out.append(_inline_text(text, in_row, opens_line=n == 0, code_around=(n > 0, n + 1 < len(pieces))))
            if role:
                shown = _role(role.group(1), pieces[n + 2])
                out.append(shown if shown.startswith("`") else _inline_text(shown, in_row))
                role_at = n + 1
        elif n % 3 == 1 and n != role_at:
            # Hugo renders its shortcodes even in a code span (`{{% param version %}}` shows the version).
            code = HUGO_SHORTCODE.sub("", pieces[n + 1])
            out.append(piece + code + piece if code.strip() else "")
    return code_line("".join(out))


def _inline_text(
    text: str, in_row: bool, opens_line: bool = False, code_around: tuple[bool, bool] = (False, False)
) -> str:
    text = _site_data_dropped(text, code_around)
    text = _ICON.sub(functools.partial(_no_icon, opens_line=opens_line), text)
    text = _ATTR_LIST.sub("", text)
    text = _KEYS.sub(_keys, text)
    text = PROJECT_LINK.sub(lambda m: project_text(m.group(1)), text)
    text = MYST_AUTOLINK.sub(lambda m: autolink_text(m.group(1), m.group(2)), text)
    text = EMPTY_LINK.sub(lambda m: empty_link_text(m.group(1)), text)
    shown = inline_html(emoji(_FOOTNOTE_REF.sub("", text)), in_row=in_row)
    # A link whose text was only an image in HTML (``[<img src=...>](video)``) shows the image: no text.
    return EMPTY_LINK.sub("", shown) if "[](" in shown else shown


_GONE = "\ufdd0"  # a noncharacter: no page holds it
_EMPTY_EMPHASIS = re.compile(r"(?<![\w`*_])(\*{1,3}|_{1,3})\ufdd0+\1(?![\w`*_])")
"""Emphasis around nothing but site data ragcli does not have (``**{{ site.data.ruby.min_version }}**``); not inside a
word (``my_{{ lang }}_file.yml`` is a name) nor between code spans, which it would glue into one."""
_GAP_LEFT = re.compile(r"(?<=[ \t])\ufdd0+[ \t]")


def _site_data_dropped(text: str, code_around: tuple[bool, bool] = (False, False)) -> str:
    """mdBook includes, Hugo shortcodes (``param``, ``ref``, ...), Liquid tags and template variables show site data
    ragcli does not have: they go, and so does emphasis they leave around nothing ("version **** or higher") and the
    doubled gap ("version  or higher")."""
    for markup in (MDBOOK, HUGO_SHORTCODE, _LIQUID_TAG, _TEMPLATE_VAR):
        text = markup.sub(_GONE, text)
    if _GONE not in text:
        return text
    # A code span before or after this text (``code_around``) counts as a word next to it: see _EMPTY_EMPHASIS.
    before, after = ("`" if code else "" for code in code_around)
    guarded = _EMPTY_EMPHASIS.sub(_GONE, before + text + after)  # the guards stay: the pattern only looks at them
    text = guarded[len(before) : len(guarded) - len(after)]
    return _GAP_LEFT.sub("", text).replace(_GONE, "")


_SHORTCODE = re.compile(r"(?<![\w:`/]):([a-z0-9_+-]+):(?![\w:`(/])")


@functools.cache
def _emoji() -> dict[str, str]:
    text = resources.files("ragcli").joinpath("data/emoji.tsv").read_text(encoding="utf-8")
    return dict(line.split("\t", 1) for line in text.splitlines() if line and not line.startswith("#"))


def emoji(text: str) -> str:
    """Emoji shortcodes as their character (``:white_check_mark:`` → ✅), from the twemoji and gemoji names of
    pymdown-extensions (``ragcli/data/emoji.tsv``, read on first use); a ``:word:`` that names none stays."""
    if ":" not in text:
        return text
    return _SHORTCODE.sub(lambda m: _emoji().get(m.group(1), m.group()), text)


def code_line(line: str) -> str:
    """A line of code as the site shows it: Hugo's escaped shortcode syntax (``{{</* x */>}}``) unescaped."""
    return line.replace("{{</*", "{{<").replace("*/>}}", ">}}").replace("{{%/*", "{{%").replace("*/%}}", "%}}")
