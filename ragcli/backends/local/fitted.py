"""The local answerer's fitted numbers. Written by bench/answers.py; do not edit by hand.

Fitted on the 11 development corpora with:

    python bench/answers.py --index DIR --write

uv-docs, material, docsy, prettier, myst, rustup, lazygit, nox, mkdocstrings-python, jekyll, black

Reported only on corpora left out of the fit (see bench/answers.py and docs/defaults.md).
"""

from __future__ import annotations

from .answerability import Rule
from .selector import Weights

SELECTOR = Weights(
    weights={
        "cosine": 0.931080,
        "cosine_first": 0.217049,
        "overlap": 0.692201,
        "weighted_overlap": 0.620619,
        "bigrams": 0.264614,
        "heading_overlap": 0.118579,
        "novelty": -0.225980,
        "rank": 0.122036,
        "opens_passage": 0.168253,
        "size": 0.540371,
        "code_fit": 0.675659,
        "number_fit": 0.470259,
        "default_fit": 0.151282,
        "place_fit": 0.214549,
        "name_fit": 0.101603,
        "identifier_fit": 0.205001,
        "carries_block": 0.485031,
        "instructs": 0.162900,
        "passage_cosine": 0.819659,
        "named_fit": 0.453768,
        "novel_name": 0.647279,
    },
    means={
        "cosine": 0.518188,
        "cosine_first": 0.505414,
        "overlap": 0.337943,
        "weighted_overlap": 0.167041,
        "bigrams": 0.066969,
        "heading_overlap": 0.178616,
        "novelty": 2.605876,
        "rank": 0.448395,
        "opens_passage": 0.317398,
        "size": 0.791196,
        "code_fit": 0.323619,
        "number_fit": 0.011833,
        "default_fit": 0.036446,
        "place_fit": 0.059571,
        "name_fit": 0.074515,
        "identifier_fit": 0.061420,
        "carries_block": 0.365339,
        "instructs": 0.178173,
        "passage_cosine": 0.531576,
        "named_fit": 0.581152,
        "novel_name": 0.839911,
    },
    scales={
        "cosine": 0.142511,
        "cosine_first": 0.144516,
        "overlap": 0.227983,
        "weighted_overlap": 0.208769,
        "bigrams": 0.135527,
        "heading_overlap": 0.170594,
        "novelty": 0.591824,
        "rank": 0.297436,
        "opens_passage": 0.465464,
        "size": 0.792794,
        "code_fit": 0.467857,
        "number_fit": 0.108135,
        "default_fit": 0.187397,
        "place_fit": 0.236691,
        "name_fit": 0.262607,
        "identifier_fit": 0.235014,
        "carries_block": 0.481525,
        "instructs": 0.382658,
        "passage_cosine": 0.164823,
        "named_fit": 0.449461,
        "novel_name": 0.633784,
    },
)
"""The window score: a conditional logit over each question's windows (``selector``)."""

ANSWERABILITY = Rule(
    coefficients={
        "best": 0.000000,
        "cosine": 0.728558,
        "overlap": 0.288379,
        "coverage": 0.000000,
        "fit": 0.153991,
        "named": 0.078984,
        "retrieval": 0.000000,
        "focus": 0.539917,
        "asked_for": 0.501646,
        "unmatched": -0.467224,
    },
    intercept=2.461190,
    means={
        "best": 5.735687,
        "cosine": 0.606323,
        "overlap": 0.630005,
        "coverage": 0.659233,
        "fit": 0.953917,
        "named": 0.879186,
        "retrieval": 0.617221,
        "focus": 0.433696,
        "asked_for": 0.940246,
        "unmatched": 0.055300,
    },
    scales={
        "best": 2.876884,
        "cosine": 0.122591,
        "overlap": 0.209135,
        "coverage": 0.209343,
        "fit": 0.209665,
        "named": 0.279110,
        "retrieval": 0.122190,
        "focus": 0.299563,
        "asked_for": 0.211315,
        "unmatched": 0.228564,
    },
    threshold=0.6645,
)
"""P(answerable): a logistic model (each coefficient of its feature's sign) and the threshold (``answerability``)."""
