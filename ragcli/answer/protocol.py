"""The types the answer loop and every backend share: decisions, turns, usage.

A backend (``models.local``, ``models.anthropic``) implements ``AnswerModel``:
one ``Conversation`` per question whose ``decide(turn)`` turns the evidence
of that turn into one ``Decision``. The loop (``answer.loop``) owns everything
else: which principal searches, how many times, which tools are offered, and
whether claims pass the checks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol, Union

from ..passage import Passage

ToolName = Literal["search", "submit_answer"]


@dataclass(frozen=True)
class Claim:
    """One sentence of an answer, the passage it cites and the words it quotes from it."""

    statement: str
    passage_id: str
    quote: str


@dataclass(frozen=True)
class SearchDecision:
    query: str
    tool: ToolName = "search"


@dataclass(frozen=True)
class ClaimsDecision:
    claims: tuple[Claim, ...]
    tool: ToolName = "submit_answer"


@dataclass(frozen=True)
class AbstainDecision:
    reason: str
    tool: ToolName = "submit_answer"


@dataclass(frozen=True)
class InvalidDecision:
    """What the model sent could not be validated (unknown tool, bad input, no tool at all)."""

    error: str
    tool: str | None = None


Decision = Union[SearchDecision, ClaimsDecision, AbstainDecision, InvalidDecision]


@dataclass
class Usage:
    """Tokens a run spent, as the API reports them."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0

    def add(self, other: Usage) -> None:
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.cache_creation_input_tokens += other.cache_creation_input_tokens
        self.cache_read_input_tokens += other.cache_read_input_tokens

    @property
    def total(self) -> int:
        return self.input_tokens + self.output_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens


@dataclass(frozen=True)
class Turn:
    """What the model is given on one turn."""

    question: str
    evidence: tuple[Passage, ...]
    """Every passage retrieved for this principal so far, in the order found."""
    new_evidence: tuple[Passage, ...]
    """Passages found by the model's last search (empty on the first turn or when it found nothing new)."""
    tools: frozenset[ToolName]
    note: str = ""
    """A fact from code about the last step (for example: the first search found nothing)."""


@dataclass(frozen=True)
class ModelReply:
    decision: Decision
    usage: Usage = field(default_factory=Usage)
    request_id: str | None = None
    """The API's ID of the request behind this reply (Anthropic, OpenAI), for the trace and the provider's support."""


class Conversation(Protocol):
    def decide(self, turn: Turn) -> ModelReply: ...


class AnswerModel(Protocol):
    """A backend: local, anthropic or openai. One conversation per question."""

    name: str
    retry_on_empty: bool
    """Whether the model gets one turn to rewrite a query whose first search found nothing."""

    def conversation(self, question: str) -> Conversation: ...

    def cost_usd(self, usage: Usage) -> float | None:
        """What ``usage`` cost in US dollars, or None when the backend has no price."""
        ...
