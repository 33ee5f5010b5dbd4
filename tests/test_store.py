"""The on-disk index: layout, permission columns, integrity checks, the write lock, model identity."""

from __future__ import annotations

import builtins
import datetime as dt
import errno
import io
import json
import os
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.cli import assert_one_error_line, cli
from support.corpus import all_passages, markdown, status_of, visible_to, write

from ragcli import ingest
from ragcli.embedder import VOCAB_PATH, Embedder, ModelSpec
from ragcli.errors import IndexCorruptError, IndexLockedError, IndexWriteError, InputError, RagcliError
from ragcli.index import TenantIndex, list_tenants
from ragcli.index.layout import CURRENT
from ragcli.index.manifest import FORMAT_VERSION, checksum
from ragcli.index.rows import RowFile, write_rows
from ragcli.index.writer import write_lock
from ragcli.ingestion.chunking import CHUNKER_VERSION
from ragcli.passage import Passage
from ragcli.principal import Principal, Scope
from ragcli.search import Retriever, SearchConfig

ARRAY_FILES = ("passages.jsonl", "offsets.npy", "embeddings.npy", "acl.npy", "valid_from.npy", "valid_until.npy")

DOCS = {
    "open.md": ({"acl": ["everyone"]}, "# Open\n\nOpen text about lighthouses.\n"),
    "g1.md": ({"acl": ["g1"]}, "# Group\n\nGroup one text about submarines.\n"),
    "user.md": ({"acl": ["user:u1"]}, "# Personal\n\nPersonal text about volcanoes.\n"),
    "dated.md": (
        {"acl": ["everyone"], "effective_from": "2026-03-01", "superseded_on": "2026-06-01"},
        "# Dated\n\nSpring-only text about tulips.\n",
    ),
    "future.md": ({"acl": ["g2", "g1"], "effective_from": "2027-01-01"}, "# Future\n\nFuture text about rockets.\n"),
}


def who(*groups: str, user: str = "u", tenant: str = "t") -> Principal:
    return Principal(user=user, tenant=tenant, groups=tuple(groups))


def on(day: dt.date, *groups: str, user: str = "u", tenant: str = "t") -> Scope:
    return Scope(who(*groups, user=user, tenant=tenant), day)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory, embedder) -> Path:
    """A five-document index of tenant 't' (read-only: copy it before damaging it)."""
    base = tmp_path_factory.mktemp("tiny")
    for name, (meta, body) in DOCS.items():
        write(base / "docs" / name, markdown(meta, body))
    report = ingest(base / "docs", "t", index=base / "index", embedder=embedder)
    assert report.documents.rejected == [] and report.passages == 5
    return base / "index"


@pytest.fixture
def tiny_copy(tiny, tmp_path) -> Path:
    dst = tmp_path / "index"
    shutil.copytree(tiny, dst)
    return dst


def generation_dir(index: Path, tenant: str = "t") -> Path:
    return index / tenant / (index / tenant / CURRENT).read_text().strip()


# --------------------------------------------------------------------------- layout


def test_generation_layout_and_manifest(tiny, embedder):
    gen = generation_dir(tiny)
    assert gen.name.startswith("gen-") and gen.is_dir()
    names = {p.relative_to(gen).as_posix() for p in gen.rglob("*") if p.is_file()}
    assert set(ARRAY_FILES) | {"manifest.json"} <= names
    assert any(n.startswith("tantivy/") for n in names)
    assert not list((tiny / "t").glob(".build-*"))

    manifest = json.loads((gen / "manifest.json").read_text())
    assert manifest["format"] == FORMAT_VERSION and manifest["tenant"] == "t"
    assert manifest["generation"] == gen.name
    assert manifest["chunker_version"] == CHUNKER_VERSION
    assert manifest["model"]["sha256"] == embedder.sha256 and manifest["model"]["dim"] == 384
    assert manifest["passages"] == 5
    assert manifest["groups"] == sorted({"everyone", "g1", "g2", "user:u1"})
    documents = json.loads((gen / "documents.json").read_text())["documents"]
    assert manifest["documents"] == 5
    assert sorted(d["doc_id"] for d in documents) == ["dated", "future", "g1", "open", "user"]
    assert set(manifest["checksums"]) == names - {"manifest.json"}
    assert "documents.json" in manifest["checksums"]

    passages = all_passages(tiny, "t")
    ids = [p.id for p in passages]
    assert sorted(ids) == sorted(pid for d in documents for pid in d["passage_ids"])
    with TenantIndex.open(tiny, "t") as ix:
        assert ix.embeddings.shape == (5, 384) and ix.embeddings.dtype == np.float32
        dated = next(p for p in passages if p.doc_id == "dated")
        assert re.fullmatch(r"dated@2026-03-01\.[0-9a-f]{6}#top", dated.id)
        assert (dated.effective_from, dated.superseded_on) == (dt.date(2026, 3, 1), dt.date(2026, 6, 1))
    assert list_tenants(tiny) == ["t"]


