"""A writer of the ingested folder is untrusted: ingest reads inside the folder only, by construction (issue 22).

Real symlinks, a real loop, a sidecar that leaves the folder, and swaps the test
makes between discovery and the read (no timing race: discovery is wrapped so the
swap happens right after it). Each bad entry is one rejection line (exit 2); the
rest of the folder is ingested.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from support.cli import cli, stderr_lines
from support.corpus import all_passages, markdown, write, write_user

from ragcli import ingest
from ragcli.ingestion.folder import Folder


def _texts(index: Path, tenant: str = "t") -> str:
    return "\n".join(p.title + " " + p.text for p in all_passages(index, tenant))


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder beside the ingested one, holding a file only its owner may read."""
    secret = write(tmp_path / "outside" / "secret.md", markdown({"acl": ["everyone"]}, "# Secret\n\nzzsecretpay\n"))
    secret.chmod(0o600)
    write(tmp_path / "outside" / "meta.yaml", "title: Forged Title\nacl: [everyone]\nid: forged\n")
    write(tmp_path / "outside" / "sub" / "a.md", markdown({"acl": ["everyone"]}, "# A\n\nzzoutsidefolder\n"))
    return tmp_path / "outside"


@pytest.mark.slow
def test_a_symlink_loop_is_one_rejection_and_the_rest_is_published(tmp_path: Path) -> None:
    """It used to end ingest with RuntimeError (Path.resolve), so an ACL narrowing elsewhere was never published."""
    docs, index = tmp_path / "docs", tmp_path / "index"
    write(docs / "pay.md", markdown({"acl": ["everyone"]}, "# Pay\n\nThe zzpayband table.\n"))
    write(docs / "ok.md", markdown({"acl": ["everyone"]}, "# Ok\n\nFine.\n"))
    assert cli("ingest", docs, "--tenant", "t", "--index", index).returncode == 0
    (docs / "loop-a.md").symlink_to(docs / "loop-b.md")
    (docs / "loop-b.md").symlink_to(docs / "loop-a.md")
    (docs / "self.md").symlink_to(docs / "self.md")
    write(docs / "pay.md", markdown({"acl": ["hr"]}, "# Pay\n\nThe zzpayband table.\n"))  # narrowed

    proc = cli("ingest", docs, "--tenant", "t", "--index", index, "--json")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    rejected = {Path(r["path"]).name: r["reason"] for r in json.loads(proc.stdout)["documents"]["rejected"]}
    assert rejected == {name: "symlink loop; not followed" for name in ("loop-a.md", "loop-b.md", "self.md")}
    assert [line for line in stderr_lines(proc) if "loop" in line] == [
        "error: rejected 3 of 5 files: symlink loop; not followed (loop-a.md, loop-b.md, self.md)"
    ]
    bob = write_user(tmp_path / "bob.json", "bob", "t")
    found = cli("search", "zzpayband", "--as", bob, "--index", index, "--json", "--mode", "bm25")
    assert json.loads(found.stdout)["results"] == []  # the narrowing was published


def test_a_sidecar_linked_out_of_the_folder_is_not_read(tmp_path: Path, outside: Path, embedder) -> None:
    docs, index = tmp_path / "docs", tmp_path / "index"
    write(docs / "notes.txt", "Plain notes about zzherons.\n")
    (docs / "notes.meta.yaml").symlink_to(outside / "meta.yaml")
    write(docs / "ok.md", markdown({"acl": ["everyone"]}, "# Ok\n\nFine.\n"))
    report = ingest(docs, "t", index=index, embedder=embedder, default_acl=["staff"])
    assert [(Path(r.path).name, r.reason) for r in report.documents.rejected] == [
        ("notes.meta.yaml", "symlink points outside the ingested folder; not followed")
    ]
    assert "Forged" not in _texts(index) and "zzherons" not in _texts(index)
    # A sidecar linked inside the folder is a sidecar like any other.
    (docs / "notes.meta.yaml").unlink()
    write(docs / "shared" / "notes.yaml", "title: Team Notes\nacl: [everyone]\n")
    (docs / "notes.meta.yaml").symlink_to(docs / "shared" / "notes.yaml")
    report = ingest(docs, "t", index=index, embedder=embedder, default_acl=["staff"])
    assert report.documents.rejected == []
    assert {p.title for p in all_passages(index, "t")} == {"Ok", "Team Notes"}


