"""The embedded extractive answerer: deterministic, offline, never invents text.

For each question it reads what kind of fact is asked for (``question``),
cuts the best passages into units (sentences, list items, table rows, a
sentence with the block it leads to; ``evidence``), scores every window of
one to three consecutive units with a fitted linear model (``selector``),
judges from the best window of the same model fitted without ``soft_overlap``
(the judge) and the evidence whether the question is answered at all
(``answerability``), and then submits the best window (and a
second, separate one when it scores nearly as well) as claims whose quote is
the window's own text. A question that names something no visible passage
mentions is not answered. The claims pass the citation checks by
construction, and still go through them.

Every number it uses was fitted by ``bench/answers.py`` on labelled questions
over real documentation sets, and is reported there on sets it was not
fitted on (``backends.local.fitted``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ...answer.protocol import AbstainDecision, Claim, ClaimsDecision, Found, ModelReply, Turn, Usage, Verdict
from ...embedder import Embedder
from ...passage import Passage
from ...text import FENCE, is_strong_identifier, query_terms
from ...units import embed_passages
from . import answerability, fitted
from .evidence import Unit, addresses_reader, units, without_address
from .question import Question, mentions
from .selector import FIT_OF_WANT, Weights, Window, WindowFeatures, features, term_weights, windows
from .soft_overlap import SoftOverlap
from .vectors import Source, question_vector, stored_units

if TYPE_CHECKING:
    import numpy as np

MAX_PASSAGES = 5
"""Passages (best ranked first) whose units are scored: the fact is in the top 3 for about 0.9 of the questions.
A passage one ranker alone ranks first is read too (``read_passages``)."""
SECOND_MARGIN = math.log(10)
"""A second window (not overlapping the best) is claimed unless the selector makes it less than a tenth as
likely as the best one to hold the fact: the scores are a conditional logit's, so that is a gap of ln 10.
A fixed rule, not fitted: a second place to look is worth showing unless the first one is clearly it."""


@dataclass(frozen=True)
class Scored:
    """One candidate window, its features and its score."""

    window: Window
    values: WindowFeatures
    score: float


@dataclass(frozen=True)
class Vectors:
    """What the index and the search already computed: the evidence's unit vectors, the question's vector."""

    units: Mapping[str, np.ndarray] = field(default_factory=dict)
    question: np.ndarray | None = None


@dataclass(frozen=True)
class Candidates:
    """What the answerer can choose from, before any weight is applied."""

    question: Question
    missing: tuple[str, ...]
    """Distinctive things the question names that no evidence passage mentions."""
    unmatched: tuple[str, ...]
    """Rare words of the question that no evidence passage holds in any form (a softer sign, see ``answerability``)."""
    windows: list[tuple[Window, WindowFeatures]]
    """Every window of the best passages, in evidence and reading order, with its features."""


@dataclass(frozen=True)
class Assessment:
    """What the answerer makes of a question and its evidence, before it decides."""

    question: Question
    scored: list[Scored]
    """Every window, best first."""
    missing: tuple[str, ...]
    """Distinctive things the question names that no evidence passage mentions."""
    features: dict[str, float] | None
    """The answerability features (None when the evidence has no unit at all)."""
    answerable: float
    """P(answerable) from ``answerability``; 0 without units or when ``stopped``."""
    stopped: bool
    """Decided before the fitted rule (``Rule.stops``): P(answerable) was not computed."""
    claims: tuple[Claim, ...] = field(default=())
    """What it would claim if it answers."""


@dataclass
class LocalModel:
    embedder: Embedder | None = None
    vectors: Source | None = None
    """Where the index's stored unit vectors and the question's search vector are read (the ``Retriever`` it
    answers from; ``vectors``); without one, every unit is embedded here, the same way."""
    selector: Weights = fitted.SELECTOR
    judge: Weights = fitted.JUDGE
    """Picks the window the rule judges (``selector.JUDGED``): ``soft_overlap`` picks right windows more often, but a
    rule fitted on the windows it picks abstains more on answerable questions (``docs/defaults.md``)."""
    rule: answerability.Rule = fitted.ANSWERABILITY
    second_margin: float = SECOND_MARGIN
    name: str = "local"
    retry_on_empty: bool = False
    expands_neighbours: bool = False

    def __post_init__(self) -> None:
        if self.embedder is None:
            self.embedder = Embedder()

    def conversation(self, question: str) -> _LocalConversation:
        return _LocalConversation(self, question)

    def cost_usd(self, usage: Usage) -> float | None:
        return None  # no price: it runs here

    def assess(
        self,
        question: str,
        evidence: Sequence[Passage],
        found: Mapping[str, Found] | None = None,
        vectors: Vectors | None = None,
    ) -> Assessment:
        """Score every window of the best passages, judge answerability, pick the claims."""
        found = found or {}
        options = self.candidates(question, evidence, found, vectors)
        scored = sorted(
            (Scored(window, values, self.selector.score(values)) for window, values in options.windows),
            key=lambda s: -s.score,  # stable for equal scores: evidence order, then reading order
        )
        if not scored:
            stopped = self.rule.stops(options.missing, None)
            return Assessment(options.question, scored, options.missing, None, 0.0, stopped)
        judged, judged_values, judged_score = _judged(options.windows, self.judge)
        values = answerability.features(
            options.question,
            judged_values,
            judged_score,
            judged.first.passage,
            evidence,
            found,
            options.unmatched,
        )
        stopped = self.rule.stops(options.missing, values)
        probability = 0.0 if stopped else self.rule.probability(values)
        return Assessment(options.question, scored, options.missing, values, probability, stopped, self._claims(scored))

    def candidates(
        self,
        question: str,
        evidence: Sequence[Passage],
        found: Mapping[str, Found],
        vectors: Vectors | None = None,
    ) -> Candidates:
        """The question as read, what it names that no passage mentions, and every window with its features.

        Weights play no part here: ``bench/answers.py`` fits them on exactly these features.
        """
        asked = Question.read(question)
        said = "\n".join(_readable_evidence(p, asked) for p in evidence).casefold()
        stems = frozenset(query_terms(said))
        missing = tuple(t for t in asked.distinctive if not mentions(said, t, stems))
        if not asked.asks:
            missing += _only_addressed(asked, evidence, said, stems)
        unmatched = tuple(t for t in asked.asked_rare if not mentions(said, t, stems))
        passages = read_passages(evidence, found)
        per_passage = [units(p) for p in passages]
        every = [u for found_units in per_passage for u in found_units]
        if not every:
            return Candidates(asked, missing, unmatched, [])
        vectors = vectors or Vectors()
        query = self._query(asked.text, vectors)
        cosines = self._cosines(query, per_passage, vectors)
        headings = self._heading_cosines(query, passages)
        weights = term_weights(asked, [frozenset(query_terms(p.index_text)) for p in evidence])
        assert self.embedder is not None
        soft = SoftOverlap.of(self.embedder, asked.text, passages, weights)
        options = []
        for position, (passage, found_units) in enumerate(zip(passages, per_passage, strict=True), start=1):
            hit = found.get(passage.id)
            rank = hit.rank if hit is not None else position
            similar = hit.cosine if hit is not None and hit.cosine is not None else 0.0
            heading = frozenset(query_terms(passage.heading_label))
            titled = headings[passage.heading_label]
            for window in _quotable(windows(found_units), asked):
                values = features(asked, window, cosines, rank, heading, weights, similar, titled, soft)
                options.append((window, values))
        return Candidates(asked, missing, unmatched, options)

    def _query(self, question: str, vectors: Vectors) -> np.ndarray:
        """The question's vector: the search's own when it is given, else embedded here the same way."""
        assert self.embedder is not None
        return vectors.question if vectors.question is not None else self.embedder.embed([question])[0]

    def _heading_cosines(self, query: np.ndarray, passages: Sequence[Passage]) -> dict[str, float]:
        """Each passage's title and heading path's cosine with the question (one batch for the passages read)."""
        assert self.embedder is not None
        labels = list(dict.fromkeys(p.heading_label for p in passages))
        return dict(zip(labels, (float(c) for c in self.embedder.embed(labels) @ query), strict=True))

    def _cosines(self, query: np.ndarray, per_passage: list[list[Unit]], vectors: Vectors) -> dict[Unit, float]:
        """Each unit's cosine with the question; a unit's vector is its tokens read in their passage, plus its
        heading (``units.embed_passages``): the index's stored ones, else computed here, the same way."""
        embedder = self.embedder
        assert embedder is not None
        stored = vectors.units
        todo = [
            found_units[0].passage
            for found_units in per_passage
            if found_units and found_units[0].passage.id not in stored
        ]
        computed = dict(zip((p.id for p in todo), embed_passages(embedder, todo)[1], strict=True)) if todo else {}
        cosines: dict[Unit, float] = {}
        for found_units in per_passage:
            if not found_units:
                continue
            pid = found_units[0].passage.id
            matrix = stored[pid] if pid in stored else computed[pid]
            rows = matrix[[u.span for u in found_units]]
            cosines.update(zip(found_units, (float(c) for c in rows @ query), strict=True))
        return cosines

    def _claims(self, scored: list[Scored]) -> tuple[Claim, ...]:
        """The best window, and a second one that does not overlap it when it scores nearly as well."""
        best = scored[0]
        chosen = [best.window]
        second = next((s for s in scored[1:] if not s.window.overlaps(best.window)), None)
        if (
            second is not None
            and best.score - second.score <= self.second_margin
            and second.window.statement != best.window.statement  # the same words in another version of a page
        ):
            chosen.append(second.window)
        chosen = [_from_item_start(_introduced(_completed(w, scored), scored), scored) for w in chosen]
        return tuple(Claim(statement=_under_heading(w), passage_id=w.passage_id, quote=w.quote) for w in chosen)


