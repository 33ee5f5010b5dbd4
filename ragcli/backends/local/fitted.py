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
        "cosine": 1.350130,
        "cosine_first": 0.392391,
        "overlap": 0.639102,
        "weighted_overlap": 0.551730,
        "bigrams": 0.272233,
        "heading_overlap": 0.457965,
        "novelty": -0.177302,
        "rank": 0.146039,
        "opens_passage": 0.127948,
        "size": 0.570411,
        "code_fit": 0.655302,
        "number_fit": 0.478761,
        "default_fit": 0.181602,
        "place_fit": 0.076521,
        "name_fit": 0.003383,
        "identifier_fit": 0.202853,
        "carries_block": 0.558993,
        "instructs": 0.114380,
        "passage_cosine": 0.659463,
        "named_fit": 0.488347,
        "novel_name": 0.589477,
        "heading_cosine": -0.719248,
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
        "named_fit": 0.551634,
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
        "named_fit": 0.451498,
        "novel_name": 0.626530,
        "heading_cosine": 0.202202,
    },
)
"""The window score: a conditional logit over each question's windows (``selector``)."""

ANSWERABILITY = Rule(
    coefficients={
        "best": 0.000000,
        "cosine": 0.419891,
        "overlap": 0.000000,
        "coverage": 0.000000,
        "fit": 0.000000,
        "named": 0.156133,
        "retrieval": 0.000000,
        "focus": 0.691547,
        "asked_for": 0.306065,
        "unmatched": -0.547355,
    },
    intercept=2.342280,
    means={
        "best": 5.889569,
        "cosine": 0.589939,
        "overlap": 0.585647,
        "coverage": 0.619658,
        "fit": 0.955357,
        "named": 0.862500,
        "retrieval": 0.601411,
        "focus": 0.398164,
        "asked_for": 0.979673,
        "unmatched": 0.050000,
    },
    scales={
        "best": 3.196041,
        "cosine": 0.129267,
        "overlap": 0.230188,
        "coverage": 0.228450,
        "fit": 0.206518,
        "named": 0.289602,
        "retrieval": 0.124671,
        "focus": 0.296464,
        "asked_for": 0.095390,
        "unmatched": 0.225990,
    },
    threshold=0.6674,
)
"""P(answerable): a logistic model (each coefficient of its feature's sign) and the threshold (``answerability``)."""
