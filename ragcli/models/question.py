"""What a question asks for, read by rules: the kind of fact it wants, its terms, and what it names.

The local answerer uses this twice. Selecting: a question that asks "what is
the default ..." wants a unit with a value in it, "how do I ..." wants a
command or a setting, "where ..." wants a path; cosine similarity alone
rewards the sentence that restates the question, not the one that holds the
fact. Abstaining: a question that names a distinctive thing (an identifier, a
number, a capitalised or rare word) that no visible passage contains is not
answered from passages about something else ("What is Project Nightjar?"
over pages that only mention "projects").

A word is rare when the embedder's own WordPiece vocabulary (about 30,000
common English words and pieces) does not hold it whole: "nightjar" is split
into pieces, "project" is not. That needs no corpus statistics, so the rule
means the same in every tenant.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from importlib import resources
from typing import Literal

from ..text import STOP_WORDS, query_terms

Want = Literal["code", "number", "default", "place", "name", "version", "yesno"]

_WANTS: tuple[tuple[Want, re.Pattern[str]], ...] = (
    (
        "code",
        re.compile(
            r"\b(?:how (?:do|can|should|would|could) (?:i|you|we|one)|how to|what(?:'s| is) the command|"
            r"which command|command (?:to|for|that)|(?:is there|what is) a (?:way|command|setting|option) to|"
            r"example of|syntax (?:for|of))\b",
            re.IGNORECASE,
        ),
    ),
    (
        "number",
        re.compile(
            r"\b(?:how (?:many|much|long|often|big|large|far|old)|what (?:size|port|number|percentage|limit|timeout)|"
            r"maximum|minimum|max|min|limit|timeout|port|interval|duration|seconds|minutes|hours|days|bytes|size)\b",
            re.IGNORECASE,
        ),
    ),
    ("default", re.compile(r"\bdefaults?\b|\bby default\b|\bout of the box\b", re.IGNORECASE)),
    (
        "place",
        re.compile(
            r"\bwhere\b|\b(?:which|what) (?:folder|directory|file|path)\b|\blocation\b|\bpath\b|"
            r"\bdirectory\b|\bfolder\b|\bstored?\b|\bsaved?\b|\bput\b",
            re.IGNORECASE,
        ),
    ),
    (
        "name",
        re.compile(
            r"\b(?:which|what) (?:setting|option|flag|variable|env(?:ironment)? var(?:iable)?|key|field|parameter|"
            r"argument|class|function|method|package|plugin|extension|file|config(?:uration)?|command|shortcut|"
            r"keybinding|key binding|shortcode|directive|role|hook|name)s?\b|\b(?:setting|option|flag|env var|"
            r"environment variable|config key|keybinding|shortcut)\b",
            re.IGNORECASE,
        ),
    ),
    ("version", re.compile(r"\bversions?\b|\bsince when\b|\bwhich release\b|\badded in\b", re.IGNORECASE)),
    (
        "yesno",
        re.compile(r"^\s*(?:can|does|do|is|are|will|should|could|would|has|have)\b", re.IGNORECASE),
    ),
)

_IDENT = re.compile(
    r"(?<![\w-])(?:--?[A-Za-z][\w-]*|[\w.-]*[A-Za-z][\w-]*(?:[._/:][\w-]+)+|[A-Za-z]+\d[\w]*|\d+(?:\.\d+)+)"
)
_QUOTED = re.compile(r"`([^`]+)`|\"([^\"]{2,})\"|“([^”]{2,})”")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*[A-Za-z]|[A-Za-z]")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|\(\s*)$")
_GENERIC_CAPITALS = frozenset(
    "i ok okay faq api apis url urls http https json yaml toml html css cli gui ui id ids os "
    "mac macos linux windows unix".split()
)
"""Capitalised words too common in technical questions to name a thing of their own."""


@dataclass(frozen=True)
class Question:
    """A question as the local answerer reads it."""

    text: str
    terms: frozenset[str]
    """Its stemmed, stop-word-free terms (as BM25 searches for them)."""
    wants: frozenset[Want]
    """The kinds of fact it asks for."""
    identifiers: tuple[str, ...]
    """Flags, code-like tokens, versions and quoted phrases it names, as written (case-folded)."""
    distinctive: tuple[str, ...]
    """What it names that an answer's evidence must mention: identifiers, and capitalised or rare words."""

    @classmethod
    def read(cls, text: str) -> Question:
        identifiers = _identifiers(text)
        return cls(
            text=text,
            terms=frozenset(query_terms(text)),
            wants=frozenset(want for want, pattern in _WANTS if pattern.search(text)),
            identifiers=identifiers,
            distinctive=(*identifiers, *_named_words(text, identifiers)),
        )

    def wants_any(self, *kinds: Want) -> bool:
        return any(k in self.wants for k in kinds)


def _identifiers(text: str) -> tuple[str, ...]:
    found = [next(g for g in m.groups() if g) for m in _QUOTED.finditer(text)]
    found += [m.group(0) for m in _IDENT.finditer(text)]
    cleaned = (f.strip(" .,;:?!").casefold() for f in found)
    return tuple(dict.fromkeys(f for f in cleaned if len(f) >= 2))


def _named_words(text: str, identifiers: tuple[str, ...]) -> list[str]:
    """Capitalised words not opening a sentence, and words the embedder's vocabulary does not hold whole."""
    vocab = vocabulary()
    covered = " ".join(identifiers)
    out = []
    for match in _WORD.finditer(text):
        word = match.group(0).removesuffix("'s").removesuffix("’s")
        folded = word.casefold()
        if folded in STOP_WORDS or len(folded) < 3 or folded in covered or folded in _GENERIC_CAPITALS:
            continue
        capitalised = word[0].isupper() and not _SENTENCE_START.search(text[: match.start()])
        rare = len(folded) >= 4 and folded.strip("'") not in vocab and not _known_form(folded, vocab)
        if capitalised or rare:
            out.append(folded)
    return list(dict.fromkeys(out))


def _known_form(word: str, vocab: frozenset[str]) -> bool:
    """A common word in another form: plural, past tense, -ing, -ly (``configs``, ``pinned``, ``globally``)."""
    for suffix in ("s", "es", "ed", "d", "ing", "ly", "er", "ers"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            stem = word[: -len(suffix)]
            if stem in vocab or stem + "e" in vocab or (len(stem) > 3 and stem[-1] == stem[-2] and stem[:-1] in vocab):
                return True
    return False


@functools.lru_cache(maxsize=1)
def vocabulary() -> frozenset[str]:
    """The whole words of the embedder's WordPiece vocabulary (pieces starting ``##`` left out)."""
    text = resources.files("ragcli").joinpath("data/minilm-vocab.txt").read_text(encoding="utf-8")
    return frozenset(w for w in text.split("\n") if w and not w.startswith(("##", "[")))


def mentions(haystack: str, needle: str) -> bool:
    """Whether ``haystack`` (case-folded) mentions ``needle``: as written, or with separators ignored
    (``pre-commit`` and ``precommit``), or in a close form for a word (``nightjars``)."""
    if needle in haystack:
        return True
    squeezed = re.sub(r"[^0-9a-z]+", "", needle)
    return len(squeezed) >= 3 and squeezed in re.sub(r"[^0-9a-z]+", "", haystack)
