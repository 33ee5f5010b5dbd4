"""A model server is untrusted (issue 22): bounded in time, size and usage, and never told local paths.

Every test runs the real ``openai`` SDK against a real HTTP server on 127.0.0.1 (a thread of the test) that
misbehaves on purpose: it trickles its reply a byte at a time, asks to be retried after a minute, sends
negative usage or a reply of many megabytes. The server stops by itself (each reply is bounded in time and
size), so a regression fails the test instead of hanging it.
"""

from __future__ import annotations

import contextlib
import json
import re
import socketserver
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from support.cli import assert_one_error_line, cli
from support.corpus import scope
from support.openai_mock import abstain_call, completion, tool_call, usage
from support.paths import DAY, REPO, USERS

from ragcli.answer import Answerer, AnswerSetup, Limits, ask
from ragcli.backends.openai import OpenAIModel
from ragcli.errors import BackendError

QUESTION = "How long do I have to get a refund on an annual plan?"
TRICKLE_S = 0.25
"""One byte per this many seconds: every read arrives well within any per-read timeout."""
LONGEST_S = 15.0
"""No reply of the server lasts longer than this, so a run that ignores its deadline still ends."""


@dataclass
class Server:
    """A one-behaviour Chat Completions server: ``reply(body) -> (head, payload, mode)`` per request."""

    reply: Callable[[dict], tuple[bytes, bytes, str]]
    bodies: list[dict] = field(default_factory=list)
    sent: list[int] = field(default_factory=list)
    """Bytes written per reply before it ended or the client went away."""
    url: str = ""


def _head(status: str, length: int | None, extra: str = "") -> bytes:
    lines = [f"HTTP/1.1 {status}", "content-type: application/json", "x-request-id: req_test"]
    lines.append(f"content-length: {length}" if length is not None else "connection: close")
    return ("\r\n".join(lines) + "\r\n" + extra + "\r\n").encode()


def _json_reply(data: dict) -> tuple[bytes, bytes, str]:
    payload = json.dumps(data).encode()
    return _head("200 OK", len(payload)), payload, "whole"


@contextlib.contextmanager
def serving(reply: Callable[[dict], tuple[bytes, bytes, str]]) -> Iterator[Server]:
    server = Server(reply)

    class Handler(socketserver.StreamRequestHandler):
        def handle(self) -> None:
            while True:
                line = self.rfile.readline()
                if not line:
                    return
                length = 0
                while line not in (b"\r\n", b"\n", b""):
                    name, _, value = line.decode("latin-1").partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value.strip())
                    line = self.rfile.readline()
                body = json.loads(self.rfile.read(length) or b"{}")
                server.bodies.append(body)
                head, payload, mode = reply(body)
                if not self._send(head, payload, mode) or mode != "whole":
                    return

        def _send(self, head: bytes, payload: bytes, mode: str) -> bool:
            started, sent = time.monotonic(), 0
            try:
                if mode == "trickle-head":
                    for i in range(len(head)):
                        if time.monotonic() - started > LONGEST_S:
                            return False
                        self.wfile.write(head[i : i + 1])
                        self.wfile.flush()
                        sent += 1
                        time.sleep(TRICKLE_S)
                    self.wfile.write(payload)
                elif mode == "trickle-body":
                    self.wfile.write(head)
                    for i in range(len(payload)):
                        if time.monotonic() - started > LONGEST_S:
                            return False
                        self.wfile.write(payload[i : i + 1])
                        self.wfile.flush()
                        sent += 1
                        time.sleep(TRICKLE_S)
                elif mode == "stream":  # no content-length: read until the server closes
                    self.wfile.write(head)
                    while sent < len(payload):
                        self.wfile.write(payload[sent : sent + 65536])
                        sent += 65536
                else:
                    self.wfile.write(head + payload)
                    sent = len(head) + len(payload)
                self.wfile.flush()
                return True
            except OSError:  # the client went away: what this test wants to see happen early
                return False
            finally:
                server.sent.append(sent)

    class Threading(socketserver.ThreadingTCPServer):
        daemon_threads = True
        allow_reuse_address = True

    tcp = Threading(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=tcp.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    server.url = f"http://127.0.0.1:{tcp.server_address[1]}/v1"
    try:
        yield server
    finally:
        tcp.shutdown()
        tcp.server_close()
        thread.join(timeout=10)


def _model(server: Server, **kwargs) -> OpenAIModel:  # type: ignore[no-untyped-def]
    return OpenAIModel("qwen2.5:7b", base_url=server.url, api_key="ragcli-no-key", max_retries=3, **kwargs)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["trickle-body", "trickle-head"])
def test_a_trickling_server_cannot_outlast_the_answers_deadline(retriever, mode: str) -> None:
    """One byte every 0.25 s: each read is quick, the SDK never times out; the deadline still ends the run."""
    with serving(lambda body: (*_json_reply(abstain_call())[:2], mode)) as server:
        started = time.monotonic()
        outcome = ask(QUESTION, scope("alice", DAY), retriever, Answerer(_model(server), Limits(timeout_s=2)))
        elapsed = time.monotonic() - started
    assert (outcome.disposition, outcome.reason) == ("abstained", "budget_exhausted")
    assert elapsed < 2 + 2.5, elapsed  # the search, then at most the budget; no retry once it is spent
    assert len(server.bodies) == 1


