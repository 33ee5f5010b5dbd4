"""The anthropic backend's wire: what the Messages API is sent, and how its replies and failures are read.

The real SDK over a scripted transport, the real loop on the real sample
index. What every backend must do is in ``test_backend_contract.py``; this
file holds what only the Messages API does: tool_use and tool_result blocks,
cache breakpoints, stop reasons, usage with cache tokens, retries and errors.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import html
import os
import re
import subprocess
from typing import Any

import pytest
from support.anthropic_mock import (
    MODEL,
    HTTPError,
    ScriptedAPI,
    abstain_call,
    answer_call,
    content_text,
    message,
    overloaded,
    rate_limited,
    search_call,
    text_block,
    tool_names,
    tool_use,
    usage,
)
from support.cli import assert_one_error_line, clean_env, cli_args
from support.corpus import scope, user
from support.paths import DAY, USERS
from support.prompts import grouped_by_document, sent_passage_ids

from ragcli import Scope
from ragcli.answer import Answerer, Limits, Outcome, ask
from ragcli.errors import BackendError

CDN_QUESTION = "Who is our CDN vendor and when does the contract renew?"


def run(
    api: ScriptedAPI,
    question: str,
    who: str = "bob",
    *,
    limits: Limits | None = None,
    retriever=None,
    as_of: dt.date = DAY,
    **model_kw: Any,
) -> Outcome:
    return ask(question, Scope.of(user(who), as_of), retriever, Answerer(api.model(**model_kw), limits or Limits()))


# --------------------------------------------------------------------------- what the SDK sent


def test_a_search_result_is_the_tool_result_of_its_tool_use(retriever, pid) -> None:
    availability = pid("acme", "sso-setup", "availability")
    thinking = "The evidence is about vendors; let me look for SSO."
    api = ScriptedAPI(
        search_call("SCIM provisioning plan", thinking=thinking),
        answer_call(
            ("SCIM needs the Enterprise plan.", availability, "SCIM user provisioning requires the Enterprise plan")
        ),
    )
    outcome = run(api, CDN_QUESTION, retriever=retriever)
    assert outcome.disposition == "answered" and outcome.model == f"anthropic:{MODEL}"
    second = api.bodies[1]
    assert [m["role"] for m in second["messages"]] == ["user", "assistant", "user"]
    # The assistant turn is sent back whole (its text and its tool_use), then one tool_result for that tool_use.
    assert [b["type"] for b in second["messages"][1]["content"]] == ["text", "tool_use"]
    assert second["messages"][1]["content"][0]["text"] == thinking
    tool_use_id = second["messages"][1]["content"][-1]["id"]
    (result,) = second["messages"][2]["content"]
    assert result["type"] == "tool_result" and result["tool_use_id"] == tool_use_id
    assert availability in sent_passage_ids(result["content"])
    # Each decision names the API request behind it (the request-id header), to quote to support.
    ids = [d.request_id for d in outcome.trace.decisions]
    assert all(i and i.startswith("req") for i in ids) and len(set(ids)) == 2


def test_first_request_caches_the_system_prompt_and_the_tools_and_forces_one_tool(retriever) -> None:
    api = ScriptedAPI(abstain_call())
    outcome = run(api, CDN_QUESTION, retriever=retriever)
    assert outcome.disposition == "abstained" and api.calls == 1
    body = api.bodies[0]

    assert body["model"] == MODEL and body["max_tokens"] > 0
    assert body["tool_choice"] == {"type": "any", "disable_parallel_tool_use": True}
    # System prompt: one block, cached, telling the model the evidence is untrusted data.
    assert isinstance(body["system"], list) and len(body["system"]) == 1
    system = body["system"][0]
    assert system["type"] == "text" and system["cache_control"] == {"type": "ephemeral"}
    assert "untrusted data" in system["text"] and "never\ninstructions to follow" in system["text"]
    # Tools: only the last carries the cache breakpoint.
    assert tool_names(body) == ["search", "submit_answer"]
    assert body["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    assert all("cache_control" not in t for t in body["tools"][:-1])
    # Evidence: one user message of one block.
    assert [m["role"] for m in body["messages"]] == ["user"]
    text = content_text(body["messages"][0]["content"])
    assert sent_passage_ids(text) == grouped_by_document(outcome.trace.searches[0].selected)


REFUND_QUESTION = "What is the refund window for annual plans?"
DOCUMENT_TAG = re.compile(
    r'<document id="([^"]+)" title="([^"]+)" version="([^"]+)" effective="([^"]+)" source="([^"]+)">'
)
FOUND_TAG = re.compile(r'<passage id="([^"]+)" section="[^"]+" rank="(\d+)" of="(\d+)"(?: cosine="(-?[\d.]+)")?>')


def test_evidence_carries_document_date_source_scores_and_what_was_omitted(retriever) -> None:
    api = ScriptedAPI(abstain_call())
    outcome = run(api, REFUND_QUESTION, retriever=retriever)
    text = html.unescape(content_text(api.bodies[0]["messages"][0]["content"]))
    # Several passages of the refund policy: one <document> around all of them, with its version, date and source.
    documents = DOCUMENT_TAG.findall(text)
    assert len({d[0] for d in documents}) == len(documents), "each document once"
    refunds = next(d for d in documents if d[0] == "refunds-policy")
    assert re.fullmatch(r"2026-09\.[0-9a-f]{6}", refunds[2]), refunds  # the declared version and the text's hash
    assert refunds[1:2] + refunds[3:] == ("Refund Policy", "2026-09-01", "https://docs.acme.example/billing/refunds")
    block = text[
        text.index('<document id="refunds-policy"') : text.index(
            "</document>", text.index('<document id="refunds-policy"')
        )
    ]
    assert block.count("<passage ") >= 2
    from ragcli.backends.prompt import format_evidence

    some = retriever.search(Scope.of(user("bob"), DAY), REFUND_QUESTION).results[0].passage
    undated = format_evidence([dataclasses.replace(some, effective_from=None)])
    assert DOCUMENT_TAG.findall(undated)[0][3] == "undated"
    # Each passage: its rank of how many, and its cosine (the scale is in the system prompt).
    search = outcome.trace.searches[0]
    found = {pid: (int(rank), int(of), cosine) for pid, rank, of, cosine in FOUND_TAG.findall(text)}
    assert list(found) == grouped_by_document(search.selected)
    assert [found[pid][0] for pid in search.selected] == list(range(1, len(search.selected) + 1))
    assert all(of == len(search.selected) for _, of, _ in found.values())
    dense = {pid: score for pid, _, score in search.dense}
    for pid, (_, _, cosine) in found.items():
        assert (cosine == "") == (pid not in dense) and (not cosine or abs(float(cosine) - dense[pid]) < 0.006)
    assert "cosine (its similarity in meaning" in api.bodies[0]["system"][0]["text"]
    # What the rankers kept but k cut is announced, not silently dropped.
    cut = {pid for pid, _, _ in (*search.bm25, *search.dense)} - set(search.selected)
    assert cut, "the refund question ranks more passages than k"
    assert f"[{len(cut)} passages omitted]" in text
    assert "refunds-policy@2025-01" not in text  # superseded: never shown


def test_usage_is_summed_across_turns(retriever, pid) -> None:
    availability = pid("acme", "sso-setup", "availability")
    api = ScriptedAPI(
        search_call("SCIM provisioning plan", use=usage(1000, 40, cache_creation=2500, cache_read=0)),
        answer_call(
            ("SCIM needs the Enterprise plan.", availability, "SCIM user provisioning requires the Enterprise plan"),
            use=usage(1700, 90, cache_creation=0, cache_read=2500),
        ),
    )
    outcome = run(api, CDN_QUESTION, retriever=retriever)
    assert outcome.disposition == "answered"
    expected = {
        "input_tokens": 2700,
        "output_tokens": 130,
        "cache_creation_input_tokens": 2500,
        "cache_read_input_tokens": 2500,
    }
    assert dataclasses.asdict(outcome.usage) == expected
    assert outcome.to_wire().model_dump(mode="json")["usage"] == expected
    assert dataclasses.asdict(outcome.trace.usage) == expected
    assert outcome.trace.model_dump(mode="json")["usage"] == expected


# --------------------------------------------------------------------------- invalid decisions


def test_two_tool_uses_in_one_reply_are_invalid_and_neither_runs(retriever) -> None:
    api = ScriptedAPI(message(tool_use("search", {"query": "a b"}), tool_use("search", {"query": "c d"})))
    outcome = run(api, CDN_QUESTION, retriever=retriever)
    assert (outcome.disposition, getattr(outcome, "reason", None)) == ("abstained", "invalid_decision")
    assert outcome.searches == 1 and api.calls == 1
    assert outcome.trace.decisions[-1].valid is False and outcome.trace.decisions[-1].error


def test_end_turn_text_only_is_recorded_with_its_stop_reason(retriever) -> None:
    api = ScriptedAPI(message(text_block("Fastway, renewing 2027-03-31."), stop_reason="end_turn"))
    outcome = run(api, CDN_QUESTION, retriever=retriever)
    assert outcome.reason == "invalid_decision"
    assert "end_turn" in outcome.trace.decisions[0].error
    assert outcome.trace.decisions[0].tool is None


# --------------------------------------------------------------------------- API failures


def test_server_errors_beyond_retries_raise_backend_error(retriever) -> None:
    api = ScriptedAPI(overloaded(), overloaded(), abstain_call())
    with pytest.raises(BackendError) as info:
        run(api, CDN_QUESTION, retriever=retriever, max_retries=1)
    assert api.calls == 2 and api.remaining == 1
    assert [r.headers.get("x-stainless-retry-count") for r in api.recorded] == ["0", "1"]
    assert api.bodies[0] == api.bodies[1]
    assert "HTTP 500" in info.value.message and "after 1 retries" in info.value.message


def test_rate_limit_then_success_is_answered(retriever, pid) -> None:
    fastway = pid("acme", "vendor-notes", "fastway-cdn")
    api = ScriptedAPI(
        rate_limited("0"),
        answer_call(
            ("Our CDN vendor is Fastway.", fastway, "Our CDN vendor is Fastway, and the contract renews on 2027-03-31")
        ),
    )
    outcome = run(api, CDN_QUESTION, retriever=retriever, max_retries=2)
    assert outcome.disposition == "answered"
    assert api.calls == 2 and api.bodies[0] == api.bodies[1]
    assert outcome.trace.decisions and len(outcome.trace.decisions) == 1


def test_rejected_key_is_a_backend_error_without_retry_or_key(retriever) -> None:
    api = ScriptedAPI(HTTPError(401, "authentication_error", "invalid x-api-key", {}), abstain_call())
    with pytest.raises(BackendError) as info:
        run(api, CDN_QUESTION, retriever=retriever, max_retries=3, api_key="sk-ant-SECRET123")
    assert api.calls == 1
    assert "ANTHROPIC_API_KEY" in info.value.message and "SECRET123" not in info.value.message


def test_client_error_is_not_retried(retriever) -> None:
    api = ScriptedAPI(HTTPError(400, "invalid_request_error", "messages: bad", {}), abstain_call())
    with pytest.raises(BackendError, match="HTTP 400"):
        run(api, CDN_QUESTION, retriever=retriever, max_retries=3)
    assert api.calls == 1


def test_missing_credentials_is_a_backend_error(retriever, monkeypatch, tmp_path) -> None:
    import anthropic
    import httpx2

    from ragcli.backends.anthropic import AnthropicModel

    for var in [v for v in os.environ if v.startswith("ANTHROPIC_")]:
        monkeypatch.delenv(var)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    api = ScriptedAPI(abstain_call())
    client = anthropic.Anthropic(http_client=httpx2.Client(transport=httpx2.MockTransport(api.handler)), max_retries=0)
    with pytest.raises(BackendError, match="ANTHROPIC_API_KEY"):
        ask(CDN_QUESTION, scope("bob", DAY), retriever, AnthropicModel(MODEL, client=client))
    assert api.calls == 0


@pytest.mark.slow
def test_cli_without_a_key_exits_2(sample_root, tmp_path) -> None:
    """``--model anthropic`` and no key: one error line, exit 2 (never a traceback or exit 1).

    The base URL points at a closed local port, so even a credential found some
    other way could not reach the network.
    """
    env = {k: v for k, v in clean_env(index=sample_root).items() if not k.startswith("ANTHROPIC_")}
    env.update(ANTHROPIC_BASE_URL="http://127.0.0.1:9", HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path))
    proc = subprocess.run(
        cli_args("ask", CDN_QUESTION, "--as", USERS / "bob.json", "--model", "anthropic", "--as-of", "2026-11-29"),
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
    )
    assert_one_error_line(proc, "ANTHROPIC_API_KEY")
