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
        "cosine": 1.206079,
        "cosine_first": 0.619445,
        "overlap": 0.668026,
        "weighted_overlap": 0.574354,
        "bigrams": 0.278611,
        "heading_overlap": 0.466279,
        "novelty": -0.199732,
        "rank": 0.118075,
        "opens_passage": 0.125279,
        "size": 0.530703,
        "code_fit": 0.686235,
        "number_fit": 0.449209,
        "default_fit": 0.204743,
        "place_fit": 0.094548,
        "name_fit": -0.010742,
        "identifier_fit": 0.221525,
        "carries_block": 0.540615,
        "instructs": 0.123718,
        "passage_cosine": 0.681147,
        "named_fit": 0.385942,
        "novel_name": 0.624853,
        "heading_cosine": -0.798612,
    },
    means={
        "cosine": 0.497182,
        "cosine_first": 0.484512,
        "overlap": 0.307576,
        "weighted_overlap": 0.153493,
        "bigrams": 0.058575,
        "heading_overlap": 0.154594,
        "novelty": 2.618885,
        "rank": 0.451325,
        "opens_passage": 0.318683,
        "size": 0.791428,
        "code_fit": 0.295433,
        "number_fit": 0.015240,
        "default_fit": 0.033756,
        "place_fit": 0.054926,
        "name_fit": 0.068657,
        "identifier_fit": 0.063178,
        "carries_block": 0.357589,
        "instructs": 0.159368,
        "passage_cosine": 0.509987,
        "named_fit": 0.559107,
        "novel_name": 0.826664,
        "heading_cosine": 0.360165,
    },
    scales={
        "cosine": 0.147161,
        "cosine_first": 0.148778,
        "overlap": 0.225730,
        "weighted_overlap": 0.199629,
        "bigrams": 0.126508,
        "heading_overlap": 0.164210,
        "novelty": 0.588983,
        "rank": 0.297763,
        "opens_passage": 0.465966,
        "size": 0.792520,
        "code_fit": 0.456237,
        "number_fit": 0.122505,
        "default_fit": 0.180601,
        "place_fit": 0.227835,
        "name_fit": 0.252870,
        "identifier_fit": 0.238030,
        "carries_block": 0.479290,
        "instructs": 0.366018,
        "passage_cosine": 0.168636,
        "named_fit": 0.454848,
        "novel_name": 0.629164,
        "heading_cosine": 0.202422,
    },
)
"""The window score: a conditional logit over each question's windows (``selector``)."""

ANSWERABILITY = Rule(
    coefficients={
        "best": 0.000000,
        "cosine": 0.443030,
        "overlap": 0.000000,
        "coverage": 0.000000,
        "fit": 0.041514,
        "named": 0.194433,
        "retrieval": 0.000000,
        "focus": 0.568968,
        "asked_for": 0.529451,
        "unmatched": -0.524417,
    },
    intercept=2.168477,
    means={
        "best": 5.758963,
        "cosine": 0.587405,
        "overlap": 0.580901,
        "coverage": 0.614881,
        "fit": 0.958692,
        "named": 0.855536,
        "retrieval": 0.601112,
        "focus": 0.394644,
        "asked_for": 0.943517,
        "unmatched": 0.048193,
    },
    scales={
        "best": 3.233787,
        "cosine": 0.128632,
        "overlap": 0.230535,
        "coverage": 0.229022,
        "fit": 0.199002,
        "named": 0.299102,
        "retrieval": 0.124513,
        "focus": 0.295828,
        "asked_for": 0.203538,
        "unmatched": 0.222064,
    },
    threshold=0.6537,
)
"""P(answerable): a logistic model (each coefficient of its feature's sign) and the threshold (``answerability``)."""
