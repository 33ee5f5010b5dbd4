"""The answer layer: a question and a scope in, checked claims or an abstention out.

protocol   the types the loop and every backend share (decisions, turns, usage)
setup      ``AnswerSetup`` (what the options say), ``Answerer`` (it opened), ``Limits`` (a run's budgets)
tools      the tools the model sees (schemas generated from their input models)
citations  the four deterministic checks every claim must pass
conflicts  current sources that state different values for the same thing (flagged, never ranked away)
notes      what code tells the model between turns (the wording, in one place)
trace      one JSON line per run, passage IDs only
outcome    ``Answered`` | ``Abstained``, reason codes, the ``--json`` shape
run        ``Run``: one ask's state (evidence, budgets, what the next turn shows); every search goes through it
handlers   one handler per kind of decision (search, parts, grade, abstain, claims)
loop       ``ask()``: the bounded loop that owns scope, budgets and checks
replay     re-running a traced run's searches to say whether each ranking still matches
"""

from .loop import ask
from .outcome import ABSTAIN_MESSAGE, REASON_CODES, Abstained, Answered, Outcome, ReasonCode
from .protocol import AnswerModel
from .setup import Answerer, AnswerSetup, Limits

__all__ = [
    "ABSTAIN_MESSAGE",
    "REASON_CODES",
    "Abstained",
    "AnswerModel",
    "AnswerSetup",
    "Answered",
    "Answerer",
    "Limits",
    "Outcome",
    "ReasonCode",
    "ask",
]
