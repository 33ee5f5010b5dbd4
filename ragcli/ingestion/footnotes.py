"""Footnotes (``[^label]`` and ``[^label]: text``) as the page shows them: a numbered mark and the note's text.

A site (Python-Markdown, markdown-it's footnote plugin in MyST, Hugo's goldmark) numbers the footnotes a page
refers to and lists their text at its bottom. The text is the document's own, so it is kept; at the bottom it
would sit in the last section, far from what it annotates, so each note goes instead to the end of the section
that first refers to it (before the next heading), as a paragraph ``[1] The text.``: there it is read with what
it annotates and never comes between a sentence and the block the sentence introduces. A reference reads
``[1]``, numbered in the order of first reference as markdown-it and goldmark number them (a heading keeps
none: titles are plain text; a mark after a colon that ends a line goes before the colon, so the line still
introduces what follows). A note nothing refers to, and a reference to no note, are left to ``dialects`` and
``inline_markup``, which drop them.

Code is left alone: fenced code (a MyST code directive's too, and the source a MyST example shows), indented
code and code spans. A MyST directive's prose (```` ```{note} ````) is read like the text around it. A section
ends before a heading: ``# Head``, or ``Head`` over ``===`` or ``---`` (after a blank line ``---`` is a rule).
"""

from __future__ import annotations

import re
import textwrap

from ..escape import CODE_SPAN
from ..text import closes_fence
from .fences import CODE_DIRECTIVES, DIRECTIVE_INFO, FENCE_OPEN, SOURCE_DIRECTIVES

_DEFINITION = re.compile(r"^(?P<indent>[ \t]*)\[\^(?P<label>[^\]\s]+)\]:[ \t]*(?P<text>.*)$")
_REFERENCE = re.compile(r"\[\^(?P<label>[^\]\s]+)\]")
_COLON_OPEN = re.compile(r"^[ \t]*(?P<marker>:{3,})(?P<info>.*)$")
_MARK = re.compile(r"(?P<space>[ \t]*)\[\^(?P<label>[^\]\s]+)\]")
_HEADING = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)")
_UNDERLINE = re.compile(r"^ {0,3}(?:=+|-+)[ \t]*$")
"""A setext heading's underline (``===``, ``---``) after a paragraph's lines; after a blank line ``---`` is a rule."""
_CONTAINER = re.compile(
    r"^[ \t]*(?:(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)|\[\^[^\]\s]+\]:|!!!|\?\?\?|===[ \t]|:[ \t]|<[A-Za-z/])"
)
"""A line whose block its indented lines go on: a list item, a note, an admonition, a tab, a definition, an HTML
tag (kramdown and Python-Markdown read an HTML block to its closing tag, blank lines and all)."""
_BEFORE_COLON = re.compile(r":(?P<marks>(?:\[\d+\])+)[ \t]*$")
_BLOCK_START = re.compile(r"^(```|~~~|[-*+] |\d+[.)] |\||>|#)")


def placed(text: str) -> str:
    """``text`` with each referenced footnote numbered and its text at the end of the section that first refers
    to it (see the module docstring); unchanged when it has none."""
    if "[^" not in text:
        return text
    lines = text.split("\n")
    prose = _prose(lines)
    notes, spans = _definitions(lines, prose)
    if not notes:
        return text
    numbers: dict[str, int] = {}
    first: dict[str, int] = {}
    inside = {n for start, end in spans for n in range(start, end)}
    for n, line in enumerate(lines):
        if not prose[n] or n in inside:
            continue
        for label in _references(line):
            if label in notes and label not in numbers:
                numbers[label], first[label] = len(numbers) + 1, n
    if not numbers:
        return text
    out_of = {n for start, end in spans for n in range(start, end) if _label_at(lines[start]) in numbers}
    setext = _setext(lines, prose)
    in_heading = {k for start, end in setext.items() for k in range(start, end)}
    ends = _section_ends(lines, prose, setext)
    after: dict[int, list[str]] = {}
    for label, number in numbers.items():
        end = next(e for e in ends if e > first[label])
        after.setdefault(end, []).extend(_note(number, notes[label]))
    out: list[str] = []
    for n, line in enumerate(lines):
        out.extend(after.get(n, ()))
        if n not in out_of:
            out.append(_numbered(line, numbers, n in in_heading) if prose[n] else line)
    out.extend(after.get(len(lines), ()))
    return "\n".join(out)


def indented_code(lines: list[str]) -> list[bool]:
    """For each line, whether it is in an indented code block (outside fenced code, see ``_prose``)."""
    code: list[bool] = []
    _prose(lines, code)
    return code