# --------------------------------------------------------------------------- permission filter

DAYS = [
    dt.date(2026, 2, 28),
    dt.date(2026, 3, 1),
    dt.date(2026, 5, 31),
    dt.date(2026, 6, 1),
    dt.date(2026, 12, 31),
    dt.date(2027, 1, 1),
]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    groups=st.lists(st.sampled_from(["g1", "g2", "g3", "everyone", "user:u1"]), max_size=4),
    name=st.sampled_from(["u1", "u2"]),
    day=st.sampled_from(DAYS) | st.dates(dt.date(2025, 1, 1), dt.date(2028, 1, 1)),
)
def test_view_mask_is_the_acl_and_validity_rule(tiny, groups, name, day):
    principal = who(*groups, user=name)
    expected = [visible_to(p, principal, day) for p in all_passages(tiny, "t")]  # row order
    with TenantIndex.open(tiny, "t") as ix:
        view = ix.view(Scope(principal, day))
        # Row by row first (a BM25 search checks its hits this way, without numpy), then the whole mask.
        assert [view._visible(row) for row in range(ix.size)] == expected
        assert "mask" not in vars(view)
        assert view.mask.tolist() == expected
        assert view.count() == sum(expected)


def test_validity_boundaries(tiny):
    def visible(day):
        with TenantIndex.open(tiny, "t") as ix:
            view = ix.view(on(day, "g1", user="u1"))
            return {p.doc_id for p in view.passages([int(r) for r in view.allowed_rows])}

    assert "dated" not in visible(dt.date(2026, 2, 28))
    assert "dated" in visible(dt.date(2026, 3, 1))  # effective_from is inclusive
    assert "dated" in visible(dt.date(2026, 5, 31))
    assert "dated" not in visible(dt.date(2026, 6, 1))  # superseded_on is exclusive
    assert "future" not in visible(dt.date(2026, 12, 31)) and "future" in visible(dt.date(2027, 1, 1))
    assert visible(dt.date(2026, 4, 1)) == {"open", "g1", "user", "dated"}


def test_rankers_never_return_denied_rows(tiny, embedder):
    rows = {p.doc_id: row for row, p in enumerate(all_passages(tiny, "t"))}
    day = dt.date(2026, 4, 1)
    with TenantIndex.open(tiny, "t") as ix:
        assert [h.row for h in ix.view(on(day, "g1")).bm25("submarines", 10)] == [rows["g1"]]
        assert ix.view(on(day, "g2")).bm25("submarines", 10) == []
        assert ix.view(on(day, user="u2")).bm25("volcanoes", 10) == []
        # Even the denied passage's own vector does not bring it back.
        vector = np.array(ix.embeddings[rows["g1"]])
        dense = ix.view(on(day, "g2")).dense(vector, 10)
        assert rows["g1"] not in {h.row for h in dense}
        assert len(dense) == 2  # open + dated: all the g2 principal may see that day
        assert ix.view(on(day, "g1")).dense(vector, 1)[0].row == rows["g1"]
        # Nor can a denied row be fetched by number.
        with pytest.raises(InputError, match="not visible"):
            ix.view(on(day, "g2")).passage(rows["g1"])


# Thirty passages only the 'vault' group may read say "quasar" many times and first; the one
# everyone may read mentions it once, deep in a long page. A filter applied after the top-k cut
# would hand an everyone-only reader an empty list for any limit below 31.
CROWD = 30


