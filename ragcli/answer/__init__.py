"""The answer layer: a question and a scope in, checked claims or an abstention out.

protocol   the types the loop and every backend share (decisions, turns, usage)
setup      ``AnswerSetup`` (what the options say), ``Answerer`` (it opened), ``Limits`` (a run's budgets)
tools      the tools the model sees (schemas generated from their input models)
citations  the four deterministic checks every claim must pass
conflicts  current sources that state different values for the same thing (flagged, never ranked away)
notes      what code tells the model between turns (the wording, in one place)
drift      what a query the model writes must keep of the question (identifiers, numbers, quotes, negations)
trace      one JSON line per run, passage IDs only (no model-written text)
outcome    ``Answered`` | ``Abstained``, reason codes, the ``--json`` shape
run        ``Run``: one ask's state (evidence, budgets, what the next turn shows); every search goes through it
handlers   one handler per kind of decision (search, parts, grade, abstain, claims)
loop       ``ask()``: the bounded loop that owns scope, budgets and checks
replay     re-running a traced run's searches as the caller, to say whether each ranking still matches
currency   what became of traced passage IDs on the published generation (unchanged, changed, vanished)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import export_names, lazy_exports

# Loaded on first use: the CLI reads the answer options' defaults (``setup``) to build its --help, and must not
# pay for the loop (the retriever: numpy, Tantivy) or pydantic (``outcome``) to do so.
if TYPE_CHECKING:  # the exports, once: "X as X" for type checkers, read by ``lazy`` for the runtime
    from .loop import ask as ask
    from .outcome import ABSTAIN_MESSAGE as ABSTAIN_MESSAGE
    from .outcome import REASON_CODES as REASON_CODES
    from .outcome import Abstained as Abstained
    from .outcome import Answered as Answered
    from .outcome import Outcome as Outcome
    from .outcome import ReasonCode as ReasonCode
    from .protocol import AnswerModel as AnswerModel
    from .setup import Answerer as Answerer
    from .setup import AnswerSetup as AnswerSetup
    from .setup import Limits as Limits

__all__ = export_names(__file__)


__getattr__ = lazy_exports(__name__, __file__)
