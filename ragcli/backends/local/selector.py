"""Which words of the evidence hold the fact: windows of units, their features, and a fitted score.

A candidate answer is a window of one to three consecutive units of one
passage (``evidence.Unit``), so a sentence can bring the one before it that it
leans on ("It ...", "Instead, ...") or the command after it. A window never
starts on a unit that points back, unless that unit opens its passage.

Each window is described by a few features with a plain meaning (how close
in meaning its best unit is to the question, how many question terms it
holds, whether it holds the kind of thing the question asks for, what it
says beyond the question's own words, where its passage ranked), and scored
by a linear model fitted by ``bench/answers.py`` as a conditional logit: over
each question's windows, the ones that hold the labelled answer should score
highest. The weights live in ``backends.local.fitted``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, fields
from itertools import pairwise

from ...answer.citations import MIN_QUOTE_WORDS, quote_words
from ...text import fence_of, query_terms
from .evidence import Unit
from .question import Question, Want, mentions

MAX_WINDOW = 3

FIT_OF_WANT: Mapping[Want, str] = {
    "code": "code_fit",
    "number": "number_fit",
    "default": "default_fit",
    "place": "place_fit",
    "name": "name_fit",
    "version": "name_fit",
}
"""The one table of which ``*_fit`` feature says a window holds the kind of fact a question wants (``question.Want``);
the answerability rule reads it too. A want missing here (``yesno``) has no feature of its own."""

_NUMBER = re.compile(r"\d")
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_DATE = re.compile(r"\b\d{4}-\d{2}(?:-\d{2})?\b")
"""A date (``2026-09-01``, ``2025-01``): digits, but not the amount a "how many / how long" question asks for."""
_VERSION = re.compile(r"\b\d+\.\d+")
_PATH = re.compile(
    r"(?:~|\$\w+|%\w+%|\.{1,2})?/[\w.$~-]+|\b[\w-]+\.(?:toml|json|ya?ml|cfg|ini|txt|md|lock|py|js|ts|conf|env)\b"
    r"|[A-Z]:\\|\$\{?[A-Z_]{3,}\}?|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b"
)
_NAME = re.compile(r"`[^`]+`|(?<![\w-])--?[A-Za-z][\w-]*|\b\w+_\w+\b|\b[a-z]+[A-Z]\w*\b|\b[A-Z][A-Z0-9_]{2,}\b")
_CODE = re.compile(r"`[^`]+`|^\s*\$ ", re.MULTILINE)
_INSTRUCTS = re.compile(
    r"^(?:to|use|set|add|run|pass|specify|enable|disable|install|create|configure|define|call|provide|include|"
    r"remove|change|replace|invoke|press|select|type|edit|declare|write|put)\b|\b(?:can|may) be used to\b|"
    r"\byou can (?:use|set|add|run|pass|specify|enable|disable|configure|change)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class WindowFeatures:
    """What the selector weighs about one window, by name (``Weights`` looks every weight up by its field's name).

    cosine / cosine_first  best / first unit's cosine with the question (the embedder's, -1..1)
    overlap                share of the question's terms the window's words hold
    weighted_overlap       the same, each term weighted by how few evidence passages hold it (``term_weights``)
    bigrams                share of the question's adjacent term pairs the window holds adjacent too
    heading_overlap        share of the question's terms its passage's title and headings hold
    novelty                log(1 + terms the window says beyond the question's own words)
    rank                   1 / the search rank of its passage
    opens_passage          1 when it starts at its passage's first unit
    size                   units in the window, minus one
    *_fit                  1 when the question asks for that kind of thing (``FIT_OF_WANT``) and the window holds
                           one (a command or code; a number; a default with its value; a path or place; a setting,
                           flag, other name or a version), else 0
    identifier_fit         share of the identifiers the question names that the window holds
    carries_block          1 when it shows a code block, table or list
    instructs              1 when a unit tells the reader what to do or use ("To ...", "Use X to", "set ...",
                           "can be used to", "run ...")
    passage_cosine         its passage's similarity to the question, as the dense ranker saw it (0 when unranked)
    named_fit              share of what the question names (identifiers, capitalised and rare words) the window
                           mentions; 1 when it names nothing
    novel_name             log(1 + names the window shows that the question does not: a code span, a flag, a
                           setting or class name); a how-to's answer is usually a name the asker did not know
    focus                  share of the question's terms, each weighted by how few evidence passages hold it, that
                           the window or its passage's title and headings hold: what the question is about (the
                           setting, the task) must be there, not only words it shares with many pages
    asked_for              share of the thing a "what is the X ...", "which X sets ..." or "how many X ..."
                           question asks for (X's terms) that the window or its headings hold; 1 for other questions
                           ("phone bridge code": a timeline that only says "bridge opened" holds a third of it)
    heading_cosine         its passage's title and headings' cosine with the question (the embedder's). Weighed with
                           ``passage_cosine`` (which reads the headings too) it tells a passage whose text matches
                           the question from one that matches by its heading alone (its fitted weight is negative)
    soft_overlap           the weighted share of the question's word pieces the window says: a piece of a term the
                           window holds counts 1, any other the closest it comes to one of the window's pieces in
                           meaning, so a paraphrase ("switch off" for "disable") is credited (``soft_overlap``)
    """

    cosine: float
    cosine_first: float
    overlap: float
    weighted_overlap: float
    bigrams: float
    heading_overlap: float
    novelty: float
    rank: float
    opens_passage: float
    size: float
    code_fit: float
    number_fit: float
    default_fit: float
    place_fit: float
    name_fit: float
    identifier_fit: float
    carries_block: float
    instructs: float
    passage_cosine: float
    named_fit: float
    novel_name: float
    focus: float
    asked_for: float
    heading_cosine: float = 0.0
    soft_overlap: float = 0.0

    def __getitem__(self, name: str) -> float:
        value: float = getattr(self, name)
        return value

    def row(self, names: Sequence[str]) -> tuple[float, ...]:
        """The values of ``names``, in that order: for the fit's matrices only (``bench/fitting.py``)."""
        return tuple(getattr(self, n) for n in names)


FEATURES = tuple(f.name for f in fields(WindowFeatures))
"""Every window feature, by name; see ``WindowFeatures`` for each one's meaning."""
RULE_ONLY = ("focus", "asked_for")
"""Features only the answerability rule reads: weighed by the selector too, each lowered the left-out share of
questions whose claimed windows hold the answer (``bench/answers.py``; chosen on pooled left-out numbers)."""
SELECTED = tuple(n for n in FEATURES if n not in RULE_ONLY)
"""What the selector weighs."""
JUDGED = tuple(n for n in SELECTED if n != "soft_overlap")
"""What the judge weighs: the selector's features but ``soft_overlap``. The answerability rule reads the judge's best
window (``answerer.LocalModel.judge``); the claims are the selector's."""


@dataclass(frozen=True)
class Window:
    """One to three consecutive units of one passage: a candidate answer."""

    units: tuple[Unit, ...]

    @property
    def first(self) -> Unit:
        return self.units[0]

    @property
    def passage_id(self) -> str:
        return self.first.passage.id

    @property
    def quote(self) -> str:
        """The verbatim text from the first unit's start to the last unit's end."""
        return self.first.passage.text[self.first.start : self.units[-1].end]

    @property
    def statement(self) -> str:
        """The units as a person reads them: sentences run on (a list item's too); blocks, list items and rows start
        their own lines."""
        out = self.units[0].statement
        for before, unit in zip(self.units, self.units[1:], strict=False):
            if unit.kind == "block" and before.kind in ("block", "introduced"):
                out = _continued(out, unit.statement)  # the next lines of one long code block, or its own lines
                continue
            same_item = unit.item_start >= 0 and unit.item_start in (before.start, before.item_start)
            # After a block (a carried code block ends on its fence) the next unit starts its own line, and so does a
            # new paragraph: "**file-override**" run on after "... over config file" read as one sentence.
            same_paragraph = not _BLANK_LINE.search(self.first.passage.text[before.end : unit.start])
            prose = (before.kind == unit.kind == "sentence" and same_paragraph or same_item) and (
                "\n" not in before.statement
            )
            out += (" " if prose else "\n") + unit.statement
        return out

    def overlaps(self, other: Window) -> bool:
        return self.passage_id == other.passage_id and (
            self.first.start < other.units[-1].end and other.first.start < self.units[-1].end
        )


def _continued(shown: str, part: str) -> str:
    """A long code block's next part after the lines shown so far, as one block: the ``…`` and the fences where
    ``structure`` cut it are dropped (a part not cut that way is put on its own lines)."""
    head, tail = shown.split("\n"), part.split("\n")
    cut = len(head) >= 2 and len(tail) >= 2 and head[-2] == tail[1] == "…"
    if cut and fence_of(head[-1]) == head[-1] and fence_of(tail[0]) == head[-1]:
        return "\n".join(head[:-2] + tail[2:])
    return shown + "\n" + part


def windows(found: Sequence[Unit], max_units: int = MAX_WINDOW) -> list[Window]:
    """Every window of 1..max_units consecutive units of one passage's ``found`` units (in reading order) whose
    quote is long enough to cite (``MIN_QUOTE_WORDS``): a short unit (the row ``^0.2.3 | >=0.2.3 <0.3.0``, a tab's
    ``macOS:`` and its path) is quoted with the unit before or after it."""
    out = []
    for i, unit in enumerate(found):
        if unit.points_back and unit.position > 0:
            continue  # it leans on the unit before: a window starting earlier carries both
        for size in range(1, max_units + 1):
            if i + size <= len(found):
                window = Window(tuple(found[i : i + size]))
                if quote_words(window.quote) >= MIN_QUOTE_WORDS:
                    out.append(window)
    return out


def features(
    question: Question,
    window: Window,
    cosines: Mapping[Unit, float],
    rank: int,
    heading_terms: frozenset[str],
    weights: Mapping[str, float],
    passage_cosine: float = 0.0,
    heading_cosine: float = 0.0,
    soft: Callable[[Window, AbstractSet[str]], float] | None = None,
) -> WindowFeatures:
    """The window's features (``WindowFeatures`` says what each one means); ``soft`` scores ``soft_overlap`` from
    the window and the terms it holds (``soft_overlap.SoftOverlap``), read here once for every feature."""
    text = window.quote + row_headers(window)
    folded = text.casefold()
    sequence = query_terms(text)
    terms = set(sequence)
    q_terms = question.terms
    idents = question.identifiers
    total = _weight(q_terms, weights)  # the denominator of both weighted shares, the same for every window
    seen = terms | heading_terms  # what the window and its passage's title and headings hold
    weighted = _weighted_share(q_terms & terms, total, weights)
    fits = _fits(question, window, text, folded)
    return WindowFeatures(
        cosine=max(cosines[u] for u in window.units),
        cosine_first=cosines[window.first],
        overlap=len(q_terms & terms) / len(q_terms) if q_terms else 0.0,
        weighted_overlap=weighted,
        bigrams=len(question.bigrams & set(pairwise(sequence))) / len(question.bigrams) if question.bigrams else 0.0,
        heading_overlap=len(q_terms & heading_terms) / len(q_terms) if q_terms else 0.0,
        novelty=math.log1p(len(terms - q_terms)),
        rank=1.0 / rank,
        opens_passage=1.0 if window.first.position == 0 else 0.0,
        size=float(max(0, sum(1 for u in window.units if u.citable) - 1)),
        code_fit=fits["code_fit"],
        number_fit=fits["number_fit"],
        default_fit=fits["default_fit"],
        place_fit=fits["place_fit"],
        name_fit=fits["name_fit"],
        identifier_fit=sum(1 for i in idents if mentions(folded, i)) / len(idents) if idents else 0.0,
        carries_block=float(any(u.carries_block for u in window.units)),
        instructs=float(any(_INSTRUCTS.search(u.statement) for u in window.units)),
        passage_cosine=passage_cosine,
        named_fit=_named_share(question, folded),
        novel_name=_novel_names(question, text),
        focus=_weighted_share(q_terms & seen, total, weights),
        asked_for=len(question.asked_for & seen) / len(question.asked_for) if question.asked_for else 1.0,
        heading_cosine=heading_cosine,
        soft_overlap=soft(window, terms) if soft is not None else 0.0,
    )


def row_headers(window: Window) -> str:
    """A table row's words include its column headers, as a person reads the row under them ("Variable: loop.last;
    Description: True if last iteration." answers "Which loop variable ..."): the rows' statements, after the quote."""
    rows = [u.statement for u in window.units if u.kind == "row"]
    return "\n" + "\n".join(rows) if rows else ""


def _fits(question: Question, window: Window, text: str, folded: str) -> dict[str, float]:
    """Each ``*_fit`` feature: 1 when the question wants its kind of fact (``FIT_OF_WANT``) and the window holds one."""
    has_number = bool(_NUMBER.search(_DATE.sub("", window.statement)))
    has_name = bool(_NAME.search(text))
    holds = {
        "code_fit": any(u.carries_block and "```" in u.statement for u in window.units) or bool(_CODE.search(text)),
        "number_fit": has_number,
        "default_fit": "default" in folded and (has_number or has_name),
        "place_fit": bool(_PATH.search(text)),
        "name_fit": has_name or bool(_VERSION.search(text)),
    }
    wanted = {FIT_OF_WANT[w] for w in question.wants if w in FIT_OF_WANT}
    return {name: float(name in wanted and held) for name, held in holds.items()}


def _novel_names(question: Question, text: str) -> float:
    """log(1 + the names (``_NAME``: code spans, flags, snake and camel case, constants) the window holds that
    the question's own text does not)."""
    asked = question.text.casefold()
    found = {m.group(0).strip("`").casefold() for m in _NAME.finditer(text)}
    return math.log1p(sum(1 for f in found if f not in asked))


def _named_share(question: Question, folded: str) -> float:
    named = (*question.identifiers, *question.names, *question.rare)
    if not named:
        return 1.0
    stems = frozenset(query_terms(folded))
    return sum(1 for n in named if mentions(folded, n, stems)) / len(named)


def term_weights(question: Question, evidence_terms: Sequence[frozenset[str]]) -> dict[str, float]:
    """Each question term's weight: log((n + 1) / (passages holding it + 0.5)) over the n evidence passages,
    so a term every passage shares (the product's name) counts for little, a term few hold for much."""
    n = len(evidence_terms)
    return {t: math.log((n + 1) / (sum(1 for terms in evidence_terms if t in terms) + 0.5)) for t in question.terms}


def _weight(terms: set[str] | frozenset[str], weights: Mapping[str, float]) -> float:
    return sum(weights.get(t, 0.0) for t in terms)


def _weighted_share(held: set[str] | frozenset[str], total: float, weights: Mapping[str, float]) -> float:
    """The share of the question's weight (``total``) that the terms ``held`` carry: exactly 0 when none are held
    (rule 2 reads that), 0 for a question without terms."""
    return _weight(held, weights) / total if total > 0 else 0.0


@dataclass(frozen=True)
class Weights:
    """A fitted linear score over standardised features: sum(weight * (value - mean) / scale)."""

    weights: Mapping[str, float]
    means: Mapping[str, float]
    scales: Mapping[str, float]

    def score(self, values: WindowFeatures) -> float:
        """Each weight finds its feature by name; a feature without a weight plays no part."""
        return sum(w * (values[n] - self.means[n]) / self.scales[n] for n, w in self.weights.items())