@pytest.fixture(scope="module")
def crowded(tmp_path_factory, embedder) -> Path:
    base = tmp_path_factory.mktemp("crowded")
    for i in range(CROWD):
        body = (
            f"# Quasar {i}\n\n"
            f"Quasar quasar quasar. The quasar survey note {i}: quasar light, quasar jets, quasar redshift.\n"
        )
        write(base / "docs" / f"denied-{i:02d}.md", markdown({"id": f"denied-{i:02d}", "acl": ["vault"]}, body))
    filler = " ".join(
        f"The harbour log for day {d} records calm weather, two ferries and a late delivery of rope."
        for d in range(1, 6)
    )
    write(
        base / "docs" / "allowed.md",
        markdown(
            {"id": "allowed", "acl": ["everyone"]},
            f"# Harbour log\n\n{filler} On the last night a quasar was named in a radio show.\n",
        ),
    )
    report = ingest(base / "docs", "t", index=base / "index", embedder=embedder)
    assert report.documents.rejected == [] and report.passages == CROWD + 1
    return base / "index"


def test_filter_runs_before_the_top_k_cut_when_denied_rows_outscore_the_allowed_one(crowded, embedder):
    rows = {p.doc_id: row for row, p in enumerate(all_passages(crowded, "t"))}
    allowed = rows["allowed"]
    day = dt.date(2026, 4, 1)
    vector = embedder.embed(["quasar survey note: quasar light and jets"])[0]
    with TenantIndex.open(crowded, "t") as ix:
        everything, everyone = ix.view(on(day, "vault")), ix.view(on(day))
        assert everyone.allowed_rows.tolist() == [allowed]
        # Precondition: seen unfiltered, every denied row outranks the allowed one in both rankers.
        bm25_all = [h.row for h in everything.bm25("quasar", CROWD + 1)]
        dense_all = [h.row for h in everything.dense(vector, CROWD + 1)]
        assert len(bm25_all) == CROWD + 1 and bm25_all[-1] == allowed, bm25_all
        assert len(dense_all) == CROWD + 1 and dense_all[-1] == allowed, dense_all
        # The restricted reader still gets its one row, whatever the limit.
        for limit in (1, 5, CROWD):
            assert [h.row for h in everyone.bm25("quasar", limit)] == [allowed], ("bm25", limit)
            assert [h.row for h in everyone.dense(vector, limit)] == [allowed], ("dense", limit)
        # And the vault reader's limit=1 is the best of all rows, not the allowed one.
        assert everything.bm25("quasar", 1)[0].row != allowed and everything.dense(vector, 1)[0].row != allowed


def test_principal_of_another_tenant_is_refused(tiny, embedder):
    with TenantIndex.open(tiny, "t") as ix:
        with pytest.raises(InputError, match="cannot read tenant 't'"):
            ix.view(on(dt.date(2026, 4, 1), "g1", tenant="other"))


def test_unknown_tenant_and_bad_tenant_names(tiny):
    with pytest.raises(InputError, match="unknown tenant 'nobody' in the index at .*tenants there: t;"):
        TenantIndex.open(tiny, "nobody")
    for bad in ("../t", "/t", "T", "a b", "a/b", "", "x" * 65, ".", ".."):
        with pytest.raises(InputError, match="invalid tenant name"):
            TenantIndex.open(tiny, bad)


# --------------------------------------------------------------------------- integrity


def _flip_byte(path: Path, offset: int = -10) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0xFF
    path.write_bytes(bytes(data))


