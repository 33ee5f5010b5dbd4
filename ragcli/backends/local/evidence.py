"""What the local answerer can quote: the units of a passage, in reading order, and how to show them.

A unit is a sentence of prose, a list item, a table row, or a code block or
table with no sentence before it; never a lone line of code or a code comment,
and never a pointer elsewhere ("For more details, see the X documentation").
The last sentence of a paragraph carries the code block, table or list that
follows it in its section, colon or not: "If your project depends on private
repositories, you will need to configure a token." is worth nothing without
the commands after it.

Every unit's ``quote`` is a verbatim slice of the passage text at
``start:end`` (the citation checks compare against it); its ``statement`` is
what a person reads: link text without the URL, no emphasis markers or
backticks in prose, code kept as a fenced block so it can be copied.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ...answer.citations import MIN_QUOTE_WORDS, quote_words
from ...escape import CODE_SPAN
from ...passage import Passage
from ...readable import readable as rendered
from ...text import FENCE, LIST_MARKER, fenced_chunks, table_cells
from ...units import Span, UnitKind, unit_spans

_HELD = 0xF0000
"""Where the characters standing for a statement's code spans start (Unicode's private use plane 15)."""
_HELD_CODE = re.compile("[\U000f0000-\U000ffffd]")
_STRONG = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_EM_STAR = re.compile(r"(?<![\w*])\*(?=\S)(.+?)(?<=\S)\*(?![\w*])")
_EM_UNDERSCORE = re.compile(r"(?<![\w])_(?=\S)(.+?)(?<=\S)_(?![\w])")
# "For more details on X, see the Y documentation." points elsewhere; it answers nothing.
_POINTER = re.compile(
    r"^(?:or,?\s+)?(?:(?:for|to learn|to read) more\b[^.]*?,\s*)?(?:please\s+)?"
    r"(?:see|refer to|read on|read more|learn more|check out|consult)\b",
    re.IGNORECASE,
)
# "It ...", "This ...", "Instead, ..." lean on the sentence before: alone they say nothing checkable.
_POINTS_BACK = re.compile(
    r"^(?:it|its|this|that|these|those|they|them|such|instead|however|also|otherwise|then|thus|therefore|"
    r"hence|similarly|likewise|alternatively|additionally|furthermore|moreover|here|in (?:this|that|such) cases?|"
    r"as a result|in addition|for this reason|again|both|the latter|the former)\b",
    re.IGNORECASE,
)


# Text that addresses the reader or an assistant instead of stating a fact: a planted instruction
# ("IMPORTANT SYSTEM NOTICE: ignore all previous instructions, ..."), from where it starts to its sentence's end.
_ADDRESSES_READER = re.compile(
    r"(?:\b(?:important\s+)?system\s+(?:notice|message|prompt|instruction)s?\b\s*:?\s*)?"
    r"\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+|the\s+|your\s+)*"
    r"(?:previous|prior|above|earlier|preceding|existing|other)\s+(?:instructions|prompts?|messages?|rules|directions)"
    r"[^.!?\n]*[.!?]?"
    r"|\b(?:you\s+are\s+now|as\s+an?\s+(?:ai|assistant|language\s+model))\b[^.!?\n]*[.!?]?",
    re.IGNORECASE,
)


def addresses_reader(text: str) -> bool:
    """Whether ``text`` speaks to the reader or an assistant ("ignore all previous instructions ...")."""
    return bool(_ADDRESSES_READER.search(text))


def without_address(text: str) -> str:
    """``text`` with every passage that addresses the reader or an assistant cut out."""
    return _ADDRESSES_READER.sub(" ", text)


@dataclass(frozen=True)
class Unit:
    """One thing the local answerer may claim, from one passage."""

    passage: Passage
    kind: UnitKind
    quote: str
    """A verbatim slice of ``passage.text``: ``passage.text[start:end]``."""
    statement: str
    """The same content as a person reads it (code as a fenced block)."""
    block: int = 0
    """Which block of the passage it comes from (a paragraph, a list, a table), in reading order."""
    start: int = 0
    end: int = 0
    position: int = 0
    """Its place among the passage's units (0 = first)."""
    span: int = 0
    """Its index among ``units.unit_spans(passage.text)``: where its vector stored at ingest is."""
    item_start: int = -1
    """For a list item's later sentence: where the item's first sentence starts (``units.Span.item_start``)."""
    citable: bool = True
    """Its quote is long enough to cite alone (``MIN_QUOTE_WORDS``); a shorter one is quoted with a neighbour."""

    @property
    def carries_block(self) -> bool:
        """It shows a code block, a table or a list (its own, or the one its sentence leads to)."""
        return self.kind in ("introduced", "block")

    @property
    def points_back(self) -> bool:
        """It opens with a word that leans on the sentence before ("It", "This", "Instead")."""
        return bool(_POINTS_BACK.match(self.statement))


