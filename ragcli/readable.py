"""The one renderer of document text for people (``readable``, ``readable_quote``): links read as their text,
character references as their character, a line's escaped start as the line, table rows under their header;
code is never rewritten. Every text output (``search``'s formats, ``ask`` on a terminal and in a pipe) prints
through it, and ``--json`` keeps the Markdown as written.
"""

from __future__ import annotations

import functools
import re

from .escape import CODE_SPAN
from .text import FENCE, TABLE_RULE, block_fence, fence_of, fenced_chunks

_INLINE_LINK = re.compile(
    r"!?\[((?:[^\[\]`\n]|`[^`\n]*`|\[[^\[\]\n]*\])*)\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+\"[^\"\n]*\")?\)"
)
"""``[text](target)``; the text may hold a code span or a pair of brackets (uv's ``[`[build-system]`](config.md)``)."""
_REFERENCE_LINK = re.compile(r"(?<![\w)\]'\"])\[([^\]\n]+)\]\[[^\]\n]*\]")
"""``[text][ref]``; not a subscript pair after a name or call (``errors()[0]['type']``, ``grid[i][j]``)."""
_AUTOLINK = re.compile(r"<((?:https?|mailto):[^>\s]+)>")


def readable(markdown: str, *, escapes: bool = True) -> str:
    """Passage text as a person reads it: the one renderer of document text for every text output.

    Markdown links read as their text (``[project dependencies](../concepts/x.md)`` is
    ``project dependencies``; images keep their alt text, reference links their text,
    autolinks their URL), character references as their character (``&mdash;`` is ``—``, as a browser
    shows it) and a line's escaped start as the line (``1\\.`` is ``1.``; ``--json`` keeps the Markdown as
    written). Code is never rewritten: fenced blocks and code spans are
    kept character for character, so ``errors()[0]['type']`` is not read as a link.

    ``escapes=False`` leaves backslashes as they are: for an answer's statements, which the local answerer writes
    as plain text (its code spans without their backticks, so ``\\d+\\.`` there is code, not an escape).
    """
    out = [
        "\n".join(chunk) if is_code else _prose_links(_maybe_unescaped("\n".join(chunk), escapes))
        for is_code, chunk in fenced_chunks(markdown.split("\n"))
    ]
    return "\n".join(out)


def _maybe_unescaped(prose: str, escapes: bool) -> str:
    return unescaped(prose) if escapes else prose


def _prose_links(text: str) -> str:
    """Links as their text in prose, code spans left as they are."""
    text = _links_around_code(text)
    pieces: list[str] = []
    at = 0
    for span in CODE_SPAN.finditer(text):
        pieces += [_links(text[at : span.start()]), span.group()]
        at = span.end()
    pieces.append(_links(text[at:]))
    return "".join(pieces)


def _links_around_code(text: str) -> str:
    """A link whose text holds a code span (``[`env show`](../cli/reference.md)``, as reference pages name a
    command) reads as that text, the code span kept: cut at its code spans, as ``_prose_links`` cuts prose, the
    link would no longer be seen. Link syntax that a code span cuts into (``[a `b](c)` d``: the code is ``b](c)``)
    is no link, and stays as written."""
    if "`" not in text:  # no code span, no such link: most prose, read for every snippet
        return text
    for pattern in (_INLINE_LINK, _REFERENCE_LINK):
        code = [m.span() for m in CODE_SPAN.finditer(text)]
        text = pattern.sub(functools.partial(_code_link_text, code=code), text)
    return text


def _code_link_text(link: re.Match[str], *, code: list[tuple[int, int]]) -> str:
    """The link's text when it holds a code span and every code span it meets lies whole inside that text (code
    spans bind before links); else the link as written."""
    start, end = link.span()
    text_start, text_end = link.span(1)
    crossed = any(s < end and e > start and not (text_start <= s and e <= text_end) for s, e in code)
    return link.group() if crossed or "`" not in link.group(1) else link.group(1)


def _links(text: str) -> str:
    text = _INLINE_LINK.sub(r"\1", text)
    text = _REFERENCE_LINK.sub(r"\1", text)
    return _ENTITY.sub(_entity, _AUTOLINK.sub(r"\1", text))


