"""The openai backend (Chat Completions with tools) through the real SDK; only the network is scripted.

Every run uses the real sample_corpus index and the real answer loop, so the
searches the model asks for really run (as the --as principal) and the
evidence in the request bodies is what the retriever returned. The CLI tests
run ``ragcli`` as a subprocess against a real HTTP server on 127.0.0.1 that
answers from the same script, the way a local Ollama would.
"""

from __future__ import annotations

import dataclasses
import html
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
    tool_names,
    usage,
)
from support.outcomes import assert_every_reason_looks_the_same
from support.paths import DAY, QUESTIONS, USERS
from support.prompts import grouped_by_document, sent_passage_ids
from support.schemas import assert_no_scope_fields, property_names

from ragcli import Scope
from ragcli.answer import ABSTAIN_MESSAGE, Limits, Outcome, ask
from ragcli.answer.protocol import Usage
from ragcli.answer.tools import TOOLS
from ragcli.errors import BackendError, InputError
from ragcli.models import resolve_model
from ragcli.models.openai import NOT_RUN, PLACEHOLDER_KEY, OpenAIModel
from ragcli.models.prompt import SYSTEM_PROMPT

CDN_QUESTION = "Who is our CDN vendor and when does the contract renew?"
CDN_QUOTE = "Our CDN vendor is Fastway, and the contract renews on 2027-03-31"
SCIM_QUOTE = "SCIM user provisioning requires the Enterprise plan"
OFF_TOPIC = "What is the capital of Mongolia?"
URGENT_QUESTION = "How quickly do urgent support tickets get a first response?"
SLA_QUOTE = "Urgent tickets get a first response within 1 hour"
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
    return ask(question, Scope.of(user(who), DAY), retriever, model or api.model(**model_kw), limits=limits)


# --------------------------------------------------------------------------- happy path and what the SDK sent


def test_search_then_answer_from_new_evidence(retriever, pid) -> None:
    availability = pid("acme", "sso-setup", "availability")
    search = tool_call("search", {"query": "SCIM provisioning plan"})
    api = ScriptedAPI(
        completion(search, content="The evidence is about vendors; let me look for SSO."),
        answer_call(("SCIM provisioning requires the Enterprise plan.", availability, SCIM_QUOTE)),
    )
    outcome = run(api, CDN_QUESTION, retriever=retriever)
    assert outcome.disposition == "answered", (getattr(outcome, "reason", None), outcome.checks)
    assert [c.passage.id for c in outcome.claims] == [availability]
    assert outcome.checks and all(c.passed for c in outcome.checks)
    assert outcome.searches == 2 and outcome.model == f"openai:{MODEL}"
    assert api.calls == 2 and api.remaining == 0 and not api.overrun
    assert all(r.path == "/v1/chat/completions" and r.host == "api.openai.com" for r in api.recorded)
    # The cited passage was not in the first evidence: only the model's search found it.
    assert availability not in sent_passage_ids(first_user_text(api.bodies[0]))

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
    assert [s.query for s in outcome.trace.searches] == [CDN_QUESTION, "SCIM provisioning plan"]
    assert outcome.trace.user == "bob" and outcome.trace.tenant == "acme"
    assert [d.kind for d in outcome.trace.decisions] == ["search", "claims"]


def test_first_request_is_what_the_design_says(retriever) -> None:
    api = ScriptedAPI(abstain_call())
    outcome = run(api, CDN_QUESTION, retriever=retriever)
    assert outcome.reason == "model_abstained" and api.calls == 1
    body = api.bodies[0]
    assert body["model"] == MODEL
    assert body["tool_choice"] == "required" and body["parallel_tool_calls"] is False
    # The OpenAI API takes max_completion_tokens (reasoning models reject max_tokens).
    assert body["max_completion_tokens"] > 0 and "max_tokens" not in body
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert body["messages"][0]["content"] == SYSTEM_PROMPT and "untrusted data" in SYSTEM_PROMPT
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
    assert all(t["function"]["parameters"]["additionalProperties"] is False for t in body["tools"])
    text = first_user_text(body)
    assert text.startswith(f"Question: {CDN_QUESTION}") and text.rstrip().endswith("</evidence>")
    selected = outcome.trace.searches[0].selected
    assert selected and selected == list(outcome.evidence_ids)
    # One <passage> per retrieved passage, grouped by document (documents in the order of their best passage).
    assert sent_passage_ids(text) == grouped_by_document(selected)


def test_no_tool_can_name_a_tenant_group_user_filter_or_date(retriever) -> None:
    api = ScriptedAPI(abstain_call())
    run(api, CDN_QUESTION, retriever=retriever)
    names = property_names(api.bodies[0]["tools"])
    assert set(names) == {"query", "claims", "statement", "passage_id", "quote", "abstain", "reason"}
    assert_no_scope_fields(names)


def test_search_with_max_searches_1_is_budget_exhausted(retriever) -> None:
    api = ScriptedAPI(search_call("SCIM provisioning plan"))
    outcome = run(api, CDN_QUESTION, limits=Limits(max_searches=1), retriever=retriever)
    assert tool_names(api.bodies[0]) == ["submit_answer"]
    assert (outcome.disposition, outcome.reason, outcome.searches, api.calls) == ("abstained", "budget_exhausted", 1, 1)


