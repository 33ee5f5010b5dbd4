"""``ragcli trace replay``: a trace line carries what its rankings need, and replaying it says whether they match."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import assert_one_error_line, cli, cli_many, invoke, json_of
from support.corpus import current_name, scope, user
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


def _own_file(traced: Path, tmp_path: Path, user: str) -> Path:
    path = tmp_path / f"{user}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in _lines(traced) if line["user"] == user))
    return path


@pytest.mark.slow
def test_replay_of_a_file_matches_exit_0(traced: Path, sample_root: Path, tmp_path: Path) -> None:
    alice = _own_file(traced, tmp_path, "alice")
    proc = cli("trace", "replay", alice, "--as", USERS / "alice.json", "--index", sample_root, "--json")
    assert proc.returncode == 0, proc.stderr
    data = json_of(proc)
    assert data["match"] is True and [r["user"] for r in data["runs"]] == ["alice"]
    assert all(s["match"] and s["differences"] == [] for r in data["runs"] for s in r["searches"])
    table = cli("trace", "replay", alice, "--as", USERS / "alice.json", "--index", sample_root)
    assert table.returncode == 0 and "match" in table.stdout and "differs" not in table.stdout


@pytest.mark.slow
def test_replay_of_one_line_given_as_the_argument(traced: Path, sample_root: Path, capsys) -> None:
    line = traced.read_text(encoding="utf-8").splitlines()[0]
    proc = invoke(capsys, "trace", "replay", line, "--as", USERS / "alice.json", "--index", sample_root, "--json")
    assert proc.returncode == 0, proc.stderr
    assert [r["user"] for r in json_of(proc)["runs"]] == ["alice"]


@pytest.mark.slow
def test_replay_needs_a_user_file(traced: Path, sample_root: Path, capsys) -> None:
    line = traced.read_text(encoding="utf-8").splitlines()[0]
    proc = invoke(capsys, "trace", "replay", line, "--index", sample_root)
    assert proc.returncode == 2 and "--as" in proc.stderr


@pytest.mark.slow
def test_a_forged_line_is_refused_naming_the_field(traced: Path, sample_root: Path, capsys) -> None:
    """A hand-written line claiming groups hr and execs used to replay as that principal and print pay-band IDs."""
    bob = _lines(traced)[1]
    assert bob["user"] == "bob"
    as_hr = {**bob, "groups": [*bob["groups"], "execs", "hr"]}
    proc = invoke(capsys, "trace", "replay", json.dumps(as_hr), "--as", USERS / "bob.json", "--index", sample_root)
    line = assert_one_error_line(proc, "the trace's groups differs from the user file's")
    assert "hr" not in line.replace("the trace's", "") and "pay-bands" not in proc.stdout
    as_hana = {**bob, "user": "hana", "groups": ["hr"]}
    proc = invoke(capsys, "trace", "replay", json.dumps(as_hana), "--as", USERS / "bob.json", "--index", sample_root)
    assert_one_error_line(proc, "the trace's user differs")
    # A whole file replays only when every run in it is the caller's.
    assert_one_error_line(
        invoke(capsys, "trace", "replay", traced, "--as", USERS / "alice.json", "--index", sample_root),
        "the trace's user differs",
    )


@pytest.mark.slow
def test_replay_never_prints_an_id_the_caller_may_not_see_today(traced: Path, sample_root: Path, capsys) -> None:
    """A trace may pin an old day; what that day's searches rank that the caller cannot see today is not named."""
    alice = _lines(traced)[0]
    refunds = {**alice["searches"][0], "query": "refund window annual plans", "bm25": [], "dense": [], "selected": []}
    old_day = {**alice, "as_of": "2026-03-01", "searches": [refunds]}
    proc = invoke(capsys, "trace", "replay", json.dumps(old_day), "--as", USERS / "alice.json", "--index", sample_root)
    assert proc.returncode == 1
    assert "(a passage you may not see today)" in proc.stdout  # the 2025 policy, in force on that day
    assert "refunds-policy@2025-01" not in proc.stdout


@pytest.mark.slow
def test_a_user_file_bounding_dates_bounds_replay_too(traced: Path, sample_root: Path, tmp_path: Path, capsys) -> None:
    alice = json.loads((USERS / "alice.json").read_text())
    bounded = tmp_path / "alice.json"
    bounded.write_text(json.dumps({**alice, "as_of": {"max": "2026-06-30"}}))
    line = traced.read_text(encoding="utf-8").splitlines()[0]  # traced on 2026-11-29
    proc = invoke(capsys, "trace", "replay", line, "--as", bounded, "--index", sample_root)
    assert_one_error_line(proc, "as-of date 2026-11-29 is after 2026-06-30")


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
    alice_file = USERS / "alice.json"
    proc = invoke(capsys, "trace", "replay", json.dumps(tampered), "--as", alice_file, "--index", sample_root, "--json")
    assert proc.returncode == 1
    [search] = json_of(proc)["runs"][0]["searches"][:1]
    assert search["match"] is False
    assert any(d.startswith("selected") for d in search["differences"]) and any(
        d.startswith("bm25") for d in search["differences"]
    )
    shown = invoke(capsys, "trace", "replay", json.dumps(tampered), "--as", alice_file, "--index", sample_root)
    assert shown.returncode == 1 and "differs" in shown.stdout