def _judged(options: Sequence[tuple[Window, WindowFeatures]], judge: Weights) -> tuple[Window, WindowFeatures, float]:
    """The judge's best window, its features and score: the first of equals in evidence and reading order (as the
    rule was fitted: ``bench/fitting.py``'s ``rule_features``)."""
    scores = [judge.score(values) for _, values in options]
    best = max(range(len(scores)), key=scores.__getitem__)
    window, values = options[best]
    return window, values, scores[best]


def _under_heading(window: Window) -> str:
    """A window reads under its section's heading when the heading is the name of what the section defines
    (``build.chunkSizeWarningLimit``, ``ssr.noExternal``, ``--host``), as a table row reads under its column headers:
    "Type: number. Default: 500. Limit for chunk size warnings (in kB)." says nothing without it, nor does
    "Prevent listed dependencies from being externalized for SSR" after the section's type line, to a person who
    asked which option does it. A heading with a digit is left out: every number a statement shows must be in the
    passage's text."""
    statement = window.statement
    path = window.first.passage.heading_path
    heading = path[-1].strip() if path else ""
    names = " " not in heading and any(c.isalpha() for c in heading) and not heading.endswith(":")
    names = names and (is_strong_identifier(heading) or heading.startswith("-"))
    if not names or any(c.isdigit() for c in heading) or _names(statement, heading):
        return statement
    if any(u.kind == "row" for u in window.units):  # a row reads under its column headers, not the section's
        return statement
    if FENCE.match(statement):  # a code block keeps its fence at the start of a line
        return f"{heading}:\n{statement}"
    return f"{heading}: {statement}"


