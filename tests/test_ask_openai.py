"""The openai backend's wire: Chat Completions with tools, through the real SDK; only the network is scripted.

What every backend must do is in ``test_backend_contract.py``; this file holds
what only Chat Completions does: the assistant turn echoed with its tool
calls, a tool message for every call (parallel ones included), arguments as
JSON text, finish reasons and refusals, usage with cached tokens, request IDs
and cost, retries and errors, ``openai:MODEL[@URL]`` and the servers behind it.
The CLI tests run ``ragcli`` as a subprocess against a real HTTP server on
127.0.0.1 that answers from the same script, the way a local Ollama would.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
from collections.abc import Callable
from typing import Any

import pytest
from support.cli import assert_one_error_line, clean_env, cli_args
from support.corpus import long_sentences, user
from support.openai_mock import (
    MODEL,
    HTTPError,
    NetworkFailure,
    ScriptedAPI,
    abstain_call,
    answer_call,
    claims_payload,
    completion,
    first_user_text,
    rate_limited,
    search_call,
    server_error,
    text_reply,
    tool_call,
    tool_messages,
    usage,
)
from support.paths import DAY, QUESTIONS, USERS
from support.prompts import grouped_by_document, sent_passage_ids
from support.sample_facts import CDN as CDN_QUESTION
from support.sample_facts import CDN_QUOTE, SCIM_QUOTE

from ragcli import Scope
from ragcli.answer import ABSTAIN_MESSAGE, Answerer, Limits, Outcome, ask
from ragcli.answer.protocol import Usage
from ragcli.answer.tools import TOOLS
from ragcli.backends import resolve_model
from ragcli.backends.openai import NOT_RUN, PLACEHOLDER_KEY, OpenAIModel
from ragcli.backends.prompt import SYSTEM_PROMPT
from ragcli.errors import BackendError, InputError

OPENAI_ENV = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "RAGCLI_OPENAI_BASE_URL",
    "OPENAI_ORG_ID",
    "OPENAI_PROJECT_ID",
    "OPENAI_CUSTOM_HEADERS",
)


@pytest.fixture(autouse=True)
def _no_openai_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No key or server from the machine: each test sets what it needs."""
    for var in OPENAI_ENV:
        monkeypatch.delenv(var, raising=False)


@pytest.fixture(scope="module")
def text_of(sample_passages) -> Callable[[str, str], str]:
    def find(tenant: str, passage_id: str) -> str:
        return next(p.text for p in sample_passages[tenant] if p.id == passage_id)

    return find


def run(
    api: ScriptedAPI,
    question: str,
    who: str = "bob",
    *,
    retriever,
    limits: Limits | None = None,
    model: OpenAIModel | None = None,
    **model_kw: Any,
) -> Outcome:
    return ask(
        question, Scope.of(user(who), DAY), retriever, Answerer(model or api.model(**model_kw), limits or Limits())
    )


# --------------------------------------------------------------------------- happy path and what the SDK sent


def test_the_assistant_turn_is_echoed_and_its_call_answered_by_a_tool_message(retriever, pid) -> None:
    availability = pid("acme", "sso-setup", "availability")
    search = tool_call("search", {"query": "SCIM provisioning plan"})
    api = ScriptedAPI(
        completion(search, content="The evidence is about vendors; let me look for SSO."),
        answer_call(("SCIM provisioning requires the Enterprise plan.", availability, SCIM_QUOTE)),
    )
    outcome = run(api, CDN_QUESTION, retriever=retriever)
    assert outcome.disposition == "answered" and outcome.model == f"openai:{MODEL}"
    assert all(r.path == "/v1/chat/completions" and r.host == "api.openai.com" for r in api.recorded)
    second = api.bodies[1]["messages"]
    assert [m["role"] for m in second] == ["system", "user", "assistant", "tool"]
    # The assistant turn is echoed back with its text and its tool call, arguments as a JSON string.
    assert second[2] == {
        "role": "assistant",
        "content": "The evidence is about vendors; let me look for SSO.",
        "tool_calls": [search],
    }
    # The search result is the tool message for that call's id.
    assert second[3]["tool_call_id"] == search["id"]
    assert availability in sent_passage_ids(second[3]["content"])


