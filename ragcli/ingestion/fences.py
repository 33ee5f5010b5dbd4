"""Where fenced code begins and ends, and the indented body of a container: the line structure ``dialects`` walks.

A fence opens with three or more backticks or tildes (an info string may follow, but a backtick fence's info has
no backtick: that is an inline code span) and closes with a line of the same character, at least as long. A
fence with an info string inside a backtick fence opens a nested block (a MyST directive's example).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

FENCE_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<marker>`{3,}|~{3,})(?P<info>.*)$")


def closes(line: str, marker: str) -> bool:
    """Whether ``line`` closes a fence opened with ``marker`` (same character, at least as long, nothing after)."""
    stripped = line.strip()
    return bool(stripped) and set(stripped) == {marker[0]} and len(stripped) >= len(marker)


def collect(lines: list[str], start: int, marker: str) -> tuple[list[str], int]:
    """The lines after an opening fence up to its closing one; (body, index after the close)."""
    body: list[str] = []
    i = start
    depth_markers: list[str] = []
    while i < len(lines):
        line = lines[i]
        if not depth_markers and closes(line, marker):
            return body, i + 1
        opened = FENCE_OPEN.match(line) if marker[0] != ":" else None
        if opened and marker[0] == "`" and opened.group("info").strip():
            depth_markers.append(opened.group("marker"))  # a nested fence with an info string opens
        elif depth_markers and closes(line, depth_markers[-1]):
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


def fenced_chunks(lines: list[str]) -> Iterator[tuple[bool, list[str]]]:
    """Runs of lines, each either inside a fenced code block (True) or outside (False)."""
    chunk: list[str] = []
    marker: str | None = None
    for line in lines:
        if marker is None:
            opened = FENCE_OPEN.match(line)
            if opened and not (opened.group("marker")[0] == "`" and "`" in opened.group("info")):
                if chunk:
                    yield False, chunk
                chunk, marker = [line], opened.group("marker")
                continue
            chunk.append(line)
        else:
            chunk.append(line)
            if closes(line, marker):
                yield True, chunk
                chunk, marker = [], None
    if chunk:
        yield marker is not None, chunk
