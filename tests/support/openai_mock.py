"""A scripted Chat Completions API behind the real ``openai`` SDK, or behind a real loopback HTTP server.

Only the network is fake. ``ScriptedAPI.client()`` returns a genuine
``openai.OpenAI`` whose ``httpx2`` client has a ``MockTransport``;
``ScriptedAPI.serve()`` runs a real HTTP server on 127.0.0.1 answering from
the same script, for a ``ragcli`` subprocess pointed at it with
``openai:MODEL@URL``. Each request is recorded (method, host, port, path,
headers, JSON body) and answered with the next scripted item: a Chat
Completions response, an HTTP error, or a network failure. When the script
runs out, the API answers 400 with ``x-should-retry: false`` and notes the
overrun, so a test fails loudly.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

import httpx2

from .scripted import ScriptedReplies

if TYPE_CHECKING:  # the SDK takes ~1 s to import: only the tests that use it pay, not every collection
    import openai

MODEL = "gpt-4.1-mini"
"""The model name the scripted API answers as (a priced OpenAI model)."""
SNAPSHOT = "gpt-4.1-mini-2025-04-14"
"""What the OpenAI API reports as the model in a response."""
_ids = itertools.count(1)


def _next_id(prefix: str, width: int = 24) -> str:
    return f"{prefix}{next(_ids):0{width}d}"


def request_id() -> str:
    return f"req_{next(_ids):032x}"


# --------------------------------------------------------------------------- response builders


def tool_call(name: str, arguments: Any, *, id: str | None = None) -> dict[str, Any]:
    """A function tool call; ``arguments`` is JSON-encoded unless it is already a string (raw, possibly malformed)."""
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": id or _next_id("call_"), "type": "function", "function": {"name": name, "arguments": raw}}


def usage(prompt_tokens: int = 1400, completion_tokens: int = 60, cached: int = 0) -> dict[str, Any]:
    """The usage block; ``prompt_tokens`` includes the ``cached`` ones, as the API counts them."""
    return {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
        "prompt_tokens_details": {"cached_tokens": cached, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": 0,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }


def completion(
    *calls: dict[str, Any],
    content: str | None = None,
    refusal: str | None = None,
    finish_reason: str | None = None,
    use: dict[str, Any] | None = None,
    model: str = SNAPSHOT,
) -> dict[str, Any]:
    """A chat.completion response body; finish_reason defaults from the content."""
    if finish_reason is None:
        finish_reason = "tool_calls" if calls else "stop"
    message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": refusal, "annotations": []}
    if calls:
        message["tool_calls"] = list(calls)
    return {
        "id": _next_id("chatcmpl-", 29),
        "object": "chat.completion",
        "created": 1795910400,
        "model": model,
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish_reason}],
        "usage": use or usage(),
        "service_tier": "default",
        "system_fingerprint": "fp_6f2eabb9a5",
    }


def search_call(query: str, *, use: dict[str, Any] | None = None) -> dict[str, Any]:
    return completion(tool_call("search", {"query": query}), use=use)


def answer_call(*claims: tuple[str, str, str], use: dict[str, Any] | None = None) -> dict[str, Any]:
    """submit_answer with claims given as (statement, passage_id, quote)."""
    return completion(tool_call("submit_answer", claims_payload(*claims)), use=use)


def claims_payload(*claims: tuple[str, str, str]) -> dict[str, Any]:
    return {"claims": [{"statement": s, "passage_id": p, "quote": q} for s, p, q in claims]}


def abstain_call(
    reason: str = "The evidence does not answer the question.", *, use: dict[str, Any] | None = None
) -> dict[str, Any]:
    return completion(tool_call("submit_answer", {"abstain": {"reason": reason}}), use=use)


def verdicts_call(*supported: bool, use: dict[str, Any] | None = None) -> dict[str, Any]:
    """The verifier's submit_verdicts, one verdict per claim in order."""
    return completion(
        tool_call(
            "submit_verdicts", {"verdicts": [{"claim": i, "supported": ok} for i, ok in enumerate(supported, start=1)]}
        ),
        use=use,
    )


def text_reply(text: str, *, finish_reason: str = "stop") -> dict[str, Any]:
    return completion(content=text, finish_reason=finish_reason)


@dataclass(frozen=True)
class HTTPError:
    """A scripted HTTP failure (the OpenAI error body shape)."""

    status: int
    message: str = "The server had an error while processing your request. Sorry about that!"
    type: str = "server_error"
    code: str | None = None
    headers: dict[str, str] = field(default_factory=lambda: {"retry-after-ms": "1"})


def server_error() -> HTTPError:
    return HTTPError(500)


def rate_limited() -> HTTPError:
    # retry-after-ms keeps the SDK's retry immediate (without it, it backs off 0.5 s and more).
    return HTTPError(
        429,
        "Rate limit reached for gpt-4.1-mini in organization org-test on tokens per min (TPM): Limit 200000, Used "
        "199850, Requested 1496. Please try again in 404ms.",
        "tokens",
        "rate_limit_exceeded",
        {"retry-after-ms": "1", "x-ratelimit-remaining-tokens": "150"},
    )


