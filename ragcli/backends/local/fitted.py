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
        "cosine": 1.384156,
        "cosine_first": 0.583952,
        "overlap": 0.626739,
        "weighted_overlap": 0.460770,
        "bigrams": 0.312976,
        "heading_overlap": 0.451189,
        "novelty": -0.181017,
        "rank": 0.271574,
        "opens_passage": 0.177639,
        "size": 0.554746,
        "code_fit": 0.960294,
        "number_fit": 0.464100,
        "default_fit": 0.123748,
        "place_fit": 0.014259,
        "name_fit": 0.112828,
        "identifier_fit": 0.126902,
        "carries_block": 0.590029,
        "instructs": 0.163898,
        "passage_cosine": 0.236527,
        "named_fit": 0.511672,
        "novel_name": 0.524668,
        "heading_cosine": -0.848565,
    },
    means={
        "cosine": 0.495885,
        "cosine_first": 0.483108,
        "overlap": 0.309575,
        "weighted_overlap": 0.154674,
        "bigrams": 0.059055,
        "heading_overlap": 0.160201,
        "novelty": 2.589921,
        "rank": 0.451875,
        "opens_passage": 0.311057,
        "size": 0.798155,
        "code_fit": 0.322599,
        "number_fit": 0.015976,
        "default_fit": 0.032557,
        "place_fit": 0.049793,
        "name_fit": 0.067231,
        "identifier_fit": 0.063485,
        "carries_block": 0.349511,
        "instructs": 0.155277,
        "passage_cosine": 0.508851,
        "named_fit": 0.553681,
        "novel_name": 0.851861,
        "heading_cosine": 0.359138,
    },
    scales={
        "cosine": 0.147049,
        "cosine_first": 0.148661,
        "overlap": 0.225676,
        "weighted_overlap": 0.198702,
        "bigrams": 0.126756,
        "heading_overlap": 0.168047,
        "novelty": 0.586893,
        "rank": 0.296700,
        "opens_passage": 0.462926,
        "size": 0.794365,
        "code_fit": 0.467471,
        "number_fit": 0.125383,
        "default_fit": 0.177475,
        "place_fit": 0.217518,
        "name_fit": 0.250422,
        "identifier_fit": 0.238545,
        "carries_block": 0.476816,
        "instructs": 0.362168,
        "passage_cosine": 0.167963,
        "named_fit": 0.451180,
        "novel_name": 0.630515,
        "heading_cosine": 0.201177,
    },
)
"""The window score: a conditional logit over each question's windows (``selector``)."""

ANSWERABILITY = Rule(
    coefficients={
        "best": 0.000000,
        "cosine": 0.429290,
        "overlap": 0.000000,
        "coverage": 0.000000,
        "fit": 0.026231,
        "named": 0.196920,
        "retrieval": 0.000000,
        "focus": 0.562705,
        "asked_for": 0.346750,
        "unmatched": -0.530442,
    },
    intercept=2.391290,
    means={
        "best": 5.892461,
        "cosine": 0.594162,
        "overlap": 0.590606,
        "coverage": 0.624241,
        "fit": 0.958707,
        "named": 0.857870,
        "retrieval": 0.603956,
        "focus": 0.402183,
        "asked_for": 0.989258,
        "unmatched": 0.048474,
    },
    scales={
        "best": 3.025171,
        "cosine": 0.126584,
        "overlap": 0.233485,
        "coverage": 0.230460,
        "fit": 0.198966,
        "named": 0.290388,
        "retrieval": 0.124027,
        "focus": 0.300664,
        "asked_for": 0.068357,
        "unmatched": 0.222968,
    },
    threshold=0.6706,
)
"""P(answerable): a logistic model (each coefficient of its feature's sign) and the threshold (``answerability``)."""