def _after_discovery(monkeypatch: pytest.MonkeyPatch, swap) -> None:  # type: ignore[no-untyped-def]
    """Run ``swap`` right after the folder was listed and before any file is read."""
    listed = Folder.discover

    def discover_then_swap(self: Folder):  # type: ignore[no-untyped-def]
        found = listed(self)
        swap()
        return found

    monkeypatch.setattr(Folder, "discover", discover_then_swap)


def test_a_file_swapped_for_a_link_after_discovery_is_not_read(
    tmp_path: Path, outside: Path, embedder, monkeypatch
) -> None:
    """Check, then use: a file checked at discovery and read later through its path followed the swapped link."""
    docs, index = tmp_path / "docs", tmp_path / "index"
    write(docs / "notes.md", markdown({"acl": ["everyone"]}, "# Notes\n\nHarmless notes.\n"))
    write(docs / "ok.md", markdown({"acl": ["everyone"]}, "# Ok\n\nFine.\n"))

    def swap() -> None:
        (docs / "notes.md").unlink()
        (docs / "notes.md").symlink_to(outside / "secret.md")

    _after_discovery(monkeypatch, swap)
    report = ingest(docs, "t", index=index, embedder=embedder)
    assert [(Path(r.path).name, r.reason) for r in report.documents.rejected] == [
        ("notes.md", "symlink points outside the ingested folder; not followed")
    ]
    assert "zzsecretpay" not in _texts(index)
    assert {p.doc_id for p in all_passages(index, "t")} == {"ok"}


def test_a_folder_swapped_for_a_link_after_discovery_is_not_entered(
    tmp_path: Path, outside: Path, embedder, monkeypatch
) -> None:
    docs, index = tmp_path / "docs", tmp_path / "index"
    write(docs / "sub" / "a.md", markdown({"acl": ["everyone"]}, "# A\n\nInside the folder.\n"))
    write(docs / "ok.md", markdown({"acl": ["everyone"]}, "# Ok\n\nFine.\n"))

    def swap() -> None:
        os.rename(docs / "sub", tmp_path / "moved-away")
        (docs / "sub").symlink_to(outside / "sub", target_is_directory=True)

    _after_discovery(monkeypatch, swap)
    report = ingest(docs, "t", index=index, embedder=embedder)
    assert [(r.path, r.reason) for r in report.documents.rejected] == [
        (
            str(docs.resolve() / "sub" / "a.md"),
            "a folder on its path is now a symlink or not a folder; not followed",
        )
    ]
    assert "zzoutsidefolder" not in _texts(index)


def test_a_pipe_swapped_in_after_discovery_is_never_opened_for_reading(tmp_path: Path, embedder, monkeypatch) -> None:
    docs, index = tmp_path / "docs", tmp_path / "index"
    write(docs / "notes.md", markdown({"acl": ["everyone"]}, "# Notes\n\nHarmless.\n"))
    write(docs / "ok.md", markdown({"acl": ["everyone"]}, "# Ok\n\nFine.\n"))

    def swap() -> None:
        (docs / "notes.md").unlink()
        os.mkfifo(docs / "notes.md")  # opening it for reading would block until a writer came

    _after_discovery(monkeypatch, swap)
    report = ingest(docs, "t", index=index, embedder=embedder)
    assert [(Path(r.path).name, "not a regular file" in r.reason) for r in report.documents.rejected] == [
        ("notes.md", True)
    ]