def test_first_request_requires_one_tool_call_in_the_function_shape(retriever) -> None:
    api = ScriptedAPI(abstain_call())
    outcome = run(api, CDN_QUESTION, retriever=retriever)
    assert outcome.disposition == "abstained" and api.calls == 1
    body = api.bodies[0]
    assert body["model"] == MODEL
    assert body["tool_choice"] == "required" and body["parallel_tool_calls"] is False
    # The OpenAI API takes max_completion_tokens (reasoning models reject max_tokens).
    assert body["max_completion_tokens"] > 0 and "max_tokens" not in body
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert body["messages"][0]["content"] == SYSTEM_PROMPT
    # The tools are the pydantic-generated schemas, in the Chat Completions function shape.
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": name,
                "description": TOOLS[name]["description"],
                "parameters": TOOLS[name]["input_schema"],
            },
        }
        for name in ("search", "submit_answer")
    ]
    assert sent_passage_ids(first_user_text(body)) == grouped_by_document(outcome.trace.searches[0].selected)


# --------------------------------------------------------------------------- parallel tool calls


def test_parallel_searches_run_the_first_and_answer_every_call(retriever, pid) -> None:
    """Chat Completions needs a tool message for every tool_call_id; only the first search runs."""
    availability = pid("acme", "sso-setup", "availability")
    first = tool_call("search", {"query": "SCIM provisioning plan"})
    second = tool_call("search", {"query": "webhook delivery retries"})
    api = ScriptedAPI(
        completion(first, second),
        answer_call(("SCIM provisioning requires the Enterprise plan.", availability, SCIM_QUOTE)),
    )
    outcome = run(api, CDN_QUESTION, retriever=retriever)
    assert outcome.disposition == "answered", outcome.checks
    assert outcome.searches == 2 and [s.query for s in outcome.trace.searches] == [
        CDN_QUESTION,
        "SCIM provisioning plan",
    ]
    messages = api.bodies[1]["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool", "tool"]
    assert messages[2]["tool_calls"] == [first, second] and "content" not in messages[2]
    results = tool_messages(api.bodies[1])
    assert [m["tool_call_id"] for m in results] == [first["id"], second["id"]]
    assert availability in sent_passage_ids(results[0]["content"])
    assert results[1]["content"] == NOT_RUN


def test_a_call_without_id_and_with_object_arguments_is_echoed_valid(retriever, pid) -> None:
    """Some servers send arguments as a JSON object, or no call
    id: the next request must still be valid Chat Completions."""
    availability = pid("acme", "sso-setup", "availability")
    odd_call = {"type": "function", "function": {"name": "search", "arguments": {"query": "SCIM provisioning plan"}}}
    api = ScriptedAPI(
        completion(odd_call), answer_call(("SCIM provisioning requires the Enterprise plan.", availability, SCIM_QUOTE))
    )
    outcome = run(api, CDN_QUESTION, retriever=retriever)
    assert outcome.disposition == "answered" and outcome.trace.searches[1].query == "SCIM provisioning plan"
    (echoed,) = api.bodies[1]["messages"][2]["tool_calls"]
    assert echoed["id"] and echoed["type"] == "function"
    assert echoed["function"] == {"name": "search", "arguments": json.dumps({"query": "SCIM provisioning plan"})}
    assert [m["tool_call_id"] for m in tool_messages(api.bodies[1])] == [echoed["id"]]


