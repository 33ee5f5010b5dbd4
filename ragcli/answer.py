"""The bounded answer loop: the model proposes, code decides.

The loop owns everything that matters for safety and cost: which principal
every search runs as, how many searches happen, which tools the model is
offered on each turn, and whether the claims it submits are supported.
The model's only exits are claims that pass the citation checks, or an
abstention; everything else (an invalid tool call, a tool it was not offered,
a blown budget) ends in an abstention with a reason code and one generic
message, the same for every reason, so a forbidden document and a missing
one look identical.
"""

from __future__ import annotations

import datetime as dt
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, Protocol, Union

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError, model_validator

from .chunking import Passage
from .citations import CheckResult, all_passed, check_claims
from .principal import Principal
from .errors import InputError
from .retriever import Retriever, SearchResponse, clean_query
from .trace import Trace

ReasonCode = Literal["no_visible_evidence", "citation_check_failed", "model_abstained", "invalid_decision", "budget_exhausted"]
REASON_CODES: tuple[ReasonCode, ...] = ("no_visible_evidence", "citation_check_failed", "model_abstained", "invalid_decision", "budget_exhausted")

ABSTAIN_MESSAGE = "I can't answer that from the documents available to you."
"""One sentence for every abstention: the reason code says why, the message never does."""

ToolName = Literal["search", "submit_answer"]
PROMPT_VERSION = "2026-11-29.1"


# --------------------------------------------------------------------------- tools the model sees

SEARCH_TOOL: dict[str, Any] = {
    "name": "search",
    "description": (
        "Search the user's documents again with a new query. Use it only when the evidence so far "
        "does not contain the answer. Returns passages not seen before, or nothing."
    ),
    "input_schema": {
        "type": "object",
        "properties": {"query": {"type": "string", "description": "Plain words to search for.", "minLength": 1, "maxLength": 500}},
        "required": ["query"],
        "additionalProperties": False,
    },
}

SUBMIT_ANSWER_TOOL: dict[str, Any] = {
    "name": "submit_answer",
    "description": (
        "Finish: either answer with claims, each supported by a verbatim quote of at least four words "
        "from one evidence passage, or abstain when the evidence does not answer the question."
    ),
    "input_schema": {
        "type": "object",
        "properties": {
            "claims": {
                "type": "array",
                "minItems": 1,
                "items": {
                    "type": "object",
                    "properties": {
                        "statement": {"type": "string", "description": "One sentence of the answer."},
                        "passage_id": {"type": "string", "description": "ID of the evidence passage that supports it."},
                        "quote": {"type": "string", "description": "Exact words copied from that passage."},
                    },
                    "required": ["statement", "passage_id", "quote"],
                    "additionalProperties": False,
                },
            },
            "abstain": {
                "type": "object",
                "properties": {"reason": {"type": "string", "description": "Why the evidence does not answer the question."}},
                "required": ["reason"],
                "additionalProperties": False,
            },
        },
        "additionalProperties": False,
    },
}

TOOLS: dict[ToolName, dict[str, Any]] = {"search": SEARCH_TOOL, "submit_answer": SUBMIT_ANSWER_TOOL}


# --------------------------------------------------------------------------- validated tool input

Text = Annotated[str, StringConstraints(min_length=1, max_length=4000)]