# Found on every open (a search included): a stat per file and the manifest parse are enough.
CHEAP_DAMAGE = {
    "passages-truncated": lambda gen: (gen / "passages.jsonl").write_bytes((gen / "passages.jsonl").read_bytes()[:-20]),
    "acl-missing": lambda gen: (gen / "acl.npy").unlink(),
    "documents-missing": lambda gen: (gen / "documents.json").unlink(),
    "manifest-garbage": lambda gen: (gen / "manifest.json").write_text("{not json"),
    "manifest-other-tenant": lambda gen: (gen / "manifest.json").write_text(
        (gen / "manifest.json").read_text().replace('"tenant": "t"', '"tenant": "x"')
    ),
    "manifest-future-format": lambda gen: (gen / "manifest.json").write_text(
        (gen / "manifest.json").read_text().replace(f'"format": {FORMAT_VERSION}', '"format": 99')
    ),
    "current-dangling": lambda gen: (gen.parent / CURRENT).write_text("gen-missing\n"),
    "current-escapes": lambda gen: (gen.parent / CURRENT).write_text("../../etc\n"),
}
# Same size, different bytes: only a checksum finds them (status, ingest, open(verify=True)).
SILENT_DAMAGE = {
    "embeddings-bit-flip": lambda gen: _flip_byte(gen / "embeddings.npy"),
    "tantivy-file-damaged": lambda gen: _flip_byte(
        sorted(p for p in (gen / "tantivy").iterdir() if p.is_file() and p.stat().st_size > 20)[0], 5
    ),
}
DAMAGE = {**CHEAP_DAMAGE, **SILENT_DAMAGE}


def _refused(root: Path, *, verify: bool) -> str:
    with pytest.raises(IndexCorruptError) as info:
        TenantIndex.open(root, "t", verify=verify)
    message = str(info.value)
    assert "re-ingest" in message and "\n" not in message
    return message


@pytest.mark.parametrize("damage", list(CHEAP_DAMAGE), ids=list(CHEAP_DAMAGE))
def test_damage_a_stat_can_see_is_refused_on_every_open(tiny_copy, damage):
    CHEAP_DAMAGE[damage](generation_dir(tiny_copy))
    _refused(tiny_copy, verify=False)


@pytest.mark.parametrize("damage", list(DAMAGE), ids=list(DAMAGE))
def test_every_damage_is_refused_by_a_verified_open(tiny_copy, damage):
    DAMAGE[damage](generation_dir(tiny_copy))
    _refused(tiny_copy, verify=True)


def test_a_row_whose_offsets_do_not_rise_is_damage_where_it_is_read(tiny_copy):
    """offsets.npy is checked at its ends on open (O(1)) and row by row as rows are read: a flipped high byte
    in the middle never asks for a huge read; the rows it bounds are damaged, the others read whole."""
    offsets_file = generation_dir(tiny_copy) / "offsets.npy"
    values = np.load(offsets_file)
    values[2] = values[2] + (1 << 40)
    np.save(offsets_file, values)  # the same size: only a checksum or a read of rows 1 and 2 sees it
    with TenantIndex.open(tiny_copy, "t") as ix:
        assert ix._rows.passage(0).tenant == "t" and ix._rows.passage(3).tenant == "t"
        for row in (1, 2):
            with pytest.raises(IndexCorruptError, match="offsets.npy does not index passages.jsonl"):
                ix._rows.passage(row)
            with pytest.raises(IndexCorruptError, match="offsets.npy does not index passages.jsonl"):
                ix._rows.passage_id(row)
    assert "offsets.npy does not match its checksum" in _refused(tiny_copy, verify=True)


def test_search_open_reads_no_whole_file_but_status_does(tiny_copy):
    """The trade: a search opens in a few stats; a flipped byte is found by status (and by the next ingest)."""
    _flip_byte(generation_dir(tiny_copy) / "embeddings.npy")
    with TenantIndex.open(tiny_copy, "t") as ix:
        assert ix.size == 5
    assert "embeddings.npy does not match its checksum" in _refused(tiny_copy, verify=True)
    assert_one_error_line(cli("status", "--index", tiny_copy), "damaged", "re-ingest")


