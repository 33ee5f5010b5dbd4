"""What a question asks for, read by rules: the kind of fact it wants, its terms, and what it names.

The local answerer uses this twice. Selecting: a question that asks "what is
the default ..." wants a unit with a value in it, "how do I ..." wants a
command or a setting, "where ..." wants a path; cosine similarity alone
rewards the sentence that restates the question, not the one that holds the
fact. Abstaining: a question that names a distinctive thing (an identifier, a
number, a capitalised or rare word) that no visible passage contains is not
answered from passages about something else ("What is Project Nightjar?"
over pages that only mention "projects"). Only the sentences that ask count
for that when others tell the asker's situation ("My Booking class has
check_in and check_out dates ... Where do I put that check?"): the situation's
names and rare words are the asker's own, not what the documents must say.

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
from itertools import pairwise
from typing import Literal

from ...text import STOP_WORDS, query_terms

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
_ASKS = re.compile(
    r"\?\s*$|^\s*(?:how|what|which|where|when|why|who|whom|whose|is|are|am|was|were|can|could|do|does|did|"
    r"should|would|will|shall|may|might|must|has|have|had)\b",
    re.IGNORECASE,
)
"""A question mark at the end, or an interrogative or auxiliary first word: the text asks something."""
_ASKED_FOR = re.compile(
    r"^\s*(?:what|which)(?:'s|\s+is|\s+are|\s+was|\s+were)?\s+(?:the\s+|a\s+|an\s+)?"
    r"(?!(?:happens?|happened|does|do|did|goes|went|should|would|can|could|will|must|shall|may|might)\b)"
    r"(?P<thing>[\w-]+(?:\s+[\w-]+){0,4}?)"
    r"(?=\s+(?:for|of|in|on|at|to|from|with|by|when|if|that|which|does|do|did|is|are|was|should|would|can|could|"
    r"will|must|i|we|you|my|our)\b|\s*[?.!]|\s*$)",
    re.IGNORECASE,
)
""""What is the phone bridge code for a SEV1 incident?": the thing asked for ("phone bridge code"), before what
it is asked about ("a SEV1 incident")."""
_ASKED_VERB = re.compile(
    r"^\s*(?:what|which)\s+(?P<thing>[\w-]+(?:\s+[\w-]+)?)\s+(?:sets|makes|controls|defines|changes|raises|"
    r"enables|disables|turns|tells|decides|determines|configures|lets|gives|shows|selects|holds|keeps)\b",
    re.IGNORECASE,
)
""""Which environment variable sets how many times ...": the thing asked for ("environment variable"), before
the verb that says what it does."""
_HOW_MANY = re.compile(
    r"^\s*how\s+many\s+(?P<thing>[\w-]+(?:\s+[\w-]+){0,2}?)"
    r"(?=\s+(?:does|do|did|is|are|was|were|will|can|could|should|would|must|of|in|on|at|for|i|we|you|my|our)\b"
    r"|\s*[?.!,]|\s*$)",
    re.IGNORECASE,
)
""""How many redirects does requests follow?": the things counted ("redirects"), which an answer counts by name
("30 redirects"). Not "how much X": a mass is often said otherwise ("paid time off" is "leave")."""
_GENERIC_THINGS = (
    "way ways fix one ones option options setting settings thing things recommended best easiest simplest "
    "least effort other built command commands step steps approach"
)
"""Words that name no thing of their own in "What's the best way ...", "What option do I need?", "Which one is
used?": the answer need not repeat them (stemmed on first use, ``_generic_things``)."""
_ANSWER_KINDS = (
    "value values location locations folder folders directory directories path paths syntax shortcut shortcuts "
    "keyboard default defaults"
)
"""Words that name the kind of fact asked for, not the thing it is about: "Which folder do rustc and cargo end up
in?", "What's the default location of RUSTUP_HOME?", "What is the syntax of a full toolchain name?", "What's the
keyboard shortcut for Reformat with Prettier?". An answer gives the fact and seldom names its kind ("located at
$HOME/.cargo/bin", "Opt+Shift+Cmd+P"), so rule 2 does not look for them. Not "format": its stem is also
"formatting", what a formatter's questions are about."""
_GENERIC_CAPITALS = frozenset(
    "i ok okay faq readme api apis url urls http https json yaml toml html css cli gui ui id ids os "
    "mac macos linux windows unix".split()
)
"""Capitalised words too common in technical questions to name a thing of their own."""


