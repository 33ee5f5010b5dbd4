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
        "cosine": 1.660761,
        "cosine_first": 0.331070,
        "overlap": 0.599798,
        "weighted_overlap": 0.470174,
        "bigrams": 0.237187,
        "heading_overlap": 0.458425,
        "novelty": -0.177743,
        "rank": 0.287612,
        "opens_passage": 0.157568,
        "size": 0.509538,
        "code_fit": 0.783049,
        "number_fit": 0.548480,
        "default_fit": 0.232464,
        "place_fit": 0.067302,
        "name_fit": 0.141596,
        "identifier_fit": 0.086895,
        "carries_block": 0.579040,
        "instructs": 0.090561,
        "passage_cosine": 0.178298,
        "named_fit": 0.514415,
        "novel_name": 0.545574,
        "heading_cosine": -0.792889,
    },
    means={
        "cosine": 0.496463,
        "cosine_first": 0.482936,
        "overlap": 0.305286,
        "weighted_overlap": 0.150911,
        "bigrams": 0.058117,
        "heading_overlap": 0.163277,
        "novelty": 2.558277,
        "rank": 0.451369,
        "opens_passage": 0.297113,
        "size": 0.746264,
        "code_fit": 0.324339,
        "number_fit": 0.015088,
        "default_fit": 0.030756,
        "place_fit": 0.048455,
        "name_fit": 0.068475,
        "identifier_fit": 0.061689,
        "carries_block": 0.345761,
        "instructs": 0.150636,
        "passage_cosine": 0.509113,
        "named_fit": 0.551855,
        "novel_name": 0.843193,
        "heading_cosine": 0.362047,
    },
    scales={
        "cosine": 0.146124,
        "cosine_first": 0.147874,
        "overlap": 0.226078,
        "weighted_overlap": 0.197132,
        "bigrams": 0.126329,
        "heading_overlap": 0.171054,
        "novelty": 0.597710,
        "rank": 0.295887,
        "opens_passage": 0.456987,
        "size": 0.780699,
        "code_fit": 0.468127,
        "number_fit": 0.121902,
        "default_fit": 0.172655,
        "place_fit": 0.214726,
        "name_fit": 0.252560,
        "identifier_fit": 0.235351,
        "carries_block": 0.475616,
        "instructs": 0.357694,
        "passage_cosine": 0.166245,
        "named_fit": 0.452214,
        "novel_name": 0.622506,
        "heading_cosine": 0.201675,
    },
)
"""The window score: a conditional logit over each question's windows (``selector``)."""

ANSWERABILITY = Rule(
    coefficients={
        "best": 0.000000,
        "cosine": 0.470914,
        "overlap": 0.000000,
        "coverage": 0.000000,
        "fit": 0.000000,
        "named": 0.171189,
        "retrieval": 0.000000,
        "focus": 0.576811,
        "asked_for": 0.364743,
        "unmatched": -0.562123,
    },
    intercept=2.414177,
    means={
        "best": 5.816687,
        "cosine": 0.594759,
        "overlap": 0.589585,
        "coverage": 0.624696,
        "fit": 0.955117,
        "named": 0.855775,
        "retrieval": 0.603499,
        "focus": 0.402765,
        "asked_for": 0.989258,
        "unmatched": 0.046679,
    },
    scales={
        "best": 2.952811,
        "cosine": 0.127927,
        "overlap": 0.231956,
        "coverage": 0.229799,
        "fit": 0.207048,
        "named": 0.296588,
        "retrieval": 0.123434,
        "focus": 0.299170,
        "asked_for": 0.068357,
        "unmatched": 0.219295,
    },
    threshold=0.6897,
)
"""P(answerable): a logistic model (each coefficient of its feature's sign) and the threshold (``answerability``)."""
