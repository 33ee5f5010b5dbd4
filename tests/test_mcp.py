"""``ragcli mcp`` end to end: the official SDK's client over stdio against a real server subprocess.

Real index (the session's sample index, read-only; a private copy for the
republish test), real Tantivy, the real ONNX model, the local answerer. One
server per principal for the module (hana sees the pay bands, bob does not),
driven through an anyio blocking portal so plain tests can call it; the CLI
runs to compare with start together in one module fixture (two at a time).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from support.cli import assert_one_error_line, clean_env, cli, cli_args, cli_many, json_of, search_json
from support.corpus import all_passages, user, visible_to, write_markdown
from support.paths import DAY, SAMPLE, USERS
from support.schemas import assert_no_scope_fields

from ragcli.answer import ABSTAIN_MESSAGE, REASON_CODES

AS_OF = DAY.isoformat()
PAY_QUERY = "L3 engineer salary band"
REFUND_QUERY = "refund annual plan"
PAY_QUESTION = "What is the salary band for an L3 engineer?"
PAY_TEXT = "$120,000 to $145,000"
"""Words of the pay-bands passage: must never reach the server's log."""


@dataclass
class McpServer:
    """A running ``ragcli mcp`` and the SDK client session talking to it (sync calls through a portal)."""

    portal: Any
    session: Any
    log: Path

    def call(self, name: str, arguments: Any) -> Any:
        return self.portal.call(self.session.call_tool, name, arguments)

    def search(self, query: str, **extra: Any) -> dict[str, Any]:
        result = self.call("search", {"query": query, **extra})
        assert not result.is_error, result.content
        return result.structured_content  # type: ignore[no-any-return]

    def documents(self) -> dict[str, Any]:
        result = self.portal.call(self.session.read_resource, "ragcli://documents")
        (content,) = result.contents
        assert content.mime_type == "application/json"
        return json.loads(content.text)  # type: ignore[no-any-return]

    def log_lines(self) -> list[dict[str, Any]]:
        return [
            json.loads(line.removeprefix("ragcli mcp: "))
            for line in self.log.read_text(encoding="utf-8").splitlines()
            if line.startswith("ragcli mcp: {")
        ]


@contextmanager
def mcp_server(user_file: Path, index: Path, log: Path, *extra: object) -> Iterator[McpServer]:
    """Start ``python -m ragcli.cli mcp --as USER --index DIR`` and an initialized SDK client session on it."""
    from anyio.from_thread import start_blocking_portal
    from mcp import ClientSession, StdioServerParameters, stdio_client

    command, *args = cli_args("mcp", "--as", user_file, "--index", index, *extra)
    params = StdioServerParameters(command=str(command), args=[str(a) for a in args], env=clean_env(), cwd=str(index))
    with ExitStack() as stack:
        portal = stack.enter_context(start_blocking_portal())
        errlog = stack.enter_context(log.open("w", encoding="utf-8"))
        read, write = stack.enter_context(portal.wrap_async_context_manager(stdio_client(params, errlog=errlog)))
        session = stack.enter_context(portal.wrap_async_context_manager(ClientSession(read, write)))
        portal.call(session.initialize)
        yield McpServer(portal, session, log)


@pytest.fixture(scope="module")
def hana(sample_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpServer]:
    folder = tmp_path_factory.mktemp("mcp-hana")
    with mcp_server(
        USERS / "hana.json", sample_root, folder / "stderr.log", "--as-of", AS_OF, "--trace", folder / "trace.jsonl"
    ) as server:
        yield server


@pytest.fixture(scope="module")
def bob(sample_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpServer]:
    with mcp_server(
        USERS / "bob.json", sample_root, tmp_path_factory.mktemp("mcp-bob") / "stderr.log", "--as-of", AS_OF
    ) as server:
        yield server


