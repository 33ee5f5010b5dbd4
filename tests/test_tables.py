"""Tables that fit: plain tab-separated rows in a pipe, whole IDs in an 80-column terminal, snippets
centred on the first matched word with whole words highlighted."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support.cli import cli, cli_tty, json_of
from support.corpus import markdown, write, write_user
from support.paths import USERS

ALICE = USERS / "alice.json"
NOW = "2026-11-29"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
BOX = set("│┃─━┏┓┗┛┡┩└┘┌┐╇╈┼")


def in_terminal(*args: object, columns: int = 80, cwd: Path | None = None, index: Path | None = None) -> str:
    """Run the CLI with stdout on a pseudo-terminal ``columns`` wide; return what it showed (ANSI removed)."""
    proc = cli_tty(*args, columns=columns, cwd=cwd or Path.cwd(), index=index)
    assert proc.returncode in (0, 1), proc.stderr
    return ANSI.sub("", proc.stdout)


# --------------------------------------------------------------------------- pipes


@pytest.mark.slow
def test_search_in_a_pipe_prints_plain_untruncated_rows(sample_index) -> None:
    args = (
        "search",
        "refund window for annual plans",
        "--as",
        ALICE,
        "--index",
        sample_index.root,
        "--as-of",
        NOW,
        "-k",
        "4",
    )
    table, as_json = cli(*args), cli(*args, "--json")
    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    assert lines[0] == "rank\tpassage\ttitle › section\tsnippet\tsource"
    rows = [line.split("\t") for line in lines[1:]]
    results = json_of(as_json)["results"]
    assert len(rows) == len(results) == 4
    for row, r in zip(rows, results, strict=True):
        assert len(row) == 5
        assert row[0] == str(r["rank"]) and row[1] == r["id"] and row[4] == r["source"]
        assert row[2] == " › ".join([r["title"], *r["heading_path"][1:]]) or r["title"] in row[2]
    assert not BOX & set(table.stdout) and "…" not in "".join(row[1] + row[2] + row[4] for row in rows)
    assert "4 results for alice in acme" in table.stderr


@pytest.mark.slow
def test_status_in_a_pipe_prints_plain_untruncated_rows(sample_index) -> None:
    table, as_json = cli("status", "--index", sample_index.root), cli("status", "--index", sample_index.root, "--json")
    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    header = lines[0].split("\t")
    assert header[:3] == ["tenant", "docs", "passages"] and "last ingest" in header
    tenants = json_of(as_json)["tenants"]
    assert len(lines) == 1 + len(tenants)
    for line, t in zip(lines[1:], tenants, strict=True):
        row = dict(zip(header, line.split("\t"), strict=True))
        assert row["tenant"] == t["tenant"] and row["last ingest"] == t["last_ingest"]
        assert t["model"]["id"] in row["model"] and t["model"]["sha256"] in row["model"]
    assert not BOX & set(table.stdout) and "…" not in table.stdout


@pytest.mark.slow
def test_ingest_summary_in_a_pipe_is_plain(tmp_path) -> None:
    write(tmp_path / "docs" / "a.md", markdown({"acl": ["everyone"]}, "# A\n\nThe walrus budget.\n"))
    proc = cli("ingest", tmp_path / "docs", "--tenant", "t", "--index", tmp_path / "index")
    assert proc.returncode == 0, proc.stderr
    header, row = proc.stdout.splitlines()
    assert header.split("\t")[:3] == ["added", "updated", "unchanged"] and row.split("\t")[0] == "1"


# --------------------------------------------------------------------------- an 80-column terminal


@pytest.mark.slow
def test_search_fits_an_80_column_terminal_with_whole_ids_and_relative_sources(tmp_path, embedder) -> None:
    from ragcli import ingest

    docs = tmp_path / "work" / "docs"
    for i in range(3):
        body = (
            f"# Backups\n\n## Rotation schedule {i}\n\n"
            f"The archive team rotates the backup drives every spring; drive set {i} goes offsite.\n"
        )
        write(
            docs / "operations" / f"backup-rotation-procedure-{i}.md",
            markdown({"id": f"backup-rotation-procedure-{i}", "acl": ["everyone"]}, body),
        )
    ingest(docs, "t", index=tmp_path / "index", embedder=embedder)
    user = write_user(tmp_path / "u.json", "u", "t")
    shown = in_terminal(
        "search", "backup drives rotation", "--as", user, "--index", tmp_path / "index", cwd=tmp_path / "work"
    )
    ids = [
        r["id"]
        for r in json_of(
            cli("search", "backup drives rotation", "--as", user, "--index", tmp_path / "index", "--json")
        )["results"]
    ]
    assert len(ids) == 3
    for pid in ids:
        assert pid in shown, (pid, shown)
    assert all(len(line) <= 80 for line in shown.splitlines()), shown
    assert str(docs) not in shown  # sources relative to where the user stands
    assert (
        "docs/operations/backup-rotation-procedure-" in shown.replace("\n", "").replace(" ", "")
        or "operations/backup" in shown
    )


def test_status_fits_an_80_column_terminal(sample_index) -> None:
    shown = in_terminal("status", "--index", sample_index.root)
    assert "…" not in shown, shown
    assert "acme" in shown and "globex" in shown and "all-MiniLM-L6-v2" in shown
    assert all(len(line) <= 80 for line in shown.splitlines()), shown


# --------------------------------------------------------------------------- snippets


def _highlighted(text) -> list[str]:  # type: ignore[no-untyped-def]
    return [text.plain[s.start : s.end] for s in text.spans if "bold" in str(s.style)]


def test_snippet_highlights_whole_words_with_stemmed_matches() -> None:
    from ragcli.cli.results import snippet

    out = snippet("Run syncing now; async tasks wait; then sync again and resynchronise.", "sync")
    assert _highlighted(out) == ["syncing", "sync"]
    out = snippet("Plans are refundable. A refund takes five days; refunded plans close.", "refund plans")
    assert _highlighted(out) == ["Plans", "refundable", "refund", "refunded", "plans"] or _highlighted(out) == [
        "Plans",
        "refund",
        "refunded",
        "plans",
    ]


def test_snippet_is_centred_on_the_first_matched_word() -> None:
    from ragcli.cli.results import snippet

    filler = " ".join(["lorem ipsum dolor sit amet"] * 60)
    text = f"{filler} The retry_backoff_ms setting doubles each time. {filler}"
    out = snippet(text, "what is retry_backoff_ms")
    plain = out.plain
    assert "retry_backoff_ms" in plain and plain.startswith("…") and plain.endswith("…")
    centre = plain.index("retry_backoff_ms") + len("retry_backoff_ms") // 2
    assert abs(centre - len(plain) / 2) < 25, plain
    assert _highlighted(out) == ["retry_backoff_ms"]


@pytest.mark.parametrize("query", ["", "the of and", "zzzz"])
def test_snippet_without_a_match_starts_at_the_beginning(query: str) -> None:
    from ragcli.cli.results import snippet

    out = snippet("First words of the passage. " * 30, query, width=60)
    assert out.plain.startswith("First words") and out.plain.endswith("…") and _highlighted(out) == []
