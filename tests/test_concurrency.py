"""Readers and writers at the same time, with real processes.

- Searches running while an ingest publishes each see one whole generation
  (old or new, never a mix) and never fail.
- A second ingest of the same tenant is refused (exit 2, one ``error:`` line
  saying the tenant is being ingested) while the first holds the lock, and
  the index stays intact.
- Ingests of two different tenants do not block each other.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from support.cli import assert_one_error_line, cli, cli_many, cli_popen, result_ids, wait_for
from support.corpus import audit_counts, passage_ids, write_round, write_user
from support.fixtures import shared_embedder

from ragcli.principal import Scope

QUERY = "refund invoice policy backup audit release"
AS_OF = dt.date(2026, 6, 1)


def _principal(tenant: str):
    from ragcli.principal import Principal

    return Principal(user="kim", tenant=tenant, groups=())


def _ingest_in_process(folder: Path, tenant: str, root: Path) -> None:
    from ragcli import ingest

    report = ingest(folder, tenant, index=root, default_acl=["everyone"], embedder=shared_embedder())
    assert report.published and not report.documents.rejected


def _whole(ids: list[str], old: set[str], new: set[str]) -> str:
    assert ids, "a search over a corpus that matches the query came back empty"
    found = set(ids)
    if found <= old:
        return "old"
    if found <= new:
        return "new"
    raise AssertionError(f"one result set mixes generations: {sorted(found)[:8]}")


@pytest.mark.slow
def test_searches_during_a_publish_see_one_whole_generation(tmp_path: Path) -> None:
    from ragcli.search import Retriever, SearchConfig

    root, folder, tenant = tmp_path / "index", tmp_path / "docs", "liveco"
    user_file = write_user(tmp_path / "kim.json", "kim", tenant)
    old = write_round(folder, 1, 16, prefix="old")
    _ingest_in_process(folder, tenant, root)
    new = write_round(folder, 2, 28, prefix="new")  # same file names, new doc ids and text

    seen: list[str] = []
    failures: list[BaseException] = []
    saw_new = threading.Event()
    give_up = threading.Event()

    def reader(mode: str) -> None:
        # A fresh Retriever per search: each one resolves CURRENT and opens a generation.
        while not give_up.is_set() and not (saw_new.is_set() and seen.count("new") >= 2):
            retriever = Retriever(root, embedder=shared_embedder(), config=SearchConfig(mode=mode))  # type: ignore[arg-type]
            try:
                which = _whole(retriever.search(Scope.of(_principal(tenant), AS_OF), QUERY, k=60).ids, old, new)
                seen.append(which)
                if which == "new":
                    saw_new.set()
            except BaseException as exc:
                failures.append(exc)
                return
            finally:
                retriever.close()
            give_up.wait(0.01)

    ingest = cli_popen("ingest", folder, "--tenant", tenant, "--acl", "everyone", "--index", root, "--json")
    threads = [threading.Thread(target=reader, args=(mode,), daemon=True) for mode in ("bm25", "hybrid")]
    for t in threads:
        t.start()
    cli_rounds: list[tuple[bool, list[subprocess.CompletedProcess[str]]]] = []
    while True:
        during = ingest.poll() is None
        procs = cli_many(
            [
                [
                    "search",
                    QUERY,
                    "--as",
                    user_file,
                    "--index",
                    root,
                    "--json",
                    "-k",
                    "60",
                    "--mode",
                    mode,
                    "--as-of",
                    AS_OF.isoformat(),
                ]
                for mode in ("bm25", "hybrid")
            ],
            parallel=2,
        )
        cli_rounds.append((during, procs))
        if not during:
            break
    _, err = ingest.communicate(timeout=300)
    assert ingest.returncode == 0, err
    wait_for(saw_new.is_set, limit=120, poll=0.05)
    give_up.set()
    for t in threads:
        t.join(timeout=120)

    assert not failures, failures
    assert "old" in seen and "new" in seen, seen  # the readers really overlapped the publish
    assert any(during for during, _ in cli_rounds), "no CLI search ran while the ingest was running"
    for _, procs in cli_rounds:
        for proc in procs:
            assert proc.returncode in (0, 1), (proc.returncode, proc.stderr)
            assert not proc.stderr.strip(), proc.stderr
            _whole(result_ids(proc), old, new)
    # After the ingest returned, every search sees the new generation.
    assert all(_whole(result_ids(p), old, new) == "new" for p in cli_rounds[-1][1])
    assert passage_ids(root, tenant) == new
    assert audit_counts(root, tenant) == (0, 0)


_HOLD_LOCK = """
import sys
from ragcli.index.writer import write_lock
with write_lock(sys.argv[1], sys.argv[2]):
    print("locked", flush=True)
    sys.stdin.read()
