"""Text rules shared by every layer: analysis, identifiers, sentences, Markdown line shapes, slugs, control
characters made visible. The renderer of document text for people is ``readable``.

One analyzer object serves indexing, query building and the local answerer's
term overlap, so a query term is always spelled the way the index spells it.
Tantivy is imported only when an analyzer is first needed.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Sequence
from typing import Any

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


def shown_lines(lines: Sequence[str]) -> tuple[str, ...]:
    """A list's or table's lines as a reader sees them: without the blank ones between items, nor link reference
    definitions (``definition_lines``; Material writes its links' targets under a list, inside its last item:
    ``  [Docker image]: https://hub.docker.com/...``); the lines of fenced code (in an item) kept, every one."""
    out: list[str] = []
    for is_code, chunk in fenced_chunks(lines):
        if is_code:
            out += chunk
            continue
        defined = definition_lines(chunk)
        out += [line for k, line in enumerate(chunk) if line.strip() and k not in defined]
    return tuple(out)


def definition_lines(prose: Sequence[str]) -> set[int]:
    """Which of ``prose``'s lines (no fenced code) are link reference definitions: they show nothing. A definition
    cannot break into a paragraph (CommonMark): a line that looks like one right under text is that text's."""
    found: set[int] = set()
    opens = True  # whether a block may open here: the first line, or after a blank line or a definition
    for k, line in enumerate(prose):
        if opens and LINK_DEFINITION.match(line):
            found.add(k)
        opens = k in found or not line.strip()
    return found


def only_definitions(lines: Sequence[str]) -> bool:
    """Whether every one of ``lines`` (a paragraph) is a link reference definition (``LINK_DEFINITION``): Material's
    run of them under a list, in its last item, which shows nothing."""
    return all(LINK_DEFINITION.match(line) for line in lines)


LINK_DEFINITION = re.compile(
    r"""^ {1,3}\[(?!\^)(?!\s*\])(?:\\.|[^\]\\\n])+\]:[ \t]*(?:<[^<>\n]*>|[^\s<]\S*)"""
    r"""(?:[ \t]+(?:"[^"\n]*"|'[^'\n]*'|\([^)\n]*\)))?[ \t]*$"""
)
"""A line that is a whole link reference definition inside a block (``  [label]: target "title"``, indented under a
list item as Material writes them): what a page shows of it is nothing. A passage holds no top-level definition (no
block holds one), so a line that starts one at its first column is a plain-text file's own ("[1]: https://..." in a
memo), and it is kept. A footnote's ``[^1]:`` is text; a line that goes on after its target in words ("[Note]: see
below") is prose; one indented four spaces is code."""


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
