"""Conflicting current sources: two documents that state different values for the same thing.

Deterministic and pure (no I/O, no model), so it holds for every backend.
Everything the loop hands in is already visible to the principal and valid on
``as_of`` (the store filters by ACL and validity dates before anything is
ranked), so a superseded version never reaches this module: it is not a
conflict, the newer version simply replaced it.

The rule, per *fact*: a fact is one quantity stated in one sentence (or one
table cell) of a passage, with

    dimension   what the quantity measures, from its unit: time (seconds,
                minutes, hours, days, weeks, months, years), business time
                (business hours and days), percent, a rate (requests per
                minute, ...), money per currency, data size, or "times";
                values are converted within a dimension (1 hour = 60 minutes)
    relation    how the sentence binds it: ``every`` (a cadence: "every 30
                minutes"), ``le`` (within, at most, up to, under, less or
                smaller than), ``ge`` (at least, more, larger or greater than,
                over) or ``eq`` (stated plainly)
    subject     the stemmed content words of the sentence with every quantity
                and qualifier removed (for a table cell: its column header and
                the row's first cell)
    qualifiers  what names *which* thing: identifiers with digits (``SEV1``,
                ``ERR_4021``, ``v2.3.1``) and capitalised word + number pairs
                (``Tier 2``, ``Priority 1``)

Two facts *conflict* when all of these hold:

1. they come from different documents (one document does not contradict
   itself: a table of tiers states several values on purpose, and two
   versions of one document are never both in force);
2. same dimension and a compatible relation (equal, or one of them ``eq``
   beside ``le`` or ``ge``; ``every`` only with ``every``), and their values
   are disjoint ("within 30 days" vs "within 14 days"; "1 hour" vs "60
   minutes" agree; "updated every 30 minutes" and "was updated within 20
   minutes" are two different things);
3. the same qualifiers (``Tier 1`` and ``Tier 2`` are two things, so are
   ``SEV1`` and an unqualified sentence);
4. the same subject: at least ``MIN_SHARED`` shared subject words (one fewer
   when both name the same qualifier, which says which thing already), and at
   least ``MIN_SHARE`` of all the subject words of the two (Jaccard), so a
   short sentence does not match every long one that contains its words.

Only facts the answer relies on are compared: the facts of each cited
passage whose sentence overlaps the claim's quote, against every fact of the
other evidence passages. A conflict names both sides by passage ID, the
value each states (as written) and the sentence that states it, so a side
the answer did not cite can be cited.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from ..passage import Passage
from ..structure import blocks
from ..text import LIST_MARKER, query_terms, split_sentences, table_cells
from .citations import ClaimLike, coded_tokens, normalize, quote_words
from .protocol import Conflict, ConflictSide

MIN_SHARED = 3
MIN_SHARE = 0.6
"""Shared subject words over all subject words of the two facts (Jaccard) at least this."""

_UNITS: dict[str, tuple[str, Decimal]] = {}


def _unit(dimension: str, factor: str | int, *names: str) -> None:
    for name in names:
        _UNITS[name] = (dimension, Decimal(factor))


_unit("time", "0.001", "ms", "millisecond", "milliseconds")
_unit("time", 1, "second", "seconds", "sec", "secs", "s")
_unit("time", 60, "minute", "minutes", "min", "mins")
_unit("time", 3600, "hour", "hours", "hr", "hrs", "h")
_unit("time", 86400, "day", "days", "calendar day", "calendar days")
_unit("time", 604800, "week", "weeks")
_unit("time", 2592000, "month", "months")
_unit("time", 31536000, "year", "years")
_unit("business_time", 1, "business hour", "business hours", "working hour", "working hours")
_unit("business_time", 8, "business day", "business days", "working day", "working days")
_unit("percent", 1, "%", "percent", "per cent")
for _per, _f in (("second", 86400), ("minute", 1440), ("hour", 24), ("day", 1)):  # requests per day
    _unit("rate", _f, f"requests per {_per}", f"request per {_per}", f"requests a {_per}", f"req/{_per[:3]}")
_unit("rate", 1440, "rpm")
_unit("rate", 86400, "rps")
_unit("size", 1, "kb")
_unit("size", 1024, "mb")
_unit("size", 1024 * 1024, "gb")
_unit("size", 1024 * 1024 * 1024, "tb")
_unit("times", 1, "times")

_UNIT_ALTERNATIVES = "|".join(re.escape(u) for u in sorted(_UNITS, key=len, reverse=True) if u != "%")
_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_QUANTITY = re.compile(
    rf"(?:(?P<cur>[$€£])\s?(?P<amount>{_NUM})(?:\s*(?:million|m)\b)?)"
    rf"|(?:(?<![\w.,$€£])(?P<num>{_NUM})(?:\s*(?P<pct>%)|[\s-]*(?P<unit>{_UNIT_ALTERNATIVES})\b))",
    re.IGNORECASE,
)
_CURRENCY = {"$": "usd", "€": "eur", "£": "gbp"}
_QUALIFIER = re.compile(r"\b([A-Z][A-Za-z]*)[ -]?(\d+)\b")
_INLINE_MARKUP = re.compile(r"\*\*|__|`")


@dataclass(frozen=True)
class Fact:
    """One quantity stated in one sentence or table cell of a passage."""

    passage_id: str
    doc_id: str
    dimension: str
    values: frozenset[Decimal]
    shown: str
    """The quantity as written (``1 hour``)."""
    subject: frozenset[str]
    qualifiers: frozenset[str]
    span: str
    """The sentence or table row, verbatim from the passage (a quote the answer may cite)."""
    statement: str
    """The same as a person reads it (markup dropped; a table row as ``Header: cell`` pairs)."""


_RELATIONS = (
    ("every", re.compile(r"\b(?:every|each)\s*$", re.IGNORECASE)),
    (
        "le",
        re.compile(
            r"\b(?:within|at most|up to|no more than|not more than|under|below|less than|smaller than|fewer than"
            r"|maximum of|max(?:imum)?)\s*$",
            re.IGNORECASE,
        ),
    ),
    (
        "ge",
        re.compile(
            r"\b(?:at least|more than|over|above|larger than|greater than|longer than|minimum of|min(?:imum)?)\s*$",
            re.IGNORECASE,
        ),
    ),
)
_RELATION_WORDS = frozenset(
    query_terms(
        "every each within most up under below less smaller fewer maximum max least more over above larger greater "
        "longer minimum min than"
    )
)


def _relation(before: str) -> str:
    for name, pattern in _RELATIONS:
        if pattern.search(before[-24:]):
            return name
    return "eq"


@dataclass(frozen=True)
class _Quantity:
    dimension: str
    value: Decimal
    shown: str


def quantities(text: str) -> list[_Quantity]:
    """Every number with a unit in ``text``, converted to its dimension's base unit."""
    found = []
    for m in _QUANTITY.finditer(text):
        try:
            relation = _relation(text[: m.start()])
            if m.group("cur"):
                found.append(
                    _Quantity(
                        f"money_{_CURRENCY[m.group('cur')]}/{relation}",
                        Decimal(m.group("amount").replace(",", "")),
                        m.group(0).strip(),
                    )
                )
                continue
            value = Decimal(m.group("num").replace(",", ""))
        except InvalidOperation:
            continue
        if m.group("pct"):
            found.append(_Quantity(f"percent/{relation}", value, m.group(0).strip()))
            continue
        unit = " ".join(m.group("unit").lower().split())
        dimension, factor = _UNITS[unit]
        found.append(_Quantity(f"{dimension}/{relation}", (value * factor).normalize(), m.group(0).strip()))
    return found