@pytest.mark.parametrize(
    "calls",
    [
        pytest.param(
            lambda ids: [
                tool_call("search", {"query": "SCIM"}),
                tool_call("submit_answer", {"abstain": {"reason": "x"}}),
            ],
            id="search-and-answer",
        ),
        pytest.param(
            lambda ids: [
                tool_call("submit_answer", {"abstain": {"reason": "x"}}),
                tool_call("submit_answer", claims_payload(("Fastway.", ids[0], CDN_QUOTE))),
            ],
            id="two-answers",
        ),
        pytest.param(
            lambda ids: [tool_call("search", {"query": "SCIM"}), tool_call("read_document", {"id": ids[0]})],
            id="search-and-unknown-tool",
        ),
    ],
)
def test_parallel_calls_that_finish_are_invalid(retriever, calls) -> None:
    api = ScriptedAPI(lambda body: completion(*calls(sent_passage_ids(first_user_text(body)))))
    outcome = run(api, CDN_QUESTION, retriever=retriever)
    assert (outcome.disposition, outcome.reason) == ("abstained", "invalid_decision")
    assert outcome.searches == 1 and api.calls == 1
    assert "expected one tool call, got 2" in outcome.trace.decisions[0].error


# --------------------------------------------------------------------------- replies that are no tool call


@pytest.mark.parametrize(
    "reply, error",
    [
        pytest.param(
            lambda ids: text_reply("Our CDN vendor is Fastway, renewing on 2027-03-31."),
            "got text (finish_reason stop)",
            id="text-only",
        ),
        pytest.param(lambda ids: completion(refusal="I can't help with that."), "got a refusal", id="refusal"),
        pytest.param(
            lambda ids: completion(finish_reason="length"), "got nothing (finish_reason length)", id="empty-length"
        ),
        pytest.param(
            lambda ids: completion(tool_call("search", '{"query": "SCIM provisioning')),
            "not valid JSON",
            id="malformed-json",
        ),
        pytest.param(
            lambda ids: completion(
                tool_call("submit_answer", '{"claims": [{"statement": "x",'), finish_reason="length"
            ),
            "not valid JSON (finish_reason length)",
            id="truncated-json",
        ),
        pytest.param(
            lambda ids: completion(tool_call("search", '["pay bands"]')), "search", id="arguments-not-an-object"
        ),
        pytest.param(
            lambda ids: completion(
                {"id": "call_c1", "type": "custom", "custom": {"name": "search", "input": "pay bands"}}
            ),
            "unknown tool type 'custom'",
            id="custom-tool-call",
        ),
    ],
)
def test_a_reply_that_is_not_one_readable_tool_call_is_invalid(retriever, reply, error) -> None:
    """What Chat Completions can send instead of one tool call: text, a refusal, nothing, broken JSON arguments,
    another kind of call. (Tool calls that are readable but wrong are in the contract suite.)"""
    api = ScriptedAPI(lambda body: reply(sent_passage_ids(first_user_text(body))))
    outcome = run(api, CDN_QUESTION, retriever=retriever)
    assert (outcome.disposition, outcome.reason) == ("abstained", "invalid_decision")
    assert outcome.searches == 1 and api.calls == 1  # nothing the model sent was acted on
    decision = outcome.trace.decisions[-1]
    assert decision.valid is False and error in decision.error


# --------------------------------------------------------------------------- usage, request IDs, cost


def test_usage_and_request_ids_are_recorded(retriever, pid) -> None:
    availability = pid("acme", "sso-setup", "availability")
    api = ScriptedAPI(
        search_call("SCIM provisioning plan", use=usage(1500, 40, cached=0)),
        answer_call(("SCIM needs the Enterprise plan.", availability, SCIM_QUOTE), use=usage(2300, 90, cached=1280)),
    )
    model = api.model()
    outcome = run(api, CDN_QUESTION, retriever=retriever, model=model)
    assert outcome.disposition == "answered"
    # prompt_tokens include the cached ones; Usage keeps them apart, as the Anthropic backend reports them.
    expected = {
        "input_tokens": 1500 + 2300 - 1280,
        "output_tokens": 130,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 1280,
    }
    assert dataclasses.asdict(outcome.usage) == expected
    assert outcome.usage.total == 1500 + 40 + 2300 + 90  # the API's total_tokens, summed
    assert outcome.to_wire().model_dump(mode="json")["usage"] == expected
    assert outcome.trace.model_dump(mode="json")["usage"] == expected
    # Every x-request-id the server sent, in order.
    assert len(api.sent_request_ids) == 2 and model.request_ids == api.sent_request_ids
    assert [d.request_id for d in outcome.trace.decisions] == api.sent_request_ids  # each decision names its request
    # What it cost on the OpenAI API at gpt-4.1-mini's prices (input, output, cached input per million).
    assert model.cost_usd(outcome.usage) == pytest.approx((2520 * 0.40 + 130 * 1.60 + 1280 * 0.10) / 1e6)


