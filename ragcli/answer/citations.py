"""The four deterministic checks every claim must pass. Pure functions, no I/O.

1. ``retrieved``: the cited passage was retrieved for this principal in this run.
2. ``quote_length``: the quote has at least four words, counted after
   Markdown markup and table pipes are stripped (``| 600 | | |`` is one word).
3. ``quote_in_passage``: the quote appears in that passage after whitespace,
   case and Unicode (NFKC, quote marks, dashes) normalisation.
4. ``numbers_in_passage``: every number in the statement appears in the passage
   (``1,200`` = ``1200``, ``10%`` = ``10 percent``), and so does every token
   that carries a number inside it, whole: an identifier, version or code
   (``v2.4.0``, ``ERR_9999``, ``PEP 723``, ``python3.12``).

A claim that fails any check sinks the whole answer: partial answers would let
an unsupported sentence ride along with supported ones.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Literal, Protocol

CheckName = Literal["retrieved", "quote_length", "quote_in_passage", "numbers_in_passage"]
CHECKS: tuple[CheckName, ...] = ("retrieved", "quote_length", "quote_in_passage", "numbers_in_passage")
MIN_QUOTE_WORDS = 4


class ClaimLike(Protocol):
    # Read-only properties, so a frozen dataclass (``Claim``) matches.
    @property
    def statement(self) -> str: ...
    @property
    def passage_id(self) -> str: ...
    @property
    def quote(self) -> str: ...


class PassageLike(Protocol):
    @property
    def text(self) -> str: ...


@dataclass(frozen=True)
class CheckResult:
    """One check of one claim, as recorded in the trace."""

    claim: int
    """Index of the claim in the submitted list."""
    check: CheckName
    passed: bool
    detail: str = ""


_QUOTES = str.maketrans(
    {
        "‘": "'",
        "’": "'",
        "‚": "'",
        "‛": "'",
        "′": "'",
        "“": '"',
        "”": '"',
        "„": '"',
        "‟": '"',
        "″": '"',
        "«": '"',
        "»": '"',
    }
)
_DASHES = re.compile(r"[\u2010-\u2015\u2212\uFE58\uFE63\uFF0D]")
# Markdown emphasis and table/list punctuation do not change what a sentence says.
_MARKUP = re.compile(r"[*_`|]+")


def normalize(text: str) -> str:
    """HTML entities decoded, NFKC, one kind of quote mark and dash, case-folded, markup-free, single spaces.

    Entities are decoded because the model reads passages HTML-escaped (see
    ``backends.prompt.format_passage``): a quote copied exactly from what it
    was shown may say ``&gt;`` where the passage says ``>``.
    """
    text = unicodedata.normalize("NFKC", html.unescape(text)).translate(_QUOTES)
    text = _DASHES.sub("-", text)
    text = _MARKUP.sub(" ", text)
    return " ".join(text.casefold().split())


_NUMBER = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(\s*(?:%|percent\b|per\s+cent\b))?", re.IGNORECASE)
_TOKEN = re.compile(r"[A-Za-z0-9_]+(?:[.\-/:][A-Za-z0-9_]+)*")
_ACRONYM_NUMBER = re.compile(r"\b([A-Z]{2,})[ -](\d+)\b")


def quote_words(quote: str) -> int:
    """Words of a quote once markup and table pipes are stripped: tokens with a letter or digit."""
    return sum(1 for word in normalize(quote).split() if any(c.isalnum() for c in word))


def _is_coded(token: str) -> bool:
    """A token that carries a number inside an identifier, version
    or code: ``v2.4.0``, ``ERR_4021``, ``1.2.3``, ``x86_64``."""
    if not any(c.isdigit() for c in token):
        return False
    if any(c.isalpha() or c == "_" for c in token):
        return True
    return sum(token.count(sep) for sep in ".-/:") >= 2 or any(sep in token for sep in "-/:")


def coded_tokens(text: str) -> set[str]:
    """Identifiers, versions and codes with digits in ``text`` (case-folded), and ``PEP 723``-style units."""
    text = unicodedata.normalize("NFKC", html.unescape(text))
    # Underscores at a token's ends are Markdown emphasis (``_First available in v1.9.0_``), not part of it: a
    # statement printed without markup names ``v1.9.0``.
    found = {t.casefold() for t in (t.strip("_") for t in _TOKEN.findall(text)) if _is_coded(t)}
    found |= {f"{a.casefold()} {n}" for a, n in _ACRONYM_NUMBER.findall(text)}
    return found


@dataclass(frozen=True)
class Number:
    value: Decimal
    percent: bool


def numbers_in(text: str) -> list[Number]:
    """Numbers in ``text``, with thousands separators removed and percent marked."""
    found = []
    text = unicodedata.normalize("NFKC", text)
    for match in _NUMBER.finditer(text):
        digits = match.group(1).replace(",", "") + (match.group(2) or "")
        try:
            value = Decimal(digits).normalize()
        except InvalidOperation:
            continue
        found.append(Number(value, bool(match.group(3))))
    return found


def _number_supported(number: Number, passage_numbers: Sequence[Number]) -> bool:
    for candidate in passage_numbers:
        if candidate.value == number.value and (candidate.percent or not number.percent):
            return True
    return False


def check_claim(index: int, claim: ClaimLike, retrieved: Mapping[str, PassageLike]) -> list[CheckResult]:
    """Run the four checks on one claim; later checks are skipped (failed) when the passage is unknown."""
    passage = retrieved.get(claim.passage_id)
    results = [
        CheckResult(index, "retrieved", passage is not None, "" if passage else "passage was not retrieved in this run")
    ]
    words = quote_words(claim.quote)
    results.append(CheckResult(index, "quote_length", words >= MIN_QUOTE_WORDS, f"{words} words"))
    if passage is None:
        results.append(CheckResult(index, "quote_in_passage", False, "no passage to look in"))
        results.append(CheckResult(index, "numbers_in_passage", False, "no passage to look in"))
        return results
    quote_ok = bool(normalize(claim.quote)) and normalize(claim.quote) in normalize(passage.text)
    results.append(
        CheckResult(index, "quote_in_passage", quote_ok, "" if quote_ok else "quote not found in the passage")
    )
    passage_numbers = numbers_in(passage.text)
    missing = [
        f"{n.value:f}{'%' if n.percent else ''}"
        for n in numbers_in(claim.statement)
        if not _number_supported(n, passage_numbers)
    ]
    missing += sorted(coded_tokens(claim.statement) - coded_tokens(passage.text))
    results.append(
        CheckResult(
            index, "numbers_in_passage", not missing, "" if not missing else "not in the passage: " + ", ".join(missing)
        )
    )
    return results


def check_claims(claims: Sequence[ClaimLike], retrieved: Mapping[str, PassageLike]) -> list[CheckResult]:
    """All checks for all claims, in order."""
    return [result for i, claim in enumerate(claims) for result in check_claim(i, claim, retrieved)]


def all_passed(results: Sequence[CheckResult]) -> bool:
    return bool(results) and all(r.passed for r in results)
