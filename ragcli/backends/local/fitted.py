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
        "cosine": 1.398838,
        "cosine_first": 0.394685,
        "overlap": 0.646402,
        "weighted_overlap": 0.544398,
        "bigrams": 0.270678,
        "heading_overlap": 0.446355,
        "novelty": -0.171150,
        "rank": 0.179935,
        "opens_passage": 0.122842,
        "size": 0.544850,
        "code_fit": 0.658925,
        "number_fit": 0.476712,
        "default_fit": 0.166530,
        "place_fit": 0.057286,
        "name_fit": 0.001935,
        "identifier_fit": 0.192830,
        "carries_block": 0.558183,
        "instructs": 0.142464,
        "passage_cosine": 0.555971,
        "named_fit": 0.507214,
        "novel_name": 0.581149,
        "heading_cosine": -0.746075,
    },
    means={
        "cosine": 0.497063,
        "cosine_first": 0.484268,
        "overlap": 0.303959,
        "weighted_overlap": 0.151358,
        "bigrams": 0.057855,
        "heading_overlap": 0.158151,
        "novelty": 2.605167,
        "rank": 0.452990,
        "opens_passage": 0.308206,
        "size": 0.799462,
        "code_fit": 0.298789,
        "number_fit": 0.015495,
        "default_fit": 0.032684,
        "place_fit": 0.050272,
        "name_fit": 0.067809,
        "identifier_fit": 0.061664,
        "carries_block": 0.348214,
        "instructs": 0.156494,
        "passage_cosine": 0.509443,
        "named_fit": 0.551241,
        "novel_name": 0.824096,
        "heading_cosine": 0.362209,
    },
    scales={
        "cosine": 0.147200,
        "cosine_first": 0.148865,
        "overlap": 0.224520,
        "weighted_overlap": 0.197202,
        "bigrams": 0.125698,
        "heading_overlap": 0.165165,
        "novelty": 0.589223,
        "rank": 0.298039,
        "opens_passage": 0.461752,
        "size": 0.794387,
        "code_fit": 0.457727,
        "number_fit": 0.123511,
        "default_fit": 0.177808,
        "place_fit": 0.218505,
        "name_fit": 0.251418,
        "identifier_fit": 0.235668,
        "carries_block": 0.476404,
        "instructs": 0.363323,
        "passage_cosine": 0.167478,
        "named_fit": 0.451218,
        "novel_name": 0.627037,
        "heading_cosine": 0.202456,
    },
)
"""The window score: a conditional logit over each question's windows (``selector``)."""

ANSWERABILITY = Rule(
    coefficients={
        "best": 0.000000,
        "cosine": 0.417481,
        "overlap": 0.000000,
        "coverage": 0.000000,
        "fit": 0.002876,
        "named": 0.196682,
        "retrieval": 0.000000,
        "focus": 0.485502,
        "asked_for": 0.346742,
        "unmatched": -0.548173,
    },
    intercept=2.352150,
    means={
        "best": 5.880147,
        "cosine": 0.591949,
        "overlap": 0.585755,
        "coverage": 0.620392,
        "fit": 0.953237,
        "named": 0.864658,
        "retrieval": 0.603005,
        "focus": 0.399913,
        "asked_for": 0.989239,
        "unmatched": 0.048561,
    },
    scales={
        "best": 3.163554,
        "cosine": 0.129696,
        "overlap": 0.229836,
        "coverage": 0.227593,
        "fit": 0.211130,
        "named": 0.285462,
        "retrieval": 0.124721,
        "focus": 0.296033,
        "asked_for": 0.068417,
        "unmatched": 0.223159,
    },
    threshold=0.6627,
)
"""P(answerable): a logistic model (each coefficient of its feature's sign) and the threshold (``answerability``)."""