def test_audit_counts_orphans_and_stale_entries(tiny_copy):
    gen = generation_dir(tiny_copy)
    clean = status_of(tiny_copy, "t")
    assert (clean.orphan_vectors, clean.stale_entries, clean.documents, clean.passages) == (0, 0, 5, 5)
    # A writer that recorded the wrong passage IDs (consistently: the checksum matches what it wrote).
    documents = json.loads((gen / "documents.json").read_text())
    documents["documents"][0]["passage_ids"] = []  # a row nobody owns
    documents["documents"][1]["passage_ids"].append("ghost@1#nowhere")  # an id no row holds
    (gen / "documents.json").write_text(json.dumps(documents))
    manifest = json.loads((gen / "manifest.json").read_text())
    manifest["checksums"]["documents.json"] = checksum(gen / "documents.json")
    (gen / "manifest.json").write_text(json.dumps(resealed(manifest)))
    damaged = status_of(tiny_copy, "t")
    assert (damaged.orphan_vectors, damaged.stale_entries) == (1, 1)
    proc = cli("status", "--index", tiny_copy, "--json")
    assert proc.returncode == 2
    assert "orphan" in proc.stderr and proc.stderr.startswith("error: ")
    tenant = json.loads(proc.stdout)["tenants"][0]
    assert (tenant["orphan_vectors"], tenant["stale_entries"]) == (1, 1)


# --------------------------------------------------------------------------- writing


def test_writer_lock_refuses_a_second_writer_and_clears_stale_builds(tmp_path):
    index = tmp_path / "index"
    tenant_dir = index / "t"
    write(tenant_dir / ".build-gen-old" / "embeddings.npy", b"half written")
    write(tenant_dir / f".{CURRENT}.dead", "gen-x\n")
    with write_lock(index, "t") as locked:
        assert locked.directory == tenant_dir and locked.tenant == "t"
        assert not (tenant_dir / ".build-gen-old").exists() and not (tenant_dir / f".{CURRENT}.dead").exists()
        with pytest.raises(IndexLockedError, match="'t' is being ingested by pid"):
            with write_lock(index, "t"):
                pass
        with write_lock(index, "other"):  # other tenants are independent
            pass
    with write_lock(index, "t"):  # released on exit
        pass
    with pytest.raises(InputError, match="invalid tenant name"):
        with write_lock(index, "../t"):
            pass
    assert not (tmp_path / "t").exists()


def _fd_path(fd: int) -> Path:
    return Path(os.readlink(f"/proc/self/fd/{fd}"))


class _WritesFail:
    """A file whose writes first call ``fault`` (which raises): a disk that fills up mid-write."""

    def __init__(self, fh, fault) -> None:  # type: ignore[no-untyped-def]
        self._fh, self._fault = fh, fault

    def write(self, data):  # type: ignore[no-untyped-def]
        self._fault()
        return self._fh.write(data)

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        return getattr(self._fh, name)

    def __enter__(self):  # type: ignore[no-untyped-def]
        return self

    def __exit__(self, *exc: object) -> None:
        self._fh.close()


