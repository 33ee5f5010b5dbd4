"""``POST /v1/search`` and ``POST /v1/ask``: the CLI's ``--json`` objects over HTTP, for the credential's principal.

The request body names only what the CLI lets a caller choose per call
(``query``, ``k``, ``mode``; ``question``; ``as_of`` where ``[server]
allow_as_of`` permits it). The principal is the one the credential proved;
a body naming a tenant, user or group is refused, never read. Results come
from the library's own wire models (``SearchResponse.to_wire``,
``Outcome.to_wire``), the same path ``ragcli search --json`` and ``ragcli
ask --json`` print through. Status codes follow the CLI's exit codes: 200
with results or none (``"results": []``), 200 answered or abstained
(``disposition``), 400 with ``{"error": ...}`` for bad input.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import ConfigDict, Field, ValidationError

from ..errors import InputError, plain_validation_message
from ..principal import Principal, Scope
from ..record import Record
from ..search.config import TOP_K, Mode

if TYPE_CHECKING:
    from .workers import Worker

SCOPE_KEYS = frozenset({"tenant", "user", "users", "group", "groups", "principal", "acl"})


class SearchRequest(Record):
    """``POST /v1/search``: ``{"query": "...", "k": 5, "mode": "hybrid"}``."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    query: Annotated[str, Field(min_length=1)]
    k: int = Field(default=TOP_K, ge=1, le=1000)
    mode: Mode = "hybrid"
    as_of: dt.date | None = None


class AskRequest(Record):
    """``POST /v1/ask``: ``{"question": "..."}``."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    question: Annotated[str, Field(min_length=1)]
    as_of: dt.date | None = None


def parse_request(
    raw: bytes, model: type[SearchRequest] | type[AskRequest], *, max_chars: int, allow_as_of: bool
) -> SearchRequest | AskRequest:
    """The validated body; InputError in plain words (the key, what is allowed) when it is not acceptable."""
    where = "search" if model is SearchRequest else "ask"
    try:
        data = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"{where}: the body is not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise InputError(f"{where}: the body must be a JSON object")
    scope_keys = sorted(k for k in data if k.lower() in SCOPE_KEYS)
    if scope_keys:
        raise InputError(
            f"{where}: unknown key '{scope_keys[0]}': the user, tenant and groups come from the credential and "
            "no field can change them"
        )
    try:
        parsed = model.model_validate_json(raw)
    except ValidationError as exc:
        raise InputError(plain_validation_message(exc, where=where, known_fields=model.model_fields)) from None
    text = parsed.query if isinstance(parsed, SearchRequest) else parsed.question
    if len(text) > max_chars:
        field = "query" if isinstance(parsed, SearchRequest) else "question"
        raise InputError(f"{where}: field '{field}' is {len(text)} characters; this server takes at most {max_chars}")
    if parsed.as_of is not None and not allow_as_of:
        raise InputError(f"{where}: field 'as_of': this server answers as of today only ([server] allow_as_of)")
    return parsed


def scope_for(principal: Principal, as_of: dt.date | None) -> Scope:
    return Scope.of(principal, as_of)


def search_on(worker: Worker, principal: Principal, request: SearchRequest) -> tuple[str, dict[str, Any]]:
    """What ``ragcli search --json`` prints, and the facts for the log line (IDs, never text)."""
    retriever = worker.retriever
    config = replace(retriever.config, mode=request.mode)
    response = retriever.search(scope_for(principal, request.as_of), request.query, k=request.k, config=config)
    return response.to_wire().model_dump_json(), {"generation": response.generation, "results": response.ids}


def ask_on(worker: Worker, principal: Principal, request: AskRequest) -> tuple[str, dict[str, Any]]:
    """What ``ragcli ask --json`` prints, and the facts for the log line and the metrics."""
    from ..answer import Answered
    from ..answer import ask as run_ask
    from ..search.query import clean_query

    try:
        clean_query(request.question)
    except InputError:
        raise InputError("empty question: give the question to answer, in plain words") from None
    a = worker.answerer
    scope = scope_for(principal, request.as_of)
    outcome = run_ask(request.question, scope, worker.retriever, a)
    facts: dict[str, Any] = {
        "request_id": outcome.request_id,
        "generation": outcome.trace.generation,
        "disposition": outcome.disposition,
        "reason": "" if isinstance(outcome, Answered) else outcome.reason,
        "evidence": list(outcome.evidence_ids),
    }
    return outcome.to_wire().model_dump_json(), facts


__all__ = ["AskRequest", "SearchRequest", "ask_on", "parse_request", "search_on"]
