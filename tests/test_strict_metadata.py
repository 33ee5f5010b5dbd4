"""Metadata is parsed strictly (issue 22): a key given twice is refused, naming the key; ACL entries that
differ from another only by case or spaces get a warning at ingest."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import assert_one_error_line, cli, search_json, stderr_lines
from support.corpus import write, write_user

DOUBLE_ACL = "---\nacl: [hr]\ntitle: Pay bands\nacl: [everyone]\n---\n# Pay bands\n\nThe zzpayband for L3.\n"


def _ingest(docs: Path, index: Path, *args: object):  # type: ignore[no-untyped-def]
    return cli("ingest", docs, "--tenant", "t", "--index", index, "--json", *args)


@pytest.mark.slow
def test_a_key_given_twice_rejects_the_document_naming_the_key(tmp_path: Path) -> None:
    """``acl: [hr]`` followed by ``acl: [everyone]`` used to serve the HR page to everyone."""
    docs, index = tmp_path / "docs", tmp_path / "index"
    write(docs / "pay.md", DOUBLE_ACL)
    write(docs / "notes.txt", "Notes about zzsidecar.\n")
    write(docs / "notes.meta.yaml", "acl: [hr]\nacl: [everyone]\n")
    write(docs / "nested.md", "---\nacl: [everyone]\nextra: {a: 1, a: 2}\n---\n# N\n\nzznested\n")
    write(
        docs / "corpus.jsonl",
        '{"_id": "c1", "acl": ["hr"], "text": "zzjsonline", "acl": ["everyone"]}\n'
        '{"_id": "c2", "text": "fine", "acl": ["everyone"]}\n',
    )
    write(docs / "ok.md", "---\nacl: [everyone]\n---\n# Ok\n\nFine.\n")
    proc = _ingest(docs, index)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    rejected = {Path(r["path"]).name: r["reason"] for r in json.loads(proc.stdout)["documents"]["rejected"]}
    assert rejected == {
        "pay.md": "metadata key 'acl' appears twice; remove one (the last copy would silently win)",
        "notes.meta.yaml": "metadata key 'acl' appears twice; remove one (the last copy would silently win)",
        "nested.md": "metadata key 'a' appears twice; remove one (the last copy would silently win)",
        "corpus.jsonl:1": "key 'acl' appears twice; remove one (the last copy would silently win)",
    }
    bob = write_user(tmp_path / "bob.json", "bob", "t")
    for word in ("zzpayband", "zzsidecar", "zzjsonline", "zznested"):
        found = cli("search", word, "--as", bob, "--index", index, "--json", "--mode", "bm25")
        assert search_json(found)["results"] == [], word


def test_a_user_file_naming_a_key_twice_is_refused(tmp_path: Path, sample_root: Path) -> None:
    """``{"tenant": "globex", ..., "tenant": "acme"}`` used to run as acme."""
    user = write(tmp_path / "u.json", '{"user": "gus", "tenant": "globex", "groups": [], "tenant": "acme"}')
    proc = cli("search", "refund", "--as", user, "--index", sample_root, "--json")
    assert_one_error_line(proc, "key 'tenant' appears twice")
    doubled_groups = write(tmp_path / "g.json", '{"user": "bob", "tenant": "acme", "groups": [], "groups": ["hr"]}')
    assert_one_error_line(cli("search", "pay", "--as", doubled_groups, "--index", sample_root), "'groups'")


def test_question_and_trace_lines_naming_a_key_twice_are_refused(tmp_path: Path, sample_root: Path) -> None:
    questions = write(
        tmp_path / "q.jsonl",
        '{"id": "a", "question": "refunds?", "as": "u.json", "question": "pay bands?"}\n',
    )
    write_user(tmp_path / "u.json", "alice", "acme", ["support"])
    assert_one_error_line(cli("eval", questions, "--index", sample_root), "q.jsonl:1", "key 'question' appears twice")


def test_acl_entries_spelt_like_another_but_for_case_or_spaces_are_warned_about(tmp_path: Path) -> None:
    docs, index = tmp_path / "docs", tmp_path / "index"
    write(docs / "a.md", "---\nacl: [hr]\n---\n# A\n\nText a.\n")
    write(docs / "b.md", "---\nacl: [HR]\n---\n# B\n\nText b.\n")
    write(docs / "c.md", "---\nacl: [' hr ']\n---\n# C\n\nText c.\n")
    write(docs / "d.md", "---\nacl: [Everyone]\n---\n# D\n\nText d.\n")
    write(docs / "e.md", "---\nacl: [finance, everyone]\n---\n# E\n\nText e.\n")
    proc = _ingest(docs, index)
    assert proc.returncode == 0, proc.stderr  # a warning, not a rejection
    assert stderr_lines(proc) == [
        "warning: d.md: ACL entry 'Everyone' differs from 'everyone' only by case or spaces; ACL entries match "
        "exactly, so it does not grant 'everyone'",
        "warning: c.md: ACL entry ' hr ' differs from 'hr' only by case or spaces; ACL entries match exactly, "
        "so it does not grant 'hr'",
        "warning: b.md: ACL entry 'HR' differs from 'hr' only by case or spaces; ACL entries match exactly, "
        "so it does not grant 'hr'",
    ]
    assert len(json.loads(proc.stdout)["warnings"]) == 3
