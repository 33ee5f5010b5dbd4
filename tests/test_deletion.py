"""Deletion and revocation reach every copy on disk (issue 12, item 6).

A deleted document's text must be gone from the whole index directory once no
reader can still be using the generation that held it: at once when nobody
holds it, else at the latest by the next ingest or ``ragcli status --prune``
after the reader closes it. Checked with grep over the index directory, and
with a real second process holding the old generation open.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from support.cli import cli
from support.corpus import generation_dirs, markdown, write
from support.fixtures import shared_embedder

from ragcli import ingest

TENANT = "t"
SECRET = "The quokka ledger hides behind the seventh lighthouse door."
KEPT = "Expense reports are approved by the team manager every Friday."

# A second process that opens the published generation, reads the secret from it,
# then answers one line per line of stdin with what it can still read.
_READER = """
import json, sys
from ragcli.index import TenantIndex
from ragcli.principal import Principal, Scope

index = TenantIndex.open(sys.argv[1], sys.argv[2])
view = index.view(Scope.of(Principal(user="kim", tenant=sys.argv[2], groups=())))

def found():
    return [view.passage(hit.row).text for hit in view.bm25("quokka ledger lighthouse", 5)]

print(json.dumps({"generation": index.generation, "found": found()}), flush=True)
for _ in sys.stdin:
    print(json.dumps({"generation": index.generation, "found": found()}), flush=True)
index.close()
"""


def _write_corpus(folder: Path, *, with_secret: bool) -> None:
    write(folder / "kept.md", markdown({"acl": ["everyone"]}, f"# Expenses\n\n{KEPT}\n"))
    secret = folder / "secret.md"
    if with_secret:
        write(secret, markdown({"acl": ["everyone"]}, f"# Ledger\n\n{SECRET}\n"))
    else:
        secret.unlink(missing_ok=True)


def _ingest(folder: Path, index: Path) -> str:
    report = ingest(folder, TENANT, index=index, embedder=shared_embedder())
    assert not report.documents.rejected, report.documents.rejected
    return report.generation


def grep(index: Path, text: str) -> list[str]:
    """Files under ``index`` holding ``text`` (real grep, relative paths)."""
    proc = subprocess.run(["grep", "-r", "-l", "-F", text, str(index)], capture_output=True, text=True)
    assert proc.returncode in (0, 1), proc.stderr
    return sorted(str(Path(line).relative_to(index)) for line in proc.stdout.splitlines())


def _reader(index: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", _READER, str(index), TENANT],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _ask(reader: subprocess.Popen[str]) -> dict:
    assert reader.stdin is not None and reader.stdout is not None
    reader.stdin.write("again\n")
    reader.stdin.flush()
    return json.loads(reader.stdout.readline())


def _stop(reader: subprocess.Popen[str]) -> None:
    assert reader.stdin is not None
    reader.stdin.close()
    assert reader.wait(timeout=60) == 0, reader.stderr.read() if reader.stderr else ""


def test_a_deleted_document_is_gone_from_disk_after_the_ingest_when_no_reader_holds_it(tmp_path: Path) -> None:
    folder, index = tmp_path / "docs", tmp_path / "index"
    _write_corpus(folder, with_secret=True)
    old = _ingest(folder, index)
    assert grep(index, SECRET) == [f"{TENANT}/{old}/passages.jsonl"]

    _write_corpus(folder, with_secret=False)
    new = _ingest(folder, index)
    assert grep(index, SECRET) == []
    assert generation_dirs(index, TENANT) == [new]
    assert grep(index, KEPT) == [f"{TENANT}/{new}/passages.jsonl"]


def test_a_reader_keeps_its_generation_whole_until_it_closes_then_the_next_ingest_removes_it(tmp_path: Path) -> None:
    folder, index = tmp_path / "docs", tmp_path / "index"
    _write_corpus(folder, with_secret=True)
    old = _ingest(folder, index)
    reader = _reader(index)
    try:
        assert reader.stdout is not None
        first = json.loads(reader.stdout.readline())
        assert first == {"generation": old, "found": [SECRET]}

        _write_corpus(folder, with_secret=False)
        new = _ingest(folder, index)
        # The reader still holds the old generation: kept, whole and readable by it.
        assert sorted(generation_dirs(index, TENANT)) == sorted([old, new])
        assert grep(index, SECRET) == [f"{TENANT}/{old}/passages.jsonl"]
        assert _ask(reader) == {"generation": old, "found": [SECRET]}
    finally:
        _stop(reader)
    # Closed: the next ingest (nothing changed, nothing published) removes it.
    assert _ingest(folder, index) == new
    assert grep(index, SECRET) == []
    assert generation_dirs(index, TENANT) == [new]


@pytest.mark.slow
def test_status_prune_removes_a_released_generation_and_keeps_a_held_one(tmp_path: Path) -> None:
    folder, index = tmp_path / "docs", tmp_path / "index"
    _write_corpus(folder, with_secret=True)
    old = _ingest(folder, index)
    reader = _reader(index)
    try:
        assert reader.stdout is not None and json.loads(reader.stdout.readline())["found"] == [SECRET]
        _write_corpus(folder, with_secret=False)
        new = _ingest(folder, index)

        held = cli("status", "--index", index, "--prune", "--json")
        assert held.returncode == 0, held.stderr
        assert json.loads(held.stdout)["pruned"] == [{"tenant": TENANT, "removed": [], "in_use": [old]}]
        assert grep(index, SECRET) == [f"{TENANT}/{old}/passages.jsonl"]
        assert _ask(reader)["found"] == [SECRET]
    finally:
        _stop(reader)

    released = cli("status", "--index", index, "--prune")
    assert released.returncode == 0, released.stderr
    assert f"pruned {TENANT}: 1 old generation(s) removed, 0 still open by a reader" in released.stderr
    assert grep(index, SECRET) == []
    assert generation_dirs(index, TENANT) == [new]
    # Without --prune the JSON shape is unchanged.
    plain = cli("status", "--index", index, "--json")
    assert plain.returncode == 0 and "pruned" not in json.loads(plain.stdout)