def _qualifiers(text: str, quantity_text: Iterable[str]) -> frozenset[str]:
    """Identifiers with digits and capitalised word + number pairs, except the quantities themselves."""
    for q in quantity_text:
        text = text.replace(q, " ")
    pairs = {f"{w.casefold()} {n}" for w, n in _QUALIFIER.findall(text)}
    return frozenset(coded_tokens(text) | pairs)


def _subject(text: str) -> frozenset[str]:
    stripped = _QUANTITY.sub(" ", text)
    stripped = _QUALIFIER.sub(" ", stripped)
    return frozenset(t for t in query_terms(stripped) if not any(c.isdigit() for c in t) and t not in _RELATION_WORDS)


def _facts_of(
    passage: Passage, span: str, statement: str, subject_text: str, qualifier_text: str, quantity_text: str
) -> list[Fact]:
    found = quantities(quantity_text)
    if not found or quote_words(span) < 4:
        return []
    subject = _subject(subject_text)
    qualifiers = _qualifiers(qualifier_text, [q.shown for q in found])
    out = []
    for dimension in dict.fromkeys(q.dimension for q in found):
        mine = [q for q in found if q.dimension == dimension]
        out.append(
            Fact(
                passage_id=passage.id,
                doc_id=passage.doc_id,
                dimension=dimension,
                values=frozenset(q.value for q in mine),
                shown=", ".join(dict.fromkeys(q.shown for q in mine)),
                subject=subject,
                qualifiers=qualifiers,
                span=span,
                statement=statement,
            )
        )
    return out


