"""Answers a person can read and copy: code as a block with its marker on a line of its own, no
statement twice, no statement that leans on a sentence it does not bring, whole lines of code only;
``--json`` claims keep the exact quotes. Through the real CLI on a small real tenant."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.cli import cli_many, json_of
from support.corpus import all_passages, write_markdown, write_user

from ragcli import ingest
from ragcli.answer.outcome import Answered, CitedClaim
from ragcli.backends.local.evidence import units
from ragcli.passage import Passage

TOOLS = """To install `ruff`:

```console
$ uv tool install ruff
```

After installing `ruff`, it should be available:

```console
$ ruff --version
```
"""
CACHE = (
    "uv stores its cache in `~/.cache/uv` on Linux. It can be removed with `uv cache clean`, which deletes every "
    "entry.\nInstead of removing everything, `uv cache prune` removes only the entries that are no longer used.\n"
)
STEPS = "\n".join(f"make step-{n:02d}" for n in range(1, 51))  # longer than a window of three parts
LONG = f"To start the full stack locally, run:\n\n```sh\n{STEPS}\n```\n"


@pytest.fixture(scope="module")
def tenant(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("answer-text")
    docs = root / "docs"
    write_markdown(docs / "tools.md", {"title": "Tools", "acl": ["everyone"]}, "# Installing tools\n\n" + TOOLS)
    write_markdown(docs / "cache.md", {"title": "Cache", "acl": ["everyone"]}, "# The cache\n\n" + CACHE)
    write_markdown(docs / "stack.md", {"title": "Local stack", "acl": ["everyone"]}, "# Running locally\n\n" + LONG)
    # The same page twice (an old and a new version both current): the same words must not be said twice.
    for version in ("1", "2"):
        write_markdown(
            docs / f"retention-v{version}.md",
            {"title": "Retention", "id": f"retention-v{version}", "acl": ["everyone"]},
            "Audit logs are kept for 400 days and then deleted.\n",
        )
    index = root / "index"
    ingest(docs, "docs", index=index)
    return {"index": index, "user": write_user(root / "user.json", "uma", "docs", ["everyone"])}


QUESTIONS = {
    "ruff": "How do I install a tool like ruff globally?",
    "cache": "How do I clear the uv cache?",
    "stack": "How do I start the full stack locally?",
    "retention": "How long are audit logs kept?",
}


@pytest.fixture(scope="module")
def runs(tenant: dict[str, Path]) -> dict[str, tuple[str, dict]]:
    commands = []
    for question in QUESTIONS.values():
        commands.append(["ask", question, "--as", tenant["user"]])
        commands.append(["ask", question, "--as", tenant["user"], "--json"])
    procs = cli_many(commands, index=tenant["index"], parallel=2)
    return {name: (procs[2 * i].stdout, json_of(procs[2 * i + 1])) for i, name in enumerate(QUESTIONS)}


@pytest.mark.slow
def test_code_prints_as_a_block_and_the_marker_is_never_glued_to_it(runs) -> None:
    text, answer = runs["ruff"]
    assert answer["disposition"] == "answered", answer
    lines = text.splitlines()
    assert "$ uv tool install ruff" in lines  # the command alone on its line, copyable as it is
    assert any(line.strip() == "[1]" for line in lines)
    for line in lines:
        if line.startswith("$ "):
            assert "[" not in line, line


@pytest.mark.slow
def test_no_statement_opens_by_leaning_on_one_it_does_not_bring(runs) -> None:
    leaning = ("it ", "it's", "this ", "that ", "these ", "those ", "they ", "instead", "however", "also ")
    for name, (_, answer) in runs.items():
        for claim in answer.get("claims", []):
            assert not claim["statement"].casefold().startswith(leaning), (name, claim["statement"])
    _, cache = runs["cache"]
    if cache["disposition"] == "answered" and "uv cache clean" in cache["answer"]:
        assert "~/.cache/uv" in cache["answer"]  # "It can be removed ..." came with the sentence it points to


@pytest.mark.slow
def test_no_statement_twice(runs) -> None:
    for name, (_, answer) in runs.items():
        statements = [c["statement"] for c in answer.get("claims", [])]
        assert len(statements) == len(set(statements)), (name, statements)
    _, retention = runs["retention"]
    assert retention["answer"].count("400 days") == 1


@pytest.mark.slow
def test_long_code_is_cut_at_whole_lines(runs, tenant) -> None:
    _, answer = runs["stack"]
    assert answer["disposition"] == "answered", answer
    shown = "\n".join(c["statement"] for c in answer["claims"])
    assert "make step-01" in shown and "…" in shown  # cut, and it says so
    steps = [line for line in shown.splitlines() if line.startswith("make step-")]
    assert len(steps) == len(set(steps))  # no line twice
    numbers = [int(line.removeprefix("make step-")) for line in steps]
    assert numbers == list(range(1, len(numbers) + 1))  # the parts a claim spans read as one run of lines
    for line in shown.splitlines():
        assert line in ("…", "```sh", "```") or line.startswith(("To start", "make step-")), line
        if line.startswith("make step-"):
            assert len(line) == len("make step-01"), line  # never half a line


@pytest.mark.slow
def test_json_claims_keep_exact_quotes(runs, tenant) -> None:
    passages = {p.id: p for p in all_passages(tenant["index"], "docs")}
    for name, (_, answer) in runs.items():
        for claim in answer.get("claims", []):
            assert claim["quote"] in passages[claim["passage_id"]].text, (name, claim["quote"])


def _passage(text: str) -> Passage:
    return Passage("d@v#s", "d", "v", "s", "t", ("everyone",), None, None, "Doc", (), "/d.md", None, text)


def test_the_answer_text_puts_a_block_claim_and_its_marker_on_lines_of_their_own() -> None:
    """``Answered.answer`` on claims as the answerer makes them (one prose, one with a block)."""
    from ragcli import Principal, Scope
    from ragcli.answer.protocol import Usage
    from ragcli.answer.trace import Trace

    p = _passage(TOOLS)
    block, prose = units(p)[0], units(_passage("Tools are installed into their own environments by default.\n"))[0]
    claims = (CitedClaim(prose.statement, prose.passage, prose.quote), CitedClaim(block.statement, p, block.quote))
    answered = Answered(
        claims=claims,
        searches=1,
        model="local",
        request_id="0" * 32,
        usage=Usage(),
        evidence_ids=("d@v#s",),
        checks=(),
        trace=Trace.start("0" * 32, Scope.of(Principal(user="uma", tenant="docs", groups=("everyone",))), "local", "t"),
    )
    assert answered.answer == (
        "Tools are installed into their own environments by default. [1]\n\n"
        "To install ruff:\n```console\n$ uv tool install ruff\n```\n[1]"
    )
