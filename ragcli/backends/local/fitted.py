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
        "cosine": 1.526619,
        "cosine_first": 0.457826,
        "overlap": 0.627936,
        "weighted_overlap": 0.440237,
        "bigrams": 0.261139,
        "heading_overlap": 0.449573,
        "novelty": -0.183677,
        "rank": 0.283679,
        "opens_passage": 0.166044,
        "size": 0.544297,
        "code_fit": 0.794452,
        "number_fit": 0.459057,
        "default_fit": 0.162000,
        "place_fit": 0.025861,
        "name_fit": 0.087029,
        "identifier_fit": 0.118154,
        "carries_block": 0.534203,
        "instructs": 0.133650,
        "passage_cosine": 0.152163,
        "named_fit": 0.486383,
        "novel_name": 0.563368,
        "heading_cosine": -0.774757,
    },
    means={
        "cosine": 0.494071,
        "cosine_first": 0.480386,
        "overlap": 0.302603,
        "weighted_overlap": 0.150550,
        "bigrams": 0.057514,
        "heading_overlap": 0.160900,
        "novelty": 2.557467,
        "rank": 0.450196,
        "opens_passage": 0.293227,
        "size": 0.745883,
        "code_fit": 0.324173,
        "number_fit": 0.015046,
        "default_fit": 0.031183,
        "place_fit": 0.048412,
        "name_fit": 0.064265,
        "identifier_fit": 0.062398,
        "carries_block": 0.340785,
        "instructs": 0.148987,
        "passage_cosine": 0.506805,
        "named_fit": 0.548294,
        "novel_name": 0.840448,
        "heading_cosine": 0.358835,
    },
    scales={
        "cosine": 0.146982,
        "cosine_first": 0.148740,
        "overlap": 0.225615,
        "weighted_overlap": 0.196879,
        "bigrams": 0.125629,
        "heading_overlap": 0.169916,
        "novelty": 0.598529,
        "rank": 0.295320,
        "opens_passage": 0.455242,
        "size": 0.780337,
        "code_fit": 0.468065,
        "number_fit": 0.121735,
        "default_fit": 0.173813,
        "place_fit": 0.214636,
        "name_fit": 0.245224,
        "identifier_fit": 0.236765,
        "carries_block": 0.473973,
        "instructs": 0.356075,
        "passage_cosine": 0.167678,
        "named_fit": 0.452817,
        "novel_name": 0.620876,
        "heading_cosine": 0.201824,
    },
)
"""The window score: a conditional logit over each question's windows (``selector``)."""

ANSWERABILITY = Rule(
    coefficients={
        "best": 0.000000,
        "cosine": 0.436071,
        "overlap": 0.000000,
        "coverage": 0.000000,
        "fit": 0.021316,
        "named": 0.102172,
        "retrieval": 0.000000,
        "focus": 0.581201,
        "asked_for": 0.362449,
        "unmatched": -0.566019,
    },
    intercept=2.384963,
    means={
        "best": 5.862390,
        "cosine": 0.594518,
        "overlap": 0.590115,
        "coverage": 0.624611,
        "fit": 0.956912,
        "named": 0.857720,
        "retrieval": 0.604050,
        "focus": 0.403009,
        "asked_for": 0.989258,
        "unmatched": 0.048474,
    },
    scales={
        "best": 2.919468,
        "cosine": 0.126256,
        "overlap": 0.231825,
        "coverage": 0.230287,
        "fit": 0.203055,
        "named": 0.292518,
        "retrieval": 0.124073,
        "focus": 0.300503,
        "asked_for": 0.068357,
        "unmatched": 0.222968,
    },
    threshold=0.7054,
)
"""P(answerable): a logistic model (each coefficient of its feature's sign) and the threshold (``answerability``)."""