def test_quote_not_in_passage_fails_the_citation_check(retriever, pid) -> None:
    fastway = pid("acme", "vendor-notes", "fastway-cdn")
    api = ScriptedAPI(
        answer_call(("Our CDN vendor is Fastway.", fastway, "Our CDN vendor is Akamai, and the contract"))
    )
    outcome = run(api, CDN_QUESTION, retriever=retriever)
    assert (outcome.disposition, outcome.reason) == ("abstained", "citation_check_failed")
    assert {c.check for c in outcome.trace.checks if not c.passed} == {"quote_in_passage"}


def test_empty_first_search_gives_one_turn_then_no_visible_evidence(retriever) -> None:
    api = ScriptedAPI(search_call("Ulaanbaatar capital city"), abstain_call())
    outcome = run(api, OFF_TOPIC, retriever=retriever)
    assert (outcome.reason, api.calls, outcome.searches) == ("no_visible_evidence", 1, 2)
    assert "first search found no passages" in first_user_text(api.bodies[0])


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


# --------------------------------------------------------------------------- invalid decisions


def _submit(payload: Any) -> dict:
    return completion(tool_call("submit_answer", payload))


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
            lambda ids: completion(tool_call("search", {"query": "pay bands", "tenant": "globex"})),
            "tenant",
            id="search-with-tenant",
        ),
        pytest.param(
            lambda ids: completion(tool_call("search", {"query": "pay bands", "user": "hana", "groups": ["hr"]})),
            "user",
            id="search-as-another-user",
        ),
        pytest.param(
            lambda ids: _submit({**claims_payload(("Fastway.", ids[0], CDN_QUOTE)), "tenant": "globex"}),
            "tenant",
            id="answer-with-tenant",
        ),
        pytest.param(
            lambda ids: _submit(
                {"claims": [{"statement": "Fastway.", "passage_id": ids[0], "quote": CDN_QUOTE, "group": "hr"}]}
            ),
            "group",
            id="claim-with-group",
        ),
        pytest.param(
            lambda ids: _submit({"claims": [], "abstain": {"reason": "x"}}),
            "submit_answer",
            id="both-claims-and-abstain",
        ),
        pytest.param(
            lambda ids: completion(tool_call("search", {"query": "   \t "})), "no words", id="search-blank-query"
        ),
        pytest.param(
            lambda ids: completion(tool_call("read_document", {"id": ids[0]})), "unknown tool", id="unknown-tool"
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
def test_invalid_decision(retriever, reply, error) -> None:
    api = ScriptedAPI(lambda body: reply(sent_passage_ids(first_user_text(body))))
    outcome = run(api, CDN_QUESTION, retriever=retriever)
    assert (outcome.disposition, outcome.reason) == ("abstained", "invalid_decision")
    assert outcome.searches == 1 and api.calls == 1  # nothing the model sent was acted on
    decision = outcome.trace.decisions[-1]
    assert decision.valid is False and error in decision.error


def test_every_reason_code_shows_the_same_message(retriever, pid) -> None:
    fastway = pid("acme", "vendor-notes", "fastway-cdn")
    sla_claim = (
        "Urgent tickets get a first response within 1 hour.",
        pid("acme", "support-sla", "response-times"),
        SLA_QUOTE,
    )
    scenarios = {
        "no_visible_evidence": (OFF_TOPIC, ScriptedAPI(abstain_call()), None),
        "citation_check_failed": (
            CDN_QUESTION,
            ScriptedAPI(answer_call(("Fastway.", fastway, "Our CDN vendor is Akamai today"))),
            None,
        ),
        "model_abstained": (CDN_QUESTION, ScriptedAPI(abstain_call()), None),
        "invalid_decision": (CDN_QUESTION, ScriptedAPI(text_reply("Fastway.")), None),
        "budget_exhausted": (CDN_QUESTION, ScriptedAPI(search_call("SCIM provisioning plan")), Limits(max_searches=1)),
        # Cites one of two current pages that disagree, is told so, and cites one side again.
        "conflicting_evidence": (URGENT_QUESTION, ScriptedAPI(answer_call(sla_claim), answer_call(sla_claim)), None),
    }
    assert_every_reason_looks_the_same(scenarios, run, retriever)


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
    report = evaluate(cases, retriever, k=10, model=model)
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


def test_answers_quote_the_escaped_evidence(retriever, pid, text_of) -> None:
    """The model sees passage text HTML-escaped (the shared format); copying it exactly must pass."""
    how = pid("acme", "refunds-policy@2026-09", "how-to-request-a-refund")
    assert "Console > Billing" in text_of("acme", how)

    def answer(body: dict) -> dict:
        line = next(line for line in first_user_text(body).splitlines() if "The account owner opens" in line)
        quote = line.split(". ", 1)[1] if line[0].isdigit() else line
        assert "&gt;" in quote and html.unescape(quote) != quote
        return answer_call(("The account owner requests refunds in the console.", how, quote))

    outcome = run(ScriptedAPI(answer), "How do I request a refund?", retriever=retriever)
    assert outcome.disposition == "answered", outcome.checks