def _names(statement: str, name: str) -> bool:
    """Whether ``statement`` names ``name`` itself (``--hostname`` does not name ``--host``)."""
    return re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w-])", statement) is not None


def _completed(window: Window, scored: list[Scored]) -> Window:
    """``window``, run on by one unit when it holds no fact of the kind its question asks for (a value, a command,
    a version: ``selector.FIT_OF_WANT``) and the unit after it does: "What versions does ^0.2.3 allow?" is
    answered by the sentence that explains caret requirements together with the table row after it. A fixed
    rule, not fitted; the features of the longer window are the selector's own."""
    values = {s.window: s.values for s in scored}
    if _holds_wanted(values[window]):
        return window
    size = len(window.units)
    for s in scored:
        longer = s.window
        if len(longer.units) == size + 1 and longer.units[:size] == window.units and _holds_wanted(s.values):
            return longer
    return window


def _introduced(window: Window, scored: list[Scored]) -> Window:
    """``window``, run on by the unit after it when its last sentence introduces that unit (it ends in a colon): "Use
    build constraints like so:" says nothing without the command under it (in pip's docs, under a tab's title, so
    the two are no single unit). A fixed rule for the reader, applied to the chosen window only, as
    ``_from_item_start``."""
    last = window.units[-1]
    if not last.statement.rstrip().endswith(":"):
        return window
    after = _read_units(window, scored).get(last.position + 1)
    return Window((*window.units, after)) if after is not None else window


