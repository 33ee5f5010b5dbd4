"""Text rules shared by every layer: analysis, identifiers, sentences, Markdown line shapes, slugs, and the one
renderer of document text for people (``readable``, ``readable_quote``: code is never rewritten).

One analyzer object serves indexing, query building and the local answerer's
term overlap, so a query term is always spelled the way the index spells it.
Tantivy is imported only when an analyzer is first needed.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Sequence
from typing import Any

from .escape import CODE_SPAN

BODY_TOKENIZER = "ragcli_en"
IDENT_TOKENIZER = "ragcli_ident"
IDENT_PATTERN = r"[A-Za-z0-9_]+(?:[.\-/:][A-Za-z0-9_]+)*"

STOP_WORDS = frozenset(
    # Lucene's English list plus question words and pronouns: questions are
    # full of them, and matching "what" is not evidence of relevance.
    "a an and are as at be but by for if in into is it no not of on or such that the their then there these they this "
    "to was will with what which who whom whose how when where why do does did done can could should would shall may "
    "might must has have had am been being i me my we us our you your he him his she her its them were from about so "
    "than too very just also any some all "
    # What the tokenizer leaves of a contraction ("don't" -> don + t, "I'm" -> i + m, "Python's" -> python + s):
    # a user's own wording is full of them, and they are not words of the question.
    "s t m d ll ve re don doesn didn isn aren wasn weren hasn haven hadn wouldn couldn shouldn mustn needn won".split()
)


@functools.lru_cache(maxsize=1)
def analyzers() -> dict[str, Any]:
    """The two Tantivy analyzers: stemmed English words, and identifiers kept whole."""
    import tantivy

    body = (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(40))
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.custom_stopword(sorted(STOP_WORDS)))
        .filter(tantivy.Filter.stemmer("english"))
        .build()
    )
    ident = (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.regex(IDENT_PATTERN))
        .filter(tantivy.Filter.remove_long(80))
        .filter(tantivy.Filter.lowercase())
        .build()
    )
    return {BODY_TOKENIZER: body, IDENT_TOKENIZER: ident}


def query_terms(text: str) -> list[str]:
    """The stemmed, stop-word-free terms BM25 would search for ``text``."""
    return list(analyzers()[BODY_TOKENIZER].analyze(text))


def looks_like_identifier(token: str) -> bool:
    """``ERR_4021``, ``ORB-7731``, ``v2.3.1``, ``retry_backoff_ms``: a separator, or letters with digits."""
    has_digit = any(c.isdigit() for c in token)
    has_alpha = any(c.isalpha() for c in token)
    return any(c in "_.-/:" for c in token) or (has_digit and has_alpha)


_NUMBER_UNIT = re.compile(r"\b([A-Za-z][A-Za-z]+)[ -](\d+(?:\.\d+)*)\b")
_UNIT_WORD = re.compile(r"^(?:[A-Z]{2,}|[A-Z][a-z]+|[a-z]+[A-Z]\w*)$")
_FLAG = re.compile(r"(?:^|\s)(--?[A-Za-z][\w-]*)")


def number_units(text: str) -> list[str]:
    """Name + number pairs (``PEP 723``, ``RFC 9110``, ``Python
    3.12``, ``macOS 13``) as single identifier tokens: ``pep_723``.

    The word must look like a name (an acronym, a capitalised word, or camel
    case like ``macOS``): "in 2008" or "than 6" are not units.

    Indexed beside the text and searched for in queries, so ``PEP 723`` ranks
    the passage that names PEP 723 above one that only says "PEP" and "723" apart.
    """
    return [
        f"{word.lower()}_{number}"
        for word, number in _NUMBER_UNIT.findall(text)
        if _UNIT_WORD.match(word) and word.lower() not in STOP_WORDS
    ]


def identifier_terms(text: str) -> list[str]:
    """Tokens of ``text`` that look like identifiers, as the
    ident field spells them (lowercased), and its number units."""
    found = [t for t in analyzers()[IDENT_TOKENIZER].analyze(text) if looks_like_identifier(t)]
    return list(dict.fromkeys([*found, *number_units(text)]))


def is_strong_identifier(token: str) -> bool:
    """An identifier no ordinary word looks like: digits with letters (``ERR_4021``, ``PD-1``), an underscore,
    or a dot, slash or colon between parts (``pylock.toml``, ``astral-sh/setup-uv``). ``up-to-date`` is not one."""
    has_digit = any(c.isdigit() for c in token)
    has_alpha = any(c.isalpha() for c in token)
    return (has_digit and has_alpha) or "_" in token or any(sep in token for sep in "./:")


def flags(text: str) -> list[str]:
    """Command-line flags in ``text`` (``--frozen``, ``-k``): a query naming one is specific."""
    return _FLAG.findall(text)


# --------------------------------------------------------------------------- sentences

_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])")


def split_sentences(text: str) -> list[str]:
    """Split prose into sentences at ``. ! ?`` followed by a capital or digit."""
    text = text.strip()
    if not text:
        return []
    pieces: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        pieces.append(text[start : match.start() + len(match.group(0).rstrip())].strip())
        start = match.end()
    pieces.append(text[start:].strip())
    return [p for p in pieces if p]


# --------------------------------------------------------------------------- Markdown line shapes
# For the readers of a passage's text (the local answerer's units, the conflict rule's facts).

FENCE = re.compile(r"^[ \t]*(```|~~~)")
"""A line that opens or closes a fenced code block."""
_FENCE_LINE = re.compile(r"^[ \t]*(`{3,}|~{3,})(.*)")
"""A fence line: its run of backticks or tildes, then its info string."""


def fence_of(line: str) -> str | None:
    """The run of backticks or tildes a fence line starts with (four for ````` ````markdown `````), or None."""
    match = _FENCE_LINE.match(line)
    return match.group(1) if match else None


def closes_fence(line: str, run: str) -> bool:
    """Whether ``line`` closes a block opened with ``run``: the same character, at least as many, nothing else (a
    ```` ``` ```` line inside a ```` ```` ```` block is the block's content: Markdown about Markdown)."""
    stripped = line.strip()
    return len(stripped) >= len(run) and set(stripped) == {run[0]}


def opens_fence(line: str) -> str | None:
    """The run ``line`` opens a fenced code block with, or None: not a fence line, or not a fence (``fence_run``)."""
    match = _FENCE_LINE.match(line)
    return None if match is None else fence_run(match.group(1), match.group(2))


def fence_run(run: str, info: str) -> str | None:
    """``run`` when a fence line's run and its info string open a block; None for a backtick run whose info holds a
    backtick (```` ```a`b ```` starts with an inline code span, CommonMark says). The one copy of that rule."""
    return None if run[0] == "`" and "`" in info else run


def fenced_chunks(lines: Sequence[str]) -> Iterator[tuple[bool, list[str]]]:
    """Runs of ``lines``, each either one fenced code block, its fence lines included (True), or the lines
    between blocks (False). A block left open runs to the end. The one walker of fences over lines: the chunker's
    readers and the answer's text both use it."""
    chunk: list[str] = []
    run: str | None = None
    for line in lines:
        if run is None:
            opened = opens_fence(line)
            if opened is not None:
                if chunk:
                    yield False, chunk
                chunk, run = [line], opened
                continue
            chunk.append(line)
        else:
            chunk.append(line)
            if closes_fence(line, run):
                yield True, chunk
                chunk, run = [], None
    if chunk:
        yield run is not None, chunk


def blank_lines_dropped(lines: Sequence[str]) -> tuple[str, ...]:
    """A list's or table's lines without the blank ones between items; those inside fenced code (in an item) kept."""
    out: list[str] = []
    for is_code, chunk in fenced_chunks(lines):
        out += chunk if is_code else [line for line in chunk if line.strip()]
    return tuple(out)


def block_fence(lines: Sequence[str]) -> tuple[str | None, str, bool]:
    """A code block's lines read for printing: the run its first line opens with (None: an indented block), the
    fence to print it with (its own; for an indented block, longer than any run its lines start with) and whether
    its last line closes it."""
    opened = fence_of(lines[0]) if lines else None
    if opened is None:
        return None, fence_for(lines), False
    return opened, opened, len(lines) > 1 and closes_fence(lines[-1], opened)


def fence_for(lines: Sequence[str], run: str = "```") -> str:
    """``run``, lengthened past every run of its character that starts one of ``lines``, so that the block
    they are fenced in is not closed by one of them."""
    longest = max((len(found) for line in lines if (found := fence_of(line)) and found[0] == run[0]), default=0)
    return run if longest < len(run) else run[0] * (longest + 1)


LIST_MARKER = re.compile(r"^[ \t]*(?:[-*+]|\d+[.)])[ \t]+")
"""A list item's marker (``- ``, ``* ``, ``3. ``), with its indent."""
TABLE_RULE = re.compile(r"^\s*\|?[\s:|-]+\|?\s*$")
"""The ``|---|:--:|`` line under a table's header."""


def table_cells(row: str) -> list[str]:
    """The cells of one Markdown table row, stripped, each as GFM reads it: an escaped ``\\|`` is a pipe inside its
    cell (in a code span too: ```a \\| b``` is the code ``a | b``), not the end of the cell."""
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", row.strip().strip("|"))]


def unix_newlines(text: str) -> str:
    """Every line end as ``\n``: ``\r\n`` and a lone ``\r`` (which markdown-it also ends a line at)."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def slugify(text: str, *, fallback: str = "section") -> str:
    """Lowercase ASCII slug: runs of anything but a-z and 0-9 become one '-'."""
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug[:80].strip("-") or fallback


# --------------------------------------------------------------------------- text shown to people

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
"""C0 controls but newline and tab, DEL, and C1 controls (``\\x9b`` is a one-byte CSI to some terminals)."""


def visible_controls(text: str) -> str:
    """``text`` with every control character but newline and tab written out (``ESC`` becomes ``\\x1b``).

    Titles, headings, passage text and file names come from the documents, which
    anyone who can write the ingested folder controls: printed raw, ``ESC ] 0 ;``
    would set a reader's window title, ``ESC [ 2 J`` clear the screen, an OSC 8
    sequence plant a hyperlink. Escaped, the bytes stay visible and inert.
    """
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


_INLINE_LINK = re.compile(r"!?\[([^\]\n]*)\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+\"[^\"\n]*\")?\)")
_REFERENCE_LINK = re.compile(r"(?<![\w)\]'\"])\[([^\]\n]+)\]\[[^\]\n]*\]")
"""``[text][ref]``; not a subscript pair after a name or call (``errors()[0]['type']``, ``grid[i][j]``)."""
_AUTOLINK = re.compile(r"<((?:https?|mailto):[^>\s]+)>")


def readable(markdown: str) -> str:
    """Passage text as a person reads it: the one renderer of document text for every text output.

    Markdown links read as their text (``[project dependencies](../concepts/x.md)`` is
    ``project dependencies``; images keep their alt text, reference links their text,
    autolinks their URL), character references as their character (``&mdash;`` is ``—``, as a browser
    shows it) and backslash escapes as the character escaped (``1\\.`` is ``1.``; ``--json`` keeps the Markdown as
    written). Code is never rewritten: fenced blocks and code spans are
    kept character for character, so ``errors()[0]['type']`` is not read as a link.
    """
    out = [
        "\n".join(chunk) if is_code else _prose_links("\n".join(chunk))
        for is_code, chunk in fenced_chunks(markdown.split("\n"))
    ]
    return "\n".join(out)


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
    return unescaped(_ENTITY.sub(_entity, _AUTOLINK.sub(r"\1", text)))


_ESCAPED = re.compile(r"\\([!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{}~])")
"""A backslash escape in prose, read as its character as a page shows it (``1\\.`` that keeps a paragraph from
reading as a list, ``\\*``); an escaped table pipe (``\\|``) stays: it keeps a row's cells apart."""


def unescaped(prose: str) -> str:
    """Prose (no code) with its backslash escapes read as the characters escaped (``_ESCAPED``)."""
    return _ESCAPED.sub(r"\1", prose)


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
