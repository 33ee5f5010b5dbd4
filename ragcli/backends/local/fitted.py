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
        "cosine": 1.361763,
        "cosine_first": 0.399392,
        "overlap": 0.670391,
        "weighted_overlap": 0.536143,
        "bigrams": 0.271399,
        "heading_overlap": 0.454004,
        "novelty": -0.163697,
        "rank": 0.145192,
        "opens_passage": 0.127198,
        "size": 0.561729,
        "code_fit": 0.656270,
        "number_fit": 0.478575,
        "default_fit": 0.176520,
        "place_fit": 0.080574,
        "name_fit": 0.005274,
        "identifier_fit": 0.212383,
        "carries_block": 0.559950,
        "instructs": 0.112087,
        "passage_cosine": 0.658176,
        "named_fit": 0.425780,
        "novel_name": 0.585584,
        "heading_cosine": -0.725437,
    },
    means={
        "cosine": 0.495847,
        "cosine_first": 0.483044,
        "overlap": 0.303896,
        "weighted_overlap": 0.150508,
        "bigrams": 0.057630,
        "heading_overlap": 0.156635,
        "novelty": 2.604005,
        "rank": 0.453811,
        "opens_passage": 0.309356,
        "size": 0.798518,
        "code_fit": 0.301997,
        "number_fit": 0.015568,
        "default_fit": 0.032638,
        "place_fit": 0.051209,
        "name_fit": 0.067377,
        "identifier_fit": 0.062280,
        "carries_block": 0.350653,
        "instructs": 0.157231,
        "passage_cosine": 0.509245,
        "named_fit": 0.557468,
        "novel_name": 0.822517,
        "heading_cosine": 0.359684,
    },
    scales={
        "cosine": 0.147114,
        "cosine_first": 0.148748,
        "overlap": 0.224446,
        "weighted_overlap": 0.196374,
        "bigrams": 0.125209,
        "heading_overlap": 0.164635,
        "novelty": 0.590637,
        "rank": 0.298197,
        "opens_passage": 0.462228,
        "size": 0.794057,
        "code_fit": 0.459124,
        "number_fit": 0.123796,
        "default_fit": 0.177686,
        "place_fit": 0.220424,
        "name_fit": 0.250675,
        "identifier_fit": 0.236707,
        "carries_block": 0.477175,
        "instructs": 0.364018,
        "passage_cosine": 0.166859,
        "named_fit": 0.456109,
        "novel_name": 0.626349,
        "heading_cosine": 0.202121,
    },
)
"""The window score: a conditional logit over each question's windows (``selector``)."""

ANSWERABILITY = Rule(
    coefficients={
        "best": 0.000000,
        "cosine": 0.430276,
        "overlap": 0.000000,
        "coverage": 0.000000,
        "fit": 0.000000,
        "named": 0.167505,
        "retrieval": 0.000000,
        "focus": 0.708694,
        "asked_for": 0.298665,
        "unmatched": -0.499997,
    },
    intercept=2.326534,
    means={
        "best": 5.860836,
        "cosine": 0.589591,
        "overlap": 0.585297,
        "coverage": 0.619333,
        "fit": 0.955437,
        "named": 0.859893,
        "retrieval": 0.601294,
        "focus": 0.398073,
        "asked_for": 0.979709,
        "unmatched": 0.048128,
    },
    scales={
        "best": 3.200665,
        "cosine": 0.129386,
        "overlap": 0.230143,
        "coverage": 0.228345,
        "fit": 0.206343,
        "named": 0.295854,
        "retrieval": 0.124591,
        "focus": 0.296269,
        "asked_for": 0.095309,
        "unmatched": 0.222210,
    },
    threshold=0.6516,
)
"""P(answerable): a logistic model (each coefficient of its feature's sign) and the threshold (``answerability``)."""
