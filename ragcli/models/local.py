"""The embedded extractive answerer: deterministic, offline, never invents text.

It cuts the evidence into units (sentences of prose, list items, table rows;
a sentence that introduces a code block carries the block, see
``evidence``), scores each against the question with the same ONNX embedder
plus lexical overlap, judges from the best unit whether the evidence
addresses the question at all (``answerability``), and if it does submits
the best unit (read on to the block its paragraph leads to) and up to two
nearly as good as claims whose quote is the unit's own text. Its claims pass
the citation checks by construction, and still go through them.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..answer.protocol import AbstainDecision, Claim, ClaimsDecision, ModelReply, Turn, Usage, Verdict
from ..embedder import Embedder
from ..passage import Passage
from ..text import query_terms
from . import answerability
from .evidence import Unit, units

MARGIN = 0.06
"""Further units are claimed only when this close to the best one."""
MAX_CLAIMS = 3
FOLLOW_UNITS = 2
"""How far past the best sentence the answer may read, in its own paragraph, to reach the block it leads to."""
MAX_PASSAGES = 8
LEXICAL_WEIGHT = 0.35
SCORED_CHARS = 600
"""Of a long unit (a sentence with its code block) the model reads this much: the rest adds noise, not meaning."""


@dataclass(frozen=True)
class Scored:
    score: float
    cosine: float
    overlap: float
    unit: Unit


@dataclass(frozen=True)
class Assessment:
    """What the answerer makes of a question and its evidence, before it decides."""

    scored: list[Scored]
    """Every unit, best first."""
    features: dict[str, float] | None
    """The answerability features (None when the evidence has no unit at all)."""
    answerable: float
    """P(answerable) from ``answerability``; 0 without units."""
    claims: tuple[Claim, ...]
    """What it would claim if it answers."""


@dataclass
class LocalModel:
    embedder: Embedder | None = None
    threshold: float = answerability.THRESHOLD
    """Abstain when P(answerable) is under this."""
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

    def assess(self, question: str, evidence: tuple[Passage, ...]) -> Assessment:
        """Score every unit of ``evidence`` against ``question``, judge answerability, pick the claims."""
        scored = self._score(question, evidence[:MAX_PASSAGES])
        if not scored:
            return Assessment(scored, None, 0.0, ())
        top = scored[0]
        runner_up = next((s.score for s in scored if s.unit.passage.id != top.unit.passage.id), 0.0)
        best = answerability.Best(top.score, top.cosine, top.overlap, top.unit.passage, runner_up)
        values = answerability.features(question, best, evidence[:MAX_PASSAGES])
        return Assessment(scored, values, answerability.probability(values), self._claims(scored))

    @staticmethod
    def _claims(scored: list[Scored]) -> tuple[Claim, ...]:
        """The best unit (and the block its paragraph leads to), then units nearly as good; each statement once."""
        best = scored[0].score
        chosen = [scored[0].unit, *_leads_to(scored[0].unit, [s.unit for s in scored])]
        chosen += [item.unit for item in scored[1:] if item.score >= best - MARGIN]
        claims: list[Claim] = []
        said: set[str] = set()
        for unit in chosen:
            if len(claims) == MAX_CLAIMS:
                break
            if unit.statement in said:  # the same words in another passage (another version of a page)
                continue
            said.add(unit.statement)
            claims.append(Claim(statement=unit.statement, passage_id=unit.passage.id, quote=unit.quote))
        return tuple(claims)

    def _score(self, question: str, passages: tuple[Passage, ...]) -> list[Scored]:
        """Every unit of the evidence, best first: 0.65 x cosine + 0.35 x share of question terms it covers."""
        found = [u for p in passages for u in units(p)]
        if not found:
            return []
        embedder = self.embedder
        assert embedder is not None
        texts = [f"{u.passage.heading_label}: {u.statement[:SCORED_CHARS]}" for u in found]
        vectors = embedder.embed([question, *texts])
        cosines = vectors[1:] @ vectors[0]
        q_terms = set(query_terms(question))
        scored = []
        for unit, text, cosine in zip(found, texts, cosines, strict=True):
            overlap = len(q_terms & set(query_terms(text))) / len(q_terms) if q_terms else 0.0
            score = (1 - LEXICAL_WEIGHT) * float(cosine) + LEXICAL_WEIGHT * overlap
            scored.append(Scored(score, float(cosine), overlap, unit))
        # Stable order for equal scores: evidence order, then reading order.
        return sorted(scored, key=lambda item: -item.score)


def _leads_to(unit: Unit, found: list[Unit]) -> list[Unit]:
    """The sentences after ``unit`` in its paragraph, through the block they introduce (at most FOLLOW_UNITS).

    A paragraph often states a problem, then its fix: "Some indexes forward
    unauthenticated requests ... This can be changed per index. For example,
    to always search for credentials:" and the setting. The sentence closest to
    the question is the problem; the answer is where the paragraph leads.
    Nothing is added when the paragraph introduces no block.
    """
    if unit.kind != "sentence":
        return []
    same = sorted(
        (u for u in found if u.passage.id == unit.passage.id and u.block == unit.block),
        key=lambda u: unit.passage.text.find(u.quote),
    )
    after = same[same.index(unit) + 1 :][:FOLLOW_UNITS] if unit in same else []
    ends = [i for i, u in enumerate(after) if u.kind == "introduced"]
    return after[: ends[0] + 1] if ends else []


class _LocalConversation:
    def __init__(self, model: LocalModel, question: str) -> None:
        self.model = model
        self.question = question

    def decide(self, turn: Turn) -> ModelReply:
        assessment = self.model.assess(self.question, turn.evidence)
        if not assessment.claims or assessment.answerable < self.model.threshold:
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
    holds (a term in no passage, an identifier or number its best passage lacks), else ``irrelevant``."""
    values = assessment.features or {}
    return "missing" if values.get("missing_any", 0) > 0 or values.get("ident_miss", 0) > 0 else "irrelevant"
