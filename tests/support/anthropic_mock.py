"""A scripted Anthropic Messages API behind the real ``anthropic`` SDK.

Only the network is fake: ``ScriptedAPI.client()`` returns a genuine
``anthropic.Anthropic`` whose ``httpx2`` client has a ``MockTransport``. Each
request the SDK sends is recorded (method, path, headers, JSON body) and
answered with the next scripted response: a Messages API ``message`` object
or an HTTP error. When the script runs out, the mock answers 400 with
``x-should-retry: false`` and notes the overrun, so a test fails loudly.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import httpx2

from .scripted import ScriptedReplies

if TYPE_CHECKING:  # the SDK takes ~1-2 s to import: only the tests that use it pay, not every collection
    import anthropic

MODEL = "claude-sonnet-4-6"
"""The model name the scripted API answers as (the backend's default)."""
_ids = itertools.count(1)


def _next_id(prefix: str) -> str:
    return f"{prefix}_01{next(_ids):022d}"


# --------------------------------------------------------------------------- response builders


def text_block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def tool_use(name: str, input: Any, *, id: str | None = None) -> dict[str, Any]:
    return {"type": "tool_use", "id": id or _next_id("toolu"), "name": name, "input": input}


def usage(
    input_tokens: int = 1200, output_tokens: int = 80, cache_creation: int = 0, cache_read: int = 0
) -> dict[str, Any]:
    return {
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "cache_creation_input_tokens": cache_creation,
        "cache_read_input_tokens": cache_read,
        "service_tier": "standard",
    }


def message(
    *content: dict[str, Any], stop_reason: str | None = None, use: dict[str, Any] | None = None, model: str = MODEL
) -> dict[str, Any]:
    """A Messages API response body; stop_reason defaults from the content."""
    if stop_reason is None:
        stop_reason = "tool_use" if any(b["type"] == "tool_use" for b in content) else "end_turn"
    return {
        "id": _next_id("msg"),
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": list(content),
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": use or usage(),
    }


def search_call(query: str, *, thinking: str | None = None, use: dict[str, Any] | None = None) -> dict[str, Any]:
    blocks = [text_block(thinking)] if thinking else []
    return message(*blocks, tool_use("search", {"query": query}), use=use)


def answer_call(*claims: tuple[str, str, str], use: dict[str, Any] | None = None) -> dict[str, Any]:
    """submit_answer with claims given as (statement, passage_id, quote)."""
    payload = {"claims": [{"statement": s, "passage_id": p, "quote": q} for s, p, q in claims]}
    return message(tool_use("submit_answer", payload), use=use)


def abstain_call(
    reason: str = "The evidence does not answer the question.", *, use: dict[str, Any] | None = None
) -> dict[str, Any]:
    return message(tool_use("submit_answer", {"abstain": {"reason": reason}}), use=use)


@dataclass(frozen=True)
class HTTPError:
    """A scripted HTTP failure (Anthropic's error body shape)."""

    status: int
    error_type: str = "api_error"
    message: str = "Internal server error"
    headers: dict[str, str] = field(default_factory=lambda: {"retry-after-ms": "1"})

    def response(self) -> httpx2.Response:
        body = {"type": "error", "error": {"type": self.error_type, "message": self.message}}
        return httpx2.Response(self.status, json=body, headers={"request-id": _next_id("req"), **self.headers})


def overloaded() -> HTTPError:
    return HTTPError(500, "api_error", "Internal server error")


def rate_limited(retry_after: str = "0") -> HTTPError:
    # retry-after 0 would make the SDK fall back to its own backoff (0.5 s); the
    # millisecond header keeps the retry immediate.
    return HTTPError(
        429,
        "rate_limit_error",
        "Number of request tokens has exceeded your per-minute rate limit",
        {"retry-after": retry_after, "retry-after-ms": "1"},
    )


@dataclass(frozen=True)
class NetworkFailure:
    """The request never gets an answer: ``timeout`` (the read times out) or ``connect`` (refused)."""

    kind: str = "timeout"


def verdicts_call(*supported: bool, use: dict[str, Any] | None = None) -> dict[str, Any]:
    """The verifier's submit_verdicts, one verdict per claim in order."""
    return message(
        tool_use(
            "submit_verdicts", {"verdicts": [{"claim": i, "supported": ok} for i, ok in enumerate(supported, start=1)]}
        ),
        use=use,
    )


Scripted = dict[str, Any] | HTTPError | NetworkFailure | Callable[[dict[str, Any]], Any]


# --------------------------------------------------------------------------- the scripted API


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


class ScriptedAPI(ScriptedReplies):
    """Answers each request with the next scripted item; records every request."""

    def __init__(self, *script: Scripted) -> None:
        super().__init__(script)

    def handler(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content.decode("utf-8")) if request.content else {}
        item = self.next_reply(
            Recorded(request.method, request.url.path, dict(request.headers), body),
            overrun=_overrun,
            literal=(HTTPError, NetworkFailure),
        )
        if isinstance(item, NetworkFailure):
            if item.kind == "timeout":
                raise httpx2.ReadTimeout("timed out", request=request)
            raise httpx2.ConnectError("[Errno 111] Connection refused", request=request)
        if isinstance(item, HTTPError):
            return item.response()
        return httpx2.Response(
            200, json=item, headers={"request-id": _next_id("req"), "content-type": "application/json"}
        )

    def client(self, *, api_key: str = "sk-ant-test", max_retries: int = 0) -> anthropic.Anthropic:
        import anthropic

        return anthropic.Anthropic(
            api_key=api_key,
            http_client=httpx2.Client(transport=httpx2.MockTransport(self.handler)),
            max_retries=max_retries,
        )

    def model(self, *, api_key: str = "sk-ant-test", max_retries: int = 0, model_name: str = MODEL):
        """The real AnthropicModel backend, talking to this mock."""
        from ragcli.backends.anthropic import AnthropicModel

        return AnthropicModel(model_name, client=self.client(api_key=api_key, max_retries=max_retries))


def _overrun(n: int) -> HTTPError:
    return HTTPError(
        400, "invalid_request_error", f"scripted mock: no response left for request {n}", {"x-should-retry": "false"}
    )


# --------------------------------------------------------------------------- reading request bodies


def tool_names(body: dict[str, Any]) -> list[str]:
    return [t["name"] for t in body.get("tools", [])]


def last_user_text(body: dict[str, Any]) -> str:
    """The text of the last user message (text blocks and tool_result contents)."""
    msg = [m for m in body["messages"] if m["role"] == "user"][-1]
    return content_text(msg["content"])


def content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = []
    for block in content:
        if block.get("type") == "text":
            parts.append(block["text"])
        elif block.get("type") == "tool_result":
            parts.append(content_text(block.get("content", "")))
    return "\n".join(parts)