@pytest.mark.parametrize("fault", ["write", "fsync", "rename"])
def test_current_is_replaced_atomically_a_failure_before_the_rename_keeps_the_old_generation(
    tmp_path, embedder, monkeypatch, fault
):
    """A fault injected while CURRENT's replacement is written, synced or renamed into place.

    ``write``: writing the new name fails (disk full); ``fsync``: syncing it fails; ``rename``:
    os.replace onto CURRENT fails. Each time a reader must go on seeing the old generation,
    whole, during the fault and after it. A writer that truncates CURRENT and writes the new
    name in place fails this: the write fault finds CURRENT empty, the fsync fault finds the
    new name already in it, and the rename fault is never reached.
    """
    docs, index = tmp_path / "docs", tmp_path / "index"
    tenant_dir = index / "t"
    write(docs / "a.md", markdown({"acl": ["everyone"]}, "# A\n\nThe old text about lighthouses.\n"))
    old = ingest(docs, "t", index=index, embedder=embedder).generation
    assert (tenant_dir / CURRENT).read_text() == old + "\n"
    write(docs / "a.md", markdown({"acl": ["everyone"]}, "# A\n\nThe new text about submarines.\n"))

    at_fault: list[tuple[str, str]] = []  # (what CURRENT held, what a fresh reader opened) when the fault hit

    def hit() -> None:
        try:
            with TenantIndex.open(index, "t") as ix:
                reader = ix.generation
        except RagcliError as exc:
            reader = type(exc).__name__
        at_fault.append(((tenant_dir / CURRENT).read_text(), reader))
        raise OSError(errno.ENOSPC if fault == "write" else errno.EIO, f"injected {fault} failure")

    def is_current_file(path: object) -> bool:
        return isinstance(path, (str, os.PathLike)) and Path(path).parent == tenant_dir and CURRENT in Path(path).name

    real_open, real_write, real_fsync, real_replace = io.open, os.write, os.fsync, os.replace

    def open_(file, mode="r", *args, **kwargs):  # type: ignore[no-untyped-def]
        fh = real_open(file, mode, *args, **kwargs)
        return _WritesFail(fh, hit) if fault == "write" and is_current_file(file) and set(mode) & set("wax+") else fh

    def write_(fd: int, data: bytes) -> int:
        if fault == "write" and is_current_file(_fd_path(fd)):
            hit()
        return real_write(fd, data)

    def fsync(fd: int) -> None:
        if fault == "fsync" and is_current_file(_fd_path(fd)):
            hit()
        real_fsync(fd)

    def replace(src, dst, *args, **kwargs):  # type: ignore[no-untyped-def]
        if fault == "rename" and Path(dst) == tenant_dir / CURRENT:
            hit()
        return real_replace(src, dst, *args, **kwargs)

    with monkeypatch.context() as patched, pytest.raises(IndexWriteError):
        patched.setattr(io, "open", open_)
        patched.setattr(builtins, "open", open_)
        patched.setattr(os, "write", write_)
        patched.setattr(os, "fsync", fsync)
        patched.setattr(os, "replace", replace)
        ingest(docs, "t", index=index, embedder=embedder)

    # The fault was reached, and at that moment CURRENT and a fresh reader named the old generation.
    assert at_fault == [(old + "\n", old)], at_fault
    # Afterwards too: CURRENT names the old generation, which opens, verifies and answers.
    assert (tenant_dir / CURRENT).read_text() == old + "\n"
    new_name = next(p.name for p in tenant_dir.glob("gen-*") if p.name != old)  # renamed into place, never published
    with TenantIndex.open(index, "t", verify=True) as ix:
        assert ix.generation == old
        view = ix.view(on(dt.date(2026, 1, 1)))
        assert [view.passage(h.row).text for h in view.bm25("lighthouses", 5)] == ["The old text about lighthouses."]
        assert view.bm25("submarines", 5) == []
    # The next ingest publishes the new generation and clears what the failed one left behind.
    report = ingest(docs, "t", index=index, embedder=embedder)
    assert report.published and report.generation not in (old, new_name)
    assert (tenant_dir / CURRENT).read_text() == report.generation + "\n"
    assert not [p for p in tenant_dir.iterdir() if p.name.startswith(f".{CURRENT}.")]
    assert new_name not in {p.name for p in tenant_dir.glob("gen-*")}


def test_old_generations_are_pruned(tmp_path, embedder):
    """No reader holds them, so only the published generation stays (tests/test_deletion.py: with readers)."""
    root, index = tmp_path / "docs", tmp_path / "index"
    for n in range(4):
        write(root / "a.md", markdown({"acl": ["everyone"]}, f"# A\n\nRevision {n} of the text.\n"))
        report = ingest(root, "t", index=index, embedder=embedder)
        assert report.published
    gens = sorted(p.name for p in (index / "t").glob("gen-*"))
    assert gens == [report.generation]
    assert (index / "t" / CURRENT).read_text().strip() == report.generation


def test_empty_folder_publishes_nothing_but_deleting_every_document_gives_an_empty_valid_index(tmp_path, embedder):
    docs = tmp_path / "docs"
    docs.mkdir()
    report = ingest(docs, "t", index=tmp_path / "index", embedder=embedder)
    assert (report.passages, report.generation, report.published) == (0, None, False)
    with pytest.raises(InputError, match="unknown tenant"):
        TenantIndex.open(tmp_path / "index", "t")

    # A tenant that had documents and lost them all is published empty: the deletion must reach search.
    write(docs / "only.md", markdown({"id": "only", "title": "Only", "acl": ["g1"]}, "# Only\n\nThe one document.\n"))
    assert ingest(docs, "t", index=tmp_path / "index", embedder=embedder).passages == 1
    (docs / "only.md").unlink()
    report = ingest(docs, "t", index=tmp_path / "index", embedder=embedder)
    assert (report.passages, report.documents.deleted, report.published) == (0, 1, True)
    with TenantIndex.open(tmp_path / "index", "t") as ix:
        assert ix.size == 0
        view = ix.view(on(dt.date(2026, 1, 1)))
        assert view.bm25("anything", 5) == []
        assert view.dense(np.ones(384, dtype=np.float32) / np.sqrt(384), 5) == []


