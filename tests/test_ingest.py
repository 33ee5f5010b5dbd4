"""The ingest pipeline with the real model and real Tantivy: round trip, incremental, mirroring, crashes, locks."""

from __future__ import annotations

import datetime as dt
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest
from support.cli import assert_one_error_line, clean_env, cli, cli_args
from support.corpus import all_passages, make_pdf, markdown, status_of, write

from ragcli import ingest
from ragcli.errors import InputError
from ragcli.index import TenantIndex
from ragcli.index.layout import CURRENT
from ragcli.index.writer import write_lock
from ragcli.principal import Principal, Scope
from ragcli.search import Retriever, SearchConfig

TODAY = dt.date(2026, 11, 29)


def who(*groups: str, user: str = "u", tenant: str = "t") -> Principal:
    return Principal(user=user, tenant=tenant, groups=tuple(groups))


def snapshot(index: Path, tenant: str = "t") -> dict[str, tuple[str, tuple[str, ...], str]]:
    """passage id -> (text, acl, doc_id) of the published generation (checksums verified)."""
    with TenantIndex.open(index, tenant, verify=True):
        pass
    return {p.id: (p.text, p.acl, p.doc_id) for p in all_passages(index, tenant)}


def vectors(index: Path, tenant: str = "t") -> dict[str, np.ndarray]:
    with TenantIndex.open(index, tenant) as ix:
        return {p.id: np.array(ix.embeddings[row]) for row, p in enumerate(all_passages(index, tenant))}


def visible_ids(index: Path, principal: Principal, as_of: dt.date = TODAY) -> set[str]:
    with TenantIndex.open(index, principal.tenant) as ix:
        view = ix.view(Scope(principal, as_of))
        return {view.passage_id(int(r)) for r in view.allowed_rows}


def bm25_ids(index: Path, principal: Principal, query: str, embedder, as_of: dt.date = TODAY) -> list[str]:
    r = Retriever(index, embedder=embedder, config=SearchConfig(mode="bm25", k=100, candidates=100))
    try:
        return r.search(Scope.of(principal, as_of), query).ids
    finally:
        r.close()


def doc_ids(snap) -> set[str]:
    return {v[2] for v in snap.values()}


# --------------------------------------------------------------------------- round trip