def test_cost_is_unknown_for_another_server_or_an_unpriced_model() -> None:
    usage_ = Usage(input_tokens=1000, output_tokens=100)
    assert OpenAIModel("gpt-4.1-mini").cost_usd(usage_) == pytest.approx((1000 * 0.40 + 100 * 1.60) / 1e6)
    assert OpenAIModel("gpt-4.1-mini", base_url="http://localhost:11434/v1").cost_usd(usage_) is None
    assert OpenAIModel("qwen2.5:7b").cost_usd(usage_) is None


def test_a_server_without_request_ids_or_usage(retriever, pid) -> None:
    """Ollama sends no x-request-id; a server may send no usage block: nothing is invented."""
    fastway = pid("acme", "vendor-notes", "fastway-cdn")
    body = answer_call(("Our CDN vendor is Fastway.", fastway, CDN_QUOTE))
    del body["usage"]
    api = ScriptedAPI(body, request_ids=False)
    model = api.model(model_name="qwen2.5:7b", base_url="http://localhost:11434/v1")
    outcome = run(api, CDN_QUESTION, retriever=retriever, model=model)
    assert outcome.disposition == "answered" and outcome.usage.total == 0
    assert model.request_ids == [] and model.cost_usd(outcome.usage) is None
    # A server given by URL gets max_tokens, which every compatible server reads.
    assert api.bodies[0]["max_tokens"] > 0 and "max_completion_tokens" not in api.bodies[0]


# --------------------------------------------------------------------------- API failures


def test_rate_limit_then_success_is_answered(retriever, pid) -> None:
    fastway = pid("acme", "vendor-notes", "fastway-cdn")
    api = ScriptedAPI(rate_limited(), answer_call(("Our CDN vendor is Fastway.", fastway, CDN_QUOTE)))
    outcome = run(api, CDN_QUESTION, retriever=retriever, max_retries=2)
    assert outcome.disposition == "answered"
    assert api.calls == 2 and api.bodies[0] == api.bodies[1]
    assert [r.headers.get("x-stainless-retry-count") for r in api.recorded] == ["0", "1"]
    assert len(outcome.trace.decisions) == 1


def test_server_errors_beyond_retries_raise_backend_error(retriever) -> None:
    api = ScriptedAPI(server_error(), server_error(), abstain_call())
    with pytest.raises(BackendError) as info:
        run(api, CDN_QUESTION, retriever=retriever, max_retries=1)
    assert api.calls == 2 and api.remaining == 1 and api.bodies[0] == api.bodies[1]
    message = info.value.message
    assert "the OpenAI API failed with HTTP 500 after 1 retries" in message
    assert api.sent_request_ids[-1] in message  # the request ID to quote to support


def test_timeout_raises_backend_error_after_retries(retriever) -> None:
    api = ScriptedAPI(NetworkFailure("timeout"), NetworkFailure("timeout"), abstain_call())
    with pytest.raises(BackendError, match=r"did not answer within 60 s, after 1 retries") as info:
        run(api, CDN_QUESTION, retriever=retriever, max_retries=1)
    assert api.calls == 2 and api.remaining == 1
    assert "Traceback" not in info.value.message


def test_connection_refused_raises_backend_error(retriever) -> None:
    api = ScriptedAPI(NetworkFailure("connect"))
    with pytest.raises(
        BackendError, match=r"cannot reach the server at http://localhost:11434/v1 .*is the server running\?"
    ):
        run(
            api,
            CDN_QUESTION,
            retriever=retriever,
            model=api.model(model_name="qwen2.5:7b", base_url="http://localhost:11434/v1"),
        )
    assert api.calls == 1


