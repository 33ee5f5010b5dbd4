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
        "cosine": 0.431365,
        "cosine_first": 0.239423,
        "overlap": 0.409799,
        "weighted_overlap": 0.887901,
        "bigrams": 0.405478,
        "heading_overlap": 0.084181,
        "novelty": 0.044683,
        "rank": 0.091177,
        "opens_passage": 0.038486,
        "size": 0.349020,
        "code_fit": 0.440259,
        "number_fit": 0.499110,
        "default_fit": 0.340967,
        "place_fit": 0.599314,
        "name_fit": 0.256253,
        "identifier_fit": 0.422432,
        "carries_block": 0.635996,
        "instructs": 0.288492,
        "passage_cosine": 1.192624,
        "named_fit": 0.544826,
    },
    means={
        "cosine": 0.505554,
        "cosine_first": 0.492421,
        "overlap": 0.322546,
        "weighted_overlap": 0.171837,
        "bigrams": 0.062406,
        "heading_overlap": 0.144371,
        "novelty": 2.624081,
        "rank": 0.455306,
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
    },
    scales={
        "cosine": 0.144115,
        "cosine_first": 0.146325,
        "overlap": 0.221041,
        "weighted_overlap": 0.196860,
        "bigrams": 0.124005,
        "heading_overlap": 0.151481,
        "novelty": 0.591012,
        "rank": 0.291027,
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
    },
)
"""The window score: a conditional logit over each question's windows (``selector``)."""

ANSWERABILITY = Rule(
    coefficients={
        "best": 0.000000,
        "cosine": 0.499437,
        "overlap": 0.584200,
        "coverage": 0.201347,
        "fit": 0.233323,
        "named": 0.198419,
        "retrieval": 0.004503,
        "unmatched": -0.449883,
    },
    intercept=2.305312,
    means={
        "best": 5.986188,
        "cosine": 0.619357,
        "overlap": 0.619771,
        "coverage": 0.649767,
        "fit": 0.948454,
        "named": 0.878236,
        "retrieval": 0.636212,
        "unmatched": 0.068729,
    },
    scales={
        "best": 3.277926,
        "cosine": 0.120629,
        "overlap": 0.206744,
        "coverage": 0.204206,
        "fit": 0.221109,
        "named": 0.265755,
        "retrieval": 0.115057,
        "unmatched": 0.266229,
    },
    threshold=0.5862,
)
"""P(answerable): a logistic model with every coefficient >= 0, and the threshold to answer (``answerability``)."""