@pytest.fixture
def mixed_folder(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    write(
        root / "guides" / "setup.md",
        markdown(
            {"id": "setup-guide", "title": "Setup Guide", "acl": ["engineering"], "version": "3"},
            "# Setup Guide\n\nInstall the zorblax agent first.\n\n## Configure\n\nSet the flumph option to true.\n",
        ),
    )
    write(root / "notes.txt", "Meeting notes mention the quibbleton budget.\n\nSecond paragraph about hiring.\n")
    write(root / "notes.meta.yaml", "title: Team Notes\nacl: [everyone]\n")
    write(
        root / "page.html",
        "<html><head><title>Status Page</title><script>var token='zzhiddenscript';</script></head>"
        "<body><h1>Status Page</h1><p>All systems report the gorbulon metric as green.</p>"
        "<style>.zzhiddenstyle{}</style></body></html>",
    )
    write(root / "page.meta.yaml", "acl: [everyone]\n")
    write(
        root / "report.pdf", make_pdf(["Board report about the vexillum project", "Page two lists the wombat budget"])
    )
    write(root / "report.meta.yaml", "acl: [execs]\n")
    write(
        root / "corpus.jsonl",
        '{"_id": "c1", "title": "Corpus One", "text": "The first corpus line mentions snorkelwax."}\n'
        '{"_id": "c2", "title": "Corpus Two", "text": "The second corpus line mentions plinthor.", "acl": ["ops"]}\n',
    )
    return root


def test_round_trip_from_files_to_stored_passages(tmp_path, mixed_folder, embedder):
    index = tmp_path / "index"
    report = ingest(mixed_folder, "t", index=index, embedder=embedder, default_acl=["everyone"])
    assert report.documents.rejected == []
    assert (report.documents.added, report.documents.updated, report.documents.unchanged, report.documents.deleted) == (
        6,
        0,
        0,
        0,
    )
    assert report.published and report.passages == report.embedded > 0

    snap = snapshot(index)
    assert doc_ids(snap) == {"setup-guide", "notes", "page", "report", "c1", "c2"}
    by_doc = {}
    for pid, (text, acl, doc) in snap.items():
        by_doc.setdefault(doc, []).append((pid, text, acl))
    assert {acl for _, _, acl in by_doc["setup-guide"]} == {("engineering",)}
    assert all(re.match(r"setup-guide@3\.[0-9a-f]{6}#", pid) for pid, _, _ in by_doc["setup-guide"])
    assert {acl for _, _, acl in by_doc["report"]} == {("execs",)}
    assert {acl for _, _, acl in by_doc["c2"]} == {("ops",)}
    assert {acl for _, _, acl in by_doc["c1"]} == {("everyone",)}
    everything = "\n".join(text for text, _, _ in snap.values())
    for needle in ("zorblax", "flumph", "quibbleton", "gorbulon", "vexillum", "wombat", "snorkelwax", "plinthor"):
        assert needle in everything
    for hidden in ("zzhiddenscript", "zzhiddenstyle", "acl:", "title: Team Notes"):
        assert hidden not in everything

    titles = {p.doc_id: p.title for p in all_passages(index, "t")}
    assert titles["notes"] == "Team Notes" and titles["page"] == "Status Page" and titles["c1"] == "Corpus One"
    a = status_of(index, "t")
    with TenantIndex.open(index, "t") as ix:
        assert (a.documents, a.passages, a.orphan_vectors, a.stale_entries) == (6, len(snap), 0, 0)
        assert ix.embeddings.shape == (len(snap), 384)
        assert np.allclose(np.linalg.norm(ix.embeddings, axis=1), 1.0, atol=1e-3)

    # The script's text is not searchable; the visible text is, for those allowed.
    everyone = who()
    assert bm25_ids(index, everyone, "zzhiddenscript", embedder) == []
    assert [i.split("@")[0] for i in bm25_ids(index, everyone, "gorbulon", embedder)] == ["page"]
    assert bm25_ids(index, everyone, "vexillum", embedder) == []  # the PDF is for execs
    # A PDF without an outline is one section, its passages cut by page (they carry their pages).
    assert [i.split("#")[1] for i in bm25_ids(index, who("execs"), "vexillum", embedder)] == ["top"]


def test_passage_ids_are_stable_across_runs(tmp_path, mixed_folder, embedder):
    ingest(mixed_folder, "t", index=tmp_path / "one", embedder=embedder, default_acl=["everyone"])
    ingest(mixed_folder, "t", index=tmp_path / "two", embedder=embedder, default_acl=["everyone"])
    first, second = snapshot(tmp_path / "one"), snapshot(tmp_path / "two")
    assert first == second
    # Hash versions are the document's content hash: the same in every index.
    assert any(pid.startswith("notes@") and len(pid.split("@")[1].split("#")[0]) == 10 for pid in first)


# --------------------------------------------------------------------------- incremental


def _three_docs(root: Path) -> None:
    write(
        root / "a.md",
        markdown(
            {"acl": ["everyone"]},
            "# Alpha\n\n## One\n\nAlpha one text.\n\n## Two\n\nAlpha two text.\n\n## Three\n\nAlpha three text.\n",
        ),
    )
    write(
        root / "b.md",
        markdown({"acl": ["everyone"], "version": "v1"}, "# Bravo\n\nBravo says the old thing about ferns.\n"),
    )
    write(root / "c.md", markdown({"acl": ["everyone"]}, "# Charlie\n\nCharlie text stays the same.\n"))


def test_unchanged_folder_embeds_nothing_and_keeps_the_generation(tmp_path, embedder):
    root, index = tmp_path / "docs", tmp_path / "index"
    _three_docs(root)
    first = ingest(root, "t", index=index, embedder=embedder)
    assert first.embedded == first.passages == 5
    current = (index / "t" / CURRENT).read_text()
    again = ingest(root, "t", index=index, embedder=embedder)
    assert (
        again.embedded,
        again.documents.added,
        again.documents.updated,
        again.documents.deleted,
        again.documents.unchanged,
    ) == (0, 0, 0, 0, 3)
    assert not again.published and again.generation == first.generation
    assert (index / "t" / CURRENT).read_text() == current


def test_changed_document_replaces_all_its_passages(tmp_path, embedder):
    root, index = tmp_path / "docs", tmp_path / "index"
    _three_docs(root)
    ingest(root, "t", index=index, embedder=embedder)
    before, before_vec = snapshot(index), vectors(index)
    old_a = {pid for pid, v in before.items() if v[2] == "a"}

    write(
        root / "a.md",
        markdown(
            {"acl": ["everyone"]},
            "# Alpha\n\n## One\n\nAlpha one text.\n\n## Two\n\nAlpha two REWRITTEN text.\n\n"
            "## Three\n\nAlpha three text.\n",
        ),
    )
    write(
        root / "b.md",
        markdown({"acl": ["everyone"], "version": "v1"}, "# Bravo\n\nBravo now says something new about mosses.\n"),
    )
    report = ingest(root, "t", index=index, embedder=embedder)
    assert (report.documents.updated, report.documents.unchanged, report.documents.added, report.documents.deleted) == (
        2,
        1,
        0,
        0,
    )
    # Only the two changed passage texts are embedded; the rest reuse their vectors.
    assert report.embedded == 2

    after, after_vec = snapshot(index), vectors(index)
    new_a = {pid for pid, v in after.items() if v[2] == "a"}
    assert len(new_a) == 3 and not (new_a & old_a)  # new content hash: every passage id is new
    assert {v[0] for pid, v in after.items() if v[2] == "a"} == {
        "Alpha one text.",
        "Alpha two REWRITTEN text.",
        "Alpha three text.",
    }
    # An explicit version keeps the ids; the text is the new one, the old one is gone.
    assert [v[0] for pid, v in after.items() if v[2] == "b"] == ["Bravo now says something new about mosses."]
    assert bm25_ids(index, who(), "ferns", embedder) == []
    assert [i.split("@")[0] for i in bm25_ids(index, who(), "mosses", embedder)] == ["b"]
    # The untouched document is byte-for-byte the same, vectors included.
    charlie = [pid for pid, v in after.items() if v[2] == "c"]
    assert charlie and all(
        before[pid] == after[pid] and np.array_equal(before_vec[pid], after_vec[pid]) for pid in charlie
    )


def test_acl_only_change_reuses_vectors_and_takes_effect(tmp_path, embedder):
    root, index = tmp_path / "docs", tmp_path / "index"
    write(root / "plan.md", markdown({"acl": ["g1"]}, "# Plan\n\nThe secret launch plan mentions zeppelins.\n"))
    write(root / "memo.txt", "The memo mentions hovercraft.\n")
    write(root / "memo.meta.yaml", "acl: [g1]\n")
    ingest(root, "t", index=index, embedder=embedder)
    before_vec = vectors(index)
    assert len(visible_ids(index, who("g1"))) == 2 and visible_ids(index, who("g2")) == set()

    write(root / "plan.md", markdown({"acl": ["g2"]}, "# Plan\n\nThe secret launch plan mentions zeppelins.\n"))
    write(root / "memo.meta.yaml", "acl: [g2, user:zed]\n")
    report = ingest(root, "t", index=index, embedder=embedder)
    assert report.documents.updated == 2 and report.published
    assert report.embedded == 0  # same passage text: vectors reused

    after_vec = vectors(index)
    assert set(after_vec) == set(before_vec)  # content-hash versions: ids unchanged
    assert all(np.array_equal(before_vec[k], after_vec[k]) for k in after_vec)
    assert visible_ids(index, who("g1")) == set()
    assert len(visible_ids(index, who("g2"))) == 2
    assert {i.split("@")[0] for i in visible_ids(index, who(user="zed"))} == {"memo"}
    assert bm25_ids(index, who("g1"), "zeppelins", embedder) == []
    assert [i.split("@")[0] for i in bm25_ids(index, who("g2"), "zeppelins", embedder)] == ["plan"]


def test_ingest_mirrors_its_one_folder(tmp_path, embedder):
    a, index = tmp_path / "a", tmp_path / "index"
    write(a / "x.md", markdown({"acl": ["everyone"]}, "# X\n\nX text.\n"))
    write(a / "sub" / "y.md", markdown({"acl": ["everyone"]}, "# Y\n\nY text.\n"))
    report = ingest(a, "t", index=index, embedder=embedder)
    assert report.root == str(a.resolve())
    assert doc_ids(snapshot(index)) == {"x", "sub-y"}

    (a / "x.md").unlink()
    report = ingest(a, "t", index=index, embedder=embedder)
    assert (report.documents.deleted, report.documents.unchanged, report.embedded) == (1, 1, 0)
    assert doc_ids(snapshot(index)) == {"sub-y"}


def test_another_folder_is_refused_with_what_it_would_rename_or_remove(tmp_path, embedder, monkeypatch):
    """Issue 21: re-ingesting a subfolder renamed documents (guides-tools -> tools) and left two live IDs."""
    docs, index = tmp_path / "docs", tmp_path / "index"
    write(docs / "index.md", markdown({"acl": ["everyone"]}, "# Home\n\nThe home page.\n"))
    write(docs / "guides" / "index.md", markdown({"acl": ["everyone"]}, "# Guides\n\nThe guides page.\n"))
    write(docs / "guides" / "tools.md", markdown({"acl": ["everyone"]}, "# Tools\n\nThe tools page.\n"))
    ingest(docs, "t", index=index, embedder=embedder)
    before = snapshot(index)
    assert doc_ids(before) == {"index", "guides-index", "guides-tools"}

    with pytest.raises(InputError) as refused:
        ingest(docs / "guides", "t", index=index, embedder=embedder)
    message = refused.value.message
    assert "--replace" in message and str(docs.resolve()) in message
    assert "rename 2" in message and "guides-tools -> tools" in message and "guides-index -> index" in message
    assert "remove 1 (index)" in message
    assert snapshot(index) == before  # nothing published

    # The same folder by another path (relative, from elsewhere, through a symlink) is the same folder.
    monkeypatch.chdir(docs / "guides")
    assert ingest(Path(".."), "t", index=index, embedder=embedder).documents.unchanged == 3
    (tmp_path / "alias").symlink_to(docs, target_is_directory=True)
    report = ingest(tmp_path / "alias", "t", index=index, embedder=embedder)
    assert (report.documents.unchanged, report.published) == (3, False)
    assert snapshot(index) == before

    report = ingest(docs / "guides", "t", index=index, embedder=embedder, replace=True)
    assert report.root == str((docs / "guides").resolve())
    assert doc_ids(snapshot(index)) == {"index", "tools"}  # exactly the renames and the removal it listed
    assert report.embedded == 0  # unchanged texts keep their vectors


def test_a_rejected_file_withdraws_its_indexed_document(tmp_path, embedder):
    """Issue 21: a narrowing to `[hr` (broken YAML) was rejected and the old `everyone` version stayed searchable."""
    root, index = tmp_path / "docs", tmp_path / "index"
    write(root / "good.md", markdown({"acl": ["everyone"]}, "# Good\n\nThe good doc talks about kestrels.\n"))
    write(root / "other.md", markdown({"acl": ["everyone"]}, "# Other\n\nOther doc about herons.\n"))
    write(root / "n.txt", "Plain text about puffins.\n")
    write(root / "n.meta.yaml", "acl: [everyone]\n")
    ingest(root, "t", index=index, embedder=embedder)

    write(root / "good.md", "---\nacl: [hr\n---\n# Good\n\nNarrowed now, about kestrels.\n")
    write(root / "n.meta.yaml", "acl: everyone\n")  # the sidecar breaks: its file is rejected
    write(root / "other.md", markdown({"acl": ["everyone"]}, "# Other\n\nOther doc now about egrets.\n"))
    report = ingest(root, "t", index=index, embedder=embedder)
    rejected = {Path(r.path).name: r.reason for r in report.documents.rejected}
    assert set(rejected) == {"good.md", "n.txt"}
    assert "YAML" in rejected["good.md"] and "acl" in rejected["n.txt"]
    assert sorted((w.doc_id, Path(w.path).name) for w in report.documents.withdrawn) == [
        ("good", "good.md"),
        ("n", "n.txt"),
    ]
    assert report.documents.updated == 1 and report.published  # the rest is committed
    assert doc_ids(snapshot(index)) == {"other"}
    assert bm25_ids(index, who(), "kestrels", embedder) == [] and bm25_ids(index, who(), "puffins", embedder) == []
    assert [i.split("@")[0] for i in bm25_ids(index, who(), "egrets", embedder)] == ["other"]

    # The CLI says what it withdrew and exits 2, so CI notices.
    write(root / "good.md", markdown({"acl": ["everyone"]}, "# Good\n\nFixed, now about ospreys.\n"))
    ingest(root, "t", index=index, embedder=embedder)
    assert [i.split("@")[0] for i in bm25_ids(index, who(), "ospreys", embedder)] == ["good"]
    write(root / "good.md", "---\nacl: [hr\n---\n# Good\n\nBroken again.\n")
    proc = cli("ingest", root, "--tenant", "t", "--index", index)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "error: withdrew 1 document whose new version was rejected: good (good.md)" in proc.stderr, proc.stderr
    assert bm25_ids(index, who(), "ospreys", embedder) == []


def test_keep_on_error_keeps_the_previous_version_with_a_warning(tmp_path, embedder):
    root, index = tmp_path / "docs", tmp_path / "index"
    write(root / "good.md", markdown({"acl": ["everyone"]}, "# Good\n\nThe good doc talks about kestrels.\n"))
    write(root / "other.md", markdown({"acl": ["everyone"]}, "# Other\n\nOther doc about herons.\n"))
    ingest(root, "t", index=index, embedder=embedder)
    before = snapshot(index)
    write(root / "good.md", "---\nacl: [everyone\n---\n# Good\n\nBroken now, about ospreys.\n")
    report = ingest(root, "t", index=index, embedder=embedder, keep_on_error=True)
    assert [Path(r.path).name for r in report.documents.rejected] == ["good.md"]
    assert report.documents.withdrawn == []
    assert [(Path(w.path).name, "--keep-on-error" in w.message) for w in report.warnings] == [("good.md", True)]
    assert snapshot(index) == before
    proc = cli("ingest", root, "--tenant", "t", "--index", index, "--keep-on-error")
    assert proc.returncode == 2  # still a rejection
    assert "warning: good.md: kept the previously indexed version of 'good'" in proc.stderr, proc.stderr
    assert [i.split("@")[0] for i in bm25_ids(index, who(), "kestrels", embedder)] == ["good"]


def test_invalid_files_are_rejected_and_the_rest_committed(tmp_path, embedder):
    root, index = tmp_path / "docs", tmp_path / "index"
    write(root / "ok.md", markdown({"acl": ["everyone"]}, "# Ok\n\nValid document.\n"))
    write(root / "latin1.md", b"---\nacl: [everyone]\n---\ncaf\xe9\n")
    write(root / "nul.md", b"# N\n\nnul\x00byte\n")
    write(root / "empty.md", b"")
    write(root / "yaml.md", b"---\nacl: [a, b\n---\nbody\n")
    write(root / "aclstr.md", b"---\nacl: support\n---\nbody\n")
    write(root / "date.md", b"---\nacl: [a]\neffective_from: someday\n---\nbody\n")
    write(root / "baddate.md", b"---\nacl: [a]\nsuperseded_on: 2026-13-01\n---\nbody\n")
    write(root / "order.md", b"---\nacl: [a]\neffective_from: 2026-05-01\nsuperseded_on: 2026-04-01\n---\nbody\n")
    write(root / "noacl.md", b"# No ACL\n\nbody\n")
    report = ingest(root, "t", index=index, embedder=embedder)
    reasons = {Path(r.path).name: r.reason for r in report.documents.rejected}
    expected = {
        "latin1.md": "UTF-8",
        "nul.md": "NUL",
        "empty.md": "empty",
        "yaml.md": "YAML",
        "aclstr.md": "acl",
        "date.md": "effective_from",
        "baddate.md": "month must be in 1..12",
        "order.md": "after effective_from",
        "noacl.md": "no ACL",
    }
    assert set(reasons) == set(expected)
    for name, needle in expected.items():
        assert needle in reasons[name], (name, reasons[name])
    assert report.documents.added == 1 and doc_ids(snapshot(index)) == {"ok"}


def test_default_acl_applies_only_to_documents_without_one(tmp_path, embedder):
    root, index = tmp_path / "docs", tmp_path / "index"
    write(root / "open.md", "# Open\n\nNo front matter.\n")
    write(root / "own.md", markdown({"acl": ["hr"]}, "# Own\n\nHas its own ACL.\n"))
    report = ingest(root, "t", index=index, embedder=embedder, default_acl=["support", "ops"])
    assert report.documents.rejected == []
    acl = {v[2]: v[1] for v in snapshot(index).values()}
    assert acl == {"open": ("support", "ops"), "own": ("hr",)}


def test_two_files_mapping_to_one_document_are_an_error_naming_both(tmp_path, embedder):
    root, index = tmp_path / "docs", tmp_path / "index"
    write(root / "index.md", markdown({"acl": ["everyone"]}, "# Home\n\nThe home page.\n"))
    write(root / "ok.md", markdown({"acl": ["everyone"]}, "# Ok\n\nFine.\n"))
    ingest(root, "t", index=index, embedder=embedder)
    before = snapshot(index)
    # No version declared: two texts of one ID would both be live ("index" twice, as the audit found).
    write(root / "guides" / "home.md", markdown({"id": "index", "acl": ["everyone"]}, "# Other\n\nAnother page.\n"))
    with pytest.raises(InputError, match=r"two files map to document 'index': guides/home\.md and index\.md"):
        ingest(root, "t", index=index, embedder=embedder)
    assert snapshot(index) == before
    # Declared versions of one document are versions, not a clash (sample_corpus's refunds-policy).
    write(root / "guides" / "home.md", markdown({"id": "index", "version": "2", "acl": ["everyone"]}, "# Two\n\nV2.\n"))
    write(root / "index.md", markdown({"version": "1", "acl": ["everyone"]}, "# Home\n\nThe home page.\n"))
    report = ingest(root, "t", index=index, embedder=embedder)
    assert report.published and not report.documents.rejected
    versions = {pid.split("#")[0].rsplit(".", 1)[0] for pid in snapshot(index) if pid.startswith("index@")}
    assert versions == {"index@1", "index@2"}
    write(root / "copy.md", markdown({"id": "index", "version": "2", "acl": ["everyone"]}, "# Two\n\nV2 copy.\n"))
    with pytest.raises(InputError, match=r"two files map to document 'index' version 2: copy\.md and guides/home\.md"):
        ingest(root, "t", index=index, embedder=embedder)


def test_bad_arguments_are_input_errors(tmp_path, embedder):
    with pytest.raises(InputError, match="path not found"):
        ingest(tmp_path / "missing", "t", index=tmp_path / "i", embedder=embedder)
    for bad in ("../x", "/abs", "A B", "a/b", "", "x" * 65):
        with pytest.raises(InputError, match="invalid tenant name"):
            ingest(tmp_path, bad, index=tmp_path / "i", embedder=embedder)
    assert not (tmp_path / "i").exists() or not any((tmp_path / "i").iterdir())


# --------------------------------------------------------------------------- crashes and locks


def _generated_corpus(root: Path, tag: str, n: int = 300) -> None:
    for i in range(n):
        write(
            root / f"d{i:03d}.md",
            markdown(
                {"acl": ["everyone"]}, f"# Doc {i}\n\nGeneration {tag} note {i}: the {tag}word value is {i * 7}.\n"
            ),
        )


def _wait_for(predicate, proc: subprocess.Popen, limit: float = 120) -> bool:
    """Poll until predicate() or the process ends; True if the predicate fired first."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if predicate():
            return True
        if proc.poll() is not None:
            return False
        time.sleep(0.002)
    raise AssertionError("timed out waiting for the ingest subprocess")


@pytest.mark.slow
def test_sigkill_mid_ingest_leaves_the_previous_generation(tmp_path, embedder):
    corpus, index = tmp_path / "corpus", tmp_path / "index"
    tenant_dir = index / "t"
    _generated_corpus(corpus, "alpha")
    first = ingest(corpus, "t", index=index, embedder=embedder)
    assert first.passages == 300
    gen1 = snapshot(index)
    current1 = (tenant_dir / CURRENT).read_text()
    _generated_corpus(corpus, "beta")  # every document changes: the next ingest must embed all 300

    lock_says_child = lambda pid: lambda: (tenant_dir / "lock").read_bytes().strip() == f"pid {pid}".encode()  # noqa: E731
    triggers = {
        "embedding": lambda pid: lock_says_child(pid)(),  # inside the writer, then a moment later
        "writing": lambda pid: any(tenant_dir.glob(".build-*")),  # the new generation is being written
    }
    killed_at = []
    for name, trigger in triggers.items():
        proc = subprocess.Popen(
            cli_args("ingest", corpus, "--tenant", "t", "--index", index, "--json"),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=clean_env(None),
            cwd=tmp_path,
        )
        try:
            fired = _wait_for(lambda trigger=trigger, proc=proc: trigger(proc.pid), proc)
            if fired and name == "embedding":
                time.sleep(0.5)
                # A reader is not blocked by the writer and sees the published generation.
                assert snapshot(index) == gen1
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.communicate()
        if fired and proc.returncode == -signal.SIGKILL:
            killed_at.append(name)
        state = snapshot(index)  # opens with checksum verification
        if (tenant_dir / CURRENT).read_text() == current1:
            assert state == gen1
        else:  # the kill came after the publish: then it is the whole new generation
            assert len(state) == 300 and all("betaword" in text for text, _, _ in state.values())
        a = status_of(index, "t")
        assert (a.orphan_vectors, a.stale_entries, a.passages) == (0, 0, 300)
        if state == gen1:
            assert len(bm25_ids(index, who(), "alphaword", embedder)) > 0
            assert bm25_ids(index, who(), "betaword", embedder) == []
    assert "embedding" in killed_at  # at least the mid-run kill really happened mid-run

    # The lock died with the process: a new ingest runs, cleans up and publishes everything.
    done = subprocess.run(
        cli_args("ingest", corpus, "--tenant", "t", "--index", index, "--json"),
        capture_output=True,
        text=True,
        env=clean_env(None),
        cwd=tmp_path,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    final = snapshot(index)
    assert len(final) == 300 and all("betaword" in text for text, _, _ in final.values())
    assert not list(tenant_dir.glob(".build-*")) and not list(tenant_dir.glob(f".{CURRENT}.*"))
    assert len(list(tenant_dir.glob("gen-*"))) <= 2


def test_second_writer_is_refused(tmp_path, embedder):
    root, index = tmp_path / "docs", tmp_path / "index"
    write(root / "a.md", markdown({"acl": ["everyone"]}, "# A\n\nA text.\n"))
    with write_lock(index, "t"):
        proc = cli("ingest", root, "--tenant", "t", "--index", index)
        # In-process too: a second lock on the same tenant is refused, not queued.
        from ragcli.errors import IndexLockedError

        with pytest.raises(IndexLockedError, match="being ingested"):
            ingest(root, "t", index=index, embedder=embedder)
    line = assert_one_error_line(proc, "being ingested", "'t'")
    assert f"pid {os.getpid()}" in line
    assert not (index / "t" / CURRENT).exists()  # nothing was published
    # Once released, the same ingest works.
    assert ingest(root, "t", index=index, embedder=embedder).published
