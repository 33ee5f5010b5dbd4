"""The local answerer's fitted numbers. Written by bench/answers.py; do not edit by hand.

Fitted on the 11 development corpora with:

    python bench/answers.py --index DIR --write

uv-docs, material, docsy, prettier, myst, rustup, lazygit, nox, mkdocstrings-python, jekyll, black

Reported only on corpora left out of the fit (see bench/answers.py and docs/defaults.md).
"""

from __future__ import annotations

from .answerability import Rule
from .selector import Weights

SELECTOR = Weights(
    weights={
        "cosine": 1.236609,
        "cosine_first": 0.499903,
        "overlap": 0.670087,
        "weighted_overlap": 0.603818,
        "bigrams": 0.259166,
        "heading_overlap": 0.451699,
        "novelty": -0.166940,
        "rank": 0.106390,
        "opens_passage": 0.175542,
        "size": 0.522038,
        "code_fit": 0.715276,
        "number_fit": 0.430026,
        "default_fit": 0.153531,
        "place_fit": 0.171376,
        "name_fit": 0.110190,
        "identifier_fit": 0.245207,
        "carries_block": 0.496513,
        "instructs": 0.149898,
        "passage_cosine": 0.582129,
        "named_fit": 0.389494,
        "novel_name": 0.635329,
        "heading_cosine": -0.732379,
    },
    means={
        "cosine": 0.518249,
        "cosine_first": 0.505485,
        "overlap": 0.338058,
        "weighted_overlap": 0.167109,
        "bigrams": 0.067051,
        "heading_overlap": 0.178573,
        "novelty": 2.606296,
        "rank": 0.448782,
        "opens_passage": 0.317311,
        "size": 0.791483,
        "code_fit": 0.323607,
        "number_fit": 0.011848,
        "default_fit": 0.036490,
        "place_fit": 0.059847,
        "name_fit": 0.074267,
        "identifier_fit": 0.061494,
        "carries_block": 0.364701,
        "instructs": 0.178187,
        "passage_cosine": 0.531574,
        "named_fit": 0.581183,
        "novel_name": 0.840396,
        "heading_cosine": 0.379266,
    },
    scales={
        "cosine": 0.142521,
        "cosine_first": 0.144532,
        "overlap": 0.228041,
        "weighted_overlap": 0.208876,
        "bigrams": 0.135590,
        "heading_overlap": 0.170637,
        "novelty": 0.591635,
        "rank": 0.297423,
        "opens_passage": 0.465430,
        "size": 0.792874,
        "code_fit": 0.467852,
        "number_fit": 0.108200,
        "default_fit": 0.187507,
        "place_fit": 0.237203,
        "name_fit": 0.262205,
        "identifier_fit": 0.235148,
        "carries_block": 0.481346,
        "instructs": 0.382670,
        "passage_cosine": 0.164885,
        "named_fit": 0.449399,
        "novel_name": 0.633447,
        "heading_cosine": 0.205410,
    },
)
"""The window score: a conditional logit over each question's windows (``selector``)."""

ANSWERABILITY = Rule(
    coefficients={
        "best": 0.000000,
        "cosine": 0.643941,
        "overlap": 0.167164,
        "coverage": 0.000000,
        "fit": 0.119898,
        "named": 0.176591,
        "retrieval": 0.106999,
        "focus": 0.595601,
        "asked_for": 0.544787,
        "unmatched": -0.439058,
    },
    intercept=2.474254,
    means={
        "best": 5.792704,
        "cosine": 0.603045,
        "overlap": 0.627563,
        "coverage": 0.658596,
        "fit": 0.958525,
        "named": 0.885714,
        "retrieval": 0.617276,
        "focus": 0.428046,
        "asked_for": 0.936790,
        "unmatched": 0.055300,
    },
    scales={
        "best": 2.925669,
        "cosine": 0.123689,
        "overlap": 0.212092,
        "coverage": 0.208581,
        "fit": 0.199385,
        "named": 0.273081,
        "retrieval": 0.122124,
        "focus": 0.298378,
        "asked_for": 0.217046,
        "unmatched": 0.228564,
    },
    threshold=0.6543,
)
"""P(answerable): a logistic model (each coefficient of its feature's sign) and the threshold (``answerability``)."""
