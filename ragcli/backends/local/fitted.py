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
        "cosine": 1.358292,
        "cosine_first": 0.402944,
        "overlap": 0.668920,
        "weighted_overlap": 0.539799,
        "bigrams": 0.270735,
        "heading_overlap": 0.454527,
        "novelty": -0.164367,
        "rank": 0.143549,
        "opens_passage": 0.127567,
        "size": 0.562734,
        "code_fit": 0.656849,
        "number_fit": 0.479083,
        "default_fit": 0.176350,
        "place_fit": 0.081033,
        "name_fit": 0.006337,
        "identifier_fit": 0.212738,
        "carries_block": 0.559258,
        "instructs": 0.112720,
        "passage_cosine": 0.661832,
        "named_fit": 0.426291,
        "novel_name": 0.585333,
        "heading_cosine": -0.724708,
    },
    means={
        "cosine": 0.495937,
        "cosine_first": 0.483122,
        "overlap": 0.303960,
        "weighted_overlap": 0.150586,
        "bigrams": 0.057700,
        "heading_overlap": 0.156653,
        "novelty": 2.604630,
        "rank": 0.453928,
        "opens_passage": 0.309369,
        "size": 0.798497,
        "code_fit": 0.301854,
        "number_fit": 0.015581,
        "default_fit": 0.032665,
        "place_fit": 0.051253,
        "name_fit": 0.067435,
        "identifier_fit": 0.062333,
        "carries_block": 0.350902,
        "instructs": 0.157214,
        "passage_cosine": 0.509297,
        "named_fit": 0.557266,
        "novel_name": 0.822576,
        "heading_cosine": 0.359773,
    },
    scales={
        "cosine": 0.147148,
        "cosine_first": 0.148795,
        "overlap": 0.224507,
        "weighted_overlap": 0.196413,
        "bigrams": 0.125278,
        "heading_overlap": 0.164708,
        "novelty": 0.590208,
        "rank": 0.298293,
        "opens_passage": 0.462233,
        "size": 0.794065,
        "code_fit": 0.459062,
        "number_fit": 0.123848,
        "default_fit": 0.177759,
        "place_fit": 0.220512,
        "name_fit": 0.250774,
        "identifier_fit": 0.236801,
        "carries_block": 0.477252,
        "instructs": 0.364003,
        "passage_cosine": 0.166925,
        "named_fit": 0.456167,
        "novel_name": 0.626530,
        "heading_cosine": 0.202202,
    },
)
"""The window score: a conditional logit over each question's windows (``selector``)."""

ANSWERABILITY = Rule(
    coefficients={
        "best": 0.000000,
        "cosine": 0.429179,
        "overlap": 0.000000,
        "coverage": 0.000000,
        "fit": 0.000000,
        "named": 0.167491,
        "retrieval": 0.000000,
        "focus": 0.709079,
        "asked_for": 0.298976,
        "unmatched": -0.500027,
    },
    intercept=2.326255,
    means={
        "best": 5.861190,
        "cosine": 0.589573,
        "overlap": 0.585297,
        "coverage": 0.619333,
        "fit": 0.955437,
        "named": 0.859893,
        "retrieval": 0.601291,
        "focus": 0.398030,
        "asked_for": 0.979709,
        "unmatched": 0.048128,
    },
    scales={
        "best": 3.203929,
        "cosine": 0.129363,
        "overlap": 0.230143,
        "coverage": 0.228345,
        "fit": 0.206343,
        "named": 0.295854,
        "retrieval": 0.124592,
        "focus": 0.296214,
        "asked_for": 0.095309,
        "unmatched": 0.222210,
    },
    threshold=0.6521,
)
"""P(answerable): a logistic model (each coefficient of its feature's sign) and the threshold (``answerability``)."""
