"""The local answerer's fitted numbers. Written by bench/answers.py; do not edit by hand.

Fitted on the seven development corpora (uv-docs and bench/corpora: material, docsy, prettier,
myst, rustup, lazygit) with:

    python bench/answers.py --index DIR --write

Reported only on corpora left out of the fit (see bench/answers.py and docs/defaults.md).
"""

from __future__ import annotations

from .answerability import Rule
from .selector import Weights

SELECTOR = Weights(
    weights={
        "cosine": 0.496158,
        "cosine_first": 0.300317,
        "overlap": 0.387395,
        "weighted_overlap": 0.911872,
        "bigrams": 0.402818,
        "heading_overlap": 0.116990,
        "novelty": -0.089600,
        "rank": 0.066860,
        "opens_passage": 0.012022,
        "size": 0.242943,
        "code_fit": 0.290886,
        "number_fit": 0.519912,
        "default_fit": 0.343972,
        "place_fit": 0.606319,
        "name_fit": 0.066594,
        "identifier_fit": 0.380199,
        "carries_block": 0.514783,
        "instructs": 0.258515,
        "passage_cosine": 1.288593,
        "named_fit": 0.607881,
        "novel_name": 0.552088,
    },
    means={
        "cosine": 0.505554,
        "cosine_first": 0.492421,
        "overlap": 0.322546,
        "weighted_overlap": 0.171889,
        "bigrams": 0.062406,
        "heading_overlap": 0.144371,
        "novelty": 2.624081,
        "rank": 0.455324,
        "opens_passage": 0.319564,
        "size": 0.792228,
        "code_fit": 0.296292,
        "number_fit": 0.016368,
        "default_fit": 0.038971,
        "place_fit": 0.059013,
        "name_fit": 0.076606,
        "identifier_fit": 0.060702,
        "carries_block": 0.339606,
        "instructs": 0.200646,
        "passage_cosine": 0.541362,
        "named_fit": 0.550852,
        "novel_name": 0.875308,
    },
    scales={
        "cosine": 0.144115,
        "cosine_first": 0.146325,
        "overlap": 0.221041,
        "weighted_overlap": 0.196928,
        "bigrams": 0.124005,
        "heading_overlap": 0.151481,
        "novelty": 0.591012,
        "rank": 0.291359,
        "opens_passage": 0.466307,
        "size": 0.792621,
        "code_fit": 0.456621,
        "number_fit": 0.126886,
        "default_fit": 0.193526,
        "place_fit": 0.235650,
        "name_fit": 0.265966,
        "identifier_fit": 0.231770,
        "carries_block": 0.473575,
        "instructs": 0.400484,
        "passage_cosine": 0.152010,
        "named_fit": 0.440126,
        "novel_name": 0.648099,
    },
)
"""The window score: a conditional logit over each question's windows (``selector``)."""

ANSWERABILITY = Rule(
    coefficients={
        "best": 0.000000,
        "cosine": 0.460717,
        "overlap": 0.549330,
        "coverage": 0.270758,
        "fit": 0.211713,
        "named": 0.090740,
        "retrieval": 0.039612,
        "unmatched": -0.494830,
    },
    intercept=2.294362,
    means={
        "best": 6.120887,
        "cosine": 0.619739,
        "overlap": 0.618947,
        "coverage": 0.651494,
        "fit": 0.948454,
        "named": 0.878809,
        "retrieval": 0.636803,
        "unmatched": 0.068729,
    },
    scales={
        "best": 3.460570,
        "cosine": 0.118193,
        "overlap": 0.207734,
        "coverage": 0.202817,
        "fit": 0.221109,
        "named": 0.264758,
        "retrieval": 0.114565,
        "unmatched": 0.266229,
    },
    threshold=0.5737,
)
"""P(answerable): a logistic model (each coefficient of its feature's sign) and the threshold (``answerability``)."""