@pytest.fixture(scope="module")
def cli_runs(sample_root: Path) -> dict[str, Any]:
    """The CLI's own --json for the same principals, questions and day, run together."""
    commands = {
        "search:hana:pay": ["search", PAY_QUERY, "--as", USERS / "hana.json", "--as-of", AS_OF, "--json"],
        "search:hana:refund:k3": [
            "search",
            REFUND_QUERY,
            "--as",
            USERS / "hana.json",
            "--as-of",
            AS_OF,
            "-k",
            "3",
            "--json",
        ],
        "search:bob:pay": ["search", PAY_QUERY, "--as", USERS / "bob.json", "--as-of", AS_OF, "--json"],
        "ask:hana:pay": [
            "ask",
            PAY_QUESTION,
            "--as",
            USERS / "hana.json",
            "--as-of",
            AS_OF,
            "--model",
            "local",
            "--json",
        ],
        "ask:bob:pay": [
            "ask",
            PAY_QUESTION,
            "--as",
            USERS / "bob.json",
            "--as-of",
            AS_OF,
            "--model",
            "local",
            "--json",
        ],
    }
    results = cli_many([[*c, "--index", sample_root] for c in commands.values()], index=sample_root)
    return dict(zip(commands, results, strict=True))


def expected_documents(sample_root: Path, name: str) -> list[dict[str, str]]:
    """The documents with a passage ``name`` may see on AS_OF, from the passage files and the rule restated."""
    principal = user(name)
    titles: dict[str, str] = {}
    for p in all_passages(sample_root, principal.tenant):
        if visible_to(p, principal, DAY):
            titles.setdefault(p.doc_id, p.title)
    return [{"id": d, "title": titles[d]} for d in sorted(titles)]


# --------------------------------------------------------------------------- the tools offered


def test_tools_take_no_scope_and_no_extra_arguments(hana: McpServer) -> None:
    tools = {t.name: t for t in hana.portal.call(hana.session.list_tools).tools}
    assert set(tools) == {"search", "ask"}
    for tool in tools.values():
        schema = tool.input_schema
        assert schema["type"] == "object" and schema["additionalProperties"] is False, (tool.name, schema)
        assert_no_scope_fields(schema["properties"])
        assert tool.output_schema and tool.output_schema["type"] == "object"
    assert set(tools["search"].input_schema["properties"]) == {"query", "k"} and tools["search"].input_schema[
        "required"
    ] == ["query"]
    assert set(tools["ask"].input_schema["properties"]) == {"question"} and tools["ask"].input_schema["required"] == [
        "question"
    ]
    resources = hana.portal.call(hana.session.list_resources).resources
    assert [str(r.uri) for r in resources] == ["ragcli://documents"]


# --------------------------------------------------------------------------- the same objects as the CLI's --json


@pytest.mark.slow
def test_search_result_equals_cli_search_json(hana: McpServer, cli_runs: dict[str, Any]) -> None:
    result = hana.call("search", {"query": PAY_QUERY})
    assert not result.is_error
    assert result.structured_content == _without_local_paths(search_json(cli_runs["search:hana:pay"]))
    assert json.loads(result.content[0].text) == result.structured_content
    assert result.structured_content["user"] == "hana" and result.structured_content["as_of"] == AS_OF
    assert any(r["doc_id"] == "pay-bands" for r in result.structured_content["results"])
    assert hana.search(REFUND_QUERY, k=3) == _without_local_paths(search_json(cli_runs["search:hana:refund:k3"]))
    assert str(SAMPLE) not in result.content[0].text  # sources relative to the ingested folder, no local path


def _without_local_paths(data: dict[str, Any]) -> dict[str, Any]:
    """The CLI's --json as the MCP client gets it: ``source_path`` (an absolute local path) is left out."""
    return {**data, "results": [{k: v for k, v in r.items() if k != "source_path"} for r in data["results"]]}