def facts(passage: Passage) -> list[Fact]:
    """Every fact of a passage: one per dimension per prose sentence, list item or table cell; code is skipped.

    The passage's structure comes from the one Markdown reader (``structure.blocks``).
    """
    out: list[Fact] = []
    lines = passage.text.split("\n")
    for block in blocks(passage.text):
        if block.kind in ("paragraph", "quote"):
            body = " ".join(line.strip() for line in lines[block.start : block.end])
            out += _prose_facts(passage, body[block.indent :] if block.kind == "quote" else body)
        elif block.kind == "list":
            for first, last in block.items:
                item = " ".join(line.strip() for line in lines[first:last])
                out += _prose_facts(passage, LIST_MARKER.sub("", item))
        elif block.kind == "table":
            out += _table_facts(passage, lines[block.start], lines[block.start + 2 : block.end])
    return out


def _prose_facts(passage: Passage, text: str) -> list[Fact]:
    out: list[Fact] = []
    for sentence in split_sentences(text):
        plain = " ".join(_INLINE_MARKUP.sub("", sentence).split())
        out.extend(_facts_of(passage, sentence, plain, sentence, sentence, sentence))
    return out


def _table_facts(passage: Passage, header_line: str, rows: list[str]) -> list[Fact]:
    """A fact per cell of each row: its column's header and the row's first cell say what it is about."""
    out: list[Fact] = []
    header = table_cells(header_line)
    for line in rows:
        if not line.strip():
            continue
        row = line.strip()
        cells = table_cells(row)
        label = cells[0] if cells else ""
        statement = "; ".join(f"{h}: {c}" if h else c for h, c in zip(header, cells, strict=False) if c) + "."
        statement = " ".join(_INLINE_MARKUP.sub("", statement).split())
        for column, cell in enumerate(cells[1:], start=1):
            head = header[column] if column < len(header) else ""
            out.extend(_facts_of(passage, row, statement, f"{head} {label}", label, cell))
    return out


def same_subject(a: Fact, b: Fact) -> bool:
    """Rules 3 and 4 of the module docstring: the same qualifiers and enough shared subject words."""
    if a.qualifiers != b.qualifiers:
        return False
    shared = len(a.subject & b.subject)
    # A qualifier names the thing already ("Tier 2 keys are limited to ..."): two shared words suffice.
    needed = MIN_SHARED - 1 if a.qualifiers else MIN_SHARED
    return shared >= needed and shared / len(a.subject | b.subject) >= MIN_SHARE


def disagree(a: Fact, b: Fact) -> bool:
    """Two facts conflict: different documents, same dimension, disjoint values, same subject."""
    return (
        a.doc_id != b.doc_id
        and same_measure(a.dimension, b.dimension)
        and not (a.values & b.values)
        and same_subject(a, b)
    )


def same_measure(a: str, b: str) -> bool:
    """The same dimension, bound compatibly: equal relations, or one stated plainly beside a bound (a table cell
    "1 hour" under "First response" reads as "within 1 hour"); a cadence only matches a cadence."""
    (dim_a, rel_a), (dim_b, rel_b) = a.split("/"), b.split("/")
    if dim_a != dim_b:
        return False
    return rel_a == rel_b or ("eq" in (rel_a, rel_b) and "every" not in (rel_a, rel_b))


def _overlaps(span: str, quote: str) -> bool:
    s, q = normalize(span), normalize(quote)
    return bool(s and q) and (q in s or s in q)


def find_conflicts(claims: Sequence[ClaimLike], evidence: Mapping[str, Passage]) -> list[Conflict]:
    """The conflicts between what the claims rely on and the other evidence, one per cited fact, in claim order."""
    cache: dict[str, list[Fact]] = {}

    def of(pid: str) -> list[Fact]:
        if pid not in cache:
            cache[pid] = facts(evidence[pid])
        return cache[pid]

    out: list[Conflict] = []
    seen: set[tuple[str, str, str]] = set()
    groups: set[frozenset[tuple[str, str, str]]] = set()
    for claim in claims:
        if claim.passage_id not in evidence:
            continue
        relied = [f for f in of(claim.passage_id) if _overlaps(f.span, claim.quote)]
        for fact in relied:
            key = (fact.passage_id, fact.span, fact.dimension)
            if key in seen:
                continue
            others: dict[str, Fact] = {}
            for pid in evidence:
                for other in of(pid):
                    if disagree(fact, other):
                        others.setdefault(other.passage_id, other)
            if not others:
                continue
            sides = (fact, *others.values())
            group = frozenset((f.passage_id, f.span, f.dimension) for f in sides)
            if group in groups:  # the same disagreement, seen from its other side
                continue
            groups.add(group)
            seen.add(key)
            out.append(
                Conflict(
                    dimension=fact.dimension,
                    sides=tuple(ConflictSide(f.passage_id, f.shown, f.span, f.statement) for f in sides),
                )
            )
    return out


def unresolved(conflicts: Sequence[Conflict], cited: Iterable[str]) -> list[Conflict]:
    """The conflicts whose sides the answer does not all cite."""
    cited = set(cited)
    return [c for c in conflicts if not all(s.passage_id in cited for s in c.sides)]
