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
        "cosine": 1.628414,
        "cosine_first": 0.378287,
        "overlap": 0.607361,
        "weighted_overlap": 0.454088,
        "bigrams": 0.236378,
        "heading_overlap": 0.462097,
        "novelty": -0.179075,
        "rank": 0.298420,
        "opens_passage": 0.155121,
        "size": 0.527570,
        "code_fit": 0.779727,
        "number_fit": 0.549186,
        "default_fit": 0.234866,
        "place_fit": 0.067933,
        "name_fit": 0.136797,
        "identifier_fit": 0.086365,
        "carries_block": 0.575570,
        "instructs": 0.095209,
        "passage_cosine": 0.156607,
        "named_fit": 0.509295,
        "novel_name": 0.546481,
        "heading_cosine": -0.805273,
    },
    means={
        "cosine": 0.496500,
        "cosine_first": 0.482960,
        "overlap": 0.305376,
        "weighted_overlap": 0.151022,
        "bigrams": 0.058064,
        "heading_overlap": 0.163375,
        "novelty": 2.558689,
        "rank": 0.451546,
        "opens_passage": 0.297169,
        "size": 0.745532,
        "code_fit": 0.324413,
        "number_fit": 0.015071,
        "default_fit": 0.030722,
        "place_fit": 0.048401,
        "name_fit": 0.068399,
        "identifier_fit": 0.061741,
        "carries_block": 0.346585,
        "instructs": 0.150324,
        "passage_cosine": 0.509138,
        "named_fit": 0.552095,
        "novel_name": 0.843071,
        "heading_cosine": 0.362088,
    },
    scales={
        "cosine": 0.146013,
        "cosine_first": 0.147771,
        "overlap": 0.226041,
        "weighted_overlap": 0.197169,
        "bigrams": 0.126275,
        "heading_overlap": 0.171043,
        "novelty": 0.597799,
        "rank": 0.295945,
        "opens_passage": 0.457012,
        "size": 0.780568,
        "code_fit": 0.468155,
        "number_fit": 0.121835,
        "default_fit": 0.172563,
        "place_fit": 0.214612,
        "name_fit": 0.252430,
        "identifier_fit": 0.235429,
        "carries_block": 0.475882,
        "instructs": 0.357388,
        "passage_cosine": 0.166147,
        "named_fit": 0.452126,
        "novel_name": 0.622363,
        "heading_cosine": 0.201613,
    },
)
"""The window score: a conditional logit over each question's windows (``selector``)."""

ANSWERABILITY = Rule(
    coefficients={
        "best": 0.000000,
        "cosine": 0.480198,
        "overlap": 0.000000,
        "coverage": 0.000000,
        "fit": 0.000000,
        "named": 0.120525,
        "retrieval": 0.000000,
        "focus": 0.640555,
        "asked_for": 0.371945,
        "unmatched": -0.580023,
    },
    intercept=2.460405,
    means={
        "best": 5.821916,
        "cosine": 0.594965,
        "overlap": 0.589287,
        "coverage": 0.623861,
        "fit": 0.955036,
        "named": 0.857314,
        "retrieval": 0.603480,
        "focus": 0.402549,
        "asked_for": 0.989239,
        "unmatched": 0.046763,
    },
    scales={
        "best": 2.945042,
        "cosine": 0.127759,
        "overlap": 0.232126,
        "coverage": 0.229462,
        "fit": 0.207225,
        "named": 0.294624,
        "retrieval": 0.123199,
        "focus": 0.299737,
        "asked_for": 0.068417,
        "unmatched": 0.219483,
    },
    threshold=0.6833,
)
"""P(answerable): a logistic model (each coefficient of its feature's sign) and the threshold (``answerability``)."""