def test_rejected_key_is_a_backend_error_without_retry_or_key(retriever) -> None:
    api = ScriptedAPI(
        HTTPError(
            401,
            "Incorrect API key provided: sk-test-***SECRET. You can find your API key at https://platform.openai.com/account/api-keys.",
            "invalid_request_error",
            "invalid_api_key",
            {},
        ),
        abstain_call(),
    )
    with pytest.raises(BackendError) as info:
        run(api, CDN_QUESTION, retriever=retriever, max_retries=3, api_key="sk-test-SECRET")
    assert api.calls == 1
    assert "OPENAI_API_KEY" in info.value.message and "SECRET" not in info.value.message
    assert api.recorded[0].headers["authorization"] == "Bearer sk-test-SECRET"


def test_unknown_model_on_a_server_names_the_fix(retriever) -> None:
    api = ScriptedAPI(HTTPError(404, "model 'qwen2.5:7b' not found", "api_error", None, {}))
    with pytest.raises(BackendError, match=r"has no model 'qwen2.5:7b'.*ollama pull qwen2.5:7b"):
        run(
            api,
            CDN_QUESTION,
            retriever=retriever,
            model=api.model(model_name="qwen2.5:7b", base_url="http://localhost:11434/v1", max_retries=2),
        )
    assert api.calls == 1


def test_client_error_is_not_retried(retriever) -> None:
    api = ScriptedAPI(
        HTTPError(400, "Invalid schema for function 'submit_answer'", "invalid_request_error", None, {}), abstain_call()
    )
    with pytest.raises(BackendError, match=r"refused the request with HTTP 400.*Invalid schema"):
        run(api, CDN_QUESTION, retriever=retriever, max_retries=3)
    assert api.calls == 1


def test_a_reply_without_choices_is_a_backend_error(retriever) -> None:
    api = ScriptedAPI({"id": "chatcmpl-x", "object": "chat.completion", "created": 1, "model": MODEL, "choices": []})
    with pytest.raises(BackendError, match="without a chat completion choice"):
        run(api, CDN_QUESTION, retriever=retriever)


# ------------------------------------------------------------------- --model openai:MODEL[@URL], the key and the server


@pytest.mark.parametrize(
    "spec, model_name, base_url, name",
    [
        ("openai:gpt-4.1-mini", "gpt-4.1-mini", None, "openai:gpt-4.1-mini"),
        (
            "openai:qwen2.5:7b@http://localhost:11434/v1",
            "qwen2.5:7b",
            "http://localhost:11434/v1",
            "openai:qwen2.5:7b@http://localhost:11434/v1",
        ),
        (
            "  openai:meta-llama/Llama-3.1-8B-Instruct@https://vllm.internal:8000/v1 ",
            "meta-llama/Llama-3.1-8B-Instruct",
            "https://vllm.internal:8000/v1",
            "openai:meta-llama/Llama-3.1-8B-Instruct@https://vllm.internal:8000/v1",
        ),
        # A model name may hold '@'; the URL starts at the '@' followed by http(s)://.
        (
            "openai:claude@2025@http://[::1]:1234/v1",
            "claude@2025",
            "http://[::1]:1234/v1",
            "openai:claude@2025@http://[::1]:1234/v1",
        ),
        # Credentials in the URL are used, never shown in the model's name (trace, reports).
        (
            "openai:m@http://bob:pw@gateway.test/v1",
            "m",
            "http://bob:pw@gateway.test/v1",
            "openai:m@http://gateway.test/v1",
        ),
    ],
)
def test_model_spec_is_parsed(monkeypatch, spec, model_name, base_url, name) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key")
    model = resolve_model(spec)
    assert isinstance(model, OpenAIModel)
    assert (model.model_name, model.base_url, model.name) == (model_name, base_url, name)


