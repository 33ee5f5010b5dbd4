"""Does the evidence answer the question? The local answerer's abstention rule, fitted with its signs fixed.

An extractive answerer always finds a "best" window; the question is whether
it answers. The best window here is the judge's (``answerer.LocalModel.judge``:
the selector fitted without ``soft_overlap``, on whose windows this rule was
calibrated). Three rules decide, in order:

1. A question that names a distinctive thing (an identifier, a number, a
   capitalised or rare word; see ``question``) that no evidence passage
   mentions is not answered: the documents are about something else.
2. A "what is the X ..." (or "how many X ...") question whose best window
   (with its headings) holds less than half of X is not answered
   (``misses_asked_for``): "What is the phone bridge code for a SEV1
   incident?" is not answered by an outage timeline that says "bridge
   opened", nor "How many redirects ...?" by a sentence counting retries.
   Nor is any question whose best window, with its headings, holds none of
   its terms (``holds_nothing_asked``): "How many support agents work the
   night shift?" is not answered by a list of webhook events that is only
   close in meaning. Nor is a yes/no question ("Is there ...", "Can I ...",
   "Does ...") whose best window, with its headings, holds less of its
   weighted terms than the fitted ``Rule.yes_no_floor`` (``settles_too_little``):
   "Is there a key that shows git blame?" is not settled by a list of keys
   that never says "blame".
3. Otherwise a logistic model over a few signals, each of which can only
   move P(answerable) one way as it grows (the fit is constrained to those
   signs, so no weight contradicts what its feature means):

       best       the selector's score of the best window
       cosine     the best window's closest unit to the question, in meaning
       overlap    share of the question's terms the best window holds
       coverage   share of the question's terms its passage holds (title and headings included)
       fit        1 when the best window holds the kind of fact asked for (or nothing in particular is asked)
       named      share of what the question names (identifiers, capitalised and rare words) the best
                  window itself mentions (1 when it names nothing)
       retrieval  the best-ranked passage's similarity to the question (the dense ranker's cosine)
       asked_for  share of the thing a "what is the X ..." or "how many X ..." question asks for (X) the best
                  window or its headings hold (1 for other questions)
       focus      share of the question's terms (weighted by how few passages hold them) the best window or
                  its headings hold: the thing asked about, not only shared vocabulary
       unmatched  rare words of the question no passage holds in any form (the only feature that
                  can only make an answer less likely)

Every feature is defined whatever the evidence holds (one passage or ten).
The coefficients, the threshold and the yes/no floor are fitted by ``bench/answers.py`` and live
in ``backends.local.fitted``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ...answer.protocol import Found
from ...passage import Passage
from ...text import query_terms
from .question import Question
from .selector import FIT_OF_WANT, WindowFeatures

FEATURES = ("best", "cosine", "overlap", "coverage", "fit", "named", "retrieval", "focus", "asked_for", "unmatched")
SIGNS = {
    "best": 1,
    "cosine": 1,
    "overlap": 1,
    "coverage": 1,
    "fit": 1,
    "named": 1,
    "retrieval": 1,
    "focus": 1,
    "asked_for": 1,
    "unmatched": -1,
}
"""The direction each feature may move P(answerable): the fit bounds every coefficient to its sign."""
ASKED_FOR_FLOOR = 0.5
"""The share of the asked-for thing (X of "what is the X ...") the best window or its headings must hold. A fixed
rule, not fitted: chosen after a sample-corpus question ("phone bridge code", one word of three held) passed the
refitted rule by 0.002. On the fifteen development sets, left out (``bench/answers.py``, chunker 10), with it
against without: 372 against 371 of 501 answered right, 87 against 85 of 136 unanswerable questions abstained,
32 against 31 answerable ones abstained."""


def misses_asked_for(features: Mapping[str, float]) -> bool:
    """Whether the best window holds too little of the thing the question asks for (``ASKED_FOR_FLOOR``)."""
    return features["asked_for"] < ASKED_FOR_FLOOR


def holds_nothing_asked(features: Mapping[str, float]) -> bool:
    """Whether the best window, with its headings, holds none of the question's terms (``focus`` 0): it can only
    be close in meaning, and a wording that shares nothing with the question is no quote of its answer."""
    return features["focus"] == 0


def settles_too_little(features: Mapping[str, float], yes_no_floor: float) -> bool:
    """Whether a yes/no question's best window, with its headings, holds less than ``yes_no_floor`` of the
    question's weight (``yes_no_focus``): "Is there a key that shows git blame?" is not settled by a list of keys
    that never says "blame", however close in meaning; without the thing asked about, "yes" or "no" is a guess."""
    return features["yes_no_focus"] < yes_no_floor


def stopped(missing: Sequence[str], features: Mapping[str, float] | None, yes_no_floor: float = 0.0) -> bool:
    """Decided before the fitted rule (rules 1 and 2 above): the question names something no evidence holds, or the
    best window holds too little of the thing it asks for, or none of the question's terms, or (a yes/no question)
    too little of them to settle it."""
    if missing:
        return True
    if features is None:
        return False
    return misses_asked_for(features) or holds_nothing_asked(features) or settles_too_little(features, yes_no_floor)


@dataclass(frozen=True)
class Rule:
    """A logistic model over standardised features (each coefficient of its feature's sign) and the threshold."""

    coefficients: Mapping[str, float]
    intercept: float
    means: Mapping[str, float]
    scales: Mapping[str, float]
    threshold: float
    """Abstain under this P(answerable)."""
    yes_no_floor: float = 0.0
    """A yes/no question whose best window holds less of its weight than this is not answered (rule 2,
    ``settles_too_little``); fitted with the rule (``bench/fitting.py``: ``pick_yes_no_floor``)."""

    def stops(self, missing: Sequence[str], features: Mapping[str, float] | None) -> bool:
        """Whether rules 1 and 2 decide before the fitted model (``stopped``, with this rule's yes/no floor)."""
        return stopped(missing, features, self.yes_no_floor)

    def probability(self, values: Mapping[str, float]) -> float:
        """Each coefficient finds its feature by name; a feature without a coefficient plays no part (as
        ``selector.Weights``: numbers fitted before a feature was added still read)."""
        z = self.intercept + sum(c * (values[n] - self.means[n]) / self.scales[n] for n, c in self.coefficients.items())
        return 1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, z))))


