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
        "cosine": 1.612136,
        "cosine_first": 0.389387,
        "overlap": 0.578493,
        "weighted_overlap": 0.451278,
        "bigrams": 0.248432,
        "heading_overlap": 0.460027,
        "novelty": -0.190951,
        "rank": 0.313240,
        "opens_passage": 0.165807,
        "size": 0.545929,
        "code_fit": 0.777089,
        "number_fit": 0.550238,
        "default_fit": 0.236096,
        "place_fit": 0.071893,
        "name_fit": 0.128197,
        "identifier_fit": 0.081071,
        "carries_block": 0.561709,
        "instructs": 0.108124,
        "passage_cosine": 0.134569,
        "named_fit": 0.510632,
        "novel_name": 0.558514,
        "heading_cosine": -0.798307,
    },
    means={
        "cosine": 0.496518,
        "cosine_first": 0.482957,
        "overlap": 0.305160,
        "weighted_overlap": 0.150793,
        "bigrams": 0.057935,
        "heading_overlap": 0.163316,
        "novelty": 2.557952,
        "rank": 0.451347,
        "opens_passage": 0.297432,
        "size": 0.744692,
        "code_fit": 0.324128,
        "number_fit": 0.014993,
        "default_fit": 0.030710,
        "place_fit": 0.048315,
        "name_fit": 0.068095,
        "identifier_fit": 0.061671,
        "carries_block": 0.343377,
        "instructs": 0.150264,
        "passage_cosine": 0.509185,
        "named_fit": 0.551793,
        "novel_name": 0.842092,
        "heading_cosine": 0.362116,
    },
    scales={
        "cosine": 0.145998,
        "cosine_first": 0.147758,
        "overlap": 0.226035,
        "weighted_overlap": 0.196893,
        "bigrams": 0.126183,
        "heading_overlap": 0.171008,
        "novelty": 0.597942,
        "rank": 0.295738,
        "opens_passage": 0.457128,
        "size": 0.780228,
        "code_fit": 0.468048,
        "number_fit": 0.121523,
        "default_fit": 0.172532,
        "place_fit": 0.214430,
        "name_fit": 0.251909,
        "identifier_fit": 0.235291,
        "carries_block": 0.474836,
        "instructs": 0.357330,
        "passage_cosine": 0.166051,
        "named_fit": 0.452247,
        "novel_name": 0.622119,
        "heading_cosine": 0.201674,
    },
)
"""The window score: a conditional logit over each question's windows (``selector``)."""

ANSWERABILITY = Rule(
    coefficients={
        "best": 0.000000,
        "cosine": 0.487257,
        "overlap": 0.000000,
        "coverage": 0.000000,
        "fit": 0.000000,
        "named": 0.123655,
        "retrieval": 0.000000,
        "focus": 0.609908,
        "asked_for": 0.370179,
        "unmatched": -0.581100,
    },
    intercept=2.448761,
    means={
        "best": 5.832718,
        "cosine": 0.594759,
        "overlap": 0.589547,
        "coverage": 0.624354,
        "fit": 0.955036,
        "named": 0.857914,
        "retrieval": 0.603480,
        "focus": 0.402397,
        "asked_for": 0.989239,
        "unmatched": 0.046763,
    },
    scales={
        "best": 2.927270,
        "cosine": 0.127923,
        "overlap": 0.232421,
        "coverage": 0.229937,
        "fit": 0.207225,
        "named": 0.294574,
        "retrieval": 0.123199,
        "focus": 0.299907,
        "asked_for": 0.068417,
        "unmatched": 0.219483,
    },
    threshold=0.6847,
)
"""P(answerable): a logistic model (each coefficient of its feature's sign) and the threshold (``answerability``)."""
