"""Every LLM backend behind one test interface: build the replies its API would send, read what it sent.

``tests/test_backend_contract.py`` runs each of its tests over every entry of
``BACKENDS``; a new backend joins the contract by adding an entry (its mock
API, its reply builders and how its requests are read). Only the network is
fake: each ``api()`` is a scripted API behind the backend's real SDK.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from . import anthropic_mock as am
from . import openai_mock as om
from .corpus import strings_in

Claim = tuple[str, str, str]
"""(statement, passage_id, quote)"""


@dataclass(frozen=True)
class Backend:
    """One LLM backend as the contract tests see it."""

    name: str
    mock: ModuleType

    def __str__(self) -> str:
        return self.name

    # -- its API, scripted ------------------------------------------------------------

    def api(self, *script: Any) -> Any:
        return self.mock.ScriptedAPI(*script)

    def search(self, query: str, *, use: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.mock.search_call(query, use=use)

    def answer(self, *claims: Claim, use: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.mock.answer_call(*claims, use=use)

    def abstain(self, *, use: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.mock.abstain_call(use=use)

    def call(self, name: str, payload: Any) -> dict[str, Any]:
        """One tool call of ``name`` with ``payload`` as the model wrote it (valid or not)."""
        if self.mock is am:
            return am.message(am.tool_use(name, payload))
        return om.completion(om.tool_call(name, payload))

    def text(self, text: str) -> dict[str, Any]:
        """A reply with text and no tool call."""
        if self.mock is am:
            return am.message(am.text_block(text))
        return om.text_reply(text)

    def usage(self, input_tokens: int, output_tokens: int) -> dict[str, Any]:
        if self.mock is am:
            return am.usage(input_tokens, output_tokens)
        return om.usage(input_tokens, output_tokens)

    # -- what it sent -----------------------------------------------------------------

    def tool_names(self, body: dict[str, Any]) -> list[str]:
        return self.mock.tool_names(body)

    def schemas(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        """The input schema of every tool offered."""
        if self.mock is am:
            return [t["input_schema"] for t in body["tools"]]
        return [t["function"]["parameters"] for t in body["tools"]]

    def system(self, body: dict[str, Any]) -> str:
        if self.mock is am:
            return "\n".join(block["text"] for block in body["system"])
        return next(m["content"] for m in body["messages"] if m["role"] == "system")

    def first_text(self, body: dict[str, Any]) -> str:
        """The first user message: the question and the first evidence (as sent, HTML-escaped)."""
        if self.mock is am:
            return am.content_text(body["messages"][0]["content"])
        return om.first_user_text(body)

    def result_text(self, body: dict[str, Any]) -> str:
        """What answered the model's last tool call: new passages and code's note (as sent; empty on the first
        request of the OpenAI backend, whose first message is ``first_text``)."""
        if self.mock is am:
            return am.last_user_text(body)
        messages = body["messages"]
        last = max((i for i, m in enumerate(messages) if m["role"] == "assistant"), default=len(messages))
        return "\n".join(m["content"] for m in messages[last + 1 :] if m["role"] in ("tool", "user"))

    def answers_last_call(self, body: dict[str, Any]) -> bool:
        """Whether the request's last message answers the tool call of the assistant message before it, by its ID."""
        messages = body["messages"]
        last = max(i for i, m in enumerate(messages) if m["role"] == "assistant")
        if self.mock is am:
            (call,) = [b["id"] for b in messages[last]["content"] if b.get("type") == "tool_use"]
            answered = [b["tool_use_id"] for b in messages[last + 1]["content"] if b.get("type") == "tool_result"]
            return answered == [call]
        (call,) = [c["id"] for c in messages[last]["tool_calls"]]
        return [m.get("tool_call_id") for m in messages[last + 1 :]] == [call]

    def sent_text(self, api: Any) -> str:
        """Every string of every request, HTML entities decoded."""
        return html.unescape("\n".join(s for body in api.bodies for s in strings_in(body)))


BACKENDS = {b.name: b for b in (Backend("anthropic", am), Backend("openai", om))}
