"""The tools the model sees, and the boundary where its tool calls become Decisions.

The pydantic input models are the one source of truth: the JSON schemas the
model is shown are generated from them, and the same models validate what
it sends. No tool accepts a tenant, a user, a group or a date: the loop runs
every search as the request's own scope.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError, model_validator

from ..errors import InputError
from ..record import Record
from ..search.query import clean_query
from .citations import MIN_QUOTE_WORDS
from .protocol import (
    AbstainDecision,
    Claim,
    ClaimsDecision,
    Decision,
    GradeDecision,
    InvalidDecision,
    SearchDecision,
    SearchPartsDecision,
    ToolName,
)

MAX_QUERY_CHARS = 500
MAX_TEXT_CHARS = 4000
MAX_CLAIMS = 20

Text = Annotated[str, StringConstraints(min_length=1, max_length=MAX_TEXT_CHARS)]
MAX_DROPPED = 10

# A query the model writes keeps the question's identifiers, numbers with units, quoted phrases and negations
# (``answer.drift``), unless it names what it leaves out and why: these two optional fields, on every tool that
# takes a query. The reason is for the model's own discipline; code reads only ``dropped``.
Dropped = Annotated[
    list[Annotated[str, StringConstraints(min_length=1, max_length=200)]] | None,
    Field(
        default=None,
        max_length=MAX_DROPPED,
        description="Only when the query leaves out on purpose an identifier, number, quoted phrase or negation of "
        "the question: each one left out, written as in the question. Give reason too.",
    ),
]
DropReason = Annotated[
    Annotated[str, StringConstraints(min_length=1, max_length=500)] | None,
    Field(default=None, description="With dropped: why the query leaves them out."),
]


def _reason_with_dropped(dropped: list[str] | None, reason: str | None) -> None:
    if dropped and reason is None:
        raise ValueError("give reason with dropped")


class SearchInput(Record):
    """Search the user's documents again with a new query. Use it only when the evidence so far does not
    contain the answer. Returns passages not seen before, or nothing."""

    model_config = ConfigDict(extra="forbid", strict=True)

    query: Annotated[str, StringConstraints(min_length=1, max_length=MAX_QUERY_CHARS)] = Field(
        description="Plain words to search for."
    )
    dropped: Dropped
    reason: DropReason

    @model_validator(mode="after")
    def _reason_given(self) -> SearchInput:
        _reason_with_dropped(self.dropped, self.reason)
        return self


class ClaimInput(Record):
    model_config = ConfigDict(extra="forbid", strict=True)

    statement: Text = Field(description="One sentence of the answer.")
    passage_id: Annotated[str, StringConstraints(min_length=1, max_length=500)] = Field(
        description="ID of the evidence passage that supports it."
    )
    quote: Text = Field(description=f"Exact words copied from that passage, at least {MIN_QUOTE_WORDS} words.")


class AbstainInput(Record):
    model_config = ConfigDict(extra="forbid", strict=True)

    reason: Annotated[str, StringConstraints(max_length=2000)] = Field(
        description="Why the evidence does not answer the question."
    )


class SubmitAnswerInput(Record):
    """Finish: either answer with claims, each supported by a verbatim quote of at least four words from
    one evidence passage, or abstain when the evidence does not answer the question."""

    model_config = ConfigDict(extra="forbid", strict=True)

    claims: list[ClaimInput] | None = Field(default=None, min_length=1, max_length=MAX_CLAIMS)
    abstain: AbstainInput | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> SubmitAnswerInput:
        if (self.claims is None) == (self.abstain is None):
            raise ValueError("give either claims or abstain")
        return self


Query = Annotated[str, StringConstraints(min_length=1, max_length=MAX_QUERY_CHARS)]
MIN_PARTS, MAX_PARTS = 2, 4


class SearchPartsInput(Record):
    """Use only when the question asks several things: split it into 2 to 4 short sub-queries, one per part;
    each is searched on its own with the employee's permissions, within the search budget. Returns the passages
    not seen before."""

    model_config = ConfigDict(extra="forbid", strict=True)

    queries: list[Query] = Field(
        min_length=MIN_PARTS, max_length=MAX_PARTS, description="One query of plain words per part of the question."
    )
    dropped: Dropped
    reason: DropReason

    @model_validator(mode="after")
    def _reason_given(self) -> SearchPartsInput:
        _reason_with_dropped(self.dropped, self.reason)
        return self


class GradeEvidenceInput(Record):
    """Judge the evidence before answering. sufficient: it answers every part of the question. irrelevant: it
    does not address the question (the run ends with an abstention). conflicting: two documents state different
    values for the same thing (cite both). missing: part of the answer is absent; name it in gap and it is
    searched once."""

    model_config = ConfigDict(extra="forbid", strict=True)

    verdict: Literal["sufficient", "irrelevant", "conflicting", "missing"] = Field(
        description="Your judgement of the evidence so far."
    )
    gap: Annotated[str, StringConstraints(min_length=1, max_length=MAX_QUERY_CHARS)] | None = Field(
        default=None, description="For missing: plain words for what is missing, to search for."
    )
    dropped: Dropped
    reason: DropReason

    @model_validator(mode="after")
    def _reason_given(self) -> GradeEvidenceInput:
        _reason_with_dropped(self.dropped, self.reason)
        return self


INPUTS: dict[ToolName, type[BaseModel]] = {
    "search": SearchInput,
    "submit_answer": SubmitAnswerInput,
    "search_parts": SearchPartsInput,
    "grade_evidence": GradeEvidenceInput,
}


class VerdictInput(Record):
    model_config = ConfigDict(extra="forbid", strict=True)

    claim: int = Field(ge=1, le=MAX_CLAIMS, description="The claim's number.")
    supported: bool = Field(
        description="True when the quote, read in its passage, supports the statement and the statement answers the "
        "question."
    )


class VerdictsInput(Record):
    """Give one verdict per numbered claim."""

    model_config = ConfigDict(extra="forbid", strict=True)

    verdicts: list[VerdictInput] = Field(min_length=1, max_length=MAX_CLAIMS)


def parse_verdicts(name: str | None, payload: object, claims: int) -> tuple[bool, ...] | str:
    """A verifier's tool call -> one verdict per claim (a claim without a verdict is unsupported), or an error."""
    if name != "submit_verdicts":
        return "the verifier called no submit_verdicts tool"
    try:
        parsed = VerdictsInput.model_validate(payload)
    except ValidationError as exc:
        return validation_kind(exc, "submit_verdicts")
    given = {v.claim: v.supported for v in parsed.verdicts}
    return tuple(given.get(i, False) for i in range(1, claims + 1))


