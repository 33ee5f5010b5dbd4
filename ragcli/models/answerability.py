"""Does the evidence address the question? The local answerer's abstention rule, fitted, not hand-tuned.

An extractive answerer always finds a "best" sentence; the question is whether
it answers. The signals are about coverage and support:

    score        the best unit's blended score (0.65 cosine + 0.35 term overlap)
    cosine       its cosine with the question
    overlap      share of the question's terms the unit itself covers
    margin       how far it leads the best unit of any other passage
    passage_cov  share of the question's terms its passage covers (title and headings included)
    missing_any  question terms found in no evidence passage at all (a swapped name, a word the docs never use)
    ident_miss   the question names an identifier or number its passage does not contain

A logistic regression over these gives the probability that the question is
answerable from the evidence; the answerer abstains under ``THRESHOLD``. The
coefficients below were fitted by ``bench/answerability.py`` on SQuAD 2.0 dev
questions of half the articles and half of ``bench/questions/uv-docs.jsonl``
(equal weight: SQuAD alone teaches a documentation corpus the wrong lesson, see
that script), and are reported there on the other SQuAD articles, the other uv
questions and ``sample_corpus/questions.jsonl``, none of which they saw.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ..answer.citations import coded_tokens, numbers_in
from ..passage import Passage
from ..text import query_terms

FEATURES = ("score", "cosine", "overlap", "margin", "passage_cov", "missing_any", "ident_miss")

# Fitted by: python bench/answerability.py --index /tmp/bench-index --squad 600 --fit
# (600 SQuAD questions of the even articles and half of bench/questions/uv-docs.jsonl, equal weight;
# the threshold keeps answer accuracy within 0.01 of the old floor's on both).
COEFFICIENTS: dict[str, float] = {
    "score": 0.596095,
    "cosine": 0.741271,
    "overlap": 0.184652,
    "margin": -0.647881,
    "passage_cov": -0.077096,
    "missing_any": 0.110060,
    "ident_miss": -0.123822,
}
INTERCEPT = 0.494738
MEANS: dict[str, float] = {
    "score": 0.638990,
    "cosine": 0.629063,
    "overlap": 0.657425,
    "margin": 0.142228,
    "passage_cov": 0.726854,
    "missing_any": 0.738924,
    "ident_miss": 0.028481,
}
SCALES: dict[str, float] = {
    "score": 0.129057,
    "cosine": 0.131218,
    "overlap": 0.212073,
    "margin": 0.113602,
    "passage_cov": 0.207570,
    "missing_any": 0.985594,
    "ident_miss": 0.166343,
}
THRESHOLD = 0.22
"""Abstain under this P(answerable)."""


@dataclass(frozen=True)
class Best:
    """The best unit's numbers, as the answerer scored it."""

    score: float
    cosine: float
    overlap: float
    passage: Passage
    runner_up: float
    """Best score of a unit from another passage (0 when there is none)."""


def features(question: str, best: Best, evidence: Sequence[Passage]) -> dict[str, float]:
    """The answerability features of one question (see the module docstring)."""
    terms = set(query_terms(question))
    own = set(query_terms(best.passage.index_text))
    seen = set().union(*(query_terms(p.index_text) for p in evidence)) if evidence else set()
    wanted = coded_tokens(question) | {f"{n.value:f}" for n in numbers_in(question)}
    has = coded_tokens(best.passage.text) | {f"{n.value:f}" for n in numbers_in(best.passage.text)}
    return {
        "score": best.score,
        "cosine": best.cosine,
        "overlap": best.overlap,
        "margin": best.score - best.runner_up,
        "passage_cov": len(terms & own) / len(terms) if terms else 1.0,
        "missing_any": float(len(terms - seen)),
        "ident_miss": 1.0 if wanted - has else 0.0,
    }


def probability(values: dict[str, float]) -> float:
    """P(answerable | features) from the fitted logistic regression."""
    z = INTERCEPT + sum(COEFFICIENTS[n] * (values[n] - MEANS[n]) / SCALES[n] for n in FEATURES)
    return 1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, z))))
