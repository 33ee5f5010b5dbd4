"""Claude as the answering model, through the official ``anthropic`` SDK.

The system prompt and the tool schemas are stable across questions and carry
``cache_control`` so repeated asks hit the prompt cache. The prompt and the
evidence format (``backends.prompt``) are shared with the openai backend. What
the model may *do* is not up to the prompt: the loop in ``answer.loop`` owns
the principal, the budget and the checks.

API failures (429, 5xx, timeouts) are retried (never past the run's deadline:
``backends.bounds``); what still fails becomes a BackendError (exit 2), never a
silent abstention, and a run whose time is spent abstains ``budget_exhausted``.
A reply over its size cap is refused; negative usage counts are clamped at
zero and make the reply invalid.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from ..answer.protocol import Claim, InvalidDecision, ModelReply, OutOfTime, Turn, Usage, VerifierReply
from ..answer.tools import TOOL_ORDER, TOOLS, VERIFY_TOOL, parse_tool_call, parse_verdicts, safe_word
from ..errors import BackendError
from ..passage import Passage
from .bounds import CompressedReply, ReplyTooLarge, bounded_http_client, clamped, header_wait, reply_cap, with_retries
from .prompt import SYSTEM_PROMPT, VERIFY_SYSTEM_PROMPT, first_turn_message, tool_result, verify_message

DEFAULT_MODEL = "claude-sonnet-4-6"

PRICES: dict[str, tuple[float, float, float, float]] = {
    # US dollars per million tokens: input, output, cache write, cache read.
    "claude-sonnet-4-5": (3.0, 15.0, 3.75, 0.30),
    "claude-sonnet-4-6": (3.0, 15.0, 3.75, 0.30),
    "claude-haiku-4-5": (1.0, 5.0, 1.25, 0.10),
    "claude-opus-4-5": (5.0, 25.0, 6.25, 0.50),
}
MAX_OUTPUT_TOKENS = 2048
MAX_RETRIES = 3
TIMEOUT_S = 60.0
VERIFY_OUTPUT_TOKENS = 1024


def tool_definitions(offered: frozenset[str]) -> list[dict[str, Any]]:
    """The tools of this turn, in a fixed order; the last carries the cache breakpoint."""
    tools = [copy.deepcopy(TOOLS[name]) for name in TOOL_ORDER if name in offered]
    tools[-1]["cache_control"] = {"type": "ephemeral"}
    return tools


class AnthropicModel:
    """``anthropic[:MODEL_NAME]``; pass ``client`` to inject a configured ``anthropic.Anthropic``."""

    retry_on_empty = True
    expands_neighbours = True

    def __init__(
        self, model_name: str = DEFAULT_MODEL, *, client: Any = None, max_output_tokens: int = MAX_OUTPUT_TOKENS
    ) -> None:
        self.model_name = model_name
        self.name = f"anthropic:{model_name}"
        self.max_output_tokens = max_output_tokens
        self._client = client
        retries = getattr(client, "max_retries", MAX_RETRIES) if client is not None else MAX_RETRIES
        self.max_retries = retries if isinstance(retries, int) else MAX_RETRIES
        """ragcli runs the retries itself, within the run's deadline (an injected client says how many)."""

    @property
    def client(self) -> Any:
        if self._client is None:
            import anthropic

            # A missing key surfaces at the first request (see _create), not here.
            self._client = anthropic.Anthropic(max_retries=0, timeout=TIMEOUT_S, http_client=bounded_http_client())
        return self._client

    def send(self, request: Any, deadline: float | None, max_output_tokens: int) -> Any:
        """``request(client, timeout, attempt)`` with ragcli's retries, bounded by ``deadline`` and the reply cap."""
        client = self.client.with_options(max_retries=0)

        def attempt(n: int, left: float | None) -> Any:
            return request(client, TIMEOUT_S if left is None else min(TIMEOUT_S, left), n)

        try:
            return with_retries(
                attempt,
                deadline=deadline,
                max_retries=self.max_retries,
                retry_after=_retry_after,
                cap=reply_cap(max_output_tokens),
            )
        except ReplyTooLarge as exc:
            raise BackendError(f"the Anthropic API sent a reply larger than {exc.cap:,} bytes; refused") from None
        except CompressedReply as exc:
            raise BackendError(f"the Anthropic API: {exc}; refused") from None

    def conversation(self, question: str) -> _Conversation:
        return _Conversation(self, question)

    def cost_usd(self, usage: Usage) -> float | None:
        prices = PRICES.get(self.model_name)
        if prices is None:
            return None
        p_in, p_out, p_write, p_read = prices
        return (
            usage.input_tokens * p_in
            + usage.output_tokens * p_out
            + usage.cache_creation_input_tokens * p_write
            + usage.cache_read_input_tokens * p_read
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
        import anthropic

        messages = [{"role": "user", "content": [{"type": "text", "text": verify_message(question, claims, passages)}]}]
        try:
            response = self.send(
                lambda client, timeout, n: client.messages.create(
                    model=self.model_name,
                    max_tokens=VERIFY_OUTPUT_TOKENS,
                    system=[{"type": "text", "text": VERIFY_SYSTEM_PROMPT}],
                    tools=[VERIFY_TOOL],
                    tool_choice={"type": "tool", "name": VERIFY_TOOL["name"]},
                    messages=messages,
                    timeout=timeout,
                    extra_headers={"x-stainless-retry-count": str(n)},
                ),
                deadline,
                VERIFY_OUTPUT_TOKENS,
            )
        except anthropic.AuthenticationError:
            raise BackendError("the Anthropic API rejected the key of the verifier: check ANTHROPIC_API_KEY") from None
        except (anthropic.APITimeoutError, OutOfTime):
            return VerifierReply(None, error="timeout")
        except anthropic.APIError as exc:
            return VerifierReply(
                None, error=f"api error {getattr(exc, 'status_code', '') or type(exc).__name__}".strip()
            )
        (usage, bad_usage), request_id = _usage(response), _request_id(response)
        if bad_usage:
            return VerifierReply(None, usage, request_id, error=bad_usage)
        calls = [b for b in response.content if getattr(b, "type", None) == "tool_use"]
        if len(calls) != 1:
            return VerifierReply(None, usage, request_id, error=f"expected one tool call, got {len(calls)}")
        verdicts = parse_verdicts(calls[0].name, calls[0].input, len(claims))
        if isinstance(verdicts, str):
            return VerifierReply(None, usage, request_id, error=verdicts)
        return VerifierReply(verdicts, usage, request_id)


class _Conversation:
    def __init__(self, model: AnthropicModel, question: str) -> None:
        self.model = model
        self.question = question
        self.messages: list[dict[str, Any]] = []
        self.pending_tool_use: str | None = None

    def decide(self, turn: Turn) -> ModelReply:
        self.messages.append({"role": "user", "content": self._user_content(turn)})
        response = self._create(turn)
        usage, bad_usage = _usage(response)
        request_id = _request_id(response)
        self.messages.append({"role": "assistant", "content": [_block_param(b) for b in response.content]})
        if bad_usage:  # clamped at zero, and not acted on: a server that lies about usage lies about more
            return ModelReply(InvalidDecision(bad_usage), usage, request_id)
        calls = [b for b in response.content if getattr(b, "type", None) == "tool_use"]
        if len(calls) != 1:
            stop = safe_word(getattr(response, "stop_reason", None))
            return ModelReply(
                InvalidDecision(f"expected one tool call, got {len(calls)} (stop_reason {stop})"), usage, request_id
            )
        call = calls[0]
        self.pending_tool_use = call.id
        return ModelReply(parse_tool_call(call.name, call.input), usage, request_id)

    def _user_content(self, turn: Turn) -> list[dict[str, Any]]:
        if self.pending_tool_use is None:
            return [{"type": "text", "text": first_turn_message(self.question, turn)}]
        return [{"type": "tool_result", "tool_use_id": self.pending_tool_use, "content": tool_result(turn)}]

    def _create(self, turn: Turn) -> Any:
        import anthropic

        model = self.model
        try:
            return model.send(
                lambda client, timeout, n: client.messages.create(
                    model=model.model_name,
                    max_tokens=model.max_output_tokens,
                    system=[{"type": "text", "text": SYSTEM_PROMPT, "cache_control": {"type": "ephemeral"}}],
                    tools=tool_definitions(turn.tools),
                    tool_choice={"type": "any", "disable_parallel_tool_use": True},
                    messages=self.messages,
                    timeout=timeout,
                    extra_headers={"x-stainless-retry-count": str(n)},
                ),
                turn.deadline,
                model.max_output_tokens,
            )
        except anthropic.AuthenticationError:
            raise BackendError(
                "the Anthropic API rejected the key: check ANTHROPIC_API_KEY, or use --model local"
            ) from None
        except anthropic.APIStatusError as exc:
            raise BackendError(
                f"the Anthropic API failed with HTTP {exc.status_code} after {self._retries()} retries: {_short(exc)}"
            ) from None
        except anthropic.APITimeoutError:
            raise BackendError(
                f"the Anthropic API timed out after {self._retries()} retries; try again or raise --timeout"
            ) from None
        except anthropic.APIConnectionError:
            raise BackendError(
                "cannot reach the Anthropic API (network error after retries); try again or use --model local"
            ) from None
        except TypeError as exc:
            # The SDK (2.x) builds a client without credentials and only fails
            # when the first request is prepared, with a TypeError.
            if "authentication" not in str(exc):
                raise
            raise BackendError("no Anthropic credentials: set ANTHROPIC_API_KEY, or use --model local") from None

    def _retries(self) -> int:
        return self.model.max_retries


def _short(exc: Exception) -> str:
    return " ".join(str(exc).split())[:200]


def _usage(response: Any) -> tuple[Usage, str | None]:
    """The reply's usage, every count clamped at zero, and what was wrong with the server's numbers (None: nothing)."""
    u = getattr(response, "usage", None)
    if u is None:
        return Usage(), None
    names = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    counts = {name: clamped(getattr(u, name, None)) for name in names}
    bad = [name for name, (_, wrong) in counts.items() if wrong]
    usage = Usage(**{name: value for name, (value, _) in counts.items()})
    return usage, (f"usage: field '{bad[0]}' is negative or not a number" if bad else None)


def _request_id(response: Any) -> str | None:
    value = getattr(response, "_request_id", None)
    return value if isinstance(value, str) and safe_word(value, 100) == value else None


def _retry_after(exc: Exception) -> float | None:
    """Whether a failed request may be retried (None: no), and how long the API asked to wait."""
    import anthropic

    if isinstance(exc, anthropic.APIStatusError):
        should = (exc.response.headers.get("x-should-retry") or "").lower()
        retried = exc.status_code in (408, 409, 429) or exc.status_code >= 500
        if should == "false" or (should != "true" and not retried):
            return None
        return header_wait(exc.response.headers)
    if isinstance(exc, (anthropic.APITimeoutError, anthropic.APIConnectionError)):
        return 0.0
    return None


def _block_param(block: Any) -> dict[str, Any]:
    """Echo an assistant content block back as a request parameter."""
    if block.type == "tool_use":
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
    if block.type == "text":
        return {"type": "text", "text": block.text}
    dumped: dict[str, Any] = block.model_dump(exclude_none=True)
    return dumped
