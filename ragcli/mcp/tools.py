"""The tools an MCP client sees: pydantic input models, their JSON schemas, and the one parser.

The input models are the one source of truth: ``tools/list`` shows the
schemas generated from them (``additionalProperties: false``), and the same
models validate every ``tools/call`` on the server, whatever the client did
or did not check. No tool has a tenant, user, group or date argument: the
principal and the as-of date are fixed when the server starts, so an unknown
key such as ``tenant`` is an error, never a hint.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from ..errors import InputError, plain_validation_message
from ..record import Record
from ..search.config import TOP_K
from ..search.query import clean_query

ToolName = Literal["search", "ask"]

MAX_K = 1000
"""The same bound as ``ragcli search -k``."""
MAX_INPUT_CHARS = 10_000
"""A bound on what a client may send; search itself cuts a query at 1,000 characters (with a note), as the CLI does."""
SCOPE_KEYS = frozenset(
    {"tenant", "user", "users", "group", "groups", "principal", "as_of", "as-of", "asof", "date", "day", "acl"}
)
"""Keys a client might try to widen its view with: named in the error so the caller learns why."""


class SearchArgs(Record):
    """Search the documents this user may see (BM25 + dense, fused with RRF). Returns the same object as
    `ragcli search --json`: ranked passages with ID, title, heading path, source and text."""

    model_config = ConfigDict(extra="forbid", strict=True)

    query: Annotated[str, StringConstraints(min_length=1, max_length=MAX_INPUT_CHARS)] = Field(
        description="What to look for, in plain words. Query syntax is not interpreted."
    )
    k: int = Field(default=TOP_K, ge=1, le=MAX_K, description="How many results.")


class AskArgs(Record):
    """Answer a question from the documents this user may see, with citations that code has checked
    against the cited passages, or abstain with a reason code and one generic message. Returns the same
    object as `ragcli ask --json`."""

    model_config = ConfigDict(extra="forbid", strict=True)

    question: Annotated[str, StringConstraints(min_length=1, max_length=MAX_INPUT_CHARS)] = Field(
        description="The question, in plain words."
    )


INPUTS: dict[ToolName, type[SearchArgs] | type[AskArgs]] = {"search": SearchArgs, "ask": AskArgs}

TITLES: dict[ToolName, str] = {"search": "Search the team's documents", "ask": "Ask the team's documents"}


def input_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema as a tool input schema: pydantic's
    titles dropped, ``additionalProperties: false`` kept."""
    schema = model.model_json_schema()
    schema.pop("title", None)
    schema.pop("description", None)  # the tool's description carries it
    for prop in schema.get("properties", {}).values():
        prop.pop("title", None)
    assert schema.get("additionalProperties") is False, model  # extra="forbid" is what makes arguments closed
    return schema


def description(name: ToolName) -> str:
    return " ".join((INPUTS[name].__doc__ or "").split())


def parse_arguments(name: str, arguments: object) -> SearchArgs | AskArgs:
    """Validate a ``tools/call``'s name and arguments; InputError (in plain words) when they are not acceptable."""
    if name not in INPUTS:
        raise InputError(f"unknown tool {name[:60]!r}: use one of {', '.join(INPUTS)}")
    model = INPUTS[name]
    payload = {} if arguments is None else arguments
    if isinstance(payload, dict):
        scope_keys = sorted(k for k in payload if isinstance(k, str) and k.lower() in SCOPE_KEYS)
        if scope_keys:
            raise InputError(
                f"{name}: unknown key '{scope_keys[0]}': the user, tenant, groups and date are fixed "
                "when the server starts and no argument can change them"
            )
    try:
        parsed = model.model_validate(payload)
    except ValidationError as exc:
        raise InputError(plain_validation_message(exc, where=name, known_fields=model.model_fields)) from None
    text = parsed.query if isinstance(parsed, SearchArgs) else parsed.question
    clean_query(text)  # raises InputError on whitespace or control characters only, as the CLI does
    return parsed