class SearchInput(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    query: Annotated[str, StringConstraints(min_length=1, max_length=500)]


class ClaimInput(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    statement: Text
    passage_id: Annotated[str, StringConstraints(min_length=1, max_length=500)]
    quote: Text


class AbstainInput(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    reason: Annotated[str, StringConstraints(max_length=2000)]


class SubmitAnswerInput(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    claims: list[ClaimInput] | None = Field(default=None, min_length=1, max_length=20)
    abstain: AbstainInput | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> SubmitAnswerInput:
        if (self.claims is None) == (self.abstain is None):
            raise ValueError("give either claims or abstain")
        return self


# --------------------------------------------------------------------------- decisions


@dataclass(frozen=True)
class Claim:
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


def parse_tool_call(name: str | None, payload: object) -> Decision:
    """The boundary: turn a model's raw tool call into a typed Decision, or InvalidDecision."""
    if name is None:
        return InvalidDecision("the model called no tool")
    if name not in TOOLS:
        return InvalidDecision(f"unknown tool {name[:60]!r}", tool=name[:60])
    try:
        if name == "search":
            query = SearchInput.model_validate(payload).query
            try:
                clean_query(query)
            except InputError:
                # Whitespace or control characters only: the retriever would
                # reject it as the user's bad input (exit 2); it is the model's.
                return InvalidDecision("search: query: has no words to search for", tool=name)
            return SearchDecision(query)
        parsed = SubmitAnswerInput.model_validate(payload)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "input"
        return InvalidDecision(f"{name}: {where}: {first['msg']}", tool=name)
    if parsed.abstain is not None:
        return AbstainDecision(parsed.abstain.reason)
    assert parsed.claims is not None
    return ClaimsDecision(tuple(Claim(c.statement, c.passage_id, c.quote) for c in parsed.claims))


# --------------------------------------------------------------------------- the model interface


@dataclass
class Usage:
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

    def to_json(self) -> dict[str, int]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cache_creation_input_tokens": self.cache_creation_input_tokens,
            "cache_read_input_tokens": self.cache_read_input_tokens,
        }


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


class Conversation(Protocol):
    def decide(self, turn: Turn) -> ModelReply: ...


class AnswerModel(Protocol):
    """A backend: local or anthropic. One conversation per question."""

    name: str
    retry_on_empty: bool
    """Whether the model gets one turn to rewrite a query whose first search found nothing."""

    def conversation(self, question: str) -> Conversation: ...


# --------------------------------------------------------------------------- the loop


@dataclass(frozen=True)
class Limits:
    max_searches: int = 3
    max_turns: int = 6
    max_tokens: int = 200_000
    timeout_s: float = 120.0
    retry_on_empty: bool = True


@dataclass(frozen=True)
class CitedClaim:
    statement: str
    passage: Passage
    quote: str


@dataclass
class Outcome:
    """What ``ask`` returns: an answer, or an abstention with a reason code."""

    disposition: Literal["answered", "abstained"]
    claims: list[CitedClaim]
    reason: ReasonCode | None
    searches: int
    model: str
    request_id: str
    usage: Usage
    evidence_ids: list[str]
    checks: list[CheckResult]
    trace: Trace

    @property
    def message(self) -> str | None:
        return ABSTAIN_MESSAGE if self.disposition == "abstained" else None

    @property
    def sources(self) -> list[Passage]:
        """Cited passages, each once, in order of first citation."""
        seen: dict[str, Passage] = {}
        for c in self.claims:
            seen.setdefault(c.passage.id, c.passage)
        return list(seen.values())

    @property
    def answer(self) -> str | None:
        """The claims as prose with numbered markers pointing at ``sources``."""
        if self.disposition != "answered":
            return None
        number = {p.id: i for i, p in enumerate(self.sources, start=1)}
        return " ".join(f"{c.statement.strip()} [{number[c.passage.id]}]" for c in self.claims)

    def to_json(self) -> dict[str, Any]:
        return {
            "disposition": self.disposition,
            "answer": self.answer,
            "claims": [
                {"statement": c.statement, "passage_id": c.passage.id, "quote": c.quote, "source": c.passage.source_url or c.passage.source}
                for c in self.claims
            ],
            "sources": [
                {"n": i, "passage_id": p.id, "title": p.heading_label, "source": p.source_url or p.source}
                for i, p in enumerate(self.sources, start=1)
            ],
            "reason": self.reason,
            "message": self.message,
            "searches": self.searches,
            "model": self.model,
            "request_id": self.request_id,
            "usage": self.usage.to_json(),
        }


class _Run:
    """State of one ask: evidence, counters, trace. Lives for one question."""

    def __init__(self, question: str, principal: Principal, as_of: dt.date, retriever: Retriever, model: AnswerModel, limits: Limits) -> None:
        self.question = question
        self.principal = principal
        self.as_of = as_of
        self.retriever = retriever
        self.model = model
        self.limits = limits
        self.started = time.monotonic()
        self.evidence: dict[str, Passage] = {}
        self.searches = 0
        self.usage = Usage()
        self.checks: list[CheckResult] = []
        self.request_id = uuid.uuid4().hex
        self.trace = Trace.start(self.request_id, principal, as_of, model.name, PROMPT_VERSION)

    def search(self, query: str) -> list[Passage]:
        """Search as the run's principal, always; return the passages not seen before."""
        t = time.perf_counter()
        response: SearchResponse = self.retriever.search(self.principal, query, as_of=self.as_of)
        self.searches += 1
        new = [r.passage for r in response.results if r.passage.id not in self.evidence]
        for p in new:
            self.evidence[p.id] = p
        self.trace.add_search(response, [p.id for p in new], (time.perf_counter() - t) * 1000)
        return new

    def finish(self, disposition: Literal["answered", "abstained"], reason: ReasonCode | None, claims: Sequence[CitedClaim] = ()) -> Outcome:
        self.trace.finish(disposition, reason, self.usage, (time.monotonic() - self.started) * 1000)
        return Outcome(
            disposition=disposition,
            claims=list(claims),
            reason=reason,
            searches=self.searches,
            model=self.model.name,
            request_id=self.request_id,
            usage=self.usage,
            evidence_ids=list(self.evidence),
            checks=self.checks,
            trace=self.trace,
        )

    def out_of_budget(self) -> bool:
        return time.monotonic() - self.started > self.limits.timeout_s or self.usage.total > self.limits.max_tokens


def ask(
    question: str,
    principal: Principal,
    retriever: Retriever,
    model: AnswerModel,
    *,
    as_of: dt.date | None = None,
    limits: Limits | None = None,
) -> Outcome:
    """Answer ``question`` for ``principal`` from what it may see, or abstain with a reason."""
    limits = limits or Limits()
    run = _Run(question, principal, as_of or dt.date.today(), retriever, model, limits)
    conversation = model.conversation(question)
    new = run.search(question)
    note = ""
    if not new:
        if not (model.retry_on_empty and limits.retry_on_empty and limits.max_searches > 1):
            return run.finish("abstained", "no_visible_evidence")
        note = "The first search found no passages. You may search once more with different words, or abstain."
    search_open = limits.max_searches > 1
    retrying_empty = not new
    for turn_number in range(1, limits.max_turns + 1):
        tools: set[ToolName] = {"submit_answer"}
        if search_open and run.searches < limits.max_searches:
            tools.add("search")
        t = time.perf_counter()
        reply = conversation.decide(Turn(question, tuple(run.evidence.values()), tuple(new), frozenset(tools), note))
        run.trace.add_model_time((time.perf_counter() - t) * 1000)
        run.usage.add(reply.usage)
        decision = reply.decision
        run.trace.add_decision(turn_number, decision, offered=sorted(tools))
        if retrying_empty and not isinstance(decision, SearchDecision):
            # The one rewrite turn was not used to search: nothing visible to answer from.
            return run.finish("abstained", "no_visible_evidence")
        if isinstance(decision, InvalidDecision):
            return run.finish("abstained", "invalid_decision")
        if run.out_of_budget():
            return run.finish("abstained", "budget_exhausted")
        if decision.tool not in tools:
            exhausted = decision.tool == "search" and run.searches >= limits.max_searches
            return run.finish("abstained", "budget_exhausted" if exhausted else "invalid_decision")
        if isinstance(decision, SearchDecision):
            new = run.search(decision.query)
            note = "" if new else "That search found no new passages; no more searches are allowed."
            if not new:
                search_open = False
                if retrying_empty:
                    return run.finish("abstained", "no_visible_evidence")
            retrying_empty = False
            continue
        if isinstance(decision, AbstainDecision):
            return run.finish("abstained", "model_abstained")
        assert isinstance(decision, ClaimsDecision)
        t = time.perf_counter()
        run.checks = check_claims(decision.claims, run.evidence)
        run.trace.add_checks(run.checks, [c.passage_id for c in decision.claims], (time.perf_counter() - t) * 1000)
        if not all_passed(run.checks):
            return run.finish("abstained", "citation_check_failed")
        cited = [CitedClaim(c.statement, run.evidence[c.passage_id], c.quote) for c in decision.claims]
        return run.finish("answered", None, cited)
    return run.finish("abstained", "budget_exhausted")
