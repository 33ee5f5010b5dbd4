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
        "cosine": 0.945934,
        "cosine_first": 0.201394,
        "overlap": 0.642878,
        "weighted_overlap": 0.688418,
        "bigrams": 0.289207,
        "heading_overlap": 0.084626,
        "novelty": -0.189058,
        "rank": 0.117248,
        "opens_passage": 0.157537,
        "size": 0.474368,
        "code_fit": 0.723500,
        "number_fit": 0.484746,
        "default_fit": 0.193612,
        "place_fit": 0.212761,
        "name_fit": 0.082859,
        "identifier_fit": 0.168947,
        "carries_block": 0.405343,
        "instructs": 0.157622,
        "passage_cosine": 0.887141,
        "named_fit": 0.488213,
        "novel_name": 0.704152,
    },
    means={
        "cosine": 0.518835,
        "cosine_first": 0.506156,
        "overlap": 0.339318,
        "weighted_overlap": 0.168434,
        "bigrams": 0.066426,
        "heading_overlap": 0.177882,
        "novelty": 2.613493,
        "rank": 0.446833,
        "opens_passage": 0.325880,
        "size": 0.784242,
        "code_fit": 0.315856,
        "number_fit": 0.011846,
        "default_fit": 0.038834,
        "place_fit": 0.060774,
        "name_fit": 0.074513,
        "identifier_fit": 0.061171,
        "carries_block": 0.366045,
        "instructs": 0.182392,
        "passage_cosine": 0.532340,
        "named_fit": 0.584483,
        "novel_name": 0.840807,
    },
    scales={
        "cosine": 0.141971,
        "cosine_first": 0.144051,
        "overlap": 0.228456,
        "weighted_overlap": 0.209199,
        "bigrams": 0.134437,
        "heading_overlap": 0.169755,
        "novelty": 0.597932,
        "rank": 0.296588,
        "opens_passage": 0.468703,
        "size": 0.791086,
        "code_fit": 0.464856,
        "number_fit": 0.108194,
        "default_fit": 0.193198,
        "place_fit": 0.238915,
        "name_fit": 0.262604,
        "identifier_fit": 0.234983,
        "carries_block": 0.481722,
        "instructs": 0.386167,
        "passage_cosine": 0.164474,
        "named_fit": 0.448733,
        "novel_name": 0.642779,
    },
)
"""The window score: a conditional logit over each question's windows (``selector``)."""

ANSWERABILITY = Rule(
    coefficients={
        "best": 0.000000,
        "cosine": 0.653496,
        "overlap": 0.439453,
        "coverage": 0.000000,
        "fit": 0.154753,
        "named": 0.155402,
        "retrieval": 0.000000,
        "focus": 0.397803,
        "asked_for": 0.498900,
        "unmatched": -0.468419,
    },
    intercept=2.470536,
    means={
        "best": 5.768975,
        "cosine": 0.605686,
        "overlap": 0.630517,
        "coverage": 0.662090,
        "fit": 0.958525,
        "named": 0.879570,
        "retrieval": 0.617665,
        "focus": 0.437172,
        "asked_for": 0.940246,
        "unmatched": 0.057604,
    },
    scales={
        "best": 2.950620,
        "cosine": 0.123320,
        "overlap": 0.209168,
        "coverage": 0.208747,
        "fit": 0.199385,
        "named": 0.277552,
        "retrieval": 0.121627,
        "focus": 0.299342,
        "asked_for": 0.211315,
        "unmatched": 0.232992,
    },
    threshold=0.6471,
)
"""P(answerable): a logistic model (each coefficient of its feature's sign) and the threshold (``answerability``)."""