def _prose(lines: list[str], code: list[bool] | None = None) -> list[bool]:
    """For each line, whether it is prose: outside fenced code (a MyST directive's fence, ```` ```{note} ```` or
    ``:::{note}``, holds prose, unless the directive shows code or source) and not a fence line itself, and outside
    indented code (lines indented four spaces after a blank line, but for what goes on a list item, a note, an
    admonition, a tab or a definition; ``code`` gets whether each line is in it)."""
    code = [] if code is None else code
    mask: list[bool] = []
    open_fences: list[tuple[str, bool]] = []  # (marker, whether its body is shown as code)
    container = indented = False  # in what indented lines go on; in indented code
    for n, line in enumerate(lines):
        code.append(False)
        if open_fences and open_fences[-1][1]:
            mask.append(False)
            if closes_fence(line, open_fences[-1][0]):
                open_fences.pop()
            continue
        after_blank = n == 0 or not lines[n - 1].strip()
        if line.strip():
            indented = _depth(line) >= 4 and (indented or (after_blank and not container))
            if not indented and _CONTAINER.match(line):
                container = True
            elif not indented and after_blank and _depth(line) == 0:
                container = False
        if indented:
            code[n] = True
            mask.append(False)
            continue
        opened = FENCE_OPEN.match(line) or _COLON_OPEN.match(line)
        if opened is None or (opened.group("marker")[0] == "`" and "`" in opened.group("info")):
            mask.append(True)
            continue
        info = opened.group("info").strip()
        if open_fences and not info and closes_fence(line, open_fences[-1][0]):
            open_fences.pop()
            mask.append(False)
            continue
        directive = DIRECTIVE_INFO.match(info)
        if opened.group("marker")[0] == ":" and directive is None:
            mask.append(True)  # ``:::note`` (Docusaurus) or a stray ``:::``: prose either way
            continue
        mask.append(False)
        shown = directive is None or directive.group("name") in CODE_DIRECTIVES | SOURCE_DIRECTIVES
        open_fences.append((opened.group("marker"), shown))
    return mask


def _definitions(lines: list[str], prose: list[bool]) -> tuple[dict[str, list[str]], list[tuple[int, int]]]:
    """Each note's text (its first line and its indented continuation, dedented), by label (the first definition
    of a label wins), and the line span of every definition."""
    notes: dict[str, list[str]] = {}
    spans: list[tuple[int, int]] = []
    n = 0
    while n < len(lines):
        match = _DEFINITION.match(lines[n]) if prose[n] else None
        if match is None:
            n += 1
            continue
        depth = len(match.group("indent").expandtabs(4))
        end = n + 1
        while end < len(lines) and (not lines[end].strip() or _depth(lines[end]) > depth or _lazy(lines, end)):
            end += 1
        while end > n + 1 and not lines[end - 1].strip():
            end -= 1
        body = [match.group("text").strip(), *textwrap.dedent("\n".join(lines[n + 1 : end])).split("\n")]
        while body and not body[0].strip():
            body = body[1:]
        notes.setdefault(match.group("label"), body)
        spans.append((n, end))
        n = end
    return notes, spans


def _lazy(lines: list[str], n: int) -> bool:
    """Whether line ``n`` goes on the paragraph of the line before it (a lazy continuation line: no blank line
    between, nothing that opens a block of its own)."""
    line = lines[n].lstrip()
    return bool(lines[n - 1].strip()) and not (_BLOCK_START.match(line) or _DEFINITION.match(line) or line[:1] in "<:")


def _depth(line: str) -> int:
    expanded = line.expandtabs(4)
    return len(expanded) - len(expanded.lstrip())


def _label_at(line: str) -> str:
    match = _DEFINITION.match(line)
    return match.group("label") if match else ""


def _references(line: str) -> list[str]:
    return [m.group("label") for m in _REFERENCE.finditer(CODE_SPAN.sub("", line))]


def _section_ends(lines: list[str], prose: list[bool], setext: dict[int, int]) -> list[int]:
    """The lines a section ends before: every heading outside code (a setext heading's first line), and the end of
    the text."""
    headings = {n for n, line in enumerate(lines) if prose[n] and _HEADING.match(line)} | set(setext)
    return [*sorted(headings), len(lines)]


def _setext(lines: list[str], prose: list[bool]) -> dict[int, int]:
    """The setext headings (a paragraph's lines, then ``===`` or ``---``) outside code: their first line, and the
    line after their text (the underline)."""
    found: dict[int, int] = {}
    for n, line in enumerate(lines):
        if n == 0 or not prose[n] or not _UNDERLINE.match(line):
            continue
        start = n
        while start > 0 and prose[start - 1] and _text_line(lines[start - 1]):
            start -= 1
        before = lines[start - 1] if start > 0 else ""
        if start < n and not (before.strip() and (_CONTAINER.match(before) or before.lstrip()[:1] in ">|<")):
            found[start] = n
    return found


def _text_line(line: str) -> bool:
    """Whether ``line`` may be a line of a paragraph's text (not blank, opens no block)."""
    stripped = line.lstrip()
    return bool(stripped) and not (
        _BLOCK_START.match(stripped) or _CONTAINER.match(line) or _UNDERLINE.match(line) or stripped[:1] in "<:"
    )


def _note(number: int, body: list[str]) -> list[str]:
    """``[1] The text.`` as a paragraph of its own; ``[1]`` on its own line before a note that starts a block."""
    if body and not _BLOCK_START.match(body[0]):
        return ["", f"[{number}] {body[0]}", *body[1:], ""]
    return ["", f"[{number}]", "", *body, ""]


def _numbered(line: str, numbers: dict[str, int], heading: bool = False) -> str:
    """A line with its references to known notes as ``[1]`` (none in a heading: ``heading`` for a setext heading's
    text), code spans left as they are."""
    heading = heading or bool(_HEADING.match(line))

    def mark(match: re.Match[str]) -> str:
        number = numbers.get(match.group("label"))
        if number is None:
            return match.group()
        return "" if heading else f"{match.group('space')}[{number}]"

    out, at = [], 0
    for span in CODE_SPAN.finditer(line):
        out += [_MARK.sub(mark, line[at : span.start()]), span.group()]
        at = span.end()
    text = "".join([*out, _MARK.sub(mark, line[at:])])
    return _BEFORE_COLON.sub(lambda m: f"{m.group('marks')}:", text)
