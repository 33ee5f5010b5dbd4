"""An OpenAI-compatible answering model, through the official ``openai`` SDK (Chat Completions with tools).

``openai:MODEL`` talks to the OpenAI API with $OPENAI_API_KEY.
``openai:MODEL@URL`` (or $RAGCLI_OPENAI_BASE_URL) talks to any server that
speaks Chat Completions with tools: Ollama, vLLM, the llama.cpp server, LM
Studio. A local server needs no key; without one the SDK is given a
placeholder, because it refuses to start keyless.

The model sees what the anthropic backend shows Claude (``backends.prompt``:
the same system prompt, the same evidence format) and the same tools
(``search`` and ``submit_answer``; with ``--plan`` also ``search_parts`` and
``grade_evidence``), generated from the same pydantic input models (``answer.tools``) in the
Chat Completions ``{"type": "function", "function": ...}`` shape. Its tool
calls cross the same boundary (``answer.tools.parse_tool_call``); a reply in
plain text, arguments that are not JSON, or anything the schemas reject is
an InvalidDecision, and the loop abstains with ``invalid_decision``.

The loop acts on one tool call per turn. When a server returns several
parallel calls anyway, the first search runs and every other call is
answered "not run", because Chat Completions requires a tool message for
every ``tool_call_id`` before the next turn; parallel calls that include
``submit_answer`` are ambiguous and invalid.

API failures (429, 5xx, timeouts, connection errors) are retried (up to
``max_retries``, never past the run's deadline: ``backends.bounds``); what still
fails becomes a BackendError (exit 2), never a silent abstention, and a run
whose time is spent abstains ``budget_exhausted``. A reply over its size cap
is refused; negative usage counts are clamped at zero and make the reply
invalid. Every request ID the server reported (``x-request-id``) is kept in
``OpenAIModel.request_ids`` and named in the error of a failed request.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..answer.protocol import Claim, InvalidDecision, ModelReply, OutOfTime, Turn, Usage, VerifierReply
from ..answer.tools import TOOL_ORDER, TOOLS, VERIFY_TOOL, parse_verdicts
from ..errors import BackendError
from ..passage import Passage
from ..settings import openai_api_key, openai_base_url
from .bounds import CompressedReply, ReplyTooLarge, bounded_http_client, reply_cap, with_retries
from .openai_reply import (
    ToolCall,
    assistant_param,
    decision_of,
    is_retried_status,
    request_id_of,
    retry_after,
    usage_of,
)
from .openai_server import OPENAI_API_URL, check_url, parse_spec, shown_url
from .prompt import SYSTEM_PROMPT, VERIFY_SYSTEM_PROMPT, first_turn_message, search_result, tool_result, verify_message

PLACEHOLDER_KEY = "ragcli-no-key"
"""Sent as the key to a server given by URL when OPENAI_API_KEY is not set (a local server ignores it)."""

PRICES: dict[str, tuple[float, float, float]] = {
    # US dollars per million tokens on the OpenAI API (standard tier): input, output, cached input.
    # Exact model names only: a dated snapshot may be priced differently. Any other server: no price.
    "gpt-4o": (2.50, 10.00, 1.25),
    "gpt-4o-mini": (0.15, 0.60, 0.075),
    "gpt-4.1": (2.00, 8.00, 0.50),
    "gpt-4.1-mini": (0.40, 1.60, 0.10),
    "gpt-4.1-nano": (0.10, 0.40, 0.025),
    "gpt-5": (1.25, 10.00, 0.125),
    "gpt-5-mini": (0.25, 2.00, 0.025),
    "gpt-5-nano": (0.05, 0.40, 0.005),
}
MAX_OUTPUT_TOKENS = 4096
"""Reasoning models spend part of this on reasoning before the tool call."""
MAX_RETRIES = 3
TIMEOUT_S = 60.0
SERVER_TIMEOUT_S = 300.0
"""Per request, for a server given by URL: a local model on a CPU reads a long prompt slowly."""

KEPT_REQUEST_IDS = 1000
"""A long-lived model (``ragcli mcp``) keeps only this many request IDs."""

NOT_RUN = (
    "Not run: only one tool call runs per turn, and only the first one ran. Call search again if you still need it."
)


def tool_definitions(offered: frozenset[str]) -> list[dict[str, Any]]:
    """The tools of this turn in the Chat Completions shape, in a fixed order."""
    return [
        {
            "type": "function",
            "function": {
                "name": TOOLS[name]["name"],
                "description": TOOLS[name]["description"],
                "parameters": TOOLS[name]["input_schema"],
            },
        }
        for name in TOOL_ORDER
        if name in offered
    ]


# --------------------------------------------------------------------------- the backend


class OpenAIModel:
    """``openai:MODEL[@URL]``.

    ``base_url`` None means the OpenAI API. Pass ``client`` to inject a
    configured ``openai.OpenAI``, or ``http_client`` (an ``httpx2.Client``)
    for the one this model builds.
    """

    retry_on_empty = True
    expands_neighbours = True

    def __init__(
        self,
        model_name: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        client: Any = None,
        http_client: Any = None,
        max_retries: int = MAX_RETRIES,
        timeout: float | None = None,
        max_output_tokens: int = MAX_OUTPUT_TOKENS,
    ) -> None:
        self.model_name = model_name
        self.base_url = base_url
        self.name = f"openai:{model_name}" + (f"@{shown_url(base_url)}" if base_url else "")
        self.where = f"the server at {shown_url(base_url)}" if base_url else "the OpenAI API"
        self._api_key = api_key
        self.http_client = http_client
        self.max_retries = max_retries
        self.timeout = timeout if timeout is not None else (SERVER_TIMEOUT_S if base_url else TIMEOUT_S)
        self.max_output_tokens = max_output_tokens
        self.request_ids: list[str] = []
        """The request IDs the server reported, in order, across
        this model's conversations (the last KEPT_REQUEST_IDS)."""
        self._client = client
        if client is not None:  # an injected client says how often to retry; ragcli runs the retries itself
            retries = getattr(client, "max_retries", max_retries)
            self.max_retries = retries if isinstance(retries, int) else max_retries

    @classmethod
    def from_spec(cls, rest: str) -> OpenAIModel:
        """What follows ``openai:`` in ``--model`` (or $RAGCLI_MODEL), with the key and server from the environment."""
        name, url = parse_spec(rest)
        if url is None and (env_url := openai_base_url()) is not None:
            url = check_url(env_url, where="RAGCLI_OPENAI_BASE_URL")
        key = openai_api_key()
        if key is None and url is None:
            raise BackendError(
                "no OpenAI key: set OPENAI_API_KEY, or point at a local server with "
                "--model openai:MODEL@URL or RAGCLI_OPENAI_BASE_URL, or use --model local"
            )
        return cls(name, base_url=url, api_key=key or PLACEHOLDER_KEY)

    @property
    def client(self) -> Any:
        if self._client is None:
            import openai

            try:
                self._client = openai.OpenAI(
                    api_key=self._api_key,
                    # Always explicit: the SDK would otherwise read $OPENAI_BASE_URL behind our back.
                    base_url=self.base_url or OPENAI_API_URL,
                    max_retries=0,  # ragcli retries, within the run's deadline (backends.bounds)
                    timeout=self.timeout,
                    http_client=self.http_client if self.http_client is not None else bounded_http_client(),
                )
            except openai.OpenAIError:
                raise BackendError("no OpenAI key: set OPENAI_API_KEY, or use --model local") from None
        return self._client

    def conversation(self, question: str) -> _Conversation:
        return _Conversation(self, question)

    def send(self, request: Any, deadline: float | None) -> Any:
        """``request(client, timeout, attempt)`` with ragcli's retries, bounded by ``deadline`` and the reply cap.

        Raises OutOfTime when the deadline passes; a reply over the cap or compressed is a BackendError.
        """
        client = self.client.with_options(max_retries=0)

        def attempt(n: int, left: float | None) -> Any:
            timeout = self.timeout if left is None else min(self.timeout, left)
            return request(client, timeout, n)

        try:
            return with_retries(
                attempt,
                deadline=deadline,
                max_retries=self.max_retries,
                retry_after=retry_after,
                cap=reply_cap(self.max_output_tokens),
            )
        except ReplyTooLarge as exc:
            raise BackendError(f"{self.where} sent a reply larger than {exc.cap:,} bytes; refused") from None
        except CompressedReply as exc:
            raise BackendError(f"{self.where}: {exc}; refused") from None

    def cost_usd(self, usage: Usage) -> float | None:
        prices = PRICES.get(self.model_name) if self.base_url is None else None
        if prices is None:
            return None
        p_in, p_out, p_cached = prices
        return (
            usage.input_tokens * p_in + usage.output_tokens * p_out + usage.cache_read_input_tokens * p_cached
        ) / 1_000_000

    def verify(
        self,
        question: str,
        claims: tuple[Claim, ...],
        passages: Mapping[str, Passage],
        *,
        deadline: float | None = None,
    ) -> VerifierReply:
        """``--verify``: one request, one verdict per claim. A failure
        is an error reply (the loop abstains), except a rejected key."""
        import openai

        limit = (
            {"max_tokens": self.max_output_tokens}
            if self.base_url
            else {"max_completion_tokens": self.max_output_tokens}
        )
        tool = {
            "type": "function",
            "function": {
                "name": VERIFY_TOOL["name"],
                "description": VERIFY_TOOL["description"],
                "parameters": VERIFY_TOOL["input_schema"],
            },
        }
        messages = [
            {"role": "system", "content": VERIFY_SYSTEM_PROMPT},
            {"role": "user", "content": verify_message(question, claims, passages)},
        ]
        try:
            completion = self.send(
                lambda client, timeout, n: client.chat.completions.create(
                    model=self.model_name,
                    messages=messages,
                    tools=[tool],
                    tool_choice="required",
                    parallel_tool_calls=False,
                    timeout=timeout,
                    extra_headers={"x-stainless-retry-count": str(n)},
                    **limit,
                ),
                deadline,
            )
        except openai.AuthenticationError as exc:
            raise BackendError(
                f"{self.where} rejected the key of the verifier (HTTP 401{_rid(exc)}): check OPENAI_API_KEY"
            ) from None
        except (openai.APITimeoutError, OutOfTime):
            return VerifierReply(None, error="timeout")
        except (openai.APIError, json.JSONDecodeError) as exc:
            return VerifierReply(
                None, error=f"api error {getattr(exc, 'status_code', '') or type(exc).__name__}".strip()
            )
        request_id = request_id_of(completion)
        usage, bad_usage = usage_of(completion)
        if bad_usage:
            return VerifierReply(None, usage, request_id, error=bad_usage)
        choices = getattr(completion, "choices", None)
        calls = list((choices[0].message.tool_calls or []) if choices else [])
        if len(calls) != 1:
            return VerifierReply(None, usage, request_id, error=f"expected one tool call, got {len(calls)}")
        call = ToolCall.of(calls[0], 0, 0)
        try:
            arguments = json.loads(call.arguments) if isinstance(call.arguments, str) else call.arguments
        except (ValueError, RecursionError):
            return VerifierReply(None, usage, request_id, error="the verdicts are not valid JSON")
        verdicts = parse_verdicts(call.name, arguments, len(claims))
        if isinstance(verdicts, str):
            return VerifierReply(None, usage, request_id, error=verdicts)
        return VerifierReply(verdicts, usage, request_id)


