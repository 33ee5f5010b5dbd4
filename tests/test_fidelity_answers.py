"""Readable answers: a quoted table row is printed under its table's header, lines of code as a code block;
``--json`` keeps the statement as the model gave it. Through the real CLI, with a scripted model behind a
local OpenAI-compatible server (only the network is faked)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import cli
from support.corpus import markdown, write, write_user

from ragcli.readable import readable_quote

PAGE = (
    "# Dependency specification\n\n## Caret requirements\n\n"
    "Caret requirements allow SemVer compatible updates. Here are some examples:\n\n"
    "| Requirement | Versions allowed |\n| ----------- | ---------------- |\n"
    "| ^1.2.3 | >=1.2.3 <2.0.0 |\n| ^0.2.3 | >=0.2.3 <0.3.0 |\n| ^0.0.3 | >=0.0.3 <0.0.4 |\n\n"
    "## Installing\n\nRun this to pin the caret version:\n\n"
    "```bash\npip install 'caret>=0.2.3,<0.3.0'\ncaret --check\n```\n"
)
ROW = "| ^0.2.3 | >=0.2.3 <0.3.0 |"
HEADER = ["| Requirement | Versions allowed |", "| ----------- | ---------------- |"]


def test_a_row_gets_its_header_and_code_lines_their_fence() -> None:
    assert readable_quote(ROW, PAGE) == "| Requirement | Versions allowed |\n| ----------- | ---------------- |\n" + ROW
    whole = "| Requirement | Versions allowed |\n| ----------- | ---------------- |\n" + ROW
    assert readable_quote(whole, PAGE) == whole  # a header already there is not repeated
    code = "pip install 'caret>=0.2.3,<0.3.0'\ncaret --check"
    assert readable_quote(code, PAGE) == f"```bash\n{code}\n```"
    fenced = f"```bash\n{code}\n```"
    assert readable_quote(fenced, PAGE) == fenced
    # Lines of Markdown that shows a code block: fenced with its own longer fence, the ``` inside kept as content.
    shows = "Write this:\n\n````markdown\n```python\nprint(1)\n```\n````\n"
    assert readable_quote("```python\nprint(1)", shows) == "```python\nprint(1)"  # a fence in it: as written
    assert readable_quote("print(1)", shows) == "````markdown\nprint(1)\n````"
    assert readable_quote("Caret requirements allow SemVer compatible updates.", PAGE) == (
        "Caret requirements allow SemVer compatible updates."
    )


@pytest.fixture(scope="module")
def folder(tmp_path_factory, embedder) -> Path:  # type: ignore[no-untyped-def]
    from ragcli import ingest

    root = tmp_path_factory.mktemp("fidelity-answers")
    write(root / "docs" / "deps.md", markdown({"acl": ["everyone"]}, PAGE))
    report = ingest(root / "docs", "t", index=root / "index", embedder=embedder, default_acl=["everyone"])
    assert report.published
    write_user(root / "u.json", "u", "t", ["everyone"])
    return root


def _passage_id(folder: Path, section: str) -> str:
    query = "caret requirements examples" if section == "caret-requirements" else "install caret check"
    proc = cli("search", query, "--as", folder / "u.json", "--index", folder / "index", "--json")
    ids = [r["id"] for r in json.loads(proc.stdout)["results"]]
    return next(i for i in ids if i.endswith("#" + section))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("section", "statement", "printed"),
    [
        (
            "caret-requirements",  # two rows: one is under the quote's minimum of words
            f"{ROW}\n| ^0.0.3 | >=0.0.3 <0.0.4 |",
            [*HEADER, ROW, "| ^0.0.3 | >=0.0.3 <0.0.4 |", "[1]"],
        ),
        (
            "installing",
            "pip install 'caret>=0.2.3,<0.3.0'\ncaret --check",
            ["```bash", "pip install 'caret>=0.2.3,<0.3.0'", "caret --check", "```", "[1]"],
        ),
    ],
    ids=["table-row", "code-lines"],
)
def test_ask_prints_a_row_under_its_header_and_code_as_a_block(folder, section, statement, printed) -> None:
    from support.openai_mock import ScriptedAPI, answer_call, search_call

    pid = _passage_id(folder, section)
    query = "caret requirements examples" if section == "caret-requirements" else "install caret check"
    api = ScriptedAPI(search_call(query), answer_call((statement, pid, statement)), request_ids=False)
    with api.serve() as url:
        proc = cli(
            "ask", "Which versions does ^0.2.3 allow?", "--as", folder / "u.json", "--index", folder / "index",
            "--model", f"openai:m@{url}", env={"OPENAI_API_KEY": ""},
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[: len(printed)] == printed, lines