def features(
    asked: Question,
    window: WindowFeatures,
    best: float,
    passage: Passage,
    evidence: Sequence[Passage],
    found: Mapping[str, Found],
    unmatched: Sequence[str] = (),
) -> dict[str, float]:
    """The answerability features of one question, from its best window (in ``passage``) and the evidence: the
    model's ``FEATURES`` and ``yes_no_focus`` (``focus`` for a yes/no question, else 1), which only rule 2 reads."""
    own = set(query_terms(passage.index_text))
    return {
        "best": best,
        "cosine": window.cosine,
        "overlap": window.overlap,
        "coverage": len(asked.terms & own) / len(asked.terms) if asked.terms else 1.0,
        "fit": _fit(asked, window),
        "named": window.named_fit,
        "retrieval": _retrieval(evidence, found),
        "focus": window.focus,
        "asked_for": window.asked_for,
        "yes_no_focus": window.focus if "yesno" in asked.wants else 1.0,
        "unmatched": float(len(unmatched)),
    }


def _fit(asked: Question, window: WindowFeatures) -> float:
    """1 when the best window holds a kind of thing the question asks for, or it asks for nothing in particular."""
    wanted = {FIT_OF_WANT[w] for w in asked.wants if w in FIT_OF_WANT}
    if not wanted:
        return 1.0
    return 1.0 if any(window[f] > 0 for f in wanted) else 0.0


def _retrieval(evidence: Sequence[Passage], found: Mapping[str, Found]) -> float:
    """The dense cosine of the best-ranked passage (0 when the dense ranker did not keep it)."""
    for passage in evidence:
        hit = found.get(passage.id)
        if hit is not None and hit.rank == 1:
            return hit.cosine if hit.cosine is not None else 0.0
    return 0.0
