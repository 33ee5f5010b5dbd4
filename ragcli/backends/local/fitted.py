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
        "cosine": 1.385311,
        "cosine_first": 0.580339,
        "overlap": 0.620070,
        "weighted_overlap": 0.466681,
        "bigrams": 0.309685,
        "heading_overlap": 0.455018,
        "novelty": -0.176953,
        "rank": 0.267741,
        "opens_passage": 0.177815,
        "size": 0.552870,
        "code_fit": 0.957767,
        "number_fit": 0.464441,
        "default_fit": 0.134021,
        "place_fit": 0.014546,
        "name_fit": 0.112103,
        "identifier_fit": 0.127982,
        "carries_block": 0.586298,
        "instructs": 0.163537,
        "passage_cosine": 0.238684,
        "named_fit": 0.514341,
        "novel_name": 0.527690,
        "heading_cosine": -0.841819,
    },
    means={
        "cosine": 0.496016,
        "cosine_first": 0.483253,
        "overlap": 0.309605,
        "weighted_overlap": 0.154589,
        "bigrams": 0.059022,
        "heading_overlap": 0.160321,
        "novelty": 2.590055,
        "rank": 0.451928,
        "opens_passage": 0.310986,
        "size": 0.798217,
        "code_fit": 0.322420,
        "number_fit": 0.015967,
        "default_fit": 0.032388,
        "place_fit": 0.049766,
        "name_fit": 0.067194,
        "identifier_fit": 0.063450,
        "carries_block": 0.349267,
        "instructs": 0.155493,
        "passage_cosine": 0.508947,
        "named_fit": 0.553424,
        "novel_name": 0.851957,
        "heading_cosine": 0.359446,
    },
    scales={
        "cosine": 0.147071,
        "cosine_first": 0.148690,
        "overlap": 0.225605,
        "weighted_overlap": 0.198650,
        "bigrams": 0.126729,
        "heading_overlap": 0.167987,
        "novelty": 0.586809,
        "rank": 0.296589,
        "opens_passage": 0.462897,
        "size": 0.794368,
        "code_fit": 0.467403,
        "number_fit": 0.125349,
        "default_fit": 0.177028,
        "place_fit": 0.217461,
        "name_fit": 0.250357,
        "identifier_fit": 0.238484,
        "carries_block": 0.476738,
        "instructs": 0.362374,
        "passage_cosine": 0.167955,
        "named_fit": 0.451237,
        "novel_name": 0.630410,
        "heading_cosine": 0.201266,
    },
)
"""The window score: a conditional logit over each question's windows (``selector``)."""

ANSWERABILITY = Rule(
    coefficients={
        "best": 0.000000,
        "cosine": 0.430499,
        "overlap": 0.000000,
        "coverage": 0.000000,
        "fit": 0.024502,
        "named": 0.196241,
        "retrieval": 0.000000,
        "focus": 0.546694,
        "asked_for": 0.359068,
        "unmatched": -0.531863,
    },
    intercept=2.385640,
    means={
        "best": 5.891172,
        "cosine": 0.594370,
        "overlap": 0.590606,
        "coverage": 0.624241,
        "fit": 0.958707,
        "named": 0.857870,
        "retrieval": 0.604050,
        "focus": 0.402832,
        "asked_for": 0.989258,
        "unmatched": 0.048474,
    },
    scales={
        "best": 3.027994,
        "cosine": 0.126332,
        "overlap": 0.233485,
        "coverage": 0.230460,
        "fit": 0.198966,
        "named": 0.290388,
        "retrieval": 0.124073,
        "focus": 0.300328,
        "asked_for": 0.068357,
        "unmatched": 0.222968,
    },
    threshold=0.6684,
)
"""P(answerable): a logistic model (each coefficient of its feature's sign) and the threshold (``answerability``)."""
