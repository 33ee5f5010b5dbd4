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
        "cosine": 1.434779,
        "cosine_first": 0.310194,
        "overlap": 0.725462,
        "weighted_overlap": 0.488942,
        "bigrams": 0.273063,
        "heading_overlap": 0.448814,
        "novelty": -0.192593,
        "rank": 0.214923,
        "opens_passage": 0.149278,
        "size": 0.521847,
        "code_fit": 0.898693,
        "number_fit": 0.480265,
        "default_fit": 0.151361,
        "place_fit": 0.089254,
        "name_fit": 0.108168,
        "identifier_fit": 0.193503,
        "carries_block": 0.575813,
        "instructs": 0.176738,
        "passage_cosine": 0.528365,
        "named_fit": 0.477758,
        "novel_name": 0.548443,
        "heading_cosine": -0.754301,
    },
    means={
        "cosine": 0.496978,
        "cosine_first": 0.484192,
        "overlap": 0.304001,
        "weighted_overlap": 0.151784,
        "bigrams": 0.058184,
        "heading_overlap": 0.157925,
        "novelty": 2.605637,
        "rank": 0.453396,
        "opens_passage": 0.310155,
        "size": 0.798766,
        "code_fit": 0.319085,
        "number_fit": 0.016055,
        "default_fit": 0.032962,
        "place_fit": 0.050522,
        "name_fit": 0.070038,
        "identifier_fit": 0.062145,
        "carries_block": 0.349839,
        "instructs": 0.156883,
        "passage_cosine": 0.509822,
        "named_fit": 0.550268,
        "novel_name": 0.854313,
        "heading_cosine": 0.360608,
    },
    scales={
        "cosine": 0.146901,
        "cosine_first": 0.148555,
        "overlap": 0.224609,
        "weighted_overlap": 0.196990,
        "bigrams": 0.126037,
        "heading_overlap": 0.165450,
        "novelty": 0.589278,
        "rank": 0.297687,
        "opens_passage": 0.462557,
        "size": 0.794379,
        "code_fit": 0.466122,
        "number_fit": 0.125685,
        "default_fit": 0.178537,
        "place_fit": 0.219019,
        "name_fit": 0.255211,
        "identifier_fit": 0.236525,
        "carries_block": 0.476919,
        "instructs": 0.363691,
        "passage_cosine": 0.167190,
        "named_fit": 0.451483,
        "novel_name": 0.629611,
        "heading_cosine": 0.202004,
    },
)
"""The window score: a conditional logit over each question's windows (``selector``)."""

ANSWERABILITY = Rule(
    coefficients={
        "best": 0.000000,
        "cosine": 0.465829,
        "overlap": 0.000000,
        "coverage": 0.000000,
        "fit": 0.032208,
        "named": 0.170287,
        "retrieval": 0.000000,
        "focus": 0.472889,
        "asked_for": 0.374623,
        "unmatched": -0.551254,
    },
    intercept=2.351145,
    means={
        "best": 5.908438,
        "cosine": 0.590931,
        "overlap": 0.588107,
        "coverage": 0.619360,
        "fit": 0.960432,
        "named": 0.858363,
        "retrieval": 0.603992,
        "focus": 0.400695,
        "asked_for": 0.988519,
        "unmatched": 0.048561,
    },
    scales={
        "best": 3.141653,
        "cosine": 0.128278,
        "overlap": 0.229716,
        "coverage": 0.229151,
        "fit": 0.194943,
        "named": 0.293240,
        "retrieval": 0.124914,
        "focus": 0.297706,
        "asked_for": 0.070375,
        "unmatched": 0.223159,
    },
    threshold=0.6495,
)
"""P(answerable): a logistic model (each coefficient of its feature's sign) and the threshold (``answerability``)."""