_START_ESCAPE = re.compile(r"^([ \t]*)(?:(\d{1,9})\\([.)])|\\(?=[#*+>`~<=!?:{_-]))", re.MULTILINE)
"""A backslash that keeps a line from reading as markup: ``1\\.`` (no list), ``\\#`` (no heading), as the converters
write it (``mdwriter.escape_start``). Only at a line's start: elsewhere a backslash may be the text's own
(``C:\\Users\\me\\.ssh``, a regular expression), and what a plain-text file says is not Markdown."""


def unescaped(prose: str) -> str:
    """Prose (no code) with the backslashes that keep its lines from reading as markup dropped (``_START_ESCAPE``)."""
    return _START_ESCAPE.sub(lambda m: m.group(1) + (m.group(2) + m.group(3) if m.group(2) else ""), prose)


_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
"""A character reference as CommonMark reads one in prose (``&mdash;``, ``&#8212;``, ``&nbsp;``): with its ``;``,
never in code (``&copy=2`` in a URL is no entity)."""


def _entity(match: re.Match[str]) -> str:
    import html

    return html.unescape(match.group())


def readable_quote(statement: str, passage_text: str) -> str:
    """A quoted window as a person reads it: table rows under their header, code lines as a code block.

    A window may start inside a table or a code block of its passage: printed bare, ``| ^0.2.3 | >=0.2.3 <0.3.0 |``
    says nothing of what its columns are, and code lines read as prose. The header and rule of the row's table are
    put back before the first row, and lines of one fenced block are fenced with that block's opening line, both
    from the passage the window was cut from. What the window says is not changed: only its frame is added.
    """
    passage = passage_text.split("\n")
    lines = _with_table_headers(statement.split("\n"), passage)
    if not any(FENCE.match(line) for line in lines):
        lines = _as_code_blocks(lines, passage)
    return "\n".join(lines)


def _is_row(line: str) -> bool:
    return line.strip().startswith("|") and line.strip().endswith("|") and not TABLE_RULE.match(line)


def _with_table_headers(lines: list[str], passage: list[str]) -> list[str]:
    out: list[str] = []
    for i, line in enumerate(lines):
        starts_rows = _is_row(line) and not (i and (_is_row(lines[i - 1]) or TABLE_RULE.match(lines[i - 1])))
        has_rule = i + 1 < len(lines) and bool(TABLE_RULE.match(lines[i + 1]))
        if starts_rows and not has_rule:
            out += _table_header(line, passage)
        out.append(line)
    return out


def _table_header(row: str, passage: list[str]) -> list[str]:
    """The header and rule lines of the table in ``passage`` that holds ``row`` as a body row (or none)."""
    for j, line in enumerate(passage):
        if line.strip() != row.strip():
            continue
        k = j - 1
        while k > 0 and _is_row(passage[k]):
            k -= 1
        if k > 0 and k < j and TABLE_RULE.match(passage[k]) and _is_row(passage[k - 1]):
            return [passage[k - 1].strip(), passage[k].strip()]
    return []


def _as_code_blocks(lines: list[str], passage: list[str]) -> list[str]:
    """Runs of ``lines`` that are lines of one fenced block of ``passage``, fenced with that block's opener."""
    owner: dict[str, tuple[int, str]] = {}
    block = 0
    for is_code, chunk in fenced_chunks(passage):
        if is_code:
            _, _, closed = block_fence(chunk)
            for line in chunk[1 : len(chunk) - closed]:
                if line.strip():
                    owner.setdefault(line.strip(), (block, chunk[0].strip()))
        block += len(chunk)
    out: list[str] = []
    current: tuple[int, str] | None = None
    for line in lines:
        found = owner.get(line.strip()) if line.strip() else current
        if found != current and current is not None:
            out.append(fence_of(current[1]) or "```")
        if found is not None and found != current:
            out.append(found[1])
        out.append(line)
        current = found
    if current is not None:
        out.append(fence_of(current[1]) or "```")
    return out