@pytest.mark.parametrize(
    "spec, needle",
    [
        ("openai", "needs a model name"),
        ("openai:", "needs a model name"),
        ("openai:@http://localhost:11434/v1", "needs a model name"),
        ("openai:qwen2.5:7b@localhost:11434/v1", "after '@' give the server's URL"),
        ("openai:qwen2.5:7b@http://", "is not a server URL"),
        ("openai:qwen2.5:7b@http://localhost:99999/v1", "is not a server URL"),
        ("openai:two words", "invalid model name"),
        ("gpt-4", "use local, anthropic[:MODEL] or openai:MODEL[@URL]"),
    ],
)
def test_bad_model_spec_is_an_input_error(monkeypatch, spec, needle) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key")
    with pytest.raises(InputError) as info:
        resolve_model(spec)
    assert needle in info.value.message


def test_no_key_and_no_server_is_a_backend_error() -> None:
    with pytest.raises(BackendError, match="OPENAI_API_KEY.*openai:MODEL@URL.*RAGCLI_OPENAI_BASE_URL"):
        resolve_model("openai:gpt-4.1-mini")


def test_base_url_from_the_environment_is_honoured(retriever, pid, monkeypatch) -> None:
    """RAGCLI_OPENAI_BASE_URL picks the server; no key is needed for it; RAGCLI_MODEL may name the model."""
    fastway = pid("acme", "vendor-notes", "fastway-cdn")
    monkeypatch.setenv("RAGCLI_OPENAI_BASE_URL", "http://gpu-box.test:8000/v1")
    monkeypatch.setenv("RAGCLI_MODEL", "openai:llama3.1:8b")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://wrong.test/v1")  # the SDK's own variable: not ragcli's
    model = resolve_model(None)
    assert isinstance(model, OpenAIModel) and model.base_url == "http://gpu-box.test:8000/v1"
    api = ScriptedAPI(answer_call(("Our CDN vendor is Fastway.", fastway, CDN_QUOTE)))
    model.http_client = api.http_client()
    outcome = run(api, CDN_QUESTION, retriever=retriever, model=model)
    assert outcome.disposition == "answered" and outcome.model == "openai:llama3.1:8b@http://gpu-box.test:8000/v1"
    (request,) = api.recorded
    assert (request.host, request.port, request.path) == ("gpu-box.test", 8000, "/v1/chat/completions")
    assert request.body["model"] == "llama3.1:8b"
    assert request.headers["authorization"] == f"Bearer {PLACEHOLDER_KEY}"


def test_url_in_the_spec_beats_the_environment_and_gets_the_key(retriever, monkeypatch) -> None:
    monkeypatch.setenv("RAGCLI_OPENAI_BASE_URL", "http://gpu-box.test:8000/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-proxy-key")
    model = resolve_model("openai:qwen2.5:7b@https://llm.example.test/openai/v1")
    api = ScriptedAPI(abstain_call())
    model.http_client = api.http_client()
    assert run(api, CDN_QUESTION, retriever=retriever, model=model).reason == "model_abstained"
    (request,) = api.recorded
    assert (request.host, request.path) == ("llm.example.test", "/openai/v1/chat/completions")
    assert request.headers["authorization"] == "Bearer sk-proxy-key"


# --------------------------------------------------------------------------- eval --ask


def _answer_from_first_passage(sample_passages) -> Callable[[dict], dict]:
    """A model that cites the first evidence passage with one of its own sentences."""
    text = {p.id: p.text for tenant in sample_passages.values() for p in tenant}

    def reply(body: dict) -> dict:
        ids = sent_passage_ids(first_user_text(body))
        if not ids:
            return abstain_call()
        sentences = long_sentences(text[ids[0]]) or [" ".join(text[ids[0]].split())]
        return answer_call(("The documents say so.", ids[0], sentences[0]), use=usage(2000, 50, cached=1024))

    return reply


