"""Untrusted text is printed safely: no terminal control sequence from a document reaches a reader's terminal.

Real documents hold ``ESC ] 0 ; … BEL`` (sets the window title), ``ESC [ 2 J``
(clears the screen), an OSC 8 hyperlink and a C1 CSI (``\\x9b``) in their
title, headings, text and file name. Every command that shows them (search as
a Rich table, ``--explain``, every ``--format``, ask, eval, ingest's rejections,
error lines) is run through the real CLI, on a pseudo-terminal and in a pipe;
the only escape sequences allowed out are Rich's own colours (SGR).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from support.cli import cli, cli_tty
from support.corpus import markdown, write, write_user

TITLE_SET = "\x1b]0;pwned\x07"
CLEAR = "\x1b[2J"
LINK = "\x1b]8;;https://evil.example/\x07click here\x1b]8;;\x07"
C1 = "\x9b2J"
SGR = re.compile(r"\x1b\[[0-9;]*m")
RAW = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
WIDE = 400
"""Terminal columns: wide enough that no table folds the text the checks look for."""


def assert_inert(output: str) -> None:
    """No control character but Rich's colours, newline and tab; the hostile bytes are shown written out."""
    left = SGR.sub("", output)
    assert not RAW.search(left), [repr(m.group()) for m in RAW.finditer(left)][:5]


@pytest.fixture(scope="module")
def hostile(tmp_path_factory, embedder):  # type: ignore[no-untyped-def]
    from ragcli import ingest

    root = tmp_path_factory.mktemp("hostile")
    body = (
        f"# Walrus {CLEAR}budget\n\n"
        f"The walrus budget is approved every May by the finance team {LINK} and {C1} nobody else.\n\n"
        "The walrus budget covers tusk polish and travel.\n"
    )
    write(root / "docs" / f"walrus{CLEAR}.md", markdown({"title": f"Budget {TITLE_SET}", "acl": ["everyone"]}, body))
    for i, note in enumerate(("Laptops are replaced every three years.", "The office opens at nine.")):
        write(root / "docs" / f"note-{i}.md", markdown({"acl": ["everyone"]}, f"# Note {i}\n\n{note}\n"))
    report = ingest(root / "docs", "t", index=root / "index", embedder=embedder)
    assert report.published and not report.documents.rejected
    write_user(root / "u.json", "u", "t")
    return root


def _run(root: Path, *args: object, tty: bool) -> str:
    full = (*args, "--as", root / "u.json", "--index", root / "index")
    proc = cli_tty(*full, columns=WIDE) if tty else cli(*full)
    assert proc.returncode in (0, 1), (args, proc.stderr)
    assert_inert(proc.stderr)
    return proc.stdout


@pytest.mark.slow
@pytest.mark.parametrize("tty", [True, False], ids=["terminal", "pipe"])
def test_search_table_and_explain_write_control_characters_out(hostile: Path, tty: bool) -> None:
    for extra in ((), ("--explain",)):
        shown = _run(hostile, "search", "walrus budget approved", *extra, tty=tty)
        assert_inert(shown)
        text = SGR.sub("", shown)
        assert "\\x1b]0;pwned\\x07" in text and "\\x1b[2Jbudget" in text
        if not extra:
            assert "walrus budget is approved" in text and "\\x1b]8;;https://evil.example/\\x07click here" in text


@pytest.mark.parametrize("fmt", ["json", "jsonl", "csv", "md", "files"])
def test_every_search_format_escapes_them(hostile: Path, fmt: str) -> None:
    shown = _run(hostile, "search", "walrus budget approved", "--format", fmt, tty=False)
    assert_inert(shown)
    if fmt in ("json", "jsonl"):
        text = json.dumps([json.loads(line) for line in shown.splitlines()] if fmt == "jsonl" else json.loads(shown))
        assert "\\u001b]0;pwned" in text  # the data is kept, as escapes a JSON reader decodes
    if fmt == "files":
        assert shown.splitlines()[0] == "walrus\\x1b[2J.md"


@pytest.mark.parametrize("tty", [True, False], ids=["terminal", "pipe"])
def test_ask_writes_them_out_in_the_answer_and_the_sources(hostile: Path, tty: bool) -> None:
    shown = _run(hostile, "ask", "Who approves the walrus budget every May?", tty=tty)
    assert_inert(shown)
    text = SGR.sub("", shown)
    assert "walrus budget is approved" in text and "Budget \\x1b]0;pwned\\x07" in text


@pytest.mark.slow
def test_eval_tables_and_ingest_rejections_and_errors_write_them_out(hostile: Path, tmp_path: Path) -> None:
    questions = tmp_path / "q.jsonl"
    case = {"id": "q1", "question": f"Who approves {TITLE_SET}the walrus budget?", "as": str(hostile / "u.json"),
            "relevant": ["nothing-matches"]}  # fmt: skip
    questions.write_text(json.dumps(case) + "\n", encoding="utf-8")
    for tty in (True, False):
        args = ("eval", questions, "--users", hostile, "--index", hostile / "index", "--min-recall", "1")
        proc = cli_tty(*args, columns=WIDE) if tty else cli(*args)
        assert proc.returncode == 1, proc.stderr
        assert_inert(proc.stdout + proc.stderr)
        assert "\\x1b]0;pwned\\x07" in SGR.sub("", proc.stdout)
    # A rejected file whose name holds the sequences, and an error line about a path that does.
    write(tmp_path / "docs" / f"no-acl{TITLE_SET}.md", "# No ACL\n\nNothing here.\n")
    rejected = cli("ingest", tmp_path / "docs", "--tenant", "x", "--index", tmp_path / "index")
    assert rejected.returncode == 2 and "no-acl\\x1b]0;pwned\\x07.md" in rejected.stderr
    assert_inert(rejected.stdout + rejected.stderr)
    missing = cli("ingest", tmp_path / f"gone{CLEAR}", "--tenant", "x", "--index", tmp_path / "index")
    assert missing.returncode == 2 and "gone\\x1b[2J" in missing.stderr
    assert_inert(missing.stderr)
