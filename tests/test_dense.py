"""Dense scoring (``ragcli.index.dense``): equal to a brute-force masked product, and blind to denied vectors.

The matrix is a real ``.npy`` file, mapped as a search maps it; denied rows
hold NaN, so a denied vector that entered any kept score would show. Then
through a real published generation: ``View.dense`` against numpy on the
allowed rows, exact and with the int8 quantized scan.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.cli import cli, result_ids
from support.corpus import status_of, write_round, write_user

from ragcli.errors import IndexCorruptError
from ragcli.index import TenantIndex
from ragcli.index.dense import (
    RESCORE_CANDIDATES,
    MappedMatrix,
    Spans,
    allowed_scores,
    quantize,
    scale_of,
    top,
)
from ragcli.index.int8_scan import blocked_codes
from ragcli.index.layout import EMBEDDINGS, QUANTIZED, QUANTIZED_SUMS
from ragcli.index.manifest import DocumentEntry, ModelEntry
from ragcli.index.writer import NewGeneration, write_generation, write_lock
from ragcli.ingestion.chunking import CHUNKER_VERSION
from ragcli.passage import Passage
from ragcli.principal import Principal, Scope

DIM = 8


@st.composite
def masks(draw: st.DrawFn) -> np.ndarray:
    """Masks made of runs, as documents make them: allowed and denied stretches of random lengths."""
    runs = draw(st.lists(st.tuples(st.booleans(), st.integers(1, 80)), min_size=0, max_size=30))
    mask = np.concatenate([np.full(length, allowed) for allowed, length in runs]) if runs else np.zeros(0, bool)
    return mask.astype(bool)


def _matrix_file(path: Path, vectors: np.ndarray) -> MappedMatrix:
    np.save(path, vectors)
    return MappedMatrix(path)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    mask=masks(),
    seed=st.integers(0, 2**32 - 1),
    window_rows=st.integers(1, 64),
    merge_gap=st.integers(0, 40),
    limit=st.integers(1, 30),
)
def test_scores_equal_a_brute_force_masked_product_and_no_denied_vector_enters_one(
    tmp_path: Path, mask: np.ndarray, seed: int, window_rows: int, merge_gap: int, limit: int
) -> None:
    rng = np.random.default_rng(seed)
    vectors = rng.standard_normal((mask.size, DIM)).astype(np.float32)
    vectors[~mask] = np.nan  # a denied vector in any kept score makes it NaN
    matrix = _matrix_file(tmp_path / f"m{seed}-{mask.size}.npy", vectors)
    query = rng.standard_normal(DIM).astype(np.float32)
    rows = np.flatnonzero(mask)

    spans = Spans.of(rows, matrix.row_bytes, window_bytes=window_rows * matrix.row_bytes, merge_gap=merge_gap)
    scores = allowed_scores(matrix, spans, query)

    expected = vectors[rows].astype(np.float64) @ query.astype(np.float64)
    assert scores.shape == rows.shape and not np.isnan(scores).any()
    np.testing.assert_allclose(scores, expected, rtol=1e-5, atol=1e-5)
    assert all(end - start <= window_rows for start, end in spans.windows.tolist())
    # Every allowed row lies in exactly one window, and the windows hold nothing twice.
    covered = np.zeros(mask.size, dtype=int)
    for start, end in spans.windows.tolist():
        covered[start:end] += 1
    assert (covered[rows] == 1).all() and covered.max(initial=0) <= 1 and spans.covered == covered.sum()
    best, best_scores = top(scores, rows, limit)
    assert len(set(best.tolist())) == len(best) == min(limit, rows.size) and mask[best].all()
    np.testing.assert_allclose(best_scores, np.sort(expected)[::-1][: len(best)], rtol=1e-5, atol=1e-5)


def test_a_long_denied_stretch_is_never_read(tmp_path: Path) -> None:
    """Rows between two allowed runs farther apart than the merge gap lie in no window."""
    mask = np.zeros(1000, dtype=bool)
    mask[:10] = mask[900:] = True
    spans = Spans.of(np.flatnonzero(mask), DIM * 4, merge_gap=32)
    assert spans.windows.tolist() == [[0, 10], [900, 1000]] and spans.covered == 110


def test_quantized_codes_are_within_half_a_step(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    vectors = rng.standard_normal((500, DIM)).astype(np.float32)
    vectors[:, 2] = 0.0  # a dimension that is zero everywhere keeps a usable scale
    scale = scale_of(vectors, block_rows=64)
    codes = quantize(vectors, scale)
    assert codes.dtype == np.int8 and np.abs(codes.astype(int)).max() <= 127
    assert (np.abs(codes * scale - vectors) <= scale / 2 + 1e-6).all()
    assert scale[2] == 1.0 and (codes[:, 2] == 0).all()


# --------------------------------------------------------------------------- through a published generation

TENANT = "t"
ROWS = 3000
PER_DOC = 5


def _passage(row: int, acl: tuple[str, ...]) -> Passage:
    doc = row // PER_DOC
    return Passage(
        id=f"d{doc}@1#s{row % PER_DOC}",
        doc_id=f"d{doc}",
        version="1",
        section=f"s{row % PER_DOC}",
        tenant=TENANT,
        acl=acl,
        effective_from=None,
        superseded_on=None,
        title=f"Doc {doc}",
        heading_path=(),
        source=f"d{doc}.md",
        source_url=None,
        text=f"passage {row} of document {doc}",
    )


def _write_tenant(root: Path, quantize_codes: bool, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A tenant of random unit vectors, 40% of its documents readable by group ``secret`` only."""
    rng = np.random.default_rng(seed)
    vectors = rng.standard_normal((ROWS, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    denied_doc = rng.random(ROWS // PER_DOC) < 0.4
    acl = [("secret",) if denied_doc[r // PER_DOC] else ("everyone",) for r in range(ROWS)]
    passages = [_passage(r, acl[r]) for r in range(ROWS)]
    documents = [
        DocumentEntry(
            key=f"/d{d}.md",
            doc_id=f"d{d}",
            version="1",
            source=f"d{d}.md",
            fingerprint=f"{d:016x}",
            passage_ids=[p.id for p in passages[d * PER_DOC : (d + 1) * PER_DOC]],
        )
        for d in range(ROWS // PER_DOC)
    ]
    gen = NewGeneration(
        passages=passages,
        text_hashes=[f"{i:064x}" for i in range(ROWS)],
        embeddings=vectors,
        documents=documents,
        chunker_version=CHUNKER_VERSION,
        model=ModelEntry(id="test", sha256="0" * 64, dim=384, pooling="mean"),
        quantize=quantize_codes,
    )
    with write_lock(root, TENANT) as lock:
        write_generation(lock, gen)
    allowed = np.repeat(~denied_doc, PER_DOC)
    return vectors, allowed


def _scope(*groups: str) -> Scope:
    return Scope(Principal(user="u", tenant=TENANT, groups=groups), dt.date(2026, 1, 1))


def _brute_force(vectors: np.ndarray, allowed: np.ndarray, query: np.ndarray, limit: int) -> list[int]:
    scores = np.where(allowed, vectors.astype(np.float64) @ query, -np.inf)
    return np.argsort(-scores, kind="stable")[:limit].tolist()


@pytest.mark.parametrize("quantized", [False, True])
def test_view_dense_is_the_brute_force_ranking_of_the_allowed_rows(tmp_path: Path, quantized: bool) -> None:
    vectors, allowed = _write_tenant(tmp_path, quantized)
    rng = np.random.default_rng(1)
    with TenantIndex.open(tmp_path, TENANT) as index:
        assert (index.quantized is not None) == quantized
        assert (QUANTIZED in index.manifest.checksums) == quantized
        view = index.view(_scope())
        assert view.count() == int(allowed.sum())
        for _ in range(20):
            query = rng.standard_normal(384).astype(np.float32)
            hits = view.dense(query, 10)
            assert [h.row for h in hits] == _brute_force(vectors, allowed, query, 10)
            assert np.allclose([h.score for h in hits], vectors[[h.row for h in hits]] @ query, atol=1e-5)
            assert view.dense(query, 10, exact=True) == view.dense(query, 10, exact=True)
        # A query equal to a denied vector finds only allowed rows.
        denied_row = int(np.flatnonzero(~allowed)[0])
        assert all(allowed[h.row] for h in view.dense(vectors[denied_row], 50))
        assert index.view(_scope("secret")).dense(vectors[denied_row], 1)[0].row == denied_row


def test_the_quantized_scan_rescored_finds_the_exact_top_ten(tmp_path: Path) -> None:
    """Recall@10 of the quantized scan + exact rescoring against the exact ranking, on random unit vectors
    (the hardest case for a scan: no cluster structure). The rescoring keeps ``RESCORE_CANDIDATES`` rows."""
    _write_tenant(tmp_path, quantize_codes=True, seed=5)
    rng = np.random.default_rng(2)
    found = 0
    with TenantIndex.open(tmp_path, TENANT) as index:
        view = index.view(_scope())
        assert RESCORE_CANDIDATES < view.count()  # the rescoring sees a part of the rows, not all
        for _ in range(30):
            query = rng.standard_normal(384).astype(np.float32)
            exact = {h.row for h in view.dense(query, 10, exact=True)}
            found += len(exact & {h.row for h in view.dense(query, 10)})
    assert found / 300 >= 0.99


def test_denied_vectors_overwritten_with_nan_change_no_result(tmp_path: Path) -> None:
    """Damage every denied vector in the published file (same size, so an open does not notice): the allowed
    rows' ranking and scores stay exactly what they were."""
    vectors, allowed = _write_tenant(tmp_path, quantize_codes=False)
    query = np.random.default_rng(4).standard_normal(384).astype(np.float32)
    with TenantIndex.open(tmp_path, TENANT) as index:
        before = index.view(_scope()).dense(query, 25)
        path = index.path / EMBEDDINGS
    damaged = np.load(path, mmap_mode="r+")
    damaged[~allowed] = np.nan
    damaged.flush()
    del damaged
    with TenantIndex.open(tmp_path, TENANT) as index:
        assert index.view(_scope()).dense(query, 25) == before


@pytest.mark.parametrize("damage", ["sums of another shape", "codes of another block size"])
def test_quantized_files_that_do_not_match_the_manifest_are_refused(tmp_path: Path, damage: str) -> None:
    """Codes whose blocks disagree with their sums or the row count are a damaged index, not a wrong ranking."""
    _write_tenant(tmp_path, quantize_codes=True)
    with TenantIndex.open(tmp_path, TENANT) as index:
        path = index.path
        assert index.quantized is not None
        blocks, block_rows = index.quantized.blocks, index.quantized.block_rows
    if damage == "sums of another shape":
        np.save(path / QUANTIZED_SUMS, np.zeros((blocks, block_rows + 64), dtype=np.int32))
    else:
        np.save(path / QUANTIZED, np.zeros((blocks * 384, block_rows // 2), dtype=np.int8))
    with pytest.raises(IndexCorruptError, match="quantized"):
        TenantIndex.open(tmp_path, TENANT)


# --------------------------------------------------------------------------- ingest --quantize


def test_ingest_quantize_writes_the_codes_later_ingests_keep_them_and_search_is_unchanged(tmp_path: Path) -> None:
    docs, index = tmp_path / "docs", tmp_path / "index"
    write_round(docs, 1, 6)
    assert cli("ingest", docs, "--tenant", TENANT, "--acl", "everyone", "--index", index).returncode == 0
    user = write_user(tmp_path / "u.json", "u", TENANT, ["everyone"])
    query = "search", "note", "--as", user, "--index", index, "--json", "--mode", "dense"
    exact = result_ids(cli(*query))
    with TenantIndex.open(index, TENANT) as ix:
        assert ix.quantized is None

    assert (
        cli("ingest", docs, "--tenant", TENANT, "--acl", "everyone", "--quantize", "--index", index).returncode == 0
    )  # nothing changed
    with TenantIndex.open(index, TENANT) as ix:
        assert ix.quantized is not None and ix.quantized.blocks * ix.quantized.block_rows >= ix.size
    assert result_ids(cli(*query)) == exact
    assert status_of(index, TENANT).healthy  # every checksum verified, the codes included

    write_round(docs, 2, 4)  # a later ingest without the flag keeps the codes, for the new vectors too
    assert cli("ingest", docs, "--tenant", TENANT, "--acl", "everyone", "--index", index).returncode == 0
    with TenantIndex.open(index, TENANT) as ix:
        assert ix.quantized is not None and ix.size == 4
        codes = quantize(ix.embeddings, ix.quantized.scale)
        assert np.array_equal(ix.quantized.codes.array, blocked_codes(codes, ix.quantized.block_rows))


def _resident_kib(path: Path) -> int:
    """This process's resident KiB of its mappings of ``path`` (``/proc/self/smaps``)."""
    total, inside = 0, False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        fields = line.split()
        if fields and "-" in fields[0] and len(fields) >= 5:  # a mapping's header line
            inside = len(fields) >= 6 and fields[5] == str(path)
        elif inside and fields[:1] == ["Rss:"]:
            total += int(fields[1])
    return total


@pytest.mark.skipif(not Path("/proc/self/smaps").exists(), reason="needs Linux /proc/self/smaps")
def test_a_scan_gives_the_pages_of_the_vectors_back(tmp_path: Path) -> None:
    """After scoring, the float32 matrix does not stay in the process's resident set (the page cache keeps it)."""
    _write_tenant(tmp_path, quantize_codes=False)
    query = np.random.default_rng(6).standard_normal(384).astype(np.float32)
    with TenantIndex.open(tmp_path, TENANT) as index:
        path = index.path / EMBEDDINGS
        view = index.view(_scope())
        assert view.spans.covered > ROWS // 2
        view.dense(query, 10)
        # At most what the kernel's fault-around (64 KiB) maps beside a window, outside what it gave back.
        assert _resident_kib(path) <= 64 * 2 * len(view.spans.windows)
        index.embeddings @ query  # what the scan would leave without giving the pages back: all of them
        assert _resident_kib(path) >= ROWS * 384 * 4 // 1024 - 8