def test_retry_waits_never_pass_the_deadline(retriever) -> None:
    """A 429 asking for a minute's wait: the run ends at its deadline, not a minute later."""
    busy = json.dumps({"error": {"message": "slow down", "type": "rate_limit", "param": None, "code": None}}).encode()
    with serving(lambda body: (_head("429 Too Many Requests", len(busy), "retry-after: 60\r\n"), busy, "whole")) as s:
        started = time.monotonic()
        outcome = ask(QUESTION, scope("alice", DAY), retriever, Answerer(_model(s), Limits(timeout_s=2)))
        elapsed = time.monotonic() - started
    assert outcome.reason == "budget_exhausted" and elapsed < 4, elapsed
    assert len(s.bodies) == 1  # the wait it asked for does not fit: no second request


def test_negative_usage_is_clamped_and_the_reply_is_invalid(retriever, pid) -> None:
    how = pid("acme", "refunds-policy@2026-09", "annual-plans")
    claims = {"claims": [{"statement": "30 days.", "passage_id": how, "quote": "refundable within 30 days of"}]}
    lying = completion(tool_call("submit_answer", claims), use=usage(1400, -3_000_000_000))
    with serving(lambda body: _json_reply(lying)) as server:
        outcome = ask(QUESTION, scope("alice", DAY), retriever, _model(server))
    assert (outcome.disposition, outcome.reason) == ("abstained", "invalid_decision")
    assert (outcome.usage.output_tokens, outcome.usage.input_tokens) == (0, 1400)
    assert outcome.usage.total >= 0
    decision = outcome.trace.decisions[-1]
    assert decision.valid is False and decision.error == "usage: field 'completion_tokens' is negative or not a number"


def _huge_reply(mode: str) -> tuple[bytes, bytes]:
    huge = completion(tool_call("submit_answer", {"abstain": {"reason": "x" * 40_000_000}}))
    payload = json.dumps(huge).encode()
    return _head("200 OK", len(payload) if mode == "whole" else None), payload


def test_a_reply_without_a_length_is_cut_off_at_its_cap(retriever) -> None:
    """No content-length: ragcli stops reading once the reply passes its cap, long before the server's 40 MB end."""
    head, payload = _huge_reply("stream")
    with serving(lambda body: (head, payload, "stream")) as server:
        model = _model(server)
        with pytest.raises(BackendError, match=r"sent a reply larger than 327,680 bytes; refused"):
            ask(QUESTION, scope("alice", DAY), retriever, model)
        model.client.close()  # the server's write ends when the connection does
        deadline = time.monotonic() + 10
        while not server.sent and time.monotonic() < deadline:
            time.sleep(0.05)
        sent = list(server.sent)
    assert sent and max(sent) < 10_000_000, sent


@pytest.mark.slow
def test_a_reply_over_its_cap_is_refused_before_it_is_read_whole(tmp_path: Path, sample_root: Path) -> None:
    """A 40 MB reply used to be read (and parsed) whole; the cap at the default 4096 output tokens is 320 KiB."""
    head, payload = _huge_reply("whole")
    with serving(lambda body: (head, payload, "whole")) as server:
        proc = cli(
            "ask",
            QUESTION,
            "--as",
            USERS / "alice.json",
            "--index",
            sample_root,
            "--model",
            f"openai:qwen2.5:7b@{server.url}",
            timeout=120,
        )
        sent = list(server.sent)
    assert_one_error_line(proc, "sent a reply larger than 327,680 bytes; refused")
    assert sent and max(sent) < 10_000_000, sent  # the client stopped reading long before the end


def test_evidence_names_sources_relative_to_the_ingested_folder(retriever) -> None:
    """Evidence used to carry each document's absolute local path (home folders, user names) to the server."""
    with serving(lambda body: _json_reply(abstain_call())) as server:
        ask("What does ERR_4021 mean?", scope("alice", DAY), retriever, _model(server))
    sent = json.dumps(server.bodies)
    assert str(REPO) not in sent and "/tmp/" not in sent and "/root" not in sent
    sources = re.findall(r'source=\\"([^"\\]+)\\"', sent)
    assert sources and all(not s.startswith("/") for s in sources), sources
    assert any(s.endswith(".md") for s in sources) or all(s.startswith("https://") for s in sources)


@pytest.mark.slow
def test_an_mcp_ask_against_a_trickling_server_blocks_other_calls_no_longer_than_its_budget(sample_root) -> None:
    from ragcli.mcp.service import Service
    from ragcli.principal import load_principal

    with serving(lambda body: (*_json_reply(abstain_call())[:2], "trickle-body")) as server:
        service = Service.open(
            load_principal(USERS / "alice.json"),
            sample_root,
            as_of=DAY,
            setup=AnswerSetup(model=f"openai:qwen2.5:7b@{server.url}", limits=Limits(timeout_s=2)),
        )
        try:
            asked: dict = {}
            worker = threading.Thread(target=lambda: asked.update(reply=service.call("ask", {"question": QUESTION})))
            started = time.monotonic()
            worker.start()
            time.sleep(0.5)  # the ask holds the service now
            searched = service.call("search", {"query": "refund annual plan"})
            waited = time.monotonic() - started
            worker.join(timeout=30)
        finally:
            service.close()
    assert not searched.is_error and searched.data["results"]
    assert waited < 2 + 3, waited
    assert asked["reply"].data["reason"] == "budget_exhausted"
