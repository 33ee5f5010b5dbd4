"""Text escaped for where it lands, one function per destination.

Document text, titles, file names and eval questions are untrusted: what is
harmless on a terminal is a formula in a spreadsheet, a tag in a job summary or
an option to ``grep``. Each destination has its one function here, so every
command that writes to it escapes the same way.

- a spreadsheet (``search --format csv``): a cell beginning with ``= + - @``,
  a tab or a carriage return gets a leading ``'`` (OWASP's rule for CSV
  injection), so it is read as text, never as a formula;
- Markdown that is rendered (``search --format md``, ``eval --summary``):
  ``& < >`` become entities, so raw HTML from a document is shown, never
  rendered; text is cut *before* it is escaped, so a cut never falls inside an
  entity and never leaves a tag half open; a code span (a backtick run and its
  closing run) is literal in Markdown, HTML included, so it is left as written;
- a command line (``search --format files``): a path beginning with ``-`` is
  written ``./-name``, so ``xargs grep`` cannot read it as an option.
"""

from __future__ import annotations

import html
import re

SPREADSHEET_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
"""First characters that make a spreadsheet read a cell as a formula (OWASP, "CSV Injection")."""


def spreadsheet_cell(text: str) -> str:
    """``text`` as a CSV cell a spreadsheet reads as text: a leading ``'`` before a formula's first character."""
    return "'" + text if text.startswith(SPREADSHEET_TRIGGERS) else text


def cut(text: str, limit: int) -> str:
    """At most ``limit`` characters, ``...`` ending a cut text; cut raw text, then escape it."""
    return text if len(text) <= limit else text[: max(0, limit - 3)] + "..."


CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.DOTALL)
"""A CommonMark code span: a run of backticks (group 1), then its text (group 2), then a run of the same length,
neither run part of a longer one (`` `a``b` `` is one span, ```` ``a` ```` none), as markdown-it reads it
(backslash escapes aside: ``tests/test_units.py`` holds the two against each other). The one pattern of it: the
renderer (``readable``), the chunker's inline steps and the answer text use it (this is the lowest module needing it);
``ingestion.comments`` reads spans within a paragraph only, over a whole page's text."""


def markdown_text(text: str) -> str:
    """Text for rendered Markdown (a table cell, a summary): HTML shown as text, table pipes escaped.

    Inside a code span nothing is rendered, so ``&lt;`` there would be shown as written: the span keeps its
    ``<`` and ``&`` (only its pipes are escaped, which GitHub's tables honour in code too)."""
    out, at = [], 0
    for span in CODE_SPAN.finditer(text):
        out += [html.escape(text[at : span.start()], quote=False), span.group(0)]
        at = span.end()
    out.append(html.escape(text[at:], quote=False))
    return "".join(out).replace("|", "\\|")


def path_argument(path: str) -> str:
    """A relative path no command reads as an option: ``--version.md`` is written ``./--version.md``."""
    return "./" + path if path.startswith("-") else path
