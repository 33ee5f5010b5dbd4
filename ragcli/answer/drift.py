"""Query drift: what a query the model writes must keep of the question. Pure, no I/O.

A model that rewrites a search query may silently drop the very thing the
user asked about: the error code, the version, the number, the quoted phrase,
the "not". ``Run.model_search`` (the one place a model's query enters the
loop) checks every such query (``search``, the parts of ``search_parts``, a
grade's ``gap``) against the question's *kept terms*, for every backend:

    identifier  a token with digits and letters, an underscore, or a dot, slash
                or colon between parts (``ERR_4021``, ``v2.3.1``,
                ``retry_backoff_ms``, ``pylock.toml``), digits with separators
                (a date: ``2026-07-18``), an inner capital (``macOS``), a flag
                (``--frozen``), or a name and a number (``Tier 2``, ``PEP 723``)
    number      any other number, with its unit when one follows (``45 days``,
                ``20%``, ``2 GB``; ``$49`` is the number 49)
    quoted      text in double quotes, single quotes or backticks
    negation    not, no, never, without, except, nor, none, unless, ...n't

An all-capital word (``CDN``, ``SCIM``) is not an identifier here: a rewrite
may spell an acronym out, and questions capitalise freely.

A query keeps a term when it holds the identifier (case-insensitive; a name
and number with or without a space or hyphen), the same number (``20%`` =
``20 percent``) and its unit (singular or plural), the quoted text (after
whitespace, case and markup normalisation) or any negation. The parts of one
``search_parts`` call keep a term when one of them does: each part is a piece
of the question. A term the model names in ``dropped`` (with a ``reason``) is
let go on purpose; any other lost term refuses the query.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Literal

from ..text import STOP_WORDS, flags, is_strong_identifier
from .citations import normalize

TermKind = Literal["identifier", "number", "quoted", "negation"]


@dataclass(frozen=True)
class Term:
    """Something the question asks about that a model's query must keep."""

    kind: TermKind
    text: str
    """As the question writes it (``ERR_4021``, ``45 days``, ``not``)."""

    @property
    def shown(self) -> str:
        """How a note names it to the model."""
        return f"the negation {self.text!r}" if self.kind == "negation" else self.text


_TOKEN = re.compile(r"[A-Za-z0-9_]+(?:[.\-/:][A-Za-z0-9_]+)*")
_PLAIN_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_NAME_NUMBER = re.compile(r"\b([A-Za-z][A-Za-z]+)[ -](\d+(?:\.\d+)*)\b")
_NAME_WORD = re.compile(r"^(?:[A-Z]{2,}|[A-Z][a-z]+|[a-z]+[A-Z]\w*)$")
_QUOTED = re.compile(
    r'"(?P<a>[^"\n]{1,200})"|“(?P<b>[^”\n]{1,200})”|`(?P<c>[^`\n]{1,200})`|(?<!\w)\'(?P<d>[^\'\n]{1,200})\'(?!\w)'
)
_NEGATION = re.compile(
    r"\b(?:not|no|never|without|except|excluding|cannot|nor|neither|none|nothing|unless)\b|\b\w+n[’']t\b",
    re.IGNORECASE,
)
_UNITS = (
    "ms|milliseconds?|seconds?|secs?|minutes?|mins?|hours?|hrs?|business days?|working days?|days?|weeks?|months?"
    "|years?|kib|mib|gib|tib|kb|mb|gb|tb|bytes?|characters?|chars|tokens?|requests?|rpm|rps|seats?|users?|times"
    "|usd|eur|gbp|dollars?|euros?|pounds?|percent|per cent"
)
_NUMBER = re.compile(
    rf"(?<![\w.,])(?P<cur>[$€£]\s?)?(?P<num>\d{{1,3}}(?:,\d{{3}})+|\d+)(?P<frac>\.\d+)?"
    rf"(?:\s*(?P<pct>%)|[\s-]*(?P<unit>{_UNITS})\b)?",
    re.IGNORECASE,
)


def _is_identifier(token: str) -> bool:
    if _PLAIN_NUMBER.fullmatch(token):
        return False
    has_digit = any(c.isdigit() for c in token)
    return (
        is_strong_identifier(token)
        or (has_digit and any(sep in token for sep in "-./:"))
        or re.search(r"[a-z][A-Z]", token) is not None
    )


def _starts_sentence(text: str, at: int) -> bool:
    return re.search(r"(?:^|[.?!:;]\s+)$", text[:at]) is not None