class _Conversation:
    def __init__(self, model: OpenAIModel, question: str) -> None:
        self.model = model
        self.question = question
        self.messages: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM_PROMPT}]
        self.pending: list[str] = []
        """The tool_call IDs of the last reply: the first is the call the loop acted on."""
        self.request_ids: list[str] = []

    def decide(self, turn: Turn) -> ModelReply:
        self.messages += self._turn_messages(turn)
        completion = self._create(turn)
        request_id = request_id_of(completion)
        if request_id:
            self.request_ids.append(request_id)
            self.model.request_ids.append(request_id)
            del self.model.request_ids[:-KEPT_REQUEST_IDS]
        choices = getattr(completion, "choices", None)
        if not choices:
            rid = f" (request {request_id})" if request_id else ""
            raise BackendError(f"{self.model.where} sent a response without a chat completion choice{rid}")
        choice = choices[0]
        message = choice.message
        calls = [ToolCall.of(c, i, len(self.messages)) for i, c in enumerate(message.tool_calls or [])]
        self.messages.append(assistant_param(message.content, calls))
        self.pending = [c.id for c in calls]
        usage, bad_usage = usage_of(completion)
        if bad_usage:  # clamped at zero, and not acted on: a server that lies about usage lies about more
            return ModelReply(InvalidDecision(bad_usage), usage, request_id=request_id)
        return ModelReply(decision_of(calls, message, choice.finish_reason), usage, request_id=request_id)

    def _turn_messages(self, turn: Turn) -> list[dict[str, Any]]:
        if len(self.messages) == 1:
            return [{"role": "user", "content": first_turn_message(self.question, turn)}]
        if not self.pending:
            # Not reached through the loop (it only continues after a search call); keep the protocol valid anyway.
            return [{"role": "user", "content": search_result(turn.new_evidence, turn.note, turn.found, turn.omitted)}]
        first, *others = self.pending
        self.pending = []
        return [
            {"role": "tool", "tool_call_id": first, "content": tool_result(turn)},
            *({"role": "tool", "tool_call_id": other, "content": NOT_RUN} for other in others),
        ]

    def _create(self, turn: Turn) -> Any:
        import openai

        model = self.model
        limit = (
            {"max_tokens": model.max_output_tokens}
            if model.base_url
            else {"max_completion_tokens": model.max_output_tokens}
        )
        try:
            return model.send(
                lambda client, timeout, n: client.chat.completions.create(
                    model=model.model_name,
                    messages=self.messages,
                    tools=tool_definitions(turn.tools),
                    tool_choice="required",
                    parallel_tool_calls=False,
                    timeout=timeout,
                    extra_headers={"x-stainless-retry-count": str(n)},
                    **limit,
                ),
                turn.deadline,
            )
        except openai.AuthenticationError as exc:
            key = "OPENAI_API_KEY" if model.base_url is None else "OPENAI_API_KEY (it is sent to this server too)"
            raise BackendError(
                f"{model.where} rejected the key (HTTP 401{_rid(exc)}): check {key}, or use --model local"
            ) from None
        except openai.NotFoundError as exc:
            hint = f"; for Ollama, run: ollama pull {model.model_name}" if model.base_url else ""
            raise BackendError(
                f"{model.where} has no model {model.model_name!r} (HTTP 404{_rid(exc)}: {_short(exc)}){hint}"
            ) from None
        except openai.APIStatusError as exc:
            if is_retried_status(exc.status_code):
                raise BackendError(
                    f"{model.where} failed with HTTP {exc.status_code} after {self._retries()} retries{_rid(exc)}: "
                    f"{_short(exc)}"
                ) from None
            raise BackendError(
                f"{model.where} refused the request with HTTP {exc.status_code}{_rid(exc)}: {_short(exc)}"
            ) from None
        except openai.APITimeoutError:
            raise BackendError(
                f"{model.where} did not answer within {model.timeout:g} s, after {self._retries()} retries; "
                "try again, or use a smaller model"
            ) from None
        except openai.APIConnectionError:
            fix = "is the server running?" if model.base_url else "try again, or use --model local"
            raise BackendError(
                f"cannot reach {model.where} (network error after {self._retries()} retries); {fix}"
            ) from None
        except (openai.APIError, json.JSONDecodeError) as exc:
            raise BackendError(f"{model.where} sent a response ragcli cannot read: {_short(exc)}") from None

    def _retries(self) -> int:
        return self.model.max_retries


def _rid(exc: Any) -> str:
    request_id = getattr(exc, "request_id", None)
    return f", request {request_id}" if request_id else ""


def _short(exc: Exception) -> str:
    return " ".join(str(exc).split())[:200]
