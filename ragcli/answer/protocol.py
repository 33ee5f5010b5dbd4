"""The types the answer loop and every backend share: decisions, turns, usage.

A backend (``backends.local``, ``backends.anthropic``) implements ``AnswerModel``:
one ``Conversation`` per question whose ``decide(turn)`` turns the evidence
of that turn into one ``Decision``. The loop (``answer.loop``) owns everything
else: which principal searches, how many times, which tools are offered, and
whether claims pass the checks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

from ..passage import Passage

ToolName = Literal["search", "submit_answer", "search_parts", "grade_evidence"]
Verdict = Literal["sufficient", "irrelevant", "conflicting", "missing"]


@dataclass(frozen=True)
class Claim:
    """One sentence of an answer, the passage it cites and the words it quotes from it."""

    statement: str
    passage_id: str
    quote: str


@dataclass(frozen=True)
class SearchDecision:
    query: str
    dropped: tuple[str, ...] = ()
    """What of the question the model says this query leaves out on purpose (``answer.drift``), with a reason."""
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
class SearchPartsDecision:
    """Decomposition: 2 to 4 sub-queries of a question with several parts, each searched on its own."""

    queries: tuple[str, ...]
    dropped: tuple[str, ...] = ()
    """What of the question no part keeps, on purpose (``answer.drift``)."""
    tool: ToolName = "search_parts"


@dataclass(frozen=True)
class GradeDecision:
    """The model's judgement of the evidence so far; ``missing`` names the gap, searched once."""

    verdict: Verdict
    gap: str | None = None
    dropped: tuple[str, ...] = ()
    """What of the question the gap query leaves out on purpose (``answer.drift``)."""
    tool: ToolName = "grade_evidence"


@dataclass(frozen=True)
class InvalidDecision:
    """What the model sent could not be validated (unknown tool, bad input, no tool at all).

    ``error`` is written by code only (a field name and an error kind, never a value the model sent), since it
    is recorded in the trace: traces hold no model-written text."""

    error: str
    tool: str | None = None
    """The tool named, when it is one of ragcli's tools (any other name is the model's text)."""


class OutOfTime(Exception):
    """The run's wall-clock budget was spent while waiting for the model: the loop abstains ``budget_exhausted``."""


Decision = SearchDecision | ClaimsDecision | AbstainDecision | SearchPartsDecision | GradeDecision | InvalidDecision


@dataclass(frozen=True)
class ConflictSide:
    """One passage's side of a conflict: the value it states, and the sentence (or table row) that states it."""

    passage_id: str
    value: str
    """The quantity as the passage writes it (``4 hours``)."""
    quote: str
    """The sentence or table row, verbatim from the passage."""
    statement: str
    """The same as a person reads it (markup dropped)."""


@dataclass(frozen=True)
class Conflict:
    """Current, visible passages of different documents that state
    different values for the same thing (see ``answer.conflicts``)."""

    dimension: str
    """What the values measure and how they bind (``time/le`` for "within 4 hours"): see ``answer.conflicts``."""
    sides: tuple[ConflictSide, ...]
    """The side the answer relied on first, then every passage that disagrees with it."""

    @property
    def passage_ids(self) -> tuple[str, ...]:
        return tuple(s.passage_id for s in self.sides)


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
class Found:
    """How a passage was found: its place in its search's results and each ranker's view of it."""

    rank: int
    """Its place in the results of the search that found it (1 = best)."""
    of: int
    """How many results that search returned."""
    cosine: float | None
    """Its similarity in meaning to that search's query (dense ranker, -1..1;
    unrelated text is usually under 0.30), None when the dense ranker did not keep it."""
    bm25_rank: int | None
    """Its rank by word matches, None when it shares no kept word with the query."""
    dense_rank: int | None = None
    """Its rank by meaning, None when the dense ranker did not keep it."""
    row: int = -1
    """Its row in the generation that search read (-1: unknown): where a backend that reads the index's stored
    vectors finds its units' (the local answerer, ``backends.local.vectors``)."""
    generation: str = ""
    """The generation that search read (``SearchResponse.generation``): ``row`` means nothing in another one."""


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
    found: Mapping[str, Found] = field(default_factory=dict)
    """How each evidence passage was found, by passage ID."""
    omitted: int = 0
    """Passages the last search ranked but cut at k (they exist and are visible, but were not shown)."""
    note_only: bool = False
    """The last tool call ran no search (a grade): its result is ``note`` alone."""
    conflicts: tuple[Conflict, ...] = ()
    """Set on the one turn code gives the model after its claims relied on one side of a conflict:
    it must answer citing every side, or abstain (``conflicting_evidence``)."""
    deadline: float | None = None
    """When the run's wall-clock budget ends (``time.monotonic()``): every request and retry of this turn must end
    by then, or the backend raises OutOfTime."""


@dataclass(frozen=True)
class ModelReply:
    decision: Decision
    usage: Usage = field(default_factory=Usage)
    request_id: str | None = None
    """The API's ID of the request behind this reply (Anthropic, OpenAI), for the trace and the provider's support."""
    verdict: Verdict | None = None
    """The backend's own grade of the evidence behind this decision, when it has one (the local model's
    answerability: sufficient, missing or irrelevant); recorded in the trace."""


@dataclass(frozen=True)
class VerifierReply:
    """A second model's judgement of submitted claims: one verdict per claim, or an error."""

    supported: tuple[bool, ...] | None
    """Per claim, in order: the quote supports the statement and
    the statement answers the question. None: the verifier failed."""
    usage: Usage = field(default_factory=Usage)
    request_id: str | None = None
    error: str | None = None
    """Why there are no verdicts (a timeout, an API error, a reply that is not a verdict per claim)."""


@runtime_checkable  # backends.verifier_for tells an LLM backend (which can verify) from the local one
class Verifier(Protocol):
    """``--verify``: a second pass over claims that passed the deterministic checks (an LLM backend)."""

    name: str

    def verify(
        self,
        question: str,
        claims: tuple[Claim, ...],
        passages: Mapping[str, Passage],
        *,
        deadline: float | None = None,
    ) -> VerifierReply: ...

    def cost_usd(self, usage: Usage) -> float | None: ...


class Conversation(Protocol):
    def decide(self, turn: Turn) -> ModelReply: ...


class AnswerModel(Protocol):
    """A backend: local, anthropic or openai. One conversation per question."""

    name: str
    retry_on_empty: bool
    """Whether the model gets one turn to rewrite a query whose first search found nothing."""
    expands_neighbours: bool
    """Whether a result that points at a neighbouring section ("the table above") brings that section along
    (LLM backends: they read the evidence as a whole; the local answerer scores sentences it was asked about)."""

    def conversation(self, question: str) -> Conversation: ...

    def cost_usd(self, usage: Usage) -> float | None:
        """What ``usage`` cost in US dollars, or None when the backend has no price."""
        ...
