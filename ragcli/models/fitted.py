"""The local answerer's fitted numbers. Written by bench/answers.py; do not edit by hand.

Fitted on the seven development corpora (uv-docs and bench/corpora: material, docsy, prettier,
myst, rustup, lazygit) with:

    python bench/answers.py --index DIR --write

Reported only on corpora left out of the fit (see bench/answers.py and the README).
"""

from __future__ import annotations

from .answerability import Rule
from .selector import Weights

SELECTOR = Weights(
    weights={
        "cosine": 0.892668,
        "cosine_first": 0.717741,
        "overlap": 1.346052,
        "heading_overlap": 0.485096,
        "novelty": 0.144778,
        "rank": 0.174629,
        "opens_passage": -0.018835,
        "size": 0.421894,
        "code_fit": 0.613475,
        "number_fit": 0.297377,
        "default_fit": 0.471239,
        "place_fit": 0.383525,
        "name_fit": 0.372803,
        "identifier_fit": 0.435685,
        "carries_block": 0.715433,
    },
    means={
        "cosine": 0.541735,
        "cosine_first": 0.520562,
        "overlap": 0.343600,
        "heading_overlap": 0.179050,
        "novelty": 2.643316,
        "rank": 0.472081,
        "opens_passage": 0.347130,
        "size": 0.771164,
        "code_fit": 0.300988,
        "number_fit": 0.013380,
        "default_fit": 0.044767,
        "place_fit": 0.067525,
        "name_fit": 0.081531,
        "identifier_fit": 0.065545,
        "carries_block": 0.370264,
    },
    scales={
        "cosine": 0.134193,
        "cosine_first": 0.138604,
        "overlap": 0.224910,
        "heading_overlap": 0.166297,
        "novelty": 0.579690,
        "rank": 0.297063,
        "opens_passage": 0.476058,
        "size": 0.789232,
        "code_fit": 0.458687,
        "number_fit": 0.114896,
        "default_fit": 0.206791,
        "place_fit": 0.250930,
        "name_fit": 0.273648,
        "identifier_fit": 0.241138,
        "carries_block": 0.482875,
    },
)
"""The window score: a conditional logit over each question's windows (``selector``)."""

ANSWERABILITY = Rule(
    coefficients={
        "best": 0.000000,
        "cosine": 0.446960,
        "overlap": 0.302011,
        "coverage": 0.240199,
        "fit": 0.150911,
        "retrieval": 0.000000,
    },
    intercept=2.460967,
    means={
        "best": 5.102644,
        "cosine": 0.639862,
        "overlap": 0.640582,
        "coverage": 0.672152,
        "fit": 0.947791,
        "retrieval": 0.638812,
    },
    scales={
        "best": 2.811513,
        "cosine": 0.113166,
        "overlap": 0.201357,
        "coverage": 0.200997,
        "fit": 0.222448,
        "retrieval": 0.115163,
    },
    threshold=0.0000,
)
"""P(answerable): a logistic model with every coefficient >= 0, and the threshold to answer (``answerability``)."""

SECOND_MARGIN = 0.00
"""A second window is claimed when its score is at most this far under the best one's (a fixed rule, not fitted)."""
