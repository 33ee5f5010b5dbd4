"""HTML comments in a Markdown page: what its site never shows. A comment is dropped outside code (it may span
lines, or hold a code fence), a code span that writes one (`` `<!-- prettier-ignore-start -->` ``) is text, and
Material for MkDocs' ``<!-- md:default value -->`` macro is the "Default: value" badge its site renders.
"""

from __future__ import annotations

import re

from ..text import fenced_chunks

_SPAN = r"(?P<span>(?<!`)(`+)(?!`)(?:(?!\n[ \t]*\n).)*?(?<!`)\2(?!`))"
"""A code span, as ``escape.CODE_SPAN`` reads one, but within a paragraph: the text here is a whole page's, and a
stray backtick must not pair with one paragraphs later and hide the comments between."""
_HTML_COMMENT = re.compile(_SPAN + r"|<!--.*?-->", re.DOTALL)
"""An HTML comment, or a code span, which shows its text as written (`` `<!-- prettier-ignore-start -->` ``)."""
_COMMENT_OPENS = re.compile(_SPAN + r"|<!--", re.DOTALL)
_MD_DEFAULT = re.compile(r"<!--\s*md:default\s+(.+?)\s*-->")
"""Material for MkDocs' documentation macro that its site renders as a "Default: value" badge."""


def default_badge(text: str) -> str:
    """Material's ``<!-- md:default value -->`` outside code as the badge its site shows: ``Default: value.``; other
    comments and code spans as they are."""
    return _HTML_COMMENT.sub(lambda m: _badge(m) or m.group(0), text)


def _badge(match: re.Match[str]) -> str:
    """The badge a matched comment shows, or "" (a code span, or another comment)."""
    found = None if match.group("span") else _MD_DEFAULT.fullmatch(match.group(0))
    return f"Default: {found.group(1)}." if found else ""


def without_comments(text: str) -> str:
    """HTML comments removed outside code fences (a comment may span lines); a Material default badge kept."""
    if "<!--" not in text:
        return text
    out: list[str] = []
    open_comment = False  # a comment that holds a code fence: it ends in a later chunk
    for is_code, chunk in fenced_chunks(text.split("\n")):
        joined = "\n".join(chunk)
        if open_comment:
            end = joined.find("-->")
            if end < 0:
                continue
            joined, open_comment = joined[end + 3 :], False
        elif is_code:
            out.append(joined)
            continue
        joined = _HTML_COMMENT.sub(_shown, joined)
        start = _comment_left_open(joined)
        if start >= 0 and joined[:start].split("\n")[-1].strip() == "":  # a comment block left open at a line start
            joined, open_comment = joined[:start], True
        out.append(joined)
    return "\n".join(out)


def _shown(match: re.Match[str]) -> str:
    """A code span as written; Material's default macro, its badge; any other comment, nothing."""
    return match.group(0) if match.group("span") else _badge(match)


def _comment_left_open(text: str) -> int:
    """Where a comment opens that no ``-->`` closes in ``text`` (-1: none), not counting ``<!--`` in code spans."""
    return next((m.start() for m in _COMMENT_OPENS.finditer(text) if not m.group("span")), -1)