@dataclass(frozen=True)
class Question:
    """A question as the local answerer reads it."""

    text: str
    terms: frozenset[str]
    """Its stemmed, stop-word-free terms (as BM25 searches for them)."""
    bigrams: frozenset[tuple[str, str]]
    """Its adjacent term pairs, in order."""
    wants: frozenset[Want]
    """The kinds of fact it asks for."""
    identifiers: tuple[str, ...]
    """Flags, code-like tokens, versions, numbers and quoted phrases it names, as written (case-folded)."""
    names: tuple[str, ...]
    """Capitalised words not opening a sentence (``Vercel``, ``Nightjar``), case-folded."""
    rare: tuple[str, ...]
    """Lower-case words the embedder's vocabulary does not hold in any form (``telemetry``, ``glibc``)."""
    asked_for: frozenset[str] = frozenset()
    """The stemmed terms of the thing a "what is the X ...", "which X sets ..." or "how many X ..." question asks
    for (X), empty for other questions."""
    distinctive: tuple[str, ...] = ()
    """What an answer's evidence must mention: the identifiers and names of the sentence that asks (``asking``)."""
    asked_rare: tuple[str, ...] = ()
    """The rare words of the sentence that asks (``asking``): the asker's own words for their situation are not."""

    @classmethod
    def read(cls, text: str) -> Question:
        identifiers = _identifiers(text)
        names, rare = _named_words(text, identifiers)
        sentences = _sentences(text.strip())
        asking, subjects = _asking(text, sentences)
        if asking == text:
            distinctive, asked_rare = (*identifiers, *names), rare
        else:
            asked_identifiers = _identifiers(asking)
            asked_names, asked_rare = _named_words(asking, asked_identifiers)
            subject_identifiers = _identifiers(subjects)
            subject_names, _ = _named_words(subjects, subject_identifiers)
            distinctive = tuple(dict.fromkeys((*subject_identifiers, *subject_names, *asked_identifiers, *asked_names)))
        examples = _examples(text)
        distinctive = tuple(d for d in distinctive if d.lstrip("\\") not in examples)
        sequence = query_terms(text)
        return cls(
            text=text,
            terms=frozenset(sequence),
            bigrams=frozenset(pairwise(sequence)),
            wants=frozenset(want for want, pattern in _WANTS if pattern.search(text)),
            identifiers=identifiers,
            names=names,
            rare=rare,
            asked_for=_asked_for(sentences),
            distinctive=distinctive,
            asked_rare=asked_rare,
        )

    @property
    def asks(self) -> bool:
        """Whether it is a question ("How ...", "... ?"), not a request or command ("Ignore ... and show me ...")
        nor bare keywords: text that addresses the reader only answers a question about itself."""
        return bool(_ASKS.search(self.text))


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Za-z\"'“(])")
"""A question's sentence end: a stop and a letter after it, a small one too (a question typed in lower case)."""
_ABBREVIATION = re.compile(
    r"(?:\b(?:dr|mr|mrs|ms|prof|sr|jr|st|vs|etc|inc|ltd|no|fig|approx|cf|e\.g|i\.e)\.|(?<![\w.])[A-Z]\.)$",
    re.IGNORECASE,
)
"""A full stop that ends an abbreviation or an initial ("Dr.", "e.g.", "U.S."), not a sentence."""
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|my|me|mine|myself|we|we're|we've|our|ours|us)\b", re.IGNORECASE)
"""A sentence told in the first person: what it opens with is the asker's own ("My Booking class ...")."""
_POINTS_BACK = re.compile(r"\b(?:its|their|theirs|they|them)\b", re.IGNORECASE)
"""A pronoun that stands for something named before ("What is its budget?"): the question asks about it."""
_SUBJECT_WORDS = 3
"""How many opening words of a sentence name what it is about ("Project Nightjar needs more money.")."""


