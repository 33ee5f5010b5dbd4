"""Validity dates choose the version in force; they are no confidentiality control, but a user file may bound the
dates its holder asks about (issue 21): ``"as_of": {"max": "today"}`` refuses a later ``--as-of`` in every command."""

from __future__ import annotations

import json
from pathlib import Path

from support.cli import assert_one_error_line, cli_many, invoke, search_json
from support.paths import USERS


def _bounded(tmp_path: Path, name: str, bound: dict) -> Path:  # type: ignore[type-arg]
    data = json.loads((USERS / f"{name}.json").read_text())
    path = tmp_path / f"{name}-bounded.json"
    path.write_text(json.dumps({**data, "as_of": bound}))
    return path


def test_a_bounded_user_file_refuses_dates_outside_its_bound(tmp_path: Path, sample_root: Path, capsys) -> None:
    alice = _bounded(tmp_path, "alice", {"max": "today"})
    window = _bounded(tmp_path, "bob", {"min": "2026-09-01", "max": "2026-12-31"})
    future = ["search", "refund annual plans", "--index", sample_root, "--json", "--as-of", "2999-06-02"]
    commands = [
        [*future, "--as", alice],
        ["ask", "refund window?", "--as", alice, "--index", sample_root, "--as-of", "2999-06-02"],
        ["mcp", "--as", alice, "--index", sample_root, "--as-of", "2999-06-02"],
        ["search", "refund annual plans", "--as", window, "--index", sample_root, "--as-of", "2026-03-01"],
        ["search", "refund annual plans", "--as", alice, "--index", sample_root, "--json"],  # today: fine
        [*future, "--as", USERS / "alice.json"],  # no bound: as before
    ]
    runs = [invoke(capsys, *command) for command in commands[:-1]]
    runs += cli_many(commands[-1:])  # and one real process
    for proc in runs[:3]:
        assert_one_error_line(proc, "as-of date 2999-06-02 is after today", "the latest the user file allows")
    assert_one_error_line(runs[3], "as-of date 2026-03-01 is before 2026-09-01", "the earliest the user file allows")
    assert search_json(runs[4])["results"]
    assert search_json(runs[5])["as_of"] == "2999-06-02"


def test_a_bound_that_is_not_a_date_is_a_bad_user_file(tmp_path: Path, sample_root: Path, capsys) -> None:
    bad = _bounded(tmp_path, "alice", {"max": "tomorrow"})
    unknown = _bounded(tmp_path, "bob", {"latest": "today"})
    a, b = (invoke(capsys, "search", "refunds", "--as", path, "--index", sample_root) for path in (bad, unknown))
    assert_one_error_line(a, "as_of.max", "'tomorrow' is not a date")
    assert_one_error_line(b, "unknown key 'latest'")
