"""Fitting the local answerer's numbers (used by answers.py): a conditional logit, a sign-bounded logistic
regression and a threshold. numpy and scipy only; every function is deterministic.

Not a script: ``answers.py`` imports it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ragcli.backends.local.answerability import Rule
from ragcli.backends.local.selector import Weights, WindowFeatures

if TYPE_CHECKING:
    from ragcli.answer.protocol import Found
    from ragcli.backends.local.answerer import Candidates
    from ragcli.eval.cases import Case
    from ragcli.passage import Passage

L2_SELECTOR = 1.0
"""Ridge penalty on the standardised selector weights (a fixed choice, not tuned)."""
L2_RULE = 0.5
"""Ridge penalty on the standardised answerability coefficients (a fixed choice, not tuned)."""


@dataclass
class Collected:
    """One case with the evidence its first search found and every candidate window's features."""

    case: Case
    evidence: tuple[Passage, ...]
    found: dict[str, Found]
    candidates: Candidates


@dataclass
class Example:
    """One question: its candidate windows' features, which hold a gold answer, and whether it is answerable."""

    collected: Collected
    values: list[WindowFeatures]
    labels: list[bool]
    answerable: bool


def _standardise(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mean = matrix.mean(axis=0)
    scale = matrix.std(axis=0)
    scale[scale < 1e-9] = 1.0
    return mean, scale


def fit_selector(examples: Sequence[Example], features: Sequence[str] | None = None) -> Weights:
    """A conditional logit: over each answerable question's windows, those holding the answer should win.

    Maximises sum over questions of log(sum_{right windows} e^s / sum_{all windows} e^s) - L2 |w|^2,
    with s = w . standardised features; questions with no right window (or one window) teach nothing.
    ``features``: the selector's (``SELECTED``) unless given (the judge's, ``JUDGED``).
    """
    from scipy.optimize import minimize

    from ragcli.backends.local.selector import SELECTED

    FEATURES = tuple(features or SELECTED)
    groups = [
        (np.array([v.row(FEATURES) for v in e.values], dtype=float), np.array(e.labels, dtype=bool))
        for e in examples
        if e.answerable and any(e.labels) and len(e.labels) > 1
    ]
    mean, scale = _standardise(np.vstack([x for x, _ in groups]))
    groups = [((x - mean) / scale, y) for x, y in groups]

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        value = L2_SELECTOR * float(w @ w)
        grad = 2 * L2_SELECTOR * w
        for x, y in groups:
            s = x @ w
            e = np.exp(s - s.max())
            right = e * y
            value -= float(np.log(right.sum()) - np.log(e.sum()))
            grad += x.T @ (e / e.sum() - right / right.sum())
        return value, grad

    w = minimize(loss, np.zeros(len(FEATURES)), jac=True, method="L-BFGS-B").x
    return Weights(
        weights={n: float(v) for n, v in zip(FEATURES, w, strict=True)},
        means={n: float(v) for n, v in zip(FEATURES, mean, strict=True)},
        scales={n: float(v) for n, v in zip(FEATURES, scale, strict=True)},
    )


def rule_features(example: Example, selector: Weights, yes_no_floor: float = 0.0) -> dict[str, float] | None:
    """The answerability features of ``example`` with windows scored by ``selector``; None when the
    question is decided before the rule (no window at all, it names something no passage mentions, its best
    window holds too little of what it asks for, or, a yes/no question, less of it than ``yes_no_floor``)."""
    from ragcli.backends.local import answerability

    c = example.collected
    if not example.values:
        return None
    scores = [selector.score(v) for v in example.values]
    best = int(np.argmax(scores))
    window, values = c.candidates.windows[best]
    features = answerability.features(
        c.candidates.question, values, scores[best], window.first.passage, c.evidence, c.found, c.candidates.unmatched
    )
    return None if answerability.stopped(c.candidates.missing, features, yes_no_floor) else features


Row = tuple[str, Example, Weights]
"""One training question for the rule: its corpus, itself, and the selector fitted without that corpus."""


def _corpus_weights(rows: Sequence[Row]) -> np.ndarray:
    """Each corpus weighs the same in all, whatever its number of questions."""
    per: dict[str, int] = defaultdict(int)
    for corpus, _, _ in rows:
        per[corpus] += 1
    return np.array([1.0 / per[corpus] for corpus, _, _ in rows]) * len(rows) / len(per)


def pick_yes_no_floor(rows: Sequence[Row], rule: Rule) -> float:
    """The yes/no floor (``answerability.settles_too_little``): of the training yes/no questions ``rule`` (fitted
    without a floor) answers, the floor stops the most unanswerable ones net of the answerable ones (corpora
    weighted equally), and is the lowest that does: just above the ``yes_no_focus`` of the last one it stops; 0
    when stopping none is best."""
    seen: list[tuple[float, bool, float]] = []  # (yes_no_focus, answerable, corpus weight)
    for (_, example, selector), weight in zip(rows, _corpus_weights(rows), strict=True):
        values = rule_features(example, selector)
        if values is not None and values["yes_no_focus"] < 1.0 and rule.probability(values) >= rule.threshold:
            seen.append((values["yes_no_focus"], example.answerable, weight))
    best, floor = 0.0, 0.0
    for value in sorted({focus for focus, _, _ in seen}):
        gain = sum(-w if answerable else w for focus, answerable, w in seen if focus <= value)
        if gain > best + 1e-9:
            best, floor = gain, float(np.nextafter(value, 1.0))
    return floor


def fit_rule(rows: Sequence[Row], yes_no_floor: float = 0.0) -> Rule:
    """Logistic regression for P(answerable), every standardised coefficient bounded to its feature's sign, over the
    questions the hard rules (with ``yes_no_floor``) leave to it."""
    from scipy.optimize import minimize

    from ragcli.backends.local.answerability import FEATURES, SIGNS

    feats, labels, weights = [], [], []
    for (_, example, selector), weight in zip(rows, _corpus_weights(rows), strict=True):
        values = rule_features(example, selector, yes_no_floor)
        if values is not None:
            feats.append([values[n] for n in FEATURES])
            labels.append(1.0 if example.answerable else 0.0)
            weights.append(weight)
    x, y, sw = np.array(feats), np.array(labels), np.array(weights)
    mean, scale = _standardise(x)
    z = (x - mean) / scale

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        b, w = theta[0], theta[1:]
        p = 1.0 / (1.0 + np.exp(-np.clip(b + z @ w, -40, 40)))
        eps = 1e-12
        value = -float(np.sum(sw * (y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps)))) + L2_RULE * float(w @ w)
        r = sw * (p - y)
        return value, np.concatenate([[r.sum()], z.T @ r + 2 * L2_RULE * w])

    bounds = [(None, None)] + [(0.0, None) if SIGNS[n] > 0 else (None, 0.0) for n in FEATURES]
    theta = minimize(loss, np.zeros(len(FEATURES) + 1), jac=True, method="L-BFGS-B", bounds=bounds).x
    return Rule(
        coefficients={n: float(v) for n, v in zip(FEATURES, theta[1:], strict=True)},
        intercept=float(theta[0]),
        means={n: float(v) for n, v in zip(FEATURES, mean, strict=True)},
        scales={n: float(v) for n, v in zip(FEATURES, scale, strict=True)},
        threshold=0.5,
        yes_no_floor=yes_no_floor,
    )


def pick_threshold(rule: Rule, rows: Sequence[Row], max_abstain: float) -> float:
    """The highest threshold under which at most ``max_abstain`` of the answerable training questions
    abstain (corpora weighted equally; questions a hard rule stops, ``answerability.stopped`` with the rule's
    yes/no floor, count as abstained)."""
    probabilities, answerable, weights = [], [], []
    for (_, example, selector), weight in zip(rows, _corpus_weights(rows), strict=True):
        values = rule_features(example, selector, rule.yes_no_floor)
        probabilities.append(-1.0 if values is None else rule.probability(values))  # None: it abstains anyway
        answerable.append(example.answerable)
        weights.append(weight)
    p, a, w = np.array(probabilities), np.array(answerable), np.array(weights)
    budget = max_abstain * w[a].sum()
    best = 0.0
    for t in sorted(set(p[a].tolist()) | {0.0}):
        if w[a & (p < t)].sum() <= budget + 1e-9:
            best = max(best, t)
    return float(best)
