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
        "cosine": 1.345944,
        "cosine_first": 0.390785,
        "overlap": 0.640150,
        "weighted_overlap": 0.543087,
        "bigrams": 0.273585,
        "heading_overlap": 0.455112,
        "novelty": -0.179551,
        "rank": 0.164102,
        "opens_passage": 0.127765,
        "size": 0.571150,
        "code_fit": 0.659173,
        "number_fit": 0.478347,
        "default_fit": 0.181451,
        "place_fit": 0.074611,
        "name_fit": 0.000918,
        "identifier_fit": 0.199566,
        "carries_block": 0.559224,
        "instructs": 0.114240,
        "passage_cosine": 0.631507,
        "named_fit": 0.491522,
        "novel_name": 0.588943,
        "heading_cosine": -0.723478,
    },
    means={
        "cosine": 0.496190,
        "cosine_first": 0.483373,
        "overlap": 0.304342,
        "weighted_overlap": 0.151173,
        "bigrams": 0.057781,
        "heading_overlap": 0.156962,
        "novelty": 2.604262,
        "rank": 0.453749,
        "opens_passage": 0.309520,
        "size": 0.798366,
        "code_fit": 0.300296,
        "number_fit": 0.015591,
        "default_fit": 0.032887,
        "place_fit": 0.051286,
        "name_fit": 0.067479,
        "identifier_fit": 0.062374,
        "carries_block": 0.349175,
        "instructs": 0.157066,
        "passage_cosine": 0.509578,
        "named_fit": 0.551776,
        "novel_name": 0.822226,
        "heading_cosine": 0.360115,
    },
    scales={
        "cosine": 0.147003,
        "cosine_first": 0.148671,
        "overlap": 0.224420,
        "weighted_overlap": 0.196818,
        "bigrams": 0.125315,
        "heading_overlap": 0.164755,
        "novelty": 0.590293,
        "rank": 0.298046,
        "opens_passage": 0.462296,
        "size": 0.794054,
        "code_fit": 0.458387,
        "number_fit": 0.123888,
        "default_fit": 0.178341,
        "place_fit": 0.220580,
        "name_fit": 0.250849,
        "identifier_fit": 0.236873,
        "carries_block": 0.476709,
        "instructs": 0.363863,
        "passage_cosine": 0.166489,
        "named_fit": 0.451401,
        "novel_name": 0.626713,
        "heading_cosine": 0.202204,
    },
)
"""The window score: a conditional logit over each question's windows (``selector``)."""

ANSWERABILITY = Rule(
    coefficients={
        "best": 0.000000,
        "cosine": 0.420712,
        "overlap": 0.000000,
        "coverage": 0.000000,
        "fit": 0.000000,
        "named": 0.156881,
        "retrieval": 0.000000,
        "focus": 0.682518,
        "asked_for": 0.306065,
        "unmatched": -0.548401,
    },
    intercept=2.338491,
    means={
        "best": 5.877864,
        "cosine": 0.589895,
        "overlap": 0.584547,
        "coverage": 0.618745,
        "fit": 0.955357,
        "named": 0.861607,
        "retrieval": 0.601281,
        "focus": 0.397228,
        "asked_for": 0.979673,
        "unmatched": 0.050000,
    },
    scales={
        "best": 3.167688,
        "cosine": 0.129092,
        "overlap": 0.230052,
        "coverage": 0.228324,
        "fit": 0.206518,
        "named": 0.289948,
        "retrieval": 0.124260,
        "focus": 0.296754,
        "asked_for": 0.095390,
        "unmatched": 0.225990,
    },
    threshold=0.6689,
)
"""P(answerable): a logistic model (each coefficient of its feature's sign) and the threshold (``answerability``)."""
