"""The bounded answer loop: the model proposes, code decides.

The loop owns everything that matters for safety and cost: which scope every
search runs as, how many searches happen, which tools the model is offered
on each turn, and whether the claims it submits are supported. The model's
only exits are claims that pass the citation checks, or an abstention;
everything else (an invalid tool call, a tool it was not offered, a blown
budget) ends in an abstention with a reason code.

Each turn: the run (``answer.run``) says which tools are open and what the
model is shown; the model decides; ``refusal`` ends the run on a decision
code will not act on; else the decision's handler (``answer.handlers``) acts
on it and ends the run or goes on. Claims that pass the checks go through the
conflict rule (``answer.conflicts``): when another current, visible document
states a different value for what a claim relies on, the answer must cite
every side (and shows a conflict note); a model that cited one side gets one
turn to cite them all, else the run abstains with ``conflicting_evidence``.
``Answerer.plan`` offers decomposition (``search_parts``) and grading
(``grade_evidence``); a malformed ``search_parts`` call, like parts that find
nothing new, falls back once to the question's own search instead of ending
the run. A query the model writes that loses what the question asks about
(``answer.drift``) is refused with a note, once a run. A ``verifier`` judges
the surviving claims once more (``--verify``).
"""

from __future__ import annotations

import time

from ..principal import Scope
from ..search import Retriever
from .handlers import handle
from .outcome import Outcome, ReasonCode
from .protocol import (
    AnswerModel,
    Conversation,
    Decision,
    InvalidDecision,
    ModelReply,
    OutOfTime,
    SearchDecision,
    ToolName,
)
from .run import Run
from .setup import Answerer

PROMPT_VERSION = "2026-12-02.2"
"""What the model is told (the system prompt, the tools, code's notes, the evidence format), as a date and a
count that day; every trace records it. 2026-12-02: queries keep the question (written "2026-12-10.1" then, a
date after the commit) and sources shown relative to the ingested folder, never an absolute path."""


def ask(question: str, scope: Scope, retriever: Retriever, answerer: Answerer | AnswerModel) -> Outcome:
    """Answer ``question`` from what ``scope`` may see, or abstain with a reason.

    ``answerer``: the backend with its limits, switches and verifier (``backends.open_answerer``), taken whole;
    a bare backend answers with the defaults (``Answerer(model)``).

    With a verifier (``--verify``), claims that passed every check and the conflict rule go to a second
    model: a claim it judges unsupported is dropped; when none is left, or a dropped claim was one side of a
    conflict, or the verifier fails (timeout, API error, no verdict per claim), the run abstains
    (``citation_check_failed``; ``conflicting_evidence`` for a dropped side).
    """
    if not isinstance(answerer, Answerer):
        answerer = Answerer(answerer)
    # Lone surrogates (undecodable argv bytes, a JSON "\ud800" escape) cannot be encoded for a model: "?" instead.
    question = question.encode("utf-8", "replace").decode("utf-8")
    run = Run(question, scope, retriever, answerer, PROMPT_VERSION)
    conversation = answerer.model.conversation(question)
    ended = run.start()
    if ended is not None:
        return ended
    while run.may_take_turn():
        tools = run.next_turn()
        try:
            reply = _decide(run, conversation, tools)
        except OutOfTime:  # the model's server took the run's whole wall-clock budget
            return run.abstain("budget_exhausted")
        decision = reply.decision
        reason = refusal(run, decision, tools)
        if reason == "invalid_decision" and isinstance(decision, InvalidDecision) and not run.out_of_budget():
            if run.may_fall_back(decision.tool, tools):  # a malformed decomposition: go on from the question's search
                run.fall_back()
                continue
        if reason is not None:
            return run.abstain(reason)
        assert not isinstance(decision, InvalidDecision)  # refused above
        outcome = handle(run, decision)
        if outcome is not None:
            return outcome
    return run.abstain("budget_exhausted")  # max_turns model calls, and none of them ended the run


def _decide(run: Run, conversation: Conversation, tools: frozenset[ToolName]) -> ModelReply:
    """One model call: its time, tokens and decision recorded."""
    turn = run.turn(tools)
    t = time.perf_counter()
    try:
        reply = conversation.decide(turn)  # every request and retry ends by turn.deadline, or OutOfTime
    finally:
        run.trace.add_model_time((time.perf_counter() - t) * 1000)
    run.spent(reply.usage)
    run.trace.add_decision(
        run.turn_number,
        reply.decision,
        offered=sorted(tools),
        request_id=reply.request_id,
        verdict=reply.verdict,
        retrieved=run.evidence,
    )
    return reply


def refusal(run: Run, decision: Decision, offered: frozenset[ToolName]) -> ReasonCode | None:
    """Why the run ends without acting on ``decision``, or None: the decision's handler takes it."""
    if run.retrying_empty and not isinstance(decision, SearchDecision):
        return "no_visible_evidence"  # the one rewrite turn was not used to search: nothing visible to answer from
    if isinstance(decision, InvalidDecision):
        return "invalid_decision"
    if run.out_of_budget():
        return "budget_exhausted"
    if decision.tool not in offered:
        exhausted = decision.tool == "search" and run.searches_left() <= 0
        return "budget_exhausted" if exhausted else "invalid_decision"
    return None
