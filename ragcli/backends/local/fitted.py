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
        "cosine": 1.337403,
        "cosine_first": 0.241775,
        "overlap": 0.397935,
        "weighted_overlap": -0.643420,
        "bigrams": 0.247474,
        "heading_overlap": 0.522468,
        "novelty": -0.279248,
        "rank": 0.268953,
        "opens_passage": 0.173673,
        "size": 0.479450,
        "code_fit": 0.738277,
        "number_fit": 0.558092,
        "default_fit": 0.268522,
        "place_fit": 0.062051,
        "name_fit": 0.175390,
        "identifier_fit": 0.199491,
        "carries_block": 0.600686,
        "instructs": 0.090714,
        "passage_cosine": 0.059312,
        "named_fit": 0.305891,
        "novel_name": 0.559839,
        "heading_cosine": -0.693657,
        "soft_overlap": 1.762241,
    },
    means={
        "cosine": 0.496541,
        "cosine_first": 0.483002,
        "overlap": 0.305364,
        "weighted_overlap": 0.150961,
        "bigrams": 0.058148,
        "heading_overlap": 0.163343,
        "novelty": 2.558016,
        "rank": 0.451461,
        "opens_passage": 0.297078,
        "size": 0.746178,
        "code_fit": 0.324269,
        "number_fit": 0.015096,
        "default_fit": 0.030530,
        "place_fit": 0.048481,
        "name_fit": 0.068512,
        "identifier_fit": 0.061722,
        "carries_block": 0.345607,
        "instructs": 0.155990,
        "passage_cosine": 0.509194,
        "named_fit": 0.551725,
        "novel_name": 0.843304,
        "heading_cosine": 0.362118,
        "soft_overlap": 0.443125,
    },
    scales={
        "cosine": 0.146132,
        "cosine_first": 0.147892,
        "overlap": 0.226101,
        "weighted_overlap": 0.197151,
        "bigrams": 0.126356,
        "heading_overlap": 0.171074,
        "novelty": 0.597666,
        "rank": 0.295941,
        "opens_passage": 0.456971,
        "size": 0.780683,
        "code_fit": 0.468101,
        "number_fit": 0.121934,
        "default_fit": 0.172041,
        "place_fit": 0.214780,
        "name_fit": 0.252622,
        "identifier_fit": 0.235410,
        "carries_block": 0.475566,
        "instructs": 0.362846,
        "passage_cosine": 0.166270,
        "named_fit": 0.452220,
        "novel_name": 0.622469,
        "heading_cosine": 0.201687,
        "soft_overlap": 0.170239,
    },
)
"""The window score: a conditional logit over each question's windows (``selector``)."""

JUDGE = Weights(
    weights={
        "cosine": 1.645315,
        "cosine_first": 0.336951,
        "overlap": 0.593213,
        "weighted_overlap": 0.468121,
        "bigrams": 0.236449,
        "heading_overlap": 0.460528,
        "novelty": -0.178994,
        "rank": 0.302723,
        "opens_passage": 0.157579,
        "size": 0.516631,
        "code_fit": 0.777843,
        "number_fit": 0.550087,
        "default_fit": 0.234479,
        "place_fit": 0.064075,
        "name_fit": 0.142608,
        "identifier_fit": 0.084364,
        "carries_block": 0.582296,
        "instructs": 0.078789,
        "passage_cosine": 0.167660,
        "named_fit": 0.520757,
        "novel_name": 0.552297,
        "heading_cosine": -0.794872,
    },
    means=SELECTOR.means,
    scales=SELECTOR.scales,
)
"""The same fit without ``soft_overlap``: the rule judges its best window (``LocalModel.judge``)."""

ANSWERABILITY = Rule(
    coefficients={
        "best": 0.000000,
        "cosine": 0.494677,
        "overlap": 0.000000,
        "coverage": 0.000000,
        "fit": 0.000000,
        "named": 0.145084,
        "retrieval": 0.000000,
        "focus": 0.437164,
        "asked_for": 0.371812,
        "unmatched": -0.629670,
    },
    intercept=2.452345,
    means={
        "best": 5.851025,
        "cosine": 0.595165,
        "overlap": 0.592298,
        "coverage": 0.627567,
        "fit": 0.954874,
        "named": 0.857852,
        "retrieval": 0.604306,
        "focus": 0.406561,
        "asked_for": 0.988297,
        "unmatched": 0.045126,
    },
    scales={
        "best": 2.938519,
        "cosine": 0.128031,
        "overlap": 0.230677,
        "coverage": 0.228280,
        "fit": 0.207581,
        "named": 0.294625,
        "retrieval": 0.123298,
        "focus": 0.298276,
        "asked_for": 0.071612,
        "unmatched": 0.216102,
    },
    threshold=0.7303,
    yes_no_floor=0.10879557291973158,
)
"""P(answerable): a logistic model (each coefficient of its feature's sign), its threshold and the yes/no floor
(``answerability``)."""