TOOL_ORDER: tuple[ToolName, ...] = ("search", "search_parts", "grade_evidence", "submit_answer")
"""The order tools are offered in (the last one carries Anthropic's cache breakpoint)."""


def _model_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema as a tool schema: references
    inlined, titles dropped, optional means absent (not null)."""
    schema = model.model_json_schema()
    definitions = schema.pop("$defs", {})

    def clean(node: Any) -> Any:
        if isinstance(node, list):
            return [clean(n) for n in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            return clean(definitions[node["$ref"].rsplit("/", 1)[-1]])
        branches = node.get("anyOf")
        if branches and node.get("default", ...) is None and {"type": "null"} in branches and len(branches) == 2:
            (kept,) = [b for b in branches if b != {"type": "null"}]
            merged = {**{k: v for k, v in node.items() if k not in ("anyOf", "default")}, **clean(kept)}
            return clean(merged)
        # A string "title" is pydantic's label; a property named "title" is a dict and stays.
        return {k: clean(v) for k, v in node.items() if not (k == "title" and isinstance(v, str))}

    cleaned: dict[str, Any] = clean(schema)
    cleaned.pop("description", None)  # the tool's description carries it
    return cleaned


def tool_definition(name: ToolName) -> dict[str, Any]:
    """``{"name", "description", "input_schema"}`` for one tool, generated from its input model."""
    model = INPUTS[name]
    return {"name": name, "description": " ".join((model.__doc__ or "").split()), "input_schema": _model_schema(model)}


TOOLS: dict[ToolName, dict[str, Any]] = {name: tool_definition(name) for name in INPUTS}
VERIFY_TOOL: dict[str, Any] = {
    "name": "submit_verdicts",
    "description": " ".join((VerdictsInput.__doc__ or "").split()),
    "input_schema": _model_schema(VerdictsInput),
}
"""The verifier's one tool (``--verify``): a verdict per claim, nothing else."""


