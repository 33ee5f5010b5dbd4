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
        "cosine": 1.652623,
        "cosine_first": 0.335557,
        "overlap": 0.593340,
        "weighted_overlap": 0.467640,
        "bigrams": 0.236933,
        "heading_overlap": 0.460548,
        "novelty": -0.178982,
        "rank": 0.302847,
        "opens_passage": 0.159543,
        "size": 0.514412,
        "code_fit": 0.779779,
        "number_fit": 0.550036,
        "default_fit": 0.235127,
        "place_fit": 0.066523,
        "name_fit": 0.136413,
        "identifier_fit": 0.083472,
        "carries_block": 0.577033,
        "instructs": 0.093820,
        "passage_cosine": 0.159358,
        "named_fit": 0.517870,
        "novel_name": 0.552586,
        "heading_cosine": -0.794260,
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
        "instructs": 0.150571,
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
        "instructs": 0.357630,
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
        "cosine": 0.492813,
        "overlap": 0.000000,
        "coverage": 0.000000,
        "fit": 0.000000,
        "named": 0.176536,
        "retrieval": 0.000000,
        "focus": 0.511091,
        "asked_for": 0.364913,
        "unmatched": -0.565040,
    },
    intercept=2.397303,
    means={
        "best": 5.824927,
        "cosine": 0.594591,
        "overlap": 0.589226,
        "coverage": 0.624696,
        "fit": 0.955117,
        "named": 0.855775,
        "retrieval": 0.603307,
        "focus": 0.403560,
        "asked_for": 0.989258,
        "unmatched": 0.046679,
    },
    scales={
        "best": 2.942329,
        "cosine": 0.127834,
        "overlap": 0.232094,
        "coverage": 0.229799,
        "fit": 0.207048,
        "named": 0.296588,
        "retrieval": 0.123229,
        "focus": 0.298798,
        "asked_for": 0.068357,
        "unmatched": 0.219295,
    },
    threshold=0.6867,
)
"""P(answerable): a logistic model (each coefficient of its feature's sign) and the threshold (``answerability``)."""
