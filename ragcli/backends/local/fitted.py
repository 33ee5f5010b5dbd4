"""The local answerer's fitted numbers. Written by bench/answers.py; do not edit by hand.

Fitted on the 15 development corpora with:

    python bench/answers.py --index DIR --write

uv-docs, material, docsy, prettier, myst, rustup, lazygit, nox, mkdocstrings-python, jekyll, black,
pdm, requests, starlette, attrs

Reported only on corpora left out of the fit (see bench/answers.py and docs/defaults.md).
"""

from __future__ import annotations

from .answerability import Rule
from .selector import Weights

SELECTOR = Weights(
    weights={
        "cosine": 1.654965,
        "cosine_first": 0.349786,
        "overlap": 0.601813,
        "weighted_overlap": 0.454873,
        "bigrams": 0.235910,
        "heading_overlap": 0.462837,
        "novelty": -0.178683,
        "rank": 0.305458,
        "opens_passage": 0.160658,
        "size": 0.526002,
        "code_fit": 0.780092,
        "number_fit": 0.550051,
        "default_fit": 0.235239,
        "place_fit": 0.065759,
        "name_fit": 0.138180,
        "identifier_fit": 0.084002,
        "carries_block": 0.577213,
        "instructs": 0.092597,
        "passage_cosine": 0.151932,
        "named_fit": 0.515278,
        "novel_name": 0.548849,
        "heading_cosine": -0.800189,
    },
    means={
        "cosine": 0.496484,
        "cosine_first": 0.482947,
        "overlap": 0.305387,
        "weighted_overlap": 0.151025,
        "bigrams": 0.058097,
        "heading_overlap": 0.163400,
        "novelty": 2.558434,
        "rank": 0.451464,
        "opens_passage": 0.297197,
        "size": 0.745288,
        "code_fit": 0.324311,
        "number_fit": 0.015080,
        "default_fit": 0.030739,
        "place_fit": 0.048381,
        "name_fit": 0.068294,
        "identifier_fit": 0.061753,
        "carries_block": 0.346448,
        "instructs": 0.150411,
        "passage_cosine": 0.509128,
        "named_fit": 0.552117,
        "novel_name": 0.843082,
        "heading_cosine": 0.362070,
    },
    scales={
        "cosine": 0.146050,
        "cosine_first": 0.147808,
        "overlap": 0.226057,
        "weighted_overlap": 0.197209,
        "bigrams": 0.126303,
        "heading_overlap": 0.171082,
        "novelty": 0.597529,
        "rank": 0.295956,
        "opens_passage": 0.457024,
        "size": 0.780553,
        "code_fit": 0.468117,
        "number_fit": 0.121870,
        "default_fit": 0.172611,
        "place_fit": 0.214570,
        "name_fit": 0.252249,
        "identifier_fit": 0.235473,
        "carries_block": 0.475838,
        "instructs": 0.357474,
        "passage_cosine": 0.166189,
        "named_fit": 0.452168,
        "novel_name": 0.622287,
        "heading_cosine": 0.201661,
    },
)
"""The window score: a conditional logit over each question's windows (``selector``)."""

ANSWERABILITY = Rule(
    coefficients={
        "best": 0.000000,
        "cosine": 0.472318,
        "overlap": 0.000000,
        "coverage": 0.000000,
        "fit": 0.000000,
        "named": 0.113346,
        "retrieval": 0.000000,
        "focus": 0.614297,
        "asked_for": 0.366853,
        "unmatched": -0.579330,
    },
    intercept=2.420089,
    means={
        "best": 5.834736,
        "cosine": 0.594832,
        "overlap": 0.588887,
        "coverage": 0.624297,
        "fit": 0.955117,
        "named": 0.857570,
        "retrieval": 0.603363,
        "focus": 0.402439,
        "asked_for": 0.989258,
        "unmatched": 0.046679,
    },
    scales={
        "best": 2.942650,
        "cosine": 0.127782,
        "overlap": 0.232212,
        "coverage": 0.230112,
        "fit": 0.207048,
        "named": 0.294421,
        "retrieval": 0.123120,
        "focus": 0.299657,
        "asked_for": 0.068357,
        "unmatched": 0.219295,
    },
    threshold=0.6861,
)
"""P(answerable): a logistic model (each coefficient of its feature's sign) and the threshold (``answerability``)."""
