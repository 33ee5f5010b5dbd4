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
        "cosine": 1.620493,
        "cosine_first": 0.393345,
        "overlap": 0.601398,
        "weighted_overlap": 0.453530,
        "bigrams": 0.234779,
        "heading_overlap": 0.465418,
        "novelty": -0.183555,
        "rank": 0.303015,
        "opens_passage": 0.158568,
        "size": 0.541196,
        "code_fit": 0.778438,
        "number_fit": 0.550096,
        "default_fit": 0.236324,
        "place_fit": 0.068396,
        "name_fit": 0.136172,
        "identifier_fit": 0.084920,
        "carries_block": 0.575815,
        "instructs": 0.095052,
        "passage_cosine": 0.149444,
        "named_fit": 0.513621,
        "novel_name": 0.547445,
        "heading_cosine": -0.807704,
    },
    means={
        "cosine": 0.496497,
        "cosine_first": 0.482954,
        "overlap": 0.305371,
        "weighted_overlap": 0.151024,
        "bigrams": 0.058079,
        "heading_overlap": 0.163378,
        "novelty": 2.558644,
        "rank": 0.451561,
        "opens_passage": 0.297241,
        "size": 0.745277,
        "code_fit": 0.324298,
        "number_fit": 0.015075,
        "default_fit": 0.030729,
        "place_fit": 0.048364,
        "name_fit": 0.068271,
        "identifier_fit": 0.061756,
        "carries_block": 0.346524,
        "instructs": 0.150360,
        "passage_cosine": 0.509137,
        "named_fit": 0.552107,
        "novel_name": 0.842822,
        "heading_cosine": 0.362102,
    },
    scales={
        "cosine": 0.146026,
        "cosine_first": 0.147784,
        "overlap": 0.226044,
        "weighted_overlap": 0.197179,
        "bigrams": 0.126287,
        "heading_overlap": 0.171057,
        "novelty": 0.597823,
        "rank": 0.295941,
        "opens_passage": 0.457044,
        "size": 0.780528,
        "code_fit": 0.468112,
        "number_fit": 0.121850,
        "default_fit": 0.172583,
        "place_fit": 0.214535,
        "name_fit": 0.252210,
        "identifier_fit": 0.235455,
        "carries_block": 0.475862,
        "instructs": 0.357424,
        "passage_cosine": 0.166161,
        "named_fit": 0.452100,
        "novel_name": 0.622395,
        "heading_cosine": 0.201634,
    },
)
"""The window score: a conditional logit over each question's windows (``selector``)."""

ANSWERABILITY = Rule(
    coefficients={
        "best": 0.000000,
        "cosine": 0.482421,
        "overlap": 0.000000,
        "coverage": 0.000000,
        "fit": 0.000000,
        "named": 0.120564,
        "retrieval": 0.000000,
        "focus": 0.637488,
        "asked_for": 0.372018,
        "unmatched": -0.580197,
    },
    intercept=2.459917,
    means={
        "best": 5.836545,
        "cosine": 0.595252,
        "overlap": 0.588516,
        "coverage": 0.623604,
        "fit": 0.953237,
        "named": 0.857314,
        "retrieval": 0.603480,
        "focus": 0.401921,
        "asked_for": 0.989239,
        "unmatched": 0.046763,
    },
    scales={
        "best": 2.942947,
        "cosine": 0.127841,
        "overlap": 0.231789,
        "coverage": 0.229281,
        "fit": 0.211130,
        "named": 0.294624,
        "retrieval": 0.123199,
        "focus": 0.299533,
        "asked_for": 0.068417,
        "unmatched": 0.219483,
    },
    threshold=0.6827,
)
"""P(answerable): a logistic model (each coefficient of its feature's sign) and the threshold (``answerability``)."""
