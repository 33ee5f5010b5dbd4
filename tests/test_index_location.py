"""The index is found the way git finds a repository: --index, $RAGCLI_INDEX, the nearest .ragcli, the per-user one.

Each run is a real CLI subprocess in a folder of the test's own, with no
RAGCLI_INDEX and a private XDG_DATA_HOME (the per-user data directory).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from support.cli import assert_one_error_line, clean_env, cli, cli_args, json_of
from support.corpus import markdown, write, write_user


def _located(home: Path, *args: object, cwd: Path, extra: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    """A CLI run from ``cwd`` with nothing naming the index (unless ``extra`` does)."""
    env = clean_env({"XDG_DATA_HOME": str(home / "xdg")})
    env.pop("RAGCLI_INDEX", None)
    env.update(extra or {})
    return subprocess.run(cli_args(*args), capture_output=True, text=True, env=env, cwd=str(cwd), timeout=300)


@pytest.fixture
def place(tmp_path: Path) -> Path:
    write(
        tmp_path / "docs" / "a.md",
        markdown({"acl": ["everyone"]}, "# Walrus\n\nThe walrus budget is reviewed in May.\n"),
    )
    write_user(tmp_path / "u.json", "u", "walrus")
    (tmp_path / "project" / "deep" / "er").mkdir(parents=True)
    return tmp_path


@pytest.mark.slow
def test_without_a_ragcli_folder_the_per_user_index_is_used_from_anywhere(place: Path) -> None:
    ingest = _located(place, "ingest", place / "docs", "--tenant", "walrus", "--json", cwd=place / "project")
    assert ingest.returncode == 0, ingest.stderr
    per_user = place / "xdg" / "ragcli" / "index"
    assert json_of(ingest)["index"] == str(per_user)  # ingest says where it wrote
    assert (per_user / "walrus" / "CURRENT").exists() and not (place / "project" / ".ragcli").exists()
    # Another folder entirely: the same index is found.
    found = _located(place, "search", "walrus budget", "--as", place / "u.json", "--json", cwd=place / "docs")
    assert found.returncode == 0, found.stderr
    assert json_of(found)["results"][0]["doc_id"] == "a"


@pytest.mark.slow
def test_the_nearest_ragcli_folder_wins_over_the_per_user_one_and_is_found_from_below(place: Path) -> None:
    (place / "project" / ".ragcli").mkdir()
    ingest = _located(place, "ingest", place / "docs", "--tenant", "walrus", cwd=place / "project")
    assert ingest.returncode == 0, ingest.stderr
    assert (place / "project" / ".ragcli" / "walrus" / "CURRENT").exists()
    assert str(place / "project" / ".ragcli") in ingest.stdout  # the summary names the index it wrote to
    deep = _located(place, "search", "walrus budget", "--as", place / "u.json", cwd=place / "project" / "deep" / "er")
    assert deep.returncode == 0 and "a@" in deep.stdout, deep.stderr
    # $RAGCLI_INDEX beats the nearest folder, and --index beats both.
    other = place / "elsewhere"
    env_run = _located(
        place, "search", "walrus", "--as", place / "u.json", cwd=place / "project", extra={"RAGCLI_INDEX": str(other)}
    )
    assert_one_error_line(env_run, "unknown tenant 'walrus'", str(other), "RAGCLI_INDEX")
    flag_run = _located(
        place, "search", "walrus", "--as", place / "u.json", "--index", place / "project" / ".ragcli",
        cwd=place, extra={"RAGCLI_INDEX": str(other)},
    )  # fmt: skip
    assert flag_run.returncode == 0, flag_run.stderr


@pytest.mark.slow
def test_unknown_tenant_names_the_folder_and_the_tenants_there_and_suggests_ingest_only_when_empty(
    place: Path,
) -> None:
    (place / "project" / ".ragcli").mkdir()
    empty = _located(place, "search", "walrus", "--as", place / "u.json", cwd=place / "project" / "deep")
    line = assert_one_error_line(empty, "unknown tenant 'walrus'", str(place / "project" / ".ragcli"), "--index")
    assert "the nearest .ragcli from" in line and "ragcli ingest PATH --tenant walrus" in line

    assert _located(place, "ingest", place / "docs", "--tenant", "acme", cwd=place / "project").returncode == 0
    assert _located(place, "ingest", place / "docs", "--tenant", "globex", cwd=place / "project").returncode == 0
    other = _located(place, "search", "walrus", "--as", place / "u.json", cwd=place / "project" / "deep")
    line = assert_one_error_line(other, "unknown tenant 'walrus'", str(place / "project" / ".ragcli"))
    assert "tenants there: acme, globex" in line and "--index DIR" in line and "RAGCLI_INDEX" in line
    assert "ragcli ingest" not in line  # the index is there; re-ingesting is the wrong advice


def test_help_documents_the_order(tmp_path: Path) -> None:
    text = " ".join(cli("search", "--help").stdout.split())
    order = ["--index", "$RAGCLI_INDEX", "nearest .ragcli", "per-user data directory"]
    positions = [text.find(part, text.find("Index directory")) for part in order]
    assert all(p >= 0 for p in positions) and positions == sorted(positions), text


def test_library_default_is_located_the_same_way(place: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ragcli.settings import locate_index

    monkeypatch.delenv("RAGCLI_INDEX", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(place / "xdg"))
    assert locate_index(cwd=place / "project" / "deep").path == place / "xdg" / "ragcli" / "index"
    (place / "project" / ".ragcli").mkdir()
    found = locate_index(cwd=place / "project" / "deep" / "er")
    assert found.path == place / "project" / ".ragcli" and "nearest" in found.origin
    monkeypatch.setenv("RAGCLI_INDEX", os.fspath(place / "env"))
    assert locate_index(cwd=place / "project").origin == "RAGCLI_INDEX"
    assert locate_index(place / "given").origin == "--index"