@pytest.mark.slow
def test_ask_equals_cli_ask_json(hana: McpServer, bob: McpServer, cli_runs: dict[str, Any]) -> None:
    outcomes = {}
    for server, key in ((hana, "ask:hana:pay"), (bob, "ask:bob:pay")):
        result = server.call("ask", {"question": PAY_QUESTION})
        assert not result.is_error, result.content
        assert json.loads(result.content[0].text) == result.structured_content
        got, want = dict(result.structured_content), json_of(cli_runs[key])
        assert len(got.pop("request_id")) == 32 and want.pop("request_id")
        assert got == want, key
        outcomes[key] = result.structured_content
    answered, abstained = outcomes["ask:hana:pay"], outcomes["ask:bob:pay"]
    assert answered["disposition"] == "answered" and answered["claims"][0]["passage_id"].startswith("pay-bands@")
    trace = hana.log.with_name("trace.jsonl").read_text(encoding="utf-8")  # --trace: one line per ask, IDs not text
    (line,) = trace.splitlines()
    assert json.loads(line)["request_id"] == answered["request_id"] and answered["claims"][0]["passage_id"] in line
    assert PAY_TEXT not in trace
    assert (
        abstained["disposition"] == "abstained"
        and abstained["message"] == ABSTAIN_MESSAGE
        and abstained["reason"] in REASON_CODES
    )
    assert abstained["claims"] == [] and abstained["sources"] == []


# --------------------------------------------------------------------------- permissions


@pytest.mark.slow
def test_forbidden_document_stays_invisible(
    hana: McpServer, bob: McpServer, cli_runs: dict[str, Any], sample_root: Path
) -> None:
    hana_docs = {r["doc_id"] for r in hana.search(PAY_QUERY)["results"]}
    bob_search = bob.search(PAY_QUERY)
    assert bob_search == search_json(cli_runs["search:bob:pay"])
    assert "pay-bands" in hana_docs and "pay-bands" not in {r["doc_id"] for r in bob_search["results"]}
    assert PAY_TEXT not in json.dumps(bob_search)

    hana_list, bob_list = hana.documents(), bob.documents()
    assert set(hana_list) == {"documents"} and all(set(d) == {"id", "title"} for d in hana_list["documents"])
    assert hana_list["documents"] == expected_documents(sample_root, "hana")
    assert bob_list["documents"] == expected_documents(sample_root, "bob")
    hana_ids, bob_ids = {d["id"] for d in hana_list["documents"]}, {d["id"] for d in bob_list["documents"]}
    assert "pay-bands" in hana_ids and "pay-bands" not in bob_ids
    assert "board-minutes" not in hana_ids | bob_ids  # carol's and the execs' only
    assert "Pay Bands" not in json.dumps(bob_list)


# --------------------------------------------------------------------------- bad arguments


@pytest.mark.parametrize(
    ("name", "arguments", "needle"),
    [
        ("search", {"query": PAY_QUERY, "tenant": "globex"}, "unknown key 'tenant'"),
        ("search", {"query": PAY_QUERY, "as_of": "2020-01-01"}, "unknown key 'as_of'"),
        ("ask", {"question": PAY_QUESTION, "groups": ["hr"]}, "unknown key 'groups'"),
        ("search", {"query": PAY_QUERY, "mode": "bm25"}, "unknown key 'mode'"),
        ("search", {"query": 42}, "field 'query' must be text"),
        ("search", {"query": PAY_QUERY, "k": "3"}, "field 'k' must be a whole number"),
        ("search", {"query": PAY_QUERY, "k": 0}, "field 'k' must be at least 1"),
        ("search", {"query": ""}, "field 'query' must not be empty"),
        ("search", {"query": " \t\n"}, "empty query"),
        ("search", {}, "field 'query' is required"),
        ("ask", {"question": ""}, "field 'question' must not be empty"),
        ("delete_everything", {}, "unknown tool"),
    ],
    ids=[
        "tenant",
        "as_of",
        "groups",
        "mode",
        "query-int",
        "k-str",
        "k-0",
        "query-empty",
        "query-blank",
        "query-missing",
        "question-empty",
        "tool",
    ],
)
def test_bad_arguments_are_tool_errors_and_the_server_goes_on(
    bob: McpServer, name: str, arguments: dict[str, Any], needle: str
) -> None:
    result = bob.call(name, arguments)
    assert result.is_error, result
    assert result.structured_content is None
    assert needle in result.content[0].text, result.content[0].text
    after = bob.search(REFUND_QUERY, k=3)  # the next call is answered, as bob still
    assert after["user"] == "bob" and after["tenant"] == "acme" and after["as_of"] == AS_OF
    # The refund policy first; at most two passages of one document (a page's later passages compete with
    # other pages' best ones: search.fusion.document_leads).
    docs = [r["doc_id"] for r in after["results"]]
    assert docs[0] == "refunds-policy" and len(docs) == 3 and docs.count("refunds-policy") <= 2, docs


