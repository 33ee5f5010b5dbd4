"""Reference-style links as the text the page shows for them.

A page may write a link as ``[Docusaurus]``, ``[the docs][]`` or ``[text][label]`` and define it once, often at
its end (``[docusaurus]: https://docusaurus.io``). The definition is not a block: no passage holds it, and the
link's brackets would be read as text (``[Docusaurus]`` where the page shows "Docusaurus"). After the page is
parsed, every reference whose label the page defines (markdown-it's ``env["references"]``) is written as its
text. Not as an inline link: the address is not shown on the page, and in the passage it would only add tokens
to both rankers' text (Material for MkDocs defines hundreds). A bracketed word the page does not define stays as
written (``[x]``, ``[1]``, ``[AB-123]`` are text there too), and code is never touched.

A definition inside a block (Material writes them under a list, so they are in its last item) stays as written: it
shows nothing, and every text output leaves it out (``readable``, ``units``). The rewrite keeps each line a line:
the blocks' line maps stay valid.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..escape import CODE_SPAN
from ..text import definition_lines, fenced_chunks

_REFERENCE = re.compile(
    r"(?<![!\]\\])\[(?P<text>(?:[^\[\]\\\n]|\\.|\[[^\[\]\n]*\])+)\](?:\[(?P<label>[^\[\]\n]*)\])?(?![(\[])"
)
"""``[text][label]``, ``[text][]`` or ``[text]``: not an image, not an inline link. A definition's line is not read
(``references_as_text``): a colon after the brackets elsewhere is the sentence's ("for [GitHub Actions]:")."""


def references_as_text(lines: list[str], references: Mapping[str, Any]) -> list[str]:
    """``lines`` with every reference link the page defines written as its text; fenced code lines and the
    definitions themselves (``text.definition_lines``) left alone."""
    if not references:
        return lines
    out: list[str] = []
    for is_code, chunk in fenced_chunks(lines):
        if is_code:
            out += chunk
            continue
        defined = {k for k in definition_lines(chunk) if _label(chunk[k]) in references}
        out += [line if k in defined or "[" not in line else _inlined(line, references) for k, line in enumerate(chunk)]
    return out


def _label(definition: str) -> str:
    """A definition line's label as markdown-it keys ``env["references"]``."""
    from markdown_it.common.utils import normalizeReference

    return str(normalizeReference(definition.strip()[1:].split("]:", 1)[0]))


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
        text, label = restore(match.group("text")), match.group("label")
        found = references.get(normalizeReference(restore(label) if label else text))
        return text if isinstance(found, Mapping) else match.group(0)

    return restore(_REFERENCE.sub(shown, CODE_SPAN.sub(hold, line)))


_HELD = re.compile("\x00(\\d+)\x00")
