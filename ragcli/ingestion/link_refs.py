"""Reference-style links as the text the page shows for them.

A page may write a link as ``[Docusaurus]``, ``[the docs][]`` or ``[text][label]`` and define it once, often at
its end (``[docusaurus]: https://docusaurus.io``). The definition is not a block: no passage holds it, and the
link's brackets would be read as text (``[Docusaurus]`` where the page shows "Docusaurus"). After the page is
parsed, every reference whose label the page defines (markdown-it's ``env["references"]``) is written as its
text. Not as an inline link: the address is not shown on the page, and in the passage it would only add tokens
to both rankers' text (Material for MkDocs defines hundreds). A bracketed word the page does not define stays as
written (``[x]``, ``[1]``, ``[AB-123]`` are text there too), and code is never touched.

A definition stays as written, inside a block too (Material writes them under a list, so they are in its last item):
it shows nothing, and every text output leaves it out (``readable``, ``units``). The rewrite keeps each line a line:
the blocks' line maps stay valid.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..escape import CODE_SPAN
from ..text import fenced_chunks

_REFERENCE = re.compile(
    r"(?<![!\]\\])\[(?P<text>(?:[^\[\]\\\n]|\\.|\[[^\[\]\n]*\])+)\](?:\[(?P<label>[^\[\]\n]*)\])?(?![(\[])"
)
"""``[text][label]``, ``[text][]`` or ``[text]``: not an image, not an inline link. Before a colon only inside a line
(``_opens_line``): "for [GitHub Actions]:" is the sentence's colon, ``[a]: url`` at a line's start a definition's."""
_LINE_OPENING = re.compile(r"^[ \t>]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?$")
"""What may stand before a definition on its line: indentation, quote markers, a list item's marker."""
_TITLE = r"""(?:"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|\((?:\\.|[^)\\\n])*\))"""
_DEFINITION_REST = re.compile(rf":[ \t]*(?:(?:<[^<>\n]*>|\S+)(?:[ \t]+{_TITLE})?)?[ \t]*$")
"""What follows a definition's label on its line: the colon, a target and a title, or only some of them (the rest on
the next line). Words after the target ("[Why use mike?]: mike is built around ...", an admonition's linked title
as a label) are a sentence."""


def references_as_text(lines: list[str], references: Mapping[str, Any]) -> list[str]:
    """``lines`` with every reference link the page defines written as its text; fenced code lines and the
    definitions themselves left alone."""
    if not references:
        return lines
    out: list[str] = []
    for is_code, chunk in fenced_chunks(lines):
        out += chunk if is_code else [_inlined(line, references) if "[" in line else line for line in chunk]
    return out


def _opens_line(match: re.Match[str]) -> bool:
    """Whether ``match`` (brackets before a colon) opens its line's text, as a definition does (``[a]: url``,
    ``> [a]: url``, a definition's label over two lines): left as written, whatever follows."""
    before, after = match.string[: match.start()], match.string[match.end() :]
    return bool(_DEFINITION_REST.match(after)) and bool(_LINE_OPENING.match(before))


def _inlined(line: str, references: Mapping[str, Any]) -> str:
    """One line's references written as their text, its code spans held aside (a ``[x]`` in code is code; a link's text
    may be code: ``[`attrs.define`]``)."""
    from markdown_it.common.utils import normalizeReference

    spans: list[str] = []

    def hold(match: re.Match[str]) -> str:
        spans.append(match.group(0))
        return f"\x00{len(spans) - 1}\x00"

    def restore(text: str) -> str:
        return _HELD.sub(lambda m: spans[int(m.group(1))], text)

    def shown(match: re.Match[str]) -> str:
        if _opens_line(match):
            return match.group(0)
        text, label = restore(match.group("text")), match.group("label")
        found = references.get(normalizeReference(restore(label) if label else text))
        return text if isinstance(found, Mapping) else match.group(0)

    return restore(_REFERENCE.sub(shown, CODE_SPAN.sub(hold, line)))


_HELD = re.compile("\x00(\\d+)\x00")