# --------------------------------------------------------------------------- model identity


def test_search_refuses_vectors_from_another_model(tiny, other_model, embedder):
    other = Embedder(ModelSpec(model_id="other-minilm", onnx_path=other_model, tokenizer_path=VOCAB_PATH))
    assert other.sha256 != embedder.sha256
    retriever = Retriever(tiny, embedder=other)
    try:
        for mode in ("hybrid", "dense"):
            with pytest.raises(IndexCorruptError, match="re-ingest") as info:
                retriever.search(Scope.of(who("g1")), "submarines", config=SearchConfig(mode=mode))
            assert other.sha256[:12] in str(info.value) and embedder.sha256[:12] in str(info.value)
        # BM25 needs no vectors, so it still works.
        assert len(retriever.search(Scope.of(who("g1")), "submarines", config=SearchConfig(mode="bm25")).results) == 1
    finally:
        retriever.close()


def test_ingest_with_another_model_re_embeds_everything(tiny_copy, tiny, other_model):
    other = Embedder(ModelSpec(model_id="other-minilm", onnx_path=other_model, tokenizer_path=VOCAB_PATH))
    docs = tiny.parent / "docs"
    report = ingest(docs, "t", index=tiny_copy, embedder=other)
    assert report.published and report.embedded == report.passages == 5
    with TenantIndex.open(tiny_copy, "t") as ix:
        assert ix.manifest.model.sha256 == other.sha256


def test_damaged_model_file_is_refused(tmp_path, other_model):
    spec = ModelSpec(model_id="x", onnx_path=other_model, tokenizer_path=VOCAB_PATH, expected_sha256="0" * 64)
    from ragcli.errors import ModelError

    with pytest.raises(ModelError, match="sha256"):
        Embedder(spec).embed(["text"])


# --------------------------------------------------------------------------- passage rows


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    text=st.text(min_size=1),
    acl=st.lists(st.text(min_size=1, max_size=20), min_size=1, max_size=4).map(tuple),
    start=st.none() | st.dates(),
    title=st.text(max_size=50),
    path=st.lists(st.text(max_size=20), max_size=3).map(tuple),
)
def test_passage_row_round_trip(tmp_path_factory, text, acl, start, title, path):
    p = Passage(
        id="d@v#s",
        doc_id="d",
        version="v",
        section="s",
        tenant="t",
        acl=acl,
        effective_from=start,
        superseded_on=None,
        title=title,
        heading_path=path,
        source="/x.md",
        source_url=None,
        text=text,
    )
    directory = tmp_path_factory.mktemp("rows")
    write_rows(directory, [p, p], ["h1", "h2"])
    rows = RowFile(directory, "t", np.load(directory / "offsets.npy"))
    try:
        assert rows.passage(0) == p and rows.passage(1) == p
        assert rows.record(1)["text_hash"] == "h2"
    finally:
        rows.close()


def resealed(manifest: dict) -> dict:
    """A hand-edited manifest with its seal recomputed (a consistent writer, or a deliberate edit)."""
    from ragcli.index.manifest import Manifest, seal_of

    return {**manifest, "seal": seal_of(Manifest.model_validate(manifest))}


def test_a_format_1_index_is_read_and_its_vectors_reused(tiny_copy, tiny):
    """Before 0.2 the documents sat inside manifest.json: such an index still searches, and the
    next ingest writes format 2 without embedding anything again."""
    gen = generation_dir(tiny_copy)
    manifest = json.loads((gen / "manifest.json").read_text())
    documents = json.loads((gen / "documents.json").read_text())["documents"]
    del manifest["checksums"]["documents.json"]
    (gen / "documents.json").unlink()
    (gen / "manifest.json").write_text(json.dumps({**manifest, "format": 1, "documents": documents}, indent=1))
    with TenantIndex.open(tiny_copy, "t", verify=True) as ix:
        assert ix.manifest.format == 1 and ix.manifest.documents == 5
        assert ix.view(on(dt.date(2026, 4, 1), "g1")).bm25("submarines", 5)
    report = ingest(tiny.parent / "docs", "t", index=tiny_copy)
    assert report.published and report.embedded == 0
    with TenantIndex.open(tiny_copy, "t", verify=True) as ix:
        assert ix.manifest.format == FORMAT_VERSION == 4


