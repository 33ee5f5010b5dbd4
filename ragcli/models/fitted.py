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
        "cosine": 0.463057,
        "cosine_first": 0.259358,
        "overlap": 0.623049,
        "weighted_overlap": 0.674700,
        "bigrams": 0.403094,
        "heading_overlap": 0.222650,
        "novelty": -0.086567,
        "rank": 0.124555,
        "opens_passage": 0.143484,
        "size": 0.544630,
        "code_fit": 0.603575,
        "number_fit": 0.513762,
        "default_fit": 0.282194,
        "place_fit": 0.610168,
        "name_fit": 0.232890,
        "identifier_fit": 0.166588,
        "carries_block": 0.630826,
        "instructs": 0.351380,
        "passage_cosine": 0.803989,
        "named_fit": 0.440354,
    },
    means={
        "cosine": 0.533220,
        "cosine_first": 0.520441,
        "overlap": 0.335417,
        "weighted_overlap": 0.164654,
        "bigrams": 0.067044,
        "heading_overlap": 0.175142,
        "novelty": 2.627034,
        "rank": 0.466394,
        "opens_passage": 0.331340,
        "size": 0.782491,
        "code_fit": 0.298736,
        "number_fit": 0.017712,
        "default_fit": 0.042870,
        "place_fit": 0.063064,
        "name_fit": 0.088335,
        "identifier_fit": 0.060827,
        "carries_block": 0.364734,
        "instructs": 0.198105,
        "passage_cosine": 0.561372,
        "named_fit": 0.566183,
    },
    scales={
        "cosine": 0.139805,
        "cosine_first": 0.142300,
        "overlap": 0.223223,
        "weighted_overlap": 0.203328,
        "bigrams": 0.126911,
        "heading_overlap": 0.164816,
        "novelty": 0.591305,
        "rank": 0.292928,
        "opens_passage": 0.470695,
        "size": 0.790615,
        "code_fit": 0.457704,
        "number_fit": 0.131903,
        "default_fit": 0.202564,
        "place_fit": 0.243078,
        "name_fit": 0.283781,
        "identifier_fit": 0.233084,
        "carries_block": 0.481355,
        "instructs": 0.398571,
        "passage_cosine": 0.145718,
        "named_fit": 0.436492,
    },
)
"""The window score: a conditional logit over each question's windows (``selector``)."""

ANSWERABILITY = Rule(
    coefficients={
        "best": 0.000000,
        "cosine": 0.472982,
        "overlap": 0.320950,
        "coverage": 0.297690,
        "fit": 0.279761,
        "named": 0.352894,
        "retrieval": 0.085736,
        "unmatched": -0.499088,
    },
    intercept=2.323312,
    means={
        "best": 5.383088,
        "cosine": 0.618753,
        "overlap": 0.623951,
        "coverage": 0.653266,
        "fit": 0.958621,
        "named": 0.869770,
        "retrieval": 0.636465,
        "unmatched": 0.062069,
    },
    scales={
        "best": 2.961024,
        "cosine": 0.120684,
        "overlap": 0.206046,
        "coverage": 0.204665,
        "fit": 0.199166,
        "named": 0.276842,
        "retrieval": 0.115175,
        "unmatched": 0.255172,
    },
    threshold=0.5737,
)
"""P(answerable): a logistic model with every coefficient >= 0, and the threshold to answer (``answerability``)."""
