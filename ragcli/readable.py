"""The one renderer of document text for people (``readable``, ``readable_quote``): links read as their text,
character references as their character, a line's escaped start as the line, table rows under their header;
code is never rewritten. Every text output (``search``'s formats, ``ask`` on a terminal and in a pipe) prints
through it, and ``--json`` keeps the Markdown as written.
"""

from __future__ import annotations

import bisect
import math
import re

from .escape import CODE_SPAN
from .text import FENCE, TABLE_RULE, block_fence, definition_lines, fence_of, fenced_chunks

_LINK_TEXT = r"(?:\\.|[^\[\]\\\n]|\[(?:\\.|[^\[\]\\\n])*\])*"
"""A link's text: escaped characters, anything but a bracket, or one pair of brackets (uv's
``[`[build-system]`](config.md)``, its code span blanked first: ``_links_around_code``). Each choice starts on
a different character, so a line of brackets is read in one pass."""
_INLINE_LINK = re.compile(rf"!?\[({_LINK_TEXT})\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+\"[^\"\n]*\")?\)")
_REFERENCE_LINK = re.compile(rf"(?<![\w)\]'\"])\[({_LINK_TEXT})\]\[[^\[\]\n]*\]")
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
        "\n".join(chunk) if is_code else _prose_links(_maybe_unescaped("\n".join(_shown_prose(chunk)), escapes))
        for is_code, chunk in fenced_chunks(markdown.split("\n"))
    ]
    return "\n".join(out)


def _shown_prose(lines: list[str]) -> list[str]:
    """Prose lines without its link reference definitions, which show nothing (an index built before chunker 28
    holds Material's under its lists)."""
    defined = definition_lines(lines) if "]:" in "".join(lines) else set()
    shown: list[str] = []
    for k, line in enumerate(lines):
        # The blank line after dropped definitions goes with them when one stands before them already.
        after_dropped = k - 1 in defined and not line.strip() and (not shown or not shown[-1].strip())
        if k not in defined and not after_dropped:
            shown.append(line)
    return shown


def _maybe_unescaped(prose: str, escapes: bool) -> str:
    return unescaped(prose) if escapes else prose


def _prose_links(text: str) -> str:
    """Links as their text in prose, code spans left as they are. The code spans are read once, on the text as
    written (``CODE_SPAN``): rewriting a link first could join a code span's closing backticks to a stray one
    after it, and the span would no longer be read as code."""
    if "`" not in text:  # no code span: most prose, read for every snippet
        return _links(text)
    code = [m.span() for m in CODE_SPAN.finditer(text)]
    pieces: list[str] = []
    at = 0
    for start, end, text_start, text_end in _code_links(text, code):
        pieces += [_outside_code(text, at, start, code), _outside_code(text, text_start, text_end, code)]
        at = end
    pieces.append(_outside_code(text, at, len(text), code))
    return "".join(pieces)


def _meeting(code: list[tuple[int, int]], start: int, end: int) -> list[tuple[int, int]]:
    """The code spans of ``code`` (in order, none overlapping) that share a character with ``start``..``end``."""
    first = bisect.bisect_right(code, (start, math.inf)) - 1  # the last span opening at or before start
    found = []
    for s, e in code[max(first, 0) :]:
        if s >= end:
            break
        if e > start:
            found.append((s, e))
    return found


def _outside_code(text: str, start: int, end: int, code: list[tuple[int, int]]) -> str:
    """``text[start:end]`` with the links of its prose read as their text and its code spans (``code``; each
    lies whole inside or outside it) as written."""
    pieces: list[str] = []
    at = start
    for s, e in _meeting(code, start, end):
        pieces += [_links(text[at:s]), text[s:e]]
        at = e
    pieces.append(_links(text[at:end]))
    return "".join(pieces)


def _code_links(text: str, code: list[tuple[int, int]]) -> list[tuple[int, int, int, int]]:
    """The links whose text holds a code span (``[`env show`](../cli/reference.md)``, as reference pages name a
    command), as (start, end, text start, text end): each reads as its text, the code span kept. Link syntax that
    a code span cuts into (``[a `b](c)` d``: the code is ``b](c)``) is no link, and stays as written. They are
    found on a copy whose code spans hold no bracket (``_blanked``): brackets in code
    (``[`[build-system]`](config.md)``) do not end a link's text."""
    blanked = _blanked(text, code)
    found: list[tuple[int, int, int, int]] = []
    for pattern in (_INLINE_LINK, _REFERENCE_LINK):
        for link in pattern.finditer(blanked):
            start, end = link.span()
            text_start, text_end = link.span(1)
            met = _meeting(code, start, end)
            if not met or any(not (text_start <= s and e <= text_end) for s, e in met):
                continue  # no code in its text (read with the prose around it), or code crosses its syntax
            if not any(start < e and s < end for s, e, _, _ in found):
                found.append((start, end, text_start, text_end))
    return sorted(found)


def _blanked(text: str, code: list[tuple[int, int]]) -> str:
    """``text`` with each code span's characters but its backticks as ``x``: the same length, so a link found
    in it is found at the same place in ``text``."""
    out = list(text)
    for start, end in code:
        for k in range(start, end):
            if out[k] != "`":
                out[k] = "x"
    return "".join(out)


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