@pytest.mark.slow
def test_another_generation_is_refused(traced: Path, sample_root: Path, capsys) -> None:
    alice = _lines(traced)[0]
    other = {**alice, "generation": "gen-20200101T000000-0000000000"}
    proc = invoke(capsys, "trace", "replay", json.dumps(other), "--as", USERS / "alice.json", "--index", sample_root)
    assert_one_error_line(
        proc, "generation", "gen-20200101T000000-0000000000", current_name(sample_root, "acme"), "--current"
    )


@pytest.mark.parametrize(
    "arg, needle",
    [
        ("{not json", "not valid JSON"),
        ('{"request_id": "x"}', "trace"),
        ("/no/such/trace.jsonl", "cannot read"),
    ],
)
def test_bad_input_is_one_error_line(sample_root: Path, capsys, arg: str, needle: str) -> None:
    proc = invoke(capsys, "trace", "replay", arg, "--as", USERS / "alice.json", "--index", sample_root)
    assert_one_error_line(proc, needle)


def test_library_replay_of_an_in_process_run(retriever, local_model, tmp_path: Path) -> None:
    from ragcli.answer.replay import read_traces, replay_traces

    outcome = ask(ANSWERED_Q, scope("carol", DAY), retriever, local_model)
    path = tmp_path / "t.jsonl"
    append_trace(path, outcome.trace)
    report = replay_traces(read_traces(str(path)), retriever, user("carol"))
    assert report.match and report.runs[0].user == "carol"


@pytest.mark.slow
def test_replay_on_the_current_generation_says_what_became_of_the_cited_passages(
    traced: Path, sample_root: Path, tmp_path: Path, capsys, embedder
) -> None:
    """After any re-ingest (with watch, within seconds) the traced generation is gone: --current still replays."""
    import shutil

    from support.paths import SAMPLE

    from ragcli import ingest

    index, docs = tmp_path / "index", tmp_path / "acme"
    shutil.copytree(sample_root, index)
    shutil.copytree(SAMPLE / "acme", docs)
    line = traced.read_text(encoding="utf-8").splitlines()[0]  # alice's answer citing error-codes
    all_cited = sorted({c for d in json.loads(line)["decisions"] for c in d.get("cited") or []})
    edited = [c for c in all_cited if c.startswith("error-codes@")]
    others = [c for c in all_cited if c not in edited]
    assert edited
    alice = USERS / "alice.json"

    def replay_current() -> tuple[int, dict]:
        proc = invoke(capsys, "trace", "replay", line, "--as", alice, "--index", index, "--json", "--current")
        assert proc.returncode in (0, 1), proc.stderr
        return proc.returncode, json_of(proc)

    (docs / "vendor-notes.md").write_text((docs / "vendor-notes.md").read_text() + "\nOne more vendor note.\n")
    ingest(docs, "acme", index=index, embedder=embedder, replace=True)  # the folder moved; IDs stay
    assert current_name(index, "acme") != json.loads(line)["generation"]
    refused = invoke(capsys, "trace", "replay", line, "--as", alice, "--index", index)
    assert_one_error_line(refused, "--current")
    code, data = replay_current()
    assert code == 0 and data["cited_unchanged"] is True
    assert sorted(data["runs"][0]["cited"]["unchanged"]) == all_cited
    assert data["runs"][0]["cited"]["changed"] == data["runs"][0]["cited"]["vanished"] == []
    assert data["runs"][0]["generation"] == current_name(index, "acme")

    text = (docs / "error-codes.md").read_text()
    (docs / "error-codes.md").write_text(text.replace("expired", "expired (renew it)", 1))
    ingest(docs, "acme", index=index, embedder=embedder)
    code, data = replay_current()
    assert sorted(data["runs"][0]["cited"]["unchanged"]) == others
    changed = data["runs"][0]["cited"]["changed"]
    assert code == 1 and sorted(c["id"] for c in changed) == edited  # a new text of the document: new IDs
    for c in changed:
        [now] = c["now"]  # same document and section, new text, new ID
        assert now != c["id"] and now.split("#")[1] == c["id"].split("#")[1] and now.startswith("error-codes@")
    assert any(s["passages"] for s in data["runs"][0]["searches"])

    (docs / "error-codes.md").unlink()
    ingest(docs, "acme", index=index, embedder=embedder)
    code, data = replay_current()
    assert code == 1 and sorted(data["runs"][0]["cited"]["vanished"]) == edited
    shown = invoke(capsys, "trace", "replay", line, "--as", alice, "--index", index, "--current")
    assert shown.returncode == 1 and f"vanished {edited[0]}" in shown.stdout
    assert f"cited: {len(others)} unchanged, 0 changed, {len(edited)} vanished" in shown.stdout
