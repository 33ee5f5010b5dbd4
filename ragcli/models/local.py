"""The embedded extractive answerer: deterministic, offline, never invents text.

It splits the evidence into sentences (and list items and table rows), scores
each against the question with the same ONNX embedder plus lexical overlap,
and submits the best one to three sentences above a floor as claims whose
quote is the sentence itself. Its claims pass the citation checks by
construction, and still go through them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..answer.citations import MIN_QUOTE_WORDS
from ..answer.protocol import AbstainDecision, Claim, ClaimsDecision, ModelReply, Turn, Usage
from ..embedder import Embedder
from ..passage import Passage
from ..text import query_terms, split_sentences

ANSWER_FLOOR = 0.45
"""Blended score under which no sentence is taken as an answer (tuned on sample_corpus/questions.jsonl)."""
MARGIN = 0.06
"""Further sentences are claimed only when this close to the best one."""
MAX_CLAIMS = 3
MAX_PASSAGES = 8
LEXICAL_WEIGHT = 0.35

_LINE_MARKER = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")


def candidate_sentences(passage: Passage) -> list[str]:
    """Sentences of prose, one per list item or table row; each is a substring of the passage."""
    out: list[str] = []
    for line in passage.text.split("\n"):
        stripped = line.strip()
        if not stripped or set(stripped) <= set("|-: "):
            continue
        if stripped.startswith("|"):
            out.append(stripped)
            continue
        stripped = _LINE_MARKER.sub("", stripped)
        out.extend(split_sentences(stripped))
    return [s for s in out if len(s.split()) >= MIN_QUOTE_WORDS]


@dataclass
class LocalModel:
    embedder: Embedder | None = None
    floor: float = ANSWER_FLOOR
    name: str = "local"
    retry_on_empty: bool = False

    def __post_init__(self) -> None:
        if self.embedder is None:
            self.embedder = Embedder()

    def conversation(self, question: str) -> _LocalConversation:
        return _LocalConversation(self, question)

    def cost_usd(self, usage: Usage) -> float | None:
        return None  # no price: it runs here


class _LocalConversation:
    def __init__(self, model: LocalModel, question: str) -> None:
        self.model = model
        self.question = question

    def decide(self, turn: Turn) -> ModelReply:
        scored = self._score(turn.evidence[:MAX_PASSAGES])
        if not scored or scored[0][0] < self.model.floor:
            return ModelReply(AbstainDecision("no sentence in the evidence answers the question"))
        best = scored[0][0]
        claims: list[Claim] = []
        for score, passage, sentence in scored:
            if len(claims) == MAX_CLAIMS or score < max(self.model.floor, best - MARGIN):
                break
            claims.append(Claim(statement=sentence.strip("| "), passage_id=passage.id, quote=sentence))
        return ModelReply(ClaimsDecision(tuple(claims)))

    def _score(self, passages: tuple[Passage, ...]) -> list[tuple[float, Passage, str]]:
        pairs = [(p, s) for p in passages for s in candidate_sentences(p)]
        if not pairs:
            return []
        embedder = self.model.embedder
        assert embedder is not None
        vectors = embedder.embed([self.question] + [f"{p.heading_label}: {s}" for p, s in pairs])
        cosines = vectors[1:] @ vectors[0]
        q_terms = set(query_terms(self.question))
        scored = []
        for (passage, sentence), cosine in zip(pairs, cosines):
            overlap = len(q_terms & set(query_terms(f"{passage.heading_label} {sentence}"))) / len(q_terms) if q_terms else 0.0
            score = (1 - LEXICAL_WEIGHT) * float(cosine) + LEXICAL_WEIGHT * overlap
            scored.append((score, passage, sentence))
        # Stable order for equal scores: evidence order, then sentence order.
        return sorted(scored, key=lambda item: -item[0])