@dataclass(frozen=True)
class NetworkFailure:
    """The request never gets an answer: ``timeout`` (the read times out) or ``connect`` (refused)."""

    kind: str = "timeout"


Scripted = dict[str, Any] | HTTPError | NetworkFailure | Callable[[dict[str, Any]], Any]


# --------------------------------------------------------------------------- the scripted API


@dataclass
class Recorded:
    method: str
    host: str
    port: int | None
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: dict[str, Any]


def _overrun(n: int) -> HTTPError:
    return HTTPError(
        400,
        f"scripted mock: no response left for request {n}",
        "invalid_request_error",
        headers={"x-should-retry": "false"},
    )


class ScriptedAPI(ScriptedReplies):
    """Answers each request with the next scripted item; records every request and every request ID it sent."""

    def __init__(self, *script: Scripted, request_ids: bool = True) -> None:
        super().__init__(script)
        self.sent_request_ids: list[str] = []
        self.with_request_ids = request_ids
        """False answers like Ollama: no x-request-id header."""

    def respond(self, record: Recorded) -> Reply | NetworkFailure:
        item = self.next_reply(record, overrun=_overrun, literal=(HTTPError, NetworkFailure))
        if isinstance(item, NetworkFailure):
            return item
        headers = {"content-type": "application/json", "openai-processing-ms": "412"}
        if self.with_request_ids:
            with self._lock:  # in the order the replies leave
                rid = request_id()
                self.sent_request_ids.append(rid)
            headers["x-request-id"] = rid
        if isinstance(item, HTTPError):
            body = {"error": {"message": item.message, "type": item.type, "param": None, "code": item.code}}
            return Reply(item.status, {**headers, **item.headers}, body)
        return Reply(200, headers, item)

    # ----- behind the SDK, through httpx2.MockTransport

    def handler(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content.decode("utf-8")) if request.content else {}
        reply = self.respond(
            Recorded(request.method, request.url.host, request.url.port, request.url.path, dict(request.headers), body)
        )
        if isinstance(reply, NetworkFailure):
            if reply.kind == "timeout":
                raise httpx2.ReadTimeout("timed out", request=request)
            raise httpx2.ConnectError("[Errno 111] Connection refused", request=request)
        return httpx2.Response(reply.status, json=reply.body, headers=reply.headers)

    def http_client(self) -> httpx2.Client:
        return httpx2.Client(transport=httpx2.MockTransport(self.handler))

    def client(
        self, *, api_key: str = "sk-test-0123456789", max_retries: int = 0, base_url: str | None = None
    ) -> openai.OpenAI:
        import openai

        return openai.OpenAI(
            api_key=api_key, base_url=base_url, http_client=self.http_client(), max_retries=max_retries
        )

    def model(
        self,
        *,
        model_name: str = MODEL,
        max_retries: int = 0,
        api_key: str = "sk-test-0123456789",
        base_url: str | None = None,
        timeout: float | None = None,
    ):
        """The real OpenAIModel backend, building its own SDK client on this mock's transport."""
        from ragcli.backends.openai import OpenAIModel

        return OpenAIModel(
            model_name,
            base_url=base_url,
            api_key=api_key,
            http_client=self.http_client(),
            max_retries=max_retries,
            timeout=timeout,
        )

    # ----- behind a real HTTP server on the loopback interface

    @contextlib.contextmanager
    def serve(self) -> Iterator[str]:
        """A real HTTP server on 127.0.0.1 answering from this script; yields its base URL (``http://127.0.0.1:PORT/v1``)."""
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                host, _, port = (self.headers.get("host") or "").partition(":")
                path = self.path.split("?", 1)[0]
                reply = api.respond(
                    Recorded(
                        "POST",
                        host,
                        int(port) if port else None,
                        path,
                        {k.lower(): v for k, v in self.headers.items()},
                        json.loads(raw or b"{}"),
                    )
                )
                if isinstance(reply, NetworkFailure):
                    self.close_connection = True
                    return
                data = json.dumps(reply.body).encode("utf-8")
                self.send_response(reply.status)
                for k, v in reply.headers.items():
                    self.send_header(k, v)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        thread.start()
        try:
            yield f"http://127.0.0.1:{server.server_address[1]}/v1"
        finally:
            server.shutdown()
            server.server_close()
            thread.join(timeout=10)


# --------------------------------------------------------------------------- reading request bodies


def tool_names(body: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in body.get("tools", [])]


def first_user_text(body: dict[str, Any]) -> str:
    return next(m["content"] for m in body["messages"] if m["role"] == "user")


def tool_messages(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The tool messages that follow the last assistant message."""
    messages = body["messages"]
    last = max(i for i, m in enumerate(messages) if m["role"] == "assistant")
    return [m for m in messages[last + 1 :] if m["role"] == "tool"]