def _sentences(text: str) -> list[str]:
    """``text`` cut at its sentence ends, not after an abbreviation or an initial."""
    out: list[str] = []
    start = 0
    for end in _SENTENCE_END.finditer(text):
        if _ABBREVIATION.search(text[start : end.start()]):
            continue
        out.append(text[start : end.start()])
        start = end.end()
    out.append(text[start:])
    return [s for s in out if s]


def _asking(text: str, sentences: list[str]) -> tuple[str, str]:
    """What of ``text`` (cut into ``sentences``) asks, and the subjects of its other sentences, when they tell the
    asker's situation: in "My React dev server on localhost:3000 calls my API and the browser blocks it. What do I
    have to add?" the server, its name and its port are the asker's own, not what the documents must mention. The
    whole text and no subjects otherwise, and when the asking sentences point back at what was told ("What is its
    budget?").

    A telling sentence not told in the first person keeps what it opens with, its subject: in "Project Nightjar
    needs more money. Who approves an increase?" the question is about Project Nightjar."""
    asking: list[str] = []
    telling: list[str] = []
    for sentence in sentences:
        (asking if _ASKS.search(sentence) else telling).append(sentence)
    if not asking or not telling or any(_POINTS_BACK.search(s) for s in asking):
        return text, ""
    told = [s for s in telling if not _FIRST_PERSON.search(s)]
    return " ".join(asking), " ".join(" ".join(s.split()[:_SUBJECT_WORDS]) + "." for s in told)


def _asked_for(sentences: list[str]) -> frozenset[str]:
    """The thing the first "what is the X ...", "which X sets ..." or "how many X ..." of a question's ``sentences``
    asks for: the asker may tell their situation before they ask ("I run a monorepo. What is the default cache
    directory?")."""
    for sentence in sentences:
        match = _ASKED_VERB.match(sentence) or _ASKED_FOR.match(sentence) or _HOW_MANY.match(sentence)
        if match:
            return frozenset(query_terms(match.group("thing"))) - _generic_things()
    return frozenset()


@functools.cache
def _generic_things() -> frozenset[str]:
    return frozenset(query_terms(f"{_GENERIC_THINGS} {_ANSWER_KINDS}"))


def _identifiers(text: str) -> tuple[str, ...]:
    found = [next(g for g in m.groups() if g) for m in _QUOTED.finditer(text)]
    found += [m.group(0) for m in _IDENT.finditer(text)]
    cleaned = (f.strip(" .,;:?!").casefold() for f in found)
    # ``field:value`` is search syntax a user may type ("tenant:acme refund"), not a thing to look for.
    # "e.g." and "i.e." are words of the sentence, not names the documents must hold.
    return tuple(dict.fromkeys(f for f in cleaned if len(f) >= 2 and not _FIELD_QUERY.match(f) and f not in _LATIN))


_LATIN = frozenset({"e.g", "i.e"})


_EXAMPLE_MARK = re.compile(
    r"(?:(?<!\bI'd )(?<!\bwould )(?<!\bd )\blike|\be\.g\.|\bsuch as|\bfor (?:example|instance)|\bsay),?\s*[\"'`(]?\\?$",
    re.IGNORECASE,
)


def _examples(text: str) -> frozenset[str]:
    """Identifiers the asker gives as an example of their own ("escape sequences like \\u00e9", "branch names like
    BRANCH-1111"): what they look like on the asker's side, which the documents need not name."""
    found = (m for m in _IDENT.finditer(text) if _EXAMPLE_MARK.search(text[: m.start()]))
    return frozenset(m.group(0).strip(" .,;:?!").lstrip("\\").casefold() for m in found)


_POSSESSIVE = re.compile(r"'s$")
RARE_MIN_LETTERS = 3
"""A word this long that the vocabulary does not hold is rare: three letters are enough for a tool's or a format's
name (``nox``, ``pdm``, ``zsh``, ``cwd``). With four (the rule before), "How do I get tab completion for nox
commands?" asked of docs that never mention nox named nothing they lack. Left out (``bench/answers.py``, chunker
11): unanswerable abstained 88 → 90 of 136, off-topic 561 → 571 of 637, answerable abstained 32 → 33 of 501
(rustup26, whose question has no such word: the refit moved), 373 right either way."""


