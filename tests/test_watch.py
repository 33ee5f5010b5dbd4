"""``ragcli watch``: a real subprocess re-ingesting a temp folder on real file edits."""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from tests.support.cli import cli, cli_popen

DOC = "---\nid: {id}\ntitle: {title}\nacl: [everyone]\n---\n# {title}\n\n{body}\n"


def _write(folder: Path, name: str, body: str, *, front: bool = True) -> None:
    stem = name.removesuffix(".md")
    text = DOC.format(id=stem, title=stem.replace("-", " ").title(), body=body) if front else body
    (folder / name).write_text(text, encoding="utf-8")


class _Lines:
    """The watcher's stderr, line by line, read on a thread so the test can wait for one."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.seen: list[str] = []
        self._queue: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._pump, args=(proc,), daemon=True).start()

    def _pump(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            self._queue.put(line.rstrip("\n"))

    def wait_for(self, needle: str, timeout: float = 90) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self._queue.get(timeout=0.2)
            except queue.Empty:
                continue
            self.seen.append(line)
            if needle in line:
                return line
        raise AssertionError(f"no line with {needle!r} within {timeout}s; saw {self.seen}")


def _search_ids(index: Path, user: Path, query: str) -> list[str]:
    proc = cli("search", query, "--as", user, "--json", "--mode", "bm25", index=index)
    assert proc.returncode in (0, 1), proc.stderr
    return [r["doc_id"] for r in json.loads(proc.stdout)["results"]]


@pytest.mark.slow
def test_watch_reingests_on_edits_reports_a_rejected_file_and_exits_130(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    index = tmp_path / "index"
    user = tmp_path / "user.json"
    user.write_text(json.dumps({"user": "ann", "tenant": "wt", "groups": []}))
    _write(docs, "kettle-policy.md", "Kettles are descaled every Thursday by the facilities team.")

    proc = cli_popen("watch", docs, "--tenant", "wt", "--debounce", "100", index=index, interruptible=True)
    lines = _Lines(proc)
    try:
        lines.wait_for("ingested: 1 added")
        lines.wait_for("watching")
        assert _search_ids(index, user, "descaled kettles") == ["kettle-policy"]

        # A new file is picked up, the old one stays.
        _write(docs, "parrot-rules.md", "The office parrot may not be fed sunflower seeds after noon.")
        lines.wait_for("ingested: 1 added")
        assert _search_ids(index, user, "parrot sunflower seeds") == ["parrot-rules"]

        # A file without front matter or --acl is rejected; the rest is kept and watching goes on.
        _write(docs, "stray-note.md", "A note with no ACL that must not be indexed.", front=False)
        rejected = lines.wait_for("error: rejected")
        assert "stray-note.md" in rejected and "ACL" in rejected
        assert _search_ids(index, user, "parrot sunflower seeds") == ["parrot-rules"]
        assert _search_ids(index, user, "stray note indexed") == []

        # A symlink loop is one rejection (it used to end watch with a traceback); watching goes on.
        (docs / "loop-a.md").symlink_to(docs / "loop-b.md")
        (docs / "loop-b.md").symlink_to(docs / "loop-a.md")
        looped = lines.wait_for("symlink loop")
        assert "loop-a.md" in looped and "loop-b.md" in looped
        (docs / "loop-a.md").unlink()
        (docs / "loop-b.md").unlink()

        # An edit re-ingests that file only; a deletion removes it.
        _write(docs, "stray-note.md", "Fixed now: the stray note names its readers and zebra crossings.")
        lines.wait_for("1 added")
        assert _search_ids(index, user, "zebra crossings") == ["stray-note"]
        (docs / "parrot-rules.md").unlink()
        lines.wait_for("1 deleted")
        assert _search_ids(index, user, "parrot sunflower seeds") == []
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise
    assert proc.returncode == 130, lines.seen
    assert not any("Traceback" in line for line in lines.seen)
    assert _search_ids(index, user, "descaled kettles") == ["kettle-policy"]


def test_watch_refuses_a_missing_folder(tmp_path: Path) -> None:
    proc = cli("watch", tmp_path / "nope", "--tenant", "wt", index=tmp_path / "index", timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("error: ") and "not found" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_every_round_runs_the_whole_job(tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    """``watch()`` takes the ingest job whole: its default ACL and size limit hold in every round."""
    import threading

    from ragcli.ingestion import IngestJob
    from ragcli.ingestion.watch import watch

    docs = tmp_path / "docs"
    docs.mkdir()
    _write(docs, "kettle-policy.md", "Kettles are descaled every Thursday.", front=False)  # no ACL of its own
    _write(docs, "long-memo.md", "A memo. " * 100)
    stop = threading.Event()
    reports: list = []
    job = IngestJob(docs, "wt", index=tmp_path / "index", default_acl=("everyone",), max_file_bytes=400)
    watch(job, embedder=embedder, on_ready=stop.set, on_report=reports.append, stop=stop)
    (report,) = reports
    assert report.published and report.documents.added == 1
    (rejected,) = report.documents.rejected
    assert rejected.path.endswith("long-memo.md") and "over the 400-byte limit" in rejected.reason