def test_eval_ask_runs_with_the_openai_model(retriever, sample_passages) -> None:
    from ragcli.eval import evaluate, load_cases

    cases = [c for c in load_cases(QUESTIONS) if c.expect == "answer"][:4]
    assert len(cases) == 4
    api = ScriptedAPI(*[_answer_from_first_passage(sample_passages)] * len(cases))
    model = api.model()
    report = evaluate(cases, retriever, k=10, answerer=Answerer(model))
    assert api.calls == len(cases) and api.remaining == 0 and not api.overrun
    assert report.model == f"openai:{MODEL}"
    for result in report.results:
        assert result.disposition == "answered", (result.case.id, result.reason)
        assert result.citations_passed is True and result.violations == []
        assert result.tokens == 2050
        assert result.cost_usd == pytest.approx(((2000 - 1024) * 0.40 + 50 * 1.60 + 1024 * 0.10) / 1e6)
    assert model.request_ids == api.sent_request_ids and len(set(model.request_ids)) == len(cases)
    # Each case asked as its own principal: every question's first request carried only its own evidence.
    for case, body in zip(cases, api.bodies, strict=True):
        assert first_user_text(body).startswith(f"Question: {case.question}")


# --------------------------------------------------------------------------- the CLI against a real server on 127.0.0.1


def _env(index, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in clean_env(index=index).items() if k not in OPENAI_ENV}
    env.update(extra)
    return env


def _ask(*args: object, env: dict[str, str], cwd) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        cli_args("ask", CDN_QUESTION, "--as", USERS / "bob.json", "--as-of", "2026-11-29", *args),
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=300,
    )


@pytest.mark.slow
def test_cli_ask_against_a_local_server_by_url(sample_root, pid, tmp_path) -> None:
    """``--model openai:qwen2.5:7b@http://127.0.0.1:PORT/v1`` with no key, as with a local Ollama."""
    fastway = pid("acme", "vendor-notes", "fastway-cdn")
    api = ScriptedAPI(
        search_call("Fastway contract renewal"),
        answer_call(("Our CDN vendor is Fastway, renewing on 2027-03-31.", fastway, CDN_QUOTE)),
        request_ids=False,
    )
    with api.serve() as url:
        proc = _ask("--model", f"openai:qwen2.5:7b@{url}", "--json", env=_env(sample_root), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["disposition"] == "answered" and [c["passage_id"] for c in data["claims"]] == [fastway]
    assert data["model"] == f"openai:qwen2.5:7b@{url}" and data["searches"] == 2
    assert api.calls == 2 and all(r.path == "/v1/chat/completions" and r.host == "127.0.0.1" for r in api.recorded)
    assert {r.headers["authorization"] for r in api.recorded} == {f"Bearer {PLACEHOLDER_KEY}"}
    assert [b["model"] for b in api.bodies] == ["qwen2.5:7b"] * 2
    assert tool_messages(api.bodies[1])[0]["tool_call_id"] == api.bodies[1]["messages"][2]["tool_calls"][0]["id"]


@pytest.mark.slow
def test_cli_ask_against_the_server_in_ragcli_openai_base_url(sample_root, tmp_path) -> None:
    api = ScriptedAPI(text_reply("Fastway, I think."))
    with api.serve() as url:
        proc = _ask(
            "--model", "openai:llama3.1:8b", "--json", env=_env(sample_root, RAGCLI_OPENAI_BASE_URL=url), cwd=tmp_path
        )
    assert proc.returncode == 1, proc.stderr
    data = json.loads(proc.stdout)
    assert (data["disposition"], data["reason"], data["message"]) == ("abstained", "invalid_decision", ABSTAIN_MESSAGE)
    assert api.calls == 1 and api.recorded[0].host == "127.0.0.1" and api.bodies[0]["model"] == "llama3.1:8b"


@pytest.mark.slow
def test_cli_server_error_exits_2_with_one_line(sample_root, tmp_path) -> None:
    api = ScriptedAPI(*[server_error()] * 4)
    with api.serve() as url:
        proc = _ask("--model", f"openai:qwen2.5:7b@{url}", env=_env(sample_root), cwd=tmp_path)
    assert_one_error_line(proc, "HTTP 500 after 3 retries", api.sent_request_ids[-1])
    assert api.calls == 4


def test_cli_without_a_key_or_server_exits_2(sample_root, tmp_path) -> None:
    proc = _ask("--model", "openai:gpt-4.1-mini", env=_env(sample_root, HOME=str(tmp_path)), cwd=tmp_path)
    assert_one_error_line(proc, "OPENAI_API_KEY")
    assert proc.stdout == ""
