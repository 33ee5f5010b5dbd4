"""The index is private by default (issue 22): it holds every passage's text, so other accounts get nothing.

With the usual umask 022 the index used to be 0644 files in 0755 folders (any local account could grep the
HR pay bands), and whoever could write a shared index directory could point ``TENANT/lock`` at a file of the
person running ingest, which ingest then truncated.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from support.cli import assert_one_error_line, cli, invoke, stderr_lines
from support.corpus import markdown, write

from ragcli import ingest


def _umask_022() -> None:
    os.umask(0o022)


def _docs(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    write(docs / "pay.md", markdown({"acl": ["hr"]}, "# Pay bands\n\nL3 earns zzpayband.\n"))
    return docs


def _modes(root: Path) -> dict[str, int]:
    return {p.relative_to(root.parent).as_posix(): stat.S_IMODE(p.lstat().st_mode) for p in [root, *root.rglob("*")]}


@pytest.mark.slow
def test_everything_ingest_writes_is_owner_only_whatever_the_umask(tmp_path: Path) -> None:
    index = tmp_path / "shared-parent" / "index"
    proc = cli("ingest", _docs(tmp_path), "--tenant", "t", "--index", index, preexec_fn=_umask_022)
    assert proc.returncode == 0, proc.stderr
    modes = _modes(index)
    assert len(modes) > 10
    loose = {name: oct(mode) for name, mode in modes.items() if mode & 0o077}
    assert loose == {}
    assert all(mode == 0o700 for name, mode in modes.items() if (index.parent / name).is_dir())
    status = cli("status", "--index", index)
    assert status.returncode == 0 and "warning" not in status.stderr, status.stderr


def test_status_warns_when_others_may_read_the_index(tmp_path: Path, embedder, capsys) -> None:
    index = tmp_path / "index"
    ingest(_docs(tmp_path), "t", index=index, embedder=embedder)
    for p in [index, *index.rglob("*")]:
        p.chmod(p.stat().st_mode | 0o044 | (0o011 if p.is_dir() else 0))
    status = invoke(capsys, "status", "--index", index)
    assert status.returncode == 0, status.stderr
    (line,) = [line for line in stderr_lines(status) if line.startswith("warning:")]
    assert "index of tenant 't' can be read or written by other accounts" in line and "chmod -R go-rwx" in line


def test_ingest_refuses_an_index_directory_others_may_write_unless_shared_on_purpose(tmp_path: Path, capsys) -> None:
    index = tmp_path / "index"
    index.mkdir()
    index.chmod(0o777)
    proc = invoke(capsys, "ingest", _docs(tmp_path), "--tenant", "t", "--index", index)
    assert_one_error_line(proc, "writable by others", "--allow-shared-index")
    assert not (index / "t").exists()
    index.chmod(0o2770)  # a team's group-owned folder
    shared = invoke(capsys, "ingest", _docs(tmp_path), "--tenant", "t", "--index", index, "--allow-shared-index")
    assert shared.returncode == 0, shared.stderr


def test_the_lock_is_never_followed_or_truncated_through_a_link(tmp_path: Path, embedder, capsys) -> None:
    docs, index = _docs(tmp_path), tmp_path / "index"
    ingest(docs, "t", index=index, embedder=embedder)
    victim = write(tmp_path / "home" / ".bashrc", "export IMPORTANT=1\n")
    lock = index / "t" / "lock"
    lock.unlink()
    lock.symlink_to(victim)
    proc = cli("ingest", docs, "--tenant", "t", "--index", index)  # one real process; the rest in this one
    assert_one_error_line(proc, "lock file", "symlink")
    assert victim.read_text() == "export IMPORTANT=1\n"

    lock.unlink()
    os.link(victim, lock)  # a second name for the same file
    proc = invoke(capsys, "ingest", docs, "--tenant", "t", "--index", index)
    assert_one_error_line(proc, "lock file", "hard links")
    assert victim.read_text() == "export IMPORTANT=1\n"

    lock.unlink()
    os.mkfifo(lock)
    fifo = invoke(capsys, "ingest", docs, "--tenant", "t", "--index", index)
    assert_one_error_line(fifo, "lock file", "not a regular file")
