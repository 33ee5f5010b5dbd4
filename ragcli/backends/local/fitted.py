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
        "cosine": 1.643630,
        "cosine_first": 0.344697,
        "overlap": 0.592003,
        "weighted_overlap": 0.469016,
        "bigrams": 0.236509,
        "heading_overlap": 0.460037,
        "novelty": -0.179325,
        "rank": 0.302164,
        "opens_passage": 0.158575,
        "size": 0.516952,
        "code_fit": 0.779120,
        "number_fit": 0.549984,
        "default_fit": 0.235353,
        "place_fit": 0.064279,
        "name_fit": 0.142168,
        "identifier_fit": 0.084890,
        "carries_block": 0.581663,
        "instructs": 0.079548,
        "passage_cosine": 0.163112,
        "named_fit": 0.519201,
        "novel_name": 0.552972,
        "heading_cosine": -0.796629,
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
        "cosine": 0.489935,
        "overlap": 0.000000,
        "coverage": 0.000000,
        "fit": 0.000000,
        "named": 0.177082,
        "retrieval": 0.000000,
        "focus": 0.511228,
        "asked_for": 0.364706,
        "unmatched": -0.565029,
    },
    intercept=2.396495,
    means={
        "best": 5.823952,
        "cosine": 0.594512,
        "overlap": 0.589825,
        "coverage": 0.624936,
        "fit": 0.955117,
        "named": 0.855775,
        "retrieval": 0.603307,
        "focus": 0.403951,
        "asked_for": 0.989258,
        "unmatched": 0.046679,
    },
    scales={
        "best": 2.940314,
        "cosine": 0.128002,
        "overlap": 0.231691,
        "coverage": 0.229495,
        "fit": 0.207048,
        "named": 0.296588,
        "retrieval": 0.123229,
        "focus": 0.298907,
        "asked_for": 0.068357,
        "unmatched": 0.219295,
    },
    threshold=0.6874,
)
"""P(answerable): a logistic model (each coefficient of its feature's sign) and the threshold (``answerability``)."""
