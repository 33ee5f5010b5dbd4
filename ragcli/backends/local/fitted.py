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
        "cosine": 1.643193,
        "cosine_first": 0.343984,
        "overlap": 0.590583,
        "weighted_overlap": 0.469736,
        "bigrams": 0.236611,
        "heading_overlap": 0.459945,
        "novelty": -0.179575,
        "rank": 0.301884,
        "opens_passage": 0.158212,
        "size": 0.516948,
        "code_fit": 0.779173,
        "number_fit": 0.549896,
        "default_fit": 0.235302,
        "place_fit": 0.064411,
        "name_fit": 0.142266,
        "identifier_fit": 0.084331,
        "carries_block": 0.581625,
        "instructs": 0.079038,
        "passage_cosine": 0.163751,
        "named_fit": 0.521533,
        "novel_name": 0.553111,
        "heading_cosine": -0.796085,
    },
    means={
        "cosine": 0.496554,
        "cosine_first": 0.483022,
        "overlap": 0.305364,
        "weighted_overlap": 0.150953,
        "bigrams": 0.058148,
        "heading_overlap": 0.163343,
        "novelty": 2.558047,
        "rank": 0.451495,
        "opens_passage": 0.297078,
        "size": 0.746178,
        "code_fit": 0.324269,
        "number_fit": 0.015096,
        "default_fit": 0.030530,
        "place_fit": 0.048481,
        "name_fit": 0.068512,
        "identifier_fit": 0.061722,
        "carries_block": 0.345607,
        "instructs": 0.155990,
        "passage_cosine": 0.509187,
        "named_fit": 0.551725,
        "novel_name": 0.843304,
        "heading_cosine": 0.362118,
    },
    scales={
        "cosine": 0.146104,
        "cosine_first": 0.147862,
        "overlap": 0.226101,
        "weighted_overlap": 0.197167,
        "bigrams": 0.126356,
        "heading_overlap": 0.171074,
        "novelty": 0.597670,
        "rank": 0.295918,
        "opens_passage": 0.456971,
        "size": 0.780683,
        "code_fit": 0.468101,
        "number_fit": 0.121934,
        "default_fit": 0.172041,
        "place_fit": 0.214780,
        "name_fit": 0.252622,
        "identifier_fit": 0.235410,
        "carries_block": 0.475566,
        "instructs": 0.362846,
        "passage_cosine": 0.166250,
        "named_fit": 0.452220,
        "novel_name": 0.622469,
        "heading_cosine": 0.201687,
    },
)
"""The window score: a conditional logit over each question's windows (``selector``)."""

ANSWERABILITY = Rule(
    coefficients={
        "best": 0.000000,
        "cosine": 0.495212,
        "overlap": 0.000000,
        "coverage": 0.000000,
        "fit": 0.000000,
        "named": 0.144711,
        "retrieval": 0.000000,
        "focus": 0.436729,
        "asked_for": 0.371931,
        "unmatched": -0.629876,
    },
    intercept=2.452361,
    means={
        "best": 5.848755,
        "cosine": 0.595089,
        "overlap": 0.592298,
        "coverage": 0.627567,
        "fit": 0.954874,
        "named": 0.857852,
        "retrieval": 0.604246,
        "focus": 0.406515,
        "asked_for": 0.988297,
        "unmatched": 0.045126,
    },
    scales={
        "best": 2.938556,
        "cosine": 0.127964,
        "overlap": 0.230677,
        "coverage": 0.228280,
        "fit": 0.207581,
        "named": 0.294625,
        "retrieval": 0.123171,
        "focus": 0.298284,
        "asked_for": 0.071612,
        "unmatched": 0.216102,
    },
    threshold=0.7304,
    yes_no_floor=0.10879557291973159,
)
"""P(answerable): a logistic model (each coefficient of its feature's sign), its threshold and the yes/no floor
(``answerability``)."""