def test_logs_go_to_stderr_with_passage_ids_not_text(hana: McpServer) -> None:
    found = hana.search(PAY_QUERY)
    text = hana.log.read_text(encoding="utf-8")
    lines = hana.log_lines()
    assert lines[0]["event"] == "start" and lines[0]["user"] == "hana" and lines[0]["as_of"] == AS_OF
    searches = [line for line in lines if line["event"] == "call" and line["tool"] == "search" and line["ok"]]
    assert searches and searches[-1]["results"] == [r["id"] for r in found["results"]]
    assert PAY_TEXT not in text and found["results"][0]["text"][:40] not in text


# --------------------------------------------------------------------------- startup


@pytest.mark.slow
def test_start_fails_with_one_error_line(tmp_path: Path) -> None:
    empty = tmp_path / "no-index"
    empty.mkdir()
    bad_day = cli("mcp", "--as", USERS / "bob.json", "--as-of", "2026-02-30", "--index", empty, timeout=60)
    assert_one_error_line(bad_day, "--as-of")
    no_index = cli("mcp", "--as", USERS / "bob.json", "--index", empty, timeout=60)
    assert_one_error_line(no_index, "acme")
    assert bad_day.stdout == no_index.stdout == ""


@pytest.mark.slow
def test_the_answer_options_are_checked_at_start(sample_root: Path) -> None:
    """``mcp`` opens the same ``AnswerSetup`` as ``ask``: --verify with the local answerer fails before serving."""
    proc = cli("mcp", "--as", USERS / "bob.json", "--model", "local", "--verify", "--index", sample_root, timeout=60)
    assert_one_error_line(proc, "--verify needs an LLM model", "--verify-model")
    assert proc.stdout == ""


# --------------------------------------------------------------------------- republish


@pytest.mark.slow
def test_new_generation_is_seen_at_the_next_call(sample_root: Path, tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    from ragcli import ingest

    index = tmp_path / "index"
    shutil.copytree(sample_root, index)
    new_docs = tmp_path / "new-docs"
    write_markdown(
        new_docs / "quokka.md",
        {"id": "quokka-migration", "title": "Quokka Migration Plan", "acl": ["everyone"]},
        "# Quokka Migration Plan\n\nThe quokka cluster moves to the zanzibar region in three waves, starting with "
        "staging.\n",
    )
    with mcp_server(USERS / "bob.json", index, tmp_path / "stderr.log", "--as-of", AS_OF) as bob_copy:
        before = bob_copy.search("quokka zanzibar migration")
        assert "quokka-migration" not in {r["doc_id"] for r in before["results"]}
        assert "quokka-migration" not in {d["id"] for d in bob_copy.documents()["documents"]}
        old_generation = (index / "acme" / "CURRENT").read_text().strip()

        # Another folder replaces the tenant's (one folder per tenant): a new generation either way.
        report = ingest(new_docs, "acme", index=index, embedder=embedder, replace=True)
        assert report.published and not report.documents.rejected
        assert (index / "acme" / "CURRENT").read_text().strip() != old_generation

        after = bob_copy.search("quokka zanzibar migration")
        assert after["results"][0]["id"].startswith("quokka-migration@"), after["results"][:2]
        assert "quokka-migration" in {d["id"] for d in bob_copy.documents()["documents"]}
        assert "pay-bands" not in {d["id"] for d in bob_copy.documents()["documents"]}
        switched = [line for line in bob_copy.log_lines() if line["event"] == "generation"]
        assert switched and switched[-1]["previous"] == old_generation
    assert bob_copy.log_lines()[-1] == {"event": "stop"}  # stdin closed: the server ended on its own