def must_keep(question: str) -> tuple[Term, ...]:
    """The question's kept terms, in the order it states them (each once)."""
    text = unicodedata.normalize("NFKC", question)
    found: list[tuple[int, Term]] = []
    taken: list[tuple[int, int]] = []

    def free(start: int, end: int) -> bool:
        return all(end <= s or start >= e for s, e in taken)

    def add(start: int, end: int, term: Term) -> None:
        found.append((start, term))
        taken.append((start, end))

    for m in _QUOTED.finditer(text):
        phrase = next(g for g in m.groups() if g is not None).strip()
        if normalize(phrase):
            add(m.start(), m.end(), Term("quoted", phrase))
    for m in _NAME_NUMBER.finditer(text):
        word = m.group(1)
        if _NAME_WORD.match(word) and word.lower() not in STOP_WORDS and free(m.start(), m.end()):
            if _starts_sentence(text, m.start()) and not word.isupper():
                continue  # "Within 30 days ...": a capital that only starts the sentence names nothing
            add(m.start(), m.end(), Term("identifier", m.group(0)))
    for m in _TOKEN.finditer(text):
        if _is_identifier(m.group(0)) and free(m.start(), m.end()):
            add(m.start(), m.end(), Term("identifier", m.group(0)))
    for flag in flags(text):
        at = text.find(flag)
        if free(at, at + len(flag)):
            add(at, at + len(flag), Term("identifier", flag))
    for m in _NUMBER.finditer(text):
        if free(m.start(), m.end()):
            add(m.start(), m.end(), Term("number", m.group(0).strip()))
    negation = next((m for m in _NEGATION.finditer(text) if free(m.start(), m.end())), None)
    if negation is not None:
        add(negation.start(), negation.end(), Term("negation", negation.group(0)))
    terms = [t for _, t in sorted(found, key=lambda pair: pair[0])]
    return tuple(dict.fromkeys(terms))


# --------------------------------------------------------------------------- does a query keep a term


@dataclass(frozen=True)
class _Number:
    value: Decimal
    percent: bool
    unit: str | None
    """The unit word, singular and lower case (``day``), or None."""


def _numbers(text: str) -> list[_Number]:
    out = []
    for m in _NUMBER.finditer(unicodedata.normalize("NFKC", text)):
        try:
            value = Decimal(m.group("num").replace(",", "") + (m.group("frac") or "")).normalize()
        except InvalidOperation:
            continue
        unit = (m.group("unit") or "").lower()
        percent = bool(m.group("pct")) or unit in ("percent", "per cent")
        out.append(_Number(value, percent, _singular(unit) if unit and not percent else None))
    return out


def _singular(word: str) -> str:
    return " ".join(w[:-1] if len(w) > 3 and w.endswith("s") else w for w in word.lower().split())


@dataclass(frozen=True)
class _Query:
    """One query, read the ways the terms are matched."""

    folded: str
    normalized: str
    tokens: frozenset[str]
    words: frozenset[str]
    numbers: tuple[_Number, ...]
    negated: bool

    @classmethod
    def of(cls, query: str) -> _Query:
        folded = unicodedata.normalize("NFKC", query).casefold()
        return cls(
            folded=folded,
            normalized=normalize(query),
            tokens=frozenset(_TOKEN.findall(folded)),
            words=frozenset(_singular(w) for w in re.findall(r"[a-z]+", folded)),
            numbers=tuple(_numbers(query)),
            negated=_NEGATION.search(query) is not None,
        )


def _keeps(query: _Query, term: Term) -> bool:
    if term.kind == "negation":
        return query.negated
    if term.kind == "quoted":
        return normalize(term.text) in query.normalized
    if term.kind == "number":
        return any(_same_number(n, query) for n in _numbers(term.text))
    folded = term.text.casefold()
    pair = _NAME_NUMBER.fullmatch(term.text)
    if pair is not None:
        word, number = (re.escape(g.casefold()) for g in pair.groups())
        return re.search(rf"(?<![\w.]){word}[\s_-]?{number}(?![\w]|\.\d)", query.folded) is not None
    if folded.startswith("-"):
        return re.search(rf"(?<![\w-]){re.escape(folded)}(?![\w-])", query.folded) is not None
    return folded in query.tokens


def _same_number(number: _Number, query: _Query) -> bool:
    for n in query.numbers:
        if n.value == number.value and n.percent == number.percent:
            if number.unit is None or n.unit == number.unit or number.unit in query.words:
                return True
    return False


def _declared(term: Term, dropped: Iterable[str]) -> bool:
    """Whether the model named ``term`` in ``dropped`` (as the question writes it; a number by its value)."""
    for entry in dropped:
        name = normalize(entry).strip("\"'` ")
        if name == normalize(term.text):
            return True
        if term.kind == "negation" and (_NEGATION.search(entry) or name == "negation"):
            return True
        if term.kind == "number" and {n.value for n in _numbers(entry)} & {n.value for n in _numbers(term.text)}:
            return True
    return False


@dataclass(frozen=True)
class Drift:
    """What the queries of one decision did with the question's kept terms."""

    lost: tuple[Term, ...]
    """Kept by no query and not named in ``dropped``: the decision is refused."""
    dropped: tuple[Term, ...]
    """Kept by no query and named in ``dropped``: let go on purpose."""


def drift(terms: Sequence[Term], queries: Sequence[str], dropped: Sequence[str] = ()) -> Drift:
    """Which of ``terms`` the ``queries`` of one decision lose (a term counts as kept when one query keeps it)."""
    if not terms:
        return Drift((), ())
    read = [_Query.of(q) for q in queries]
    gone = [t for t in terms if not any(_keeps(q, t) for q in read)]
    let_go = tuple(t for t in gone if _declared(t, dropped))
    return Drift(tuple(t for t in gone if t not in let_go), let_go)
