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
        "cosine": 1.343316,
        "cosine_first": 0.508797,
        "overlap": 0.641821,
        "weighted_overlap": 0.461012,
        "bigrams": 0.287452,
        "heading_overlap": 0.475116,
        "novelty": -0.190115,
        "rank": 0.235960,
        "opens_passage": 0.167790,
        "size": 0.565548,
        "code_fit": 0.961834,
        "number_fit": 0.467917,
        "default_fit": 0.152807,
        "place_fit": 0.019199,
        "name_fit": 0.124827,
        "identifier_fit": 0.166045,
        "carries_block": 0.588027,
        "instructs": 0.159887,
        "passage_cosine": 0.546225,
        "named_fit": 0.506338,
        "novel_name": 0.537567,
        "heading_cosine": -0.861869,
    },
    means={
        "cosine": 0.496580,
        "cosine_first": 0.483823,
        "overlap": 0.303194,
        "weighted_overlap": 0.151503,
        "bigrams": 0.057773,
        "heading_overlap": 0.158170,
        "novelty": 2.604912,
        "rank": 0.452746,
        "opens_passage": 0.309864,
        "size": 0.799258,
        "code_fit": 0.319041,
        "number_fit": 0.016097,
        "default_fit": 0.032396,
        "place_fit": 0.050700,
        "name_fit": 0.069405,
        "identifier_fit": 0.062392,
        "carries_block": 0.348177,
        "instructs": 0.156863,
        "passage_cosine": 0.509486,
        "named_fit": 0.553285,
        "novel_name": 0.852430,
        "heading_cosine": 0.360844,
    },
    scales={
        "cosine": 0.147014,
        "cosine_first": 0.148576,
        "overlap": 0.223875,
        "weighted_overlap": 0.196272,
        "bigrams": 0.125500,
        "heading_overlap": 0.165520,
        "novelty": 0.590313,
        "rank": 0.297339,
        "opens_passage": 0.462437,
        "size": 0.794502,
        "code_fit": 0.466105,
        "number_fit": 0.125851,
        "default_fit": 0.177048,
        "place_fit": 0.219383,
        "name_fit": 0.254141,
        "identifier_fit": 0.237118,
        "carries_block": 0.476392,
        "instructs": 0.363671,
        "passage_cosine": 0.166724,
        "named_fit": 0.451522,
        "novel_name": 0.630131,
        "heading_cosine": 0.202002,
    },
)
"""The window score: a conditional logit over each question's windows (``selector``)."""

ANSWERABILITY = Rule(
    coefficients={
        "best": 0.000000,
        "cosine": 0.416181,
        "overlap": 0.000000,
        "coverage": 0.000000,
        "fit": 0.032436,
        "named": 0.208559,
        "retrieval": 0.000000,
        "focus": 0.543568,
        "asked_for": 0.346513,
        "unmatched": -0.532402,
    },
    intercept=2.378789,
    means={
        "best": 5.932497,
        "cosine": 0.593366,
        "overlap": 0.582595,
        "coverage": 0.616384,
        "fit": 0.960503,
        "named": 0.858767,
        "retrieval": 0.603511,
        "focus": 0.394596,
        "asked_for": 0.989258,
        "unmatched": 0.048474,
    },
    scales={
        "best": 3.127202,
        "cosine": 0.127896,
        "overlap": 0.233133,
        "coverage": 0.229367,
        "fit": 0.194775,
        "named": 0.290053,
        "retrieval": 0.124397,
        "focus": 0.298204,
        "asked_for": 0.068357,
        "unmatched": 0.222968,
    },
    threshold=0.6701,
)
"""P(answerable): a logistic model (each coefficient of its feature's sign) and the threshold (``answerability``)."""
