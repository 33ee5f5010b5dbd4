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
        "cosine": 1.643600,
        "cosine_first": 0.344683,
        "overlap": 0.592025,
        "weighted_overlap": 0.469006,
        "bigrams": 0.236505,
        "heading_overlap": 0.460037,
        "novelty": -0.179332,
        "rank": 0.302153,
        "opens_passage": 0.158565,
        "size": 0.516938,
        "code_fit": 0.779126,
        "number_fit": 0.549982,
        "default_fit": 0.235353,
        "place_fit": 0.064284,
        "name_fit": 0.142170,
        "identifier_fit": 0.084894,
        "carries_block": 0.581655,
        "instructs": 0.079553,
        "passage_cosine": 0.163136,
        "named_fit": 0.519201,
        "novel_name": 0.552959,
        "heading_cosine": -0.796612,
    },
    means={
        "cosine": 0.496554,
        "cosine_first": 0.483022,
        "overlap": 0.305364,
        "weighted_overlap": 0.150953,
        "bigrams": 0.058148,
        "heading_overlap": 0.163343,
        "novelty": 2.558047,
        "rank": 0.451495,
        "opens_passage": 0.297078,
        "size": 0.746178,
        "code_fit": 0.324269,
        "number_fit": 0.015096,
        "default_fit": 0.030530,
        "place_fit": 0.048481,
        "name_fit": 0.068512,
        "identifier_fit": 0.061722,
        "carries_block": 0.345607,
        "instructs": 0.155990,
        "passage_cosine": 0.509187,
        "named_fit": 0.551616,
        "novel_name": 0.843304,
        "heading_cosine": 0.362118,
    },
    scales={
        "cosine": 0.146104,
        "cosine_first": 0.147862,
        "overlap": 0.226101,
        "weighted_overlap": 0.197167,
        "bigrams": 0.126356,
        "heading_overlap": 0.171074,
        "novelty": 0.597670,
        "rank": 0.295918,
        "opens_passage": 0.456971,
        "size": 0.780683,
        "code_fit": 0.468101,
        "number_fit": 0.121934,
        "default_fit": 0.172041,
        "place_fit": 0.214780,
        "name_fit": 0.252622,
        "identifier_fit": 0.235410,
        "carries_block": 0.475566,
        "instructs": 0.362846,
        "passage_cosine": 0.166250,
        "named_fit": 0.452216,
        "novel_name": 0.622469,
        "heading_cosine": 0.201687,
    },
)
"""The window score: a conditional logit over each question's windows (``selector``)."""

ANSWERABILITY = Rule(
    coefficients={
        "best": 0.000000,
        "cosine": 0.489699,
        "overlap": 0.000000,
        "coverage": 0.000000,
        "fit": 0.000000,
        "named": 0.145806,
        "retrieval": 0.000000,
        "focus": 0.432939,
        "asked_for": 0.379638,
        "unmatched": -0.631098,
    },
    intercept=2.446938,
    means={
        "best": 5.844012,
        "cosine": 0.594829,
        "overlap": 0.592584,
        "coverage": 0.627754,
        "fit": 0.954710,
        "named": 0.857790,
        "retrieval": 0.603957,
        "focus": 0.406875,
        "asked_for": 0.989161,
        "unmatched": 0.045290,
    },
    scales={
        "best": 2.941489,
        "cosine": 0.128122,
        "overlap": 0.230729,
        "coverage": 0.228520,
        "fit": 0.207939,
        "named": 0.295061,
        "retrieval": 0.123283,
        "focus": 0.298660,
        "asked_for": 0.068658,
        "unmatched": 0.216476,
    },
    threshold=0.7240,
    yes_no_floor=0.10879557291973159,
)
"""P(answerable): a logistic model (each coefficient of its feature's sign), its threshold and the yes/no floor
(``answerability``)."""