# --------------------------------------------------------------------------- errors in code's own words

NAMED_KEYS = frozenset(
    {"tenant", "tenants", "user", "users", "group", "groups", "acl", "as_of", "date", "principal", "scope", "filter"}
)
"""Unknown keys a trace may name: the ones a model might use to reach past its scope (worth seeing in an audit).
Any other key the model invents is its own text, and traces hold none: it is "an unknown key"."""
_SCHEMAS: tuple[type[BaseModel], ...] = (*INPUTS.values(), ClaimInput, AbstainInput, VerdictsInput, VerdictInput)
_KNOWN_FIELDS = frozenset(field for model in _SCHEMAS for field in model.model_fields)
_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.")


def known_tool(name: object) -> str | None:
    """``name`` if it is one of ragcli's tools, else None (another name is the model's text)."""
    return name if isinstance(name, str) and (name in INPUTS or name == "submit_verdicts") else None


API_WORDS = frozenset(
    {
        # Chat Completions finish reasons and tool call types; Anthropic stop reasons.
        "stop", "length", "tool_calls", "content_filter", "function_call", "function", "custom",
        "end_turn", "max_tokens", "stop_sequence", "tool_use", "pause_turn", "refusal",
    }
)  # fmt: skip


def safe_word(value: object, limit: int = 30) -> str:
    """An API enum (a finish reason, a call type) as a trace may hold it: one ragcli knows, else ``other``.

    With ``limit`` over 30 it checks an ID (a request ID): letters, digits, '_', '-' and '.' only, that long at most.
    """
    if isinstance(value, str) and (
        value in API_WORDS or (limit > 30 and 0 < len(value) <= limit and set(value) <= _WORD)
    ):
        return value
    return "other" if value is not None else "none"


def validation_kind(exc: ValidationError, where: str) -> str:
    """The first error as ``WHERE: field 'F' KIND``: the field's path and pydantic's error kind, never the value."""
    error = exc.errors(include_url=False)[0]
    parts = []
    for part in error["loc"]:
        if isinstance(part, int) or part in _KNOWN_FIELDS or part in NAMED_KEYS:
            parts.append(str(part))
        else:
            parts.append("?")
    path = ".".join(parts)
    if error["type"] == "extra_forbidden":
        key = parts[-1] if parts else "?"
        return f"{where}: unknown key '{key}'" if key != "?" else f"{where}: an unknown key"
    return f"{where}: field '{path}' {error['type']}" if path else f"{where}: {error['type']}"


def parse_tool_call(name: str | None, payload: object) -> Decision:
    """The boundary: turn a model's raw tool call into a typed Decision, or InvalidDecision (in code's own words)."""
    if name is None:
        return InvalidDecision("the model called no tool")
    if name not in INPUTS:
        return InvalidDecision("unknown tool (not one ragcli offers)")
    try:
        parsed = INPUTS[name].model_validate(payload)
    except ValidationError as exc:
        return InvalidDecision(validation_kind(exc, name), tool=name)
    if isinstance(parsed, SearchInput):
        try:
            clean_query(parsed.query)
        except InputError:
            # Whitespace or control characters only: the retriever would reject it
            # as the user's bad input (exit 2); here it is the model's.
            return InvalidDecision("search: field 'query' has no words to search for", tool=name)
        return SearchDecision(parsed.query, tuple(parsed.dropped or ()))
    if isinstance(parsed, SearchPartsInput):
        queries = []
        for query in parsed.queries:
            try:
                clean_query(query)
            except InputError:
                return InvalidDecision("search_parts: a query has no words to search for", tool=name)
            queries.append(query)
        return SearchPartsDecision(tuple(dict.fromkeys(queries)), tuple(parsed.dropped or ()))
    if isinstance(parsed, GradeEvidenceInput):
        gap = parsed.gap
        if gap is not None:
            try:
                clean_query(gap)
            except InputError:
                gap = None
        return GradeDecision(parsed.verdict, gap, tuple(parsed.dropped or ()))
    assert isinstance(parsed, SubmitAnswerInput)
    if parsed.abstain is not None:
        return AbstainDecision(parsed.abstain.reason)
    assert parsed.claims is not None
    return ClaimsDecision(tuple(Claim(c.statement, c.passage_id, c.quote) for c in parsed.claims))
