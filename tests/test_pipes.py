"""Output that fits where it goes: whole lines in a pipe, results on stdout, counts and footers on stderr.

Everything runs through the real CLI as a subprocess whose stdout is a pipe,
which is what ``ragcli ask … | cat`` gives it.
"""

from __future__ import annotations

import json

import pytest
from support.cli import cli, json_of
from support.corpus import markdown, write, write_user
from support.paths import USERS

NARROW = {"COLUMNS": "80"}
"""What a pipe looks like to Rich when nothing says otherwise: 80 columns."""

LONG_ID = ("installing-the-command-line-tool-with-every-optional-extra-enabled-" * 3)[:196]  # metadata allows 200
COMMAND = (
    "uv tool install --python 3.12 --index-url https://packages.example.com/simple --with ragcli-extras "
    "--with ragcli-pdf --with ragcli-ray --with ragcli-mcp ragcli==2.4.0"
)
assert len(COMMAND) > 150
OTHER_NOTES = (
    "Uninstalling ragcli removes the tool but keeps the index folder.",
    "Upgrading ragcli keeps every index; run the upgrade command from the release notes.",
    "The platform team reviews access requests every Monday morning.",
    "Laptops are replaced every three years by the IT desk.",
)
QUESTION = "What command installs ragcli?"


@pytest.fixture(scope="module")
def long_lines(tmp_path_factory, embedder):  # type: ignore[no-untyped-def]
    """A document whose passage ID is over 200 characters and whose answer is one long shell command."""
    from ragcli import ingest

    root = tmp_path_factory.mktemp("pipes")
    body = (
        "# Installing ragcli\n\nInstall ragcli for the platform team with this command:\n\n"
        f"```console\n$ {COMMAND}\n```\n\n"
        "The platform team runs the install once per laptop, and the install takes about a minute.\n"
    )
    write(root / "docs" / "install.md", markdown({"id": LONG_ID, "version": "v1", "acl": ["everyone"]}, body))
    for i, note in enumerate(OTHER_NOTES):
        write(root / "docs" / f"note-{i}.md", markdown({"acl": ["everyone"]}, f"# Note {i}\n\n{note}\n"))
    report = ingest(root / "docs", "t", index=root / "index", embedder=embedder)
    assert report.published and not report.documents.rejected
    return root


@pytest.mark.slow
def test_piped_ask_keeps_a_200_character_passage_id_and_a_long_command_whole(long_lines) -> None:
    user = write_user(long_lines / "u.json", "u", "t")
    question = QUESTION
    proc = cli("ask", question, "--as", user, "--index", long_lines / "index", "--model", "local", env=NARROW)
    assert proc.returncode == 0, proc.stderr
    [source] = json_of(cli("ask", question, "--as", user, "--index", long_lines / "index", "--json"))["sources"]
    pid = source["passage_id"]
    assert len(pid) > 200
    lines = proc.stdout.splitlines()
    assert any(COMMAND in line for line in lines), lines  # the command whole, on one line
    assert any(line.startswith(f"[1] {pid} — ") for line in lines), lines  # the ID whole, never split
    assert all(line == line.rstrip() for line in lines)  # no padding to a width
    # Results on stdout; the footer (model, searches, request) on stderr, as search's count line is.
    assert "model:" not in proc.stdout and proc.stderr.startswith("model: local · searches: ")


@pytest.mark.slow
def test_piped_search_count_line_and_ask_footer_both_go_to_stderr(long_lines) -> None:
    user = write_user(long_lines / "u.json", "u", "t")
    search = cli("search", "install command", "--as", user, "--index", long_lines / "index", "-k", "1")
    assert search.returncode == 0, search.stderr
    assert search.stderr.startswith("1 result for u in t as of ") and len(search.stdout.splitlines()) == 2
    none = cli("search", "walrus migration", "--as", user, "--index", long_lines / "index", "--mode", "bm25")
    assert none.returncode == 1 and none.stdout == "" and none.stderr.startswith("no results for u in tenant t")


@pytest.mark.slow
def test_piped_trace_replay_is_not_wrapped(long_lines, tmp_path) -> None:
    user = write_user(long_lines / "u.json", "u", "t")
    trace = tmp_path / "trace.jsonl"
    question = "What command installs ragcli for the platform team, with every extra that it can take? " * 2
    asked = cli("ask", question, "--as", user, "--index", long_lines / "index", "--trace", trace)
    assert asked.returncode == 0, asked.stderr
    proc = cli("trace", "replay", trace, "--as", user, "--index", long_lines / "index", env=NARROW)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    request_id = json.loads(trace.read_text().splitlines()[0])["request_id"]
    assert lines[0].startswith(f"run {request_id} · t as u on ") and "generation gen-" in lines[0]
    assert lines[1] == f"  search 1: match  {question.strip()}"  # the whole query on one line, not wrapped at 80
    assert lines[-1] == "every ranking matches"


@pytest.mark.slow
def test_a_models_answer_shows_links_as_text_and_its_control_characters_inert(sample_root, pid) -> None:
    """An LLM's statement is untrusted text too: a Markdown link reads as its text, an escape sequence is inert."""
    from support.openai_mock import ScriptedAPI, answer_call, search_call

    fastway = pid("acme", "vendor-notes", "fastway-cdn")
    quote = "Our CDN vendor is Fastway, and the contract renews on 2027-03-31"
    # No digit in the sequences: the citation check would rightly refuse a number the passage lacks.
    statement = "Our CDN vendor is [Fastway](https://fastway.example/cdn)\x1b[H\x9bK, renewing on 2027-03-31."
    api = ScriptedAPI(search_call("Fastway CDN"), answer_call((statement, fastway, quote)), request_ids=False)
    with api.serve() as url:
        proc = cli(
            "ask", "Who is our CDN vendor?", "--as", USERS / "bob.json", "--as-of", "2026-11-29",
            "--index", sample_root, "--model", f"openai:m@{url}", env={"OPENAI_API_KEY": ""},
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    first = proc.stdout.splitlines()[0]
    assert first == "Our CDN vendor is Fastway\\x1b[H\\x9bK, renewing on 2027-03-31. [1]"
    assert "\x1b" not in proc.stdout and "\x9b" not in proc.stdout
