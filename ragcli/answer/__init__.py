"""The answer layer: a question and a scope in, checked claims or an abstention out.

protocol   the types the loop and every backend share (decisions, turns, usage)
tools      the tools the model sees (schemas generated from their input models)
citations  the four deterministic checks every claim must pass
conflicts  current sources that state different values for the same thing (flagged, never ranked away)
trace      one JSON line per run, passage IDs only
outcome    ``Answered`` | ``Abstained``, reason codes, the ``--json`` shape
loop       ``ask()``: the bounded loop that owns scope, budgets and checks
replay     re-running a traced run's searches to say whether each ranking still matches
"""

from .loop import Limits, ask
from .outcome import ABSTAIN_MESSAGE, REASON_CODES, Abstained, Answered, Outcome, ReasonCode
from .protocol import AnswerModel

__all__ = [
    "ABSTAIN_MESSAGE",
    "REASON_CODES",
    "Abstained",
    "AnswerModel",
    "Answered",
    "Limits",
    "Outcome",
    "ReasonCode",
    "ask",
]
