"""``ragcli trace replay``: a trace line carries what its rankings need, and replaying it says whether they match."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import assert_one_error_line, cli, cli_many, invoke, json_of
from support.corpus import current_name, scope
from support.paths import DAY, USERS

from ragcli.answer import ask
from ragcli.answer.trace import append_trace

ANSWERED_Q = "What does ERR_4021 mean?"
ABSTAINED_Q = "What is the salary band for an L3 engineer?"


@pytest.fixture(scope="module")
def traced(sample_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two runs traced through the real CLI: alice answered, bob abstained."""
    path = tmp_path_factory.mktemp("replay") / "runs.jsonl"
    procs = cli_many(
        [
            [
                "ask",
                ANSWERED_Q,
                "--as",
                USERS / "alice.json",
                "--as-of",
                "2026-11-29",
                "--model",
                "local",
                "--trace",
                path,
            ],
            [
                "ask",
                ABSTAINED_Q,
                "--as",
                USERS / "bob.json",
                "--as-of",
                "2026-11-29",
                "--model",
                "local",
                "--trace",
                path,
            ],
        ],
        index=sample_root,
        parallel=1,  # in order: the tests read alice's line first
    )
    assert [p.returncode for p in procs] == [0, 1], [p.stderr for p in procs]
    return path


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.slow
def test_trace_line_carries_what_a_ranking_needs(traced: Path, sample_root: Path, embedder) -> None:
    from ragcli.index import TenantIndex

    with TenantIndex.open(sample_root, "acme") as index:
        chunker = index.manifest.chunker_version
    for line in _lines(traced):
        assert line["generation"] == current_name(sample_root, "acme")
        assert line["embedding_model"] == {"id": embedder.model_id, "sha256": embedder.sha256}
        assert line["chunker_version"] == chunker
        assert line["search_config"]["k"] == 10 and line["search_config"]["mode"] == "hybrid"
        for search in line["searches"]:
            assert search["generation"] == line["generation"]
            for ranker in ("bm25", "dense"):
                entries = search[ranker]
                assert entries, (ranker, search)
                assert [rank for _, rank, _ in entries] == sorted(rank for _, rank, _ in entries)
                assert all(isinstance(score, float) for _, _, score in entries)
            assert [s for _, _, s in search["dense"]] == sorted((s for _, _, s in search["dense"]), reverse=True)


@pytest.mark.slow
def test_replay_of_a_file_matches_exit_0(traced: Path, sample_root: Path) -> None:
    proc = cli("trace", "replay", traced, "--index", sample_root, "--json")
    assert proc.returncode == 0, proc.stderr
    data = json_of(proc)
    assert data["match"] is True and len(data["runs"]) == 2
    assert [r["user"] for r in data["runs"]] == ["alice", "bob"]
    assert all(s["match"] and s["differences"] == [] for r in data["runs"] for s in r["searches"])
    table = cli("trace", "replay", traced, "--index", sample_root)
    assert table.returncode == 0 and "match" in table.stdout and "differs" not in table.stdout


@pytest.mark.slow
def test_replay_of_one_line_given_as_the_argument(traced: Path, sample_root: Path, capsys) -> None:
    line = traced.read_text(encoding="utf-8").splitlines()[0]
    proc = invoke(capsys, "trace", "replay", line, "--index", sample_root, "--json")
    assert proc.returncode == 0, proc.stderr
    assert [r["user"] for r in json_of(proc)["runs"]] == ["alice"]


@pytest.mark.slow
def test_replay_runs_as_the_traced_groups(traced: Path, sample_root: Path, tmp_path: Path, capsys) -> None:
    bob = _lines(traced)[1]
    assert bob["user"] == "bob"
    as_hr = {**bob, "groups": [*bob["groups"], "hr"]}  # a trace claiming hana's groups: pay-bands become visible
    proc = invoke(capsys, "trace", "replay", json.dumps(as_hr), "--index", sample_root, "--json")
    assert proc.returncode == 1, proc.stderr
    [search] = json_of(proc)["runs"][0]["searches"][:1]
    assert search["match"] is False and any("pay-bands" in d for d in search["differences"]), search


@pytest.mark.slow
def test_a_ranking_that_changed_is_reported(traced: Path, sample_root: Path, capsys) -> None:
    alice = _lines(traced)[0]
    first = alice["searches"][0]
    swapped = {
        **first,
        "selected": list(reversed(first["selected"])),
        "bm25": [[i, r, s + 1.0] for i, r, s in first["bm25"]],
    }
    tampered = {**alice, "searches": [swapped, *alice["searches"][1:]]}
    proc = invoke(capsys, "trace", "replay", json.dumps(tampered), "--index", sample_root, "--json")
    assert proc.returncode == 1
    [search] = json_of(proc)["runs"][0]["searches"][:1]
    assert search["match"] is False
    assert any(d.startswith("selected") for d in search["differences"]) and any(
        d.startswith("bm25") for d in search["differences"]
    )
    shown = invoke(capsys, "trace", "replay", json.dumps(tampered), "--index", sample_root)
    assert shown.returncode == 1 and "differs" in shown.stdout


@pytest.mark.slow
def test_another_generation_is_refused(traced: Path, sample_root: Path, capsys) -> None:
    alice = _lines(traced)[0]
    other = {**alice, "generation": "gen-20200101T000000-0000000000"}
    proc = invoke(capsys, "trace", "replay", json.dumps(other), "--index", sample_root)
    assert_one_error_line(proc, "generation", "gen-20200101T000000-0000000000", current_name(sample_root, "acme"))


@pytest.mark.parametrize(
    "arg, needle",
    [
        ("{not json", "not valid JSON"),
        ('{"request_id": "x"}', "trace"),
        ("/no/such/trace.jsonl", "cannot read"),
    ],
)
def test_bad_input_is_one_error_line(sample_root: Path, capsys, arg: str, needle: str) -> None:
    assert_one_error_line(invoke(capsys, "trace", "replay", arg, "--index", sample_root), needle)


def test_library_replay_of_an_in_process_run(retriever, local_model, tmp_path: Path) -> None:
    from ragcli.answer.replay import read_traces, replay_traces

    outcome = ask(ANSWERED_Q, scope("carol", DAY), retriever, local_model)
    path = tmp_path / "t.jsonl"
    append_trace(path, outcome.trace)
    report = replay_traces(read_traces(str(path)), retriever)
    assert report.match and report.runs[0].user == "carol"