"""


@pytest.mark.slow
def test_second_ingest_is_refused_while_the_lock_is_held(tmp_path: Path) -> None:
    root, folder, tenant = tmp_path / "index", tmp_path / "docs", "lockco"
    old = write_round(folder, 1, 6)
    _ingest_in_process(folder, tenant, root)
    new = write_round(folder, 2, 6)

    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD_LOCK, str(root), tenant], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        refused, status = cli_many(
            [
                ["ingest", folder, "--tenant", tenant, "--acl", "everyone", "--index", root],
                ["status", "--tenant", tenant, "--index", root, "--json"],
            ],
            parallel=2,
        )
        assert_one_error_line(refused, f"tenant '{tenant}' is being ingested", f"pid {holder.pid}")
        # Readers are not blocked by the writer's lock, and nothing changed.
        assert status.returncode == 0, status.stderr
        assert passage_ids(root, tenant) == old
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=60)
    # Released: the next ingest is accepted.
    _ingest_in_process(folder, tenant, root)
    assert passage_ids(root, tenant) == new


@pytest.mark.slow
def test_a_running_ingest_blocks_its_own_tenant_only(tmp_path: Path) -> None:
    root = tmp_path / "index"
    folder_a, folder_b = tmp_path / "a", tmp_path / "b"
    old_a = write_round(folder_a, 1, 6, prefix="a")
    _ingest_in_process(folder_a, "alpha", root)
    new_a = write_round(folder_a, 2, 30, prefix="a")
    new_b = write_round(folder_b, 1, 10, prefix="b")
    lock_file = root / "alpha" / "lock"

    first = cli_popen("ingest", folder_a, "--tenant", "alpha", "--acl", "everyone", "--index", root, "--json")
    # The writer writes its pid into the lock file once it holds the lock; freeze it there.
    holding = wait_for(lambda: lock_file.read_text().strip() == f"pid {first.pid}", first, poll=0.001)
    assert holding and first.poll() is None, "the first ingest finished before it could be paused"
    os.kill(first.pid, signal.SIGSTOP)
    try:
        same, other = cli_many(
            [
                ["ingest", folder_a, "--tenant", "alpha", "--acl", "everyone", "--index", root],
                ["ingest", folder_b, "--tenant", "beta", "--acl", "everyone", "--index", root, "--json"],
            ],
            parallel=2,
        )
        assert_one_error_line(same, "tenant 'alpha' is being ingested", f"pid {first.pid}")
        assert other.returncode == 0, other.stderr
        assert json.loads(other.stdout)["documents"]["added"] == 10
        assert passage_ids(root, "beta") == new_b
        assert passage_ids(root, "alpha") == old_a  # the paused writer has published nothing
    finally:
        os.kill(first.pid, signal.SIGCONT)
    _, err = first.communicate(timeout=300)
    assert first.returncode == 0, err
    assert passage_ids(root, "alpha") == new_a
    assert passage_ids(root, "beta") == new_b
    status = cli("status", "--index", root, "--json")
    assert status.returncode == 0, status.stderr
    assert sorted(t["tenant"] for t in json.loads(status.stdout)["tenants"]) == ["alpha", "beta"]
