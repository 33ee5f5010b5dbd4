"""Reading a Chat Completions reply: its tool calls, usage and request ID, in code's own words.

The reply comes from a server ragcli does not trust: usage counts are clamped
at zero (a negative one is reported, and the backend treats the reply as
invalid), a request ID is kept only when it looks like one, and an invalid
decision names the tool, call type or finish reason only when it is one
ragcli knows (a trace holds no model-written text).
"""

from __future__ import annotations

import json
from typing import Any

from ..answer.protocol import Decision, InvalidDecision, Usage
from ..answer.tools import known_tool, parse_tool_call, safe_word
from .bounds import clamped, header_wait


class ToolCall:
    """One tool call of a reply, as sent (its ID, tool name and raw arguments)."""

    def __init__(self, id: str, type: str, name: str | None, arguments: Any) -> None:
        self.id = id
        self.type = type
        self.name = name
        self.arguments = arguments

    @classmethod
    def of(cls, call: Any, index: int, turn: int) -> ToolCall:
        # A server that sends no ID still gets a tool message for the call: give it one.
        call_id = getattr(call, "id", None) or f"call_ragcli_{turn}_{index}"
        kind = getattr(call, "type", None) or "function"
        if kind == "function":
            function = getattr(call, "function", None)
            return cls(call_id, kind, getattr(function, "name", None), getattr(function, "arguments", None))
        custom = getattr(call, "custom", None)
        return cls(call_id, kind, getattr(custom, "name", None), getattr(custom, "input", None))

    def param(self) -> dict[str, Any]:
        """The call echoed back in the assistant message, arguments as a JSON string."""
        arguments = (
            self.arguments
            if isinstance(self.arguments, str)
            else json.dumps(self.arguments if self.arguments is not None else {})
        )
        if self.type == "function":
            return {"id": self.id, "type": "function", "function": {"name": self.name or "", "arguments": arguments}}
        return {"id": self.id, "type": self.type, self.type: {"name": self.name or "", "input": arguments}}


def assistant_param(content: str | None, calls: list[ToolCall]) -> dict[str, Any]:
    param: dict[str, Any] = {"role": "assistant"}
    if content or not calls:
        param["content"] = content or ""
    if calls:
        param["tool_calls"] = [c.param() for c in calls]
    return param


def decision_of(calls: list[ToolCall], message: Any, finish_reason: str | None) -> Decision:
    # Every message here is code's own words: the model's tool names, call types and finish reasons are
    # named only when they are ones ragcli knows (traces hold no model-written text).
    finish = safe_word(finish_reason)
    if not calls:
        sent = "a refusal" if getattr(message, "refusal", None) else "text" if message.content else "nothing"
        return InvalidDecision(f"expected a tool call, got {sent} (finish_reason {finish})")
    names = [known_tool(c.name) or "an unknown tool" for c in calls]
    if len(calls) > 1 and any(c.type != "function" or c.name != "search" for c in calls):
        return InvalidDecision(f"expected one tool call, got {len(calls)}: {', '.join(names)}")
    call = calls[0]
    if call.type != "function":
        return InvalidDecision(f"unknown tool type {safe_word(call.type)!r}", tool=known_tool(call.name))
    arguments = call.arguments
    if arguments is None or (isinstance(arguments, str) and not arguments.strip()):
        arguments = {}
    elif isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except (ValueError, RecursionError):
            name = known_tool(call.name) or "an unknown tool"
            return InvalidDecision(
                f"{name}: the arguments are not valid JSON (finish_reason {finish})", tool=known_tool(call.name)
            )
    return parse_tool_call(call.name, arguments)


def usage_of(completion: Any) -> tuple[Usage, str | None]:
    """The reply's usage, every count clamped at zero, and what was wrong with the server's numbers (None: nothing).

    Chat Completions counts cached tokens inside prompt_tokens; Usage keeps them apart, as Anthropic does.
    """
    u = getattr(completion, "usage", None)
    if u is None:
        return Usage(), None
    details = getattr(u, "prompt_tokens_details", None)
    raw = {
        "prompt_tokens": getattr(u, "prompt_tokens", None),
        "completion_tokens": getattr(u, "completion_tokens", None),
        "cached_tokens": getattr(details, "cached_tokens", None) if details is not None else None,
    }
    counts = {name: clamped(value) for name, value in raw.items()}
    bad = [name for name, (_, wrong) in counts.items() if wrong]
    prompt, output, cached = (counts[name][0] for name in raw)
    usage = Usage(
        input_tokens=max(prompt - cached, 0), output_tokens=output, cache_read_input_tokens=min(cached, prompt)
    )
    return usage, (f"usage: field '{bad[0]}' is negative or not a number" if bad else None)


def request_id_of(completion: Any) -> str | None:
    """The server's request ID, when it looks like one (a server is not trusted to put only an ID there)."""
    value = getattr(completion, "_request_id", None)
    return value if isinstance(value, str) and safe_word(value, 100) == value else None


def retry_after(exc: Exception) -> float | None:
    """Whether a failed request may be retried (None: no), and how long the server asked to wait."""
    import openai

    if isinstance(exc, openai.APIStatusError):
        should = (exc.response.headers.get("x-should-retry") or "").lower()
        if should == "false" or (should != "true" and not is_retried_status(exc.status_code)):
            return None
        return header_wait(exc.response.headers)
    if isinstance(exc, (openai.APITimeoutError, openai.APIConnectionError)):
        return 0.0
    return None


def is_retried_status(status: int) -> bool:
    """The statuses the SDK retries (besides an explicit x-should-retry)."""
    return status in (408, 409, 429) or status >= 500