def _named_words(text: str, identifiers: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Capitalised words not opening a sentence, and words no form of which the vocabulary holds."""
    vocab = vocabulary()
    covered = " ".join(identifiers)
    names: list[str] = []
    rare: list[str] = []
    for match in _WORD.finditer(text):
        word = _POSSESSIVE.sub("", match.group(0))  # "lazygit's undo", "Docsy's strings": the name is the owner
        if "'" in word:
            continue  # a contraction ("don't", "I'd"): ordinary words
        folded = word.casefold()
        if folded in STOP_WORDS or len(folded) < 3 or folded in covered or folded in _GENERIC_CAPITALS:
            continue
        if word[0].isupper() and not _SENTENCE_START.search(text[: match.start()]):
            names.append(folded)
        elif len(folded) >= RARE_MIN_LETTERS and not all(_common(part, vocab) for part in folded.split("-") if part):
            rare.append(folded)
    return tuple(dict.fromkeys(names)), tuple(dict.fromkeys(rare))


def _common(word: str, vocab: frozenset[str]) -> bool:
    """The vocabulary holds the word, or it is a common word with a prefix or suffix
    (``configs``, ``pinned``, ``globally``, ``repositories``, ``reformatting``)."""
    if len(word) < 3 or word in vocab:
        return True
    for prefix in ("re", "un", "pre", "non", "sub", "auto", "multi", "over"):
        if word.startswith(prefix) and len(word) - len(prefix) >= 4 and _common(word[len(prefix) :], vocab):
            return True
    for suffix, replacement in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            stem = word[: -len(suffix)] + replacement
            doubled = len(stem) > 3 and stem[-1] == stem[-2] and stem[:-1] in vocab
            if stem in vocab or stem + "e" in vocab or doubled:
                return True
    return False


_SUFFIXES = (
    ("ies", "y"),
    ("s", ""),
    ("es", ""),
    ("ed", ""),
    ("d", ""),
    ("ing", ""),
    ("ly", ""),
    ("ally", ""),
    ("er", ""),
    ("ers", ""),
    ("ation", "e"),
    ("ations", "e"),
    ("ment", ""),
    ("able", ""),
    ("ness", ""),
    ("ity", ""),
)
_FIELD_QUERY = re.compile(r"^[a-z_]+:[\w.-]+$")


@functools.lru_cache(maxsize=1)
def vocabulary() -> frozenset[str]:
    """The words of the embedder's WordPiece vocabulary."""
    text = resources.files("ragcli").joinpath("data/minilm-vocab.txt").read_text(encoding="utf-8")
    # Pieces (``##ing``) and specials (``[CLS]``) stay in: no word of a question looks like them, and
    # splitting in C is what keeps this off a CLI's start-up time.
    return frozenset(text.split("\n"))


_ONE_SPELLING = {"jpeg": "jpg", "yaml": "yml", "tiff": "tif"}
"""File formats with two common spellings, the long one to the short; a page writes one (``.jpg``, ``mkdocs.yml``),
a question the other."""
_SPELLINGS = re.compile(r"\b(" + "|".join((*_ONE_SPELLING, *_ONE_SPELLING.values())) + r")\b")


def _one_spelling(text: str) -> str:
    """``text`` with each two-spelling format name in its short spelling (``JPEG quality`` → ``jpg quality``)."""
    return _SPELLINGS.sub(lambda m: _ONE_SPELLING.get(m.group(1), m.group(1)), text)


def mentions(haystack: str, needle: str, stems: frozenset[str] | None = None) -> bool:
    """Whether ``haystack`` (case-folded) mentions ``needle``: as written, or with separators ignored
    (``pre-commit`` and ``precommit``), or in the format's other spelling (``jpeg`` and ``.jpg``), or for a word,
    in another form (``Pythons``: ``python``; ``configure``: ``configured``), compared by stem when ``stems`` (the
    haystack's stemmed terms) are given."""
    if needle in haystack:
        return True
    squeezed = re.sub(r"[^0-9a-z]+", "", needle)
    if len(squeezed) >= 3 and squeezed in re.sub(r"[^0-9a-z]+", "", haystack):
        return True
    if _SPELLINGS.search(needle) and _one_spelling(needle) in _one_spelling(haystack):
        return True
    if stems is not None and _WORD.fullmatch(needle):
        return all(term in stems for term in query_terms(needle))
    return False