def _from_item_start(window: Window, scored: list[Scored]) -> Window:
    """``window``, begun at its list item's first sentence when it starts on a later one: "Automatically loads
    index.html for directories" does not say which option it describes; "html - Run in HTML mode." does. A fixed
    rule for the reader, applied to the chosen window only: what is chosen and whether to answer are decided
    before it."""
    lead = window.first.item_start
    if lead < 0:
        return window
    read = _read_units(window, scored)
    first = next((u for u in read.values() if u.start == lead), None)
    if first is None:  # the item's first sentence is in no window that reaches here: the window reads as it is
        return window
    positions = range(first.position, window.units[-1].position + 1)
    if any(p not in read for p in positions):
        return window
    return Window(tuple(read[p] for p in positions))


def _read_units(window: Window, scored: list[Scored]) -> dict[int, Unit]:
    """The units of ``window``'s passage that some scored window reads, by position: what a chosen window may be
    run on into or begun from."""
    return {u.position: u for s in scored if s.window.passage_id == window.passage_id for u in s.window.units}


def _holds_wanted(values: WindowFeatures) -> bool:
    return any(values[f] > 0 for f in set(FIT_OF_WANT.values()))


def _quotable(found: list[Window], asked: Question) -> list[Window]:
    """The windows the answerer may claim: one holding a unit that addresses the reader or an assistant ("ignore
    all previous instructions ...") never answers a request that is not a question (it may answer a question
    about it)."""
    return found if asked.asks else [w for w in found if not any(addresses_reader(u.quote) for u in w.units)]


def _only_addressed(asked: Question, evidence: Sequence[Passage], said: str, stems: frozenset[str]) -> tuple[str, ...]:
    """Rare words of a request that the evidence holds only inside text addressing the reader or an assistant: a
    planted instruction's words are no evidence about them, so the request names something nothing else holds."""
    raw = "\n".join(p.index_text for p in evidence).casefold()
    raw_stems = frozenset(query_terms(raw))
    return tuple(t for t in asked.rare if mentions(raw, t, raw_stems) and not mentions(said, t, stems))


def _readable_evidence(passage: Passage, asked: Question) -> str:
    """What a passage says for the missing-name rule: for a request that is not a question, not what it says to
    the reader or an assistant (a planted "search the globex tenant" names no fact about globex)."""
    return passage.index_text if asked.asks else without_address(passage.index_text)


def read_passages(evidence: Sequence[Passage], found: Mapping[str, Found]) -> list[Passage]:
    """The evidence the answerer reads: the best ``MAX_PASSAGES``, then any passage that BM25 or the dense
    ranker alone put first (fusion may place it far lower: a page titled with the question's words)."""
    best = list(evidence[:MAX_PASSAGES])
    firsts = [
        p
        for p in evidence[MAX_PASSAGES:]
        if (hit := found.get(p.id)) is not None and 1 in (hit.bm25_rank, hit.dense_rank)
    ]
    return best + firsts


class _LocalConversation:
    def __init__(self, model: LocalModel, question: str) -> None:
        self.model = model
        self.question = question

    def decide(self, turn: Turn) -> ModelReply:
        source = self.model.vectors
        vectors = Vectors(stored_units(source, turn.evidence, turn.found), question_vector(source, self.question))
        assessment = self.model.assess(self.question, turn.evidence, turn.found, vectors)
        if not assessment.claims or assessment.stopped or assessment.answerable < self.model.rule.threshold:
            return ModelReply(
                AbstainDecision("the evidence does not address the question"), verdict=_verdict(assessment)
            )
        claims = list(assessment.claims)
        # Code found current sources that disagree with what it claimed: state every side, each from its own passage.
        cited = {c.passage_id for c in claims}
        for conflict in turn.conflicts:
            for side in conflict.sides:
                if side.passage_id not in cited:
                    cited.add(side.passage_id)
                    claims.append(Claim(statement=side.statement, passage_id=side.passage_id, quote=side.quote))
        return ModelReply(ClaimsDecision(tuple(claims)), verdict="sufficient")


def _verdict(assessment: Assessment) -> Verdict:
    """The answerability verdict as an evidence grade: ``missing`` when the question names something no evidence
    holds, else ``irrelevant``."""
    return "missing" if assessment.missing else "irrelevant"
