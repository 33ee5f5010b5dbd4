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
        "cosine": 1.358200,
        "cosine_first": 0.404458,
        "overlap": 0.678087,
        "weighted_overlap": 0.536233,
        "bigrams": 0.271302,
        "heading_overlap": 0.455804,
        "novelty": -0.163884,
        "rank": 0.143332,
        "opens_passage": 0.127738,
        "size": 0.561388,
        "code_fit": 0.656318,
        "number_fit": 0.478938,
        "default_fit": 0.174692,
        "place_fit": 0.080381,
        "name_fit": 0.006164,
        "identifier_fit": 0.218197,
        "carries_block": 0.560315,
        "instructs": 0.114165,
        "passage_cosine": 0.659519,
        "named_fit": 0.407631,
        "novel_name": 0.584063,
        "heading_cosine": -0.726402,
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
        "named_fit": 0.556164,
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
        "named_fit": 0.455672,
        "novel_name": 0.626530,
        "heading_cosine": 0.202202,
    },
)
"""The window score: a conditional logit over each question's windows (``selector``)."""

ANSWERABILITY = Rule(
    coefficients={
        "best": 0.000000,
        "cosine": 0.426430,
        "overlap": 0.000000,
        "coverage": 0.000000,
        "fit": 0.000000,
        "named": 0.151091,
        "retrieval": 0.000000,
        "focus": 0.688245,
        "asked_for": 0.301902,
        "unmatched": -0.512480,
    },
    intercept=2.330631,
    means={
        "best": 5.865959,
        "cosine": 0.590008,
        "overlap": 0.585647,
        "coverage": 0.619658,
        "fit": 0.955357,
        "named": 0.859643,
        "retrieval": 0.601411,
        "focus": 0.398368,
        "asked_for": 0.979673,
        "unmatched": 0.048214,
    },
    scales={
        "best": 3.203421,
        "cosine": 0.129249,
        "overlap": 0.230188,
        "coverage": 0.228450,
        "fit": 0.206518,
        "named": 0.296059,
        "retrieval": 0.124671,
        "focus": 0.296370,
        "asked_for": 0.095390,
        "unmatched": 0.222399,
    },
    threshold=0.6634,
)
"""P(answerable): a logistic model (each coefficient of its feature's sign) and the threshold (``answerability``)."""
