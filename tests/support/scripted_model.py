"""A scripted fake LLM: a list of decisions played in order, through ``answer.protocol``.

A test double of the model only. Everything it drives is real: the loop, the
retriever over a real index, the citation checks and the conflict rule. Each
step is a ``Decision``, a ``ModelReply`` (for usage, request IDs or a
verdict), or a callable that gets the ``Turn`` and returns either, so a step
can cite what the loop just showed. Every turn is recorded; a decision asked
for after the last step fails the test.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ragcli.answer.protocol import (
    AbstainDecision,
    Claim,
    ClaimsDecision,
    Decision,
    GradeDecision,
    InvalidDecision,
    ModelReply,
    SearchDecision,
    SearchPartsDecision,
    Turn,
    Usage,
    Verdict,
    VerifierReply,
)
from ragcli.passage import Passage

Step = Decision | ModelReply | Callable[[Turn], "Decision | ModelReply"]


class ScriptOverrun(AssertionError):
    """The loop asked the model for more decisions than the script holds."""


@dataclass
class ScriptedModel:
    """Implements ``AnswerModel``: one conversation per question, each ``decide`` the next step of the script."""

    steps: list[Step]
    name: str = "scripted"
    retry_on_empty: bool = True
    expands_neighbours: bool = False
    turns: list[Turn] = field(default_factory=list)
    """Every turn the loop gave the model, in order."""
    questions: list[str] = field(default_factory=list)

    def conversation(self, question: str) -> _Conversation:
        self.questions.append(question)
        return _Conversation(self)

    def cost_usd(self, usage: Usage) -> float | None:
        return None

    @property
    def calls(self) -> int:
        return len(self.turns)

    @property
    def remaining(self) -> int:
        return len(self.steps)


class _Conversation:
    def __init__(self, model: ScriptedModel) -> None:
        self.model = model

    def decide(self, turn: Turn) -> ModelReply:
        self.model.turns.append(turn)
        if not self.model.steps:
            raise ScriptOverrun(f"turn {len(self.model.turns)}: the script has no decision left")
        step = self.model.steps.pop(0)
        if callable(step):
            step = step(turn)
        return step if isinstance(step, ModelReply) else ModelReply(step)


def scripted(*steps: Step, retry_on_empty: bool = True, expands_neighbours: bool = False) -> ScriptedModel:
    """A model that plays ``steps``; ``expands_neighbours`` as an LLM backend (True) or the local answerer (False)."""
    return ScriptedModel(list(steps), retry_on_empty=retry_on_empty, expands_neighbours=expands_neighbours)


# --------------------------------------------------------------------------- decisions, as a model would make them


def search(query: str, dropped: tuple[str, ...] = ()) -> SearchDecision:
    """``search``; ``dropped``: what of the question it leaves out on purpose (given with a reason)."""
    return SearchDecision(query, dropped)


def parts(*queries: str, dropped: tuple[str, ...] = ()) -> SearchPartsDecision:
    return SearchPartsDecision(tuple(queries), dropped)


def grade(verdict: Verdict, gap: str | None = None, dropped: tuple[str, ...] = ()) -> GradeDecision:
    return GradeDecision(verdict, gap, dropped)


def claims(*cited: tuple[str, str, str]) -> ClaimsDecision:
    """``submit_answer`` with claims given as (statement, passage_id, quote)."""
    return ClaimsDecision(tuple(Claim(s, p, q) for s, p, q in cited))


def abstain(reason: str = "The evidence does not answer the question.") -> AbstainDecision:
    return AbstainDecision(reason)


def invalid(error: str = "search: field 'query' is missing", tool: str | None = "search") -> InvalidDecision:
    return InvalidDecision(error, tool)


def costing(decision: Decision, input_tokens: int, output_tokens: int = 0, request_id: str | None = None) -> ModelReply:
    """``decision`` with the tokens the API would have reported for it."""
    return ModelReply(decision, Usage(input_tokens, output_tokens), request_id)


def slow(decision: Decision, seconds: float) -> Callable[[Turn], Decision]:
    """``decision``, after ``seconds`` of wall-clock time (a model that takes long to answer)."""

    def step(turn: Turn) -> Decision:
        time.sleep(seconds)
        return decision

    return step


# --------------------------------------------------------------------------- the verifier (--verify)


@dataclass
class ScriptedVerifier:
    """Implements ``Verifier``: each call returns the next verdicts (one bool per claim), or a failure (None)."""

    replies: list[tuple[bool, ...] | None]
    name: str = "scripted-verifier"
    usage: Usage = field(default_factory=Usage)
    calls: list[tuple[str, tuple[Claim, ...], dict[str, Passage]]] = field(default_factory=list)

    def verify(
        self,
        question: str,
        claims: tuple[Claim, ...],
        passages: Mapping[str, Passage],
        *,
        deadline: float | None = None,
    ) -> VerifierReply:
        self.calls.append((question, claims, dict(passages)))
        if not self.replies:
            raise ScriptOverrun("the verifier's script has no verdict left")
        verdicts = self.replies.pop(0)
        error = None if verdicts is not None else "scripted failure"
        return VerifierReply(verdicts, self.usage, "req_verify", error)

    def cost_usd(self, usage: Usage) -> float | None:
        return None