def test_a_format_2_index_is_read_and_the_next_ingest_rewrites_it_without_embedding(tiny_copy, tiny):
    """Format 2 had no seal, no recorded folder, and versions without the text's hash: it still searches, and the
    next ingest writes the current format (new IDs, sources relative to the folder) reusing every vector."""
    gen = generation_dir(tiny_copy)
    manifest = json.loads((gen / "manifest.json").read_text())
    for key in ("seal", "root"):
        del manifest[key]
    (gen / "manifest.json").write_text(json.dumps({**manifest, "format": 2}, indent=1))
    with TenantIndex.open(tiny_copy, "t", verify=True) as ix:
        assert ix.manifest.format == 2 and ix.manifest.root is None
        assert ix.view(on(dt.date(2026, 4, 1), "g1")).bm25("submarines", 5)
    report = ingest(tiny.parent / "docs", "t", index=tiny_copy)
    assert report.published and report.embedded == 0
    with TenantIndex.open(tiny_copy, "t", verify=True) as ix:
        assert ix.manifest.format == FORMAT_VERSION and ix.manifest.root == str((tiny.parent / "docs").resolve())


def test_neighbours_stay_inside_one_document_version_and_its_scope(tmp_path, embedder):
    docs = tmp_path / "docs"
    for doc, acl in (("alpha", ["g1"]), ("beta", ["g2"])):
        body = "".join(
            f"## Part {n}\n\nThe {doc} document, part {n}, says something of its own.\n\n" for n in (1, 2, 3)
        )
        write(docs / f"{doc}.md", markdown({"id": doc, "title": doc.title(), "acl": acl}, f"# {doc.title()}\n\n{body}"))
    ingest(docs, "t", index=tmp_path / "index", embedder=embedder)
    with TenantIndex.open(tmp_path / "index", "t") as ix:
        both = ix.view(on(dt.date(2026, 1, 1), "g1", "g2"))
        rows = {both.passage_id(r).split("#")[1] + "@" + both.passage(r).doc_id: r for r in range(ix.size)}
        first, last = rows["part-1@alpha"], rows["part-3@alpha"]
        assert [p.doc_id + "#" + p.section for p in both.neighbours(first)] == ["alpha#part-2"]
        # The last section of alpha and the first of beta are adjacent rows: never each other's neighbour.
        assert [p.section for p in both.neighbours(last)] == ["part-2"]
        assert [p.section for p in both.neighbours(rows["part-2@alpha"], steps=(1,))] == ["part-3"]
        assert [p.section for p in both.neighbours(rows["part-2@alpha"], steps=(-1,))] == ["part-1"]
        # A scope that may not see beta gets none of its rows, neighbours included.
        only_alpha = ix.view(on(dt.date(2026, 1, 1), "g1"))
        with pytest.raises(InputError):
            only_alpha.neighbours(rows["part-1@beta"])


def _threads() -> int:
    return len(os.listdir("/proc/self/task"))


def test_an_index_opened_for_its_rows_leaves_tantivy_closed(sample_root: Path) -> None:
    """Ingest reuses the previous generation's rows and vectors only. Opened with its BM25 index, Tantivy starts a
    thread that re-reads ``meta.json`` every half second, a descriptor taken at moments nobody chose (a run near
    its descriptor limit then fails wherever Python opens the next file)."""
    with TenantIndex.open(sample_root, "acme", verify=True, words=False) as index:
        before = _threads()
        assert index.size > 0 and not hasattr(index, "_bm25")
    with TenantIndex.open(sample_root, "acme") as index:
        assert index._bm25 is not None and _threads() > before  # a search's index has its words, and the thread
