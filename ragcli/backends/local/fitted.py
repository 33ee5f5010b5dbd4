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
        "cosine": 0.844815,
        "cosine_first": 0.298090,
        "overlap": 0.656028,
        "weighted_overlap": 0.678225,
        "bigrams": 0.486476,
        "heading_overlap": 0.185201,
        "novelty": -0.257058,
        "rank": 0.032380,
        "opens_passage": 0.148019,
        "size": 0.507287,
        "code_fit": 0.561163,
        "number_fit": 0.522487,
        "default_fit": 0.214752,
        "place_fit": 0.341045,
        "name_fit": 0.081462,
        "identifier_fit": 0.021246,
        "carries_block": 0.428679,
        "instructs": 0.255574,
        "passage_cosine": 0.857311,
        "named_fit": 0.441481,
        "novel_name": 0.553530,
        "focus": 0.0,
        "asked_for": 0.0,
        "doc_dense": 0.0,
    },
    means={
        "cosine": 0.529516,
        "cosine_first": 0.516794,
        "overlap": 0.335593,
        "weighted_overlap": 0.164556,
        "bigrams": 0.066265,
        "heading_overlap": 0.172675,
        "novelty": 2.625002,
        "rank": 0.450284,
        "opens_passage": 0.328186,
        "size": 0.784536,
        "code_fit": 0.296775,
        "number_fit": 0.016493,
        "default_fit": 0.041076,
        "place_fit": 0.062507,
        "name_fit": 0.085303,
        "identifier_fit": 0.059425,
        "carries_block": 0.359386,
        "instructs": 0.199391,
        "passage_cosine": 0.549931,
        "named_fit": 0.561358,
        "novel_name": 0.869759,
        "focus": 0.0,
        "asked_for": 0.0,
        "doc_dense": 0.0,
    },
    scales={
        "cosine": 0.141819,
        "cosine_first": 0.144079,
        "overlap": 0.222987,
        "weighted_overlap": 0.201405,
        "bigrams": 0.125713,
        "heading_overlap": 0.161963,
        "novelty": 0.590505,
        "rank": 0.295632,
        "opens_passage": 0.469553,
        "size": 0.791081,
        "code_fit": 0.456836,
        "number_fit": 0.127363,
        "default_fit": 0.198465,
        "place_fit": 0.242073,
        "name_fit": 0.279332,
        "identifier_fit": 0.230443,
        "carries_block": 0.479821,
        "instructs": 0.399542,
        "passage_cosine": 0.165274,
        "named_fit": 0.437216,
        "novel_name": 0.647163,
        "focus": 1.0,
        "asked_for": 1.0,
        "doc_dense": 1.0,
    },
)
"""The window score: a conditional logit over each question's windows (``selector``)."""

ANSWERABILITY = Rule(
    coefficients={
        "best": 0.000000,
        "cosine": 0.400150,
        "overlap": 0.469605,
        "coverage": 0.255020,
        "fit": 0.236918,
        "named": 0.350900,
        "retrieval": 0.094445,
        "focus": 0.0,
        "asked_for": 0.0,
        "unmatched": -0.478445,
    },
    intercept=2.329260,
    means={
        "best": 5.751196,
        "cosine": 0.621673,
        "overlap": 0.628223,
        "coverage": 0.658987,
        "fit": 0.948276,
        "named": 0.861724,
        "retrieval": 0.637058,
        "focus": 0.0,
        "asked_for": 0.0,
        "unmatched": 0.058621,
    },
    scales={
        "best": 3.188072,
        "cosine": 0.118022,
        "overlap": 0.205092,
        "coverage": 0.204985,
        "fit": 0.221470,
        "named": 0.284596,
        "retrieval": 0.114679,
        "focus": 1.0,
        "asked_for": 1.0,
        "unmatched": 0.234913,
    },
    threshold=0.5913,
)
"""P(answerable): a logistic model (each coefficient of its feature's sign) and the threshold (``answerability``)."""