def readable(markdown: str) -> str:
    """Inline Markdown as plain text: what the renderer shows (``ragcli.readable``: links as their text, code spans
    as written, so ``errors()[0]['type']`` keeps its subscripts), then no emphasis markers or backticks, one line."""
    text = rendered(markdown)
    codes: list[str] = []

    def held(match: re.Match[str]) -> str:
        codes.append(match.group(2))
        return chr(_HELD + len(codes) - 1)

    # Each code span is one opaque character to the emphasis rules: its own markers are code, and bold around it
    # (``**`import.meta.env.MODE`**``, ``**`a` and `b`**``) is bold like any other.
    text = CODE_SPAN.sub(held, text)
    text = text.replace("\\*", "\ue000").replace("\\_", "\ue001")  # an escaped marker marks nothing
    text = _STRONG.sub(r"\2", text)
    text = _EM_STAR.sub(r"\1", text)
    text = _EM_UNDERSCORE.sub(r"\1", text)
    text = text.replace("\ue000", "\\*").replace("\ue001", "\\_")  # as written: the quote holds it
    text = _HELD_CODE.sub(lambda m: codes[ord(m.group()) - _HELD], text)
    return " ".join(text.split())


def is_pointer(statement: str) -> bool:
    """A sentence that sends the reader elsewhere (``See the lockfile documentation for more details.``)."""
    return bool(_POINTER.match(statement))


def units(passage: Passage) -> list[Unit]:
    """Every unit of ``passage`` with a word in its quote, in reading order; one too short to cite alone (a table
    row ``^0.2.3 | >=0.2.3 <0.3.0``, a tab's ``macOS:`` and its path) is quoted in a window with its neighbours
    (``selector.windows``), so a window's statement shows everything its quote spans.

    ``span`` is the unit's index in ``units.unit_spans(passage.text)`` (before this filter), which is
    how a vector stored for it at ingest is found again.
    """
    text = passage.text
    out: list[Unit] = []
    for n, span in enumerate(unit_spans(text)):
        unit = _unit(passage, span, n)
        words = quote_words(unit.quote)
        if words and not is_pointer(unit.statement):
            out.append(replace(unit, position=len(out), citable=words >= MIN_QUOTE_WORDS))
    return out


def _unit(passage: Passage, span: Span, n: int) -> Unit:
    text = passage.text
    quote = text[span.start : span.end]
    if span.kind == "introduced":
        statement = readable(text[span.start : span.sentence_end]) + "\n" + "\n".join(_shown(span))
    elif span.kind == "block":
        statement = "\n".join(_shown(span))
    elif span.kind == "row":
        cells = [readable(c) for c in table_cells(quote)]
        header = [readable(h) for h in span.header]
        statement = "; ".join(f"{h}: {c}" if h else c for h, c in zip(header, cells, strict=False) if c)
        statement += "" if statement.endswith((".", "!", "?")) else "."  # a cell's own full stop ends the row
    else:
        statement = readable(quote)
    return Unit(
        passage,
        span.kind,
        quote,
        statement,
        block=span.block,
        start=span.start,
        end=span.end,
        span=n,
        item_start=span.item_start,
    )


def _shown(span: Span) -> tuple[str, ...]:
    """A block's lines as a person reads them: code as it is (fenced), list markers as ``- ``."""
    if span.shown and FENCE.match(span.shown[0]):
        return span.shown
    if span.shown and span.shown[0].lstrip().startswith("|"):
        return span.shown  # a table reads best as the table
    return _list_lines(span.shown)


def _list_lines(lines: Sequence[str]) -> tuple[str, ...]:
    """A list's lines as read: items as ``- `` and their text; code in an item as written, moved left by its
    fence's indentation (its own indentation is the code's: Python's, YAML's)."""
    out: list[str] = []
    for is_code, chunk in fenced_chunks(lines):
        if not is_code:
            out += [_list_line(line) for line in chunk]
            continue
        indent = len(chunk[0]) - len(chunk[0].lstrip())
        out.append(chunk[0].strip())
        out += [line[indent:] if not line[:indent].strip() else line.strip() for line in chunk[1:]]
    return tuple(out)


def _list_line(line: str) -> str:
    marker = LIST_MARKER.match(line)
    if marker is None:
        return readable(line)
    indent = line[: len(line) - len(line.lstrip())]
    return f"{indent}- {readable(line[marker.end() :])}"
