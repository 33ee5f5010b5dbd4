"""The int8 scan (``ragcli.index.int8_scan``): onnxruntime's integer kernel against numpy, blind to denied rows.

The kernel runs for real (the vendored graph in a real onnxruntime session) on
real ``.npy`` files mapped as a search maps them. Its scores are integers, so
they are checked for equality with numpy's int64 product: a saturating int16
sum inside the kernel (what a full 8-bit query does on AVX2) would show.
Denied rows get other codes after the scores are taken: no kept score may move.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragcli.index.dense import MappedMatrix, Spans
from ragcli.index.int8_scan import (
    BLOCK_ALIGN,
    BLOCK_ROWS,
    GRAPH,
    QUERY_LEVELS,
    QUERY_OFFSET,
    BlockSpans,
    QuantizedMatrix,
    block_rows_for,
    blocked_codes,
    build_graph,
    quantized_query,
    row_sums,
)
from ragcli.index.layout import QUANTIZED, QUANTIZED_SCALE, QUANTIZED_SUMS
from ragcli.index.writer import write_quantized

DIM = 16


def _matrix(path: Path, codes: np.ndarray, block_rows: int, scale: np.ndarray | None = None) -> QuantizedMatrix:
    """Row-major ``codes`` stored in the scan's layout at ``path`` (a directory), mapped back."""
    path.mkdir(parents=True, exist_ok=True)
    np.save(path / QUANTIZED, blocked_codes(codes, block_rows))
    sums = np.zeros(-(-codes.shape[0] // block_rows) * block_rows, dtype=np.int32)
    sums[: codes.shape[0]] = row_sums(codes)
    scale = np.ones(codes.shape[1], dtype=np.float32) if scale is None else scale
    return QuantizedMatrix(MappedMatrix(path / QUANTIZED), sums, scale)


def _expected(codes: np.ndarray, rows: np.ndarray, query: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """numpy's int64 product of the allowed rows' codes with the query's 7-bit codes."""
    levels = quantized_query(scale * query).astype(np.int64)[0] - QUERY_OFFSET
    expected: np.ndarray = codes[rows].astype(np.int64) @ levels
    return expected


def test_the_vendored_graph_is_what_build_graph_makes() -> None:
    pytest.importorskip("onnx")
    assert build_graph() == GRAPH


def test_extreme_codes_and_query_score_exactly(tmp_path: Path) -> None:
    """Every code at +-127 and every query code at its extremes: the largest sums the kernel can meet."""
    dim = 384
    codes = np.full((6, dim), 127, dtype=np.int8)
    codes[1] = -127
    codes[2, ::2] = -127
    codes[3, :] = np.where(np.arange(dim) % 3 == 0, 127, -127)
    codes[4] = 0
    codes[5, :] = np.where(np.arange(dim) < dim // 2, 127, -127)
    matrix = _matrix(tmp_path, codes, BLOCK_ALIGN)
    rows = np.arange(6)
    for query in (np.ones(dim), -np.ones(dim), np.where(np.arange(dim) % 2 == 0, 1.0, -1.0)):
        query = query.astype(np.float32)
        levels = quantized_query(query).astype(int)[0]
        assert levels.min() >= QUERY_OFFSET - QUERY_LEVELS and levels.max() <= QUERY_OFFSET + QUERY_LEVELS
        scores = matrix.approximate_scores(matrix.spans(rows), query)
        assert scores.dtype == np.int32
        assert np.array_equal(scores, _expected(codes, rows, query, matrix.scale))


def test_random_codes_score_exactly_and_rank_like_the_float_product(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    vectors = rng.standard_normal((5000, 384)).astype(np.float32)
    scale = (np.abs(vectors).max(axis=0) / 127).astype(np.float32)
    codes = np.clip(np.rint(vectors / scale), -127, 127).astype(np.int8)
    matrix = _matrix(tmp_path, codes, block_rows_for(len(codes)), scale)
    rows = np.arange(len(codes))
    query = rng.standard_normal(384).astype(np.float32)
    scores = matrix.approximate_scores(matrix.spans(rows), query)
    assert np.array_equal(scores, _expected(codes, rows, query, scale))
    assert np.corrcoef(scores, vectors @ query)[0, 1] > 0.999


def test_block_rows_cover_every_size_with_little_padding() -> None:
    for rows in (0, 1, 63, 64, 65, 1000, BLOCK_ROWS, BLOCK_ROWS + 1, 10 * BLOCK_ROWS - 5, 1_000_000):
        per_block = block_rows_for(rows)
        blocks = -(-rows // per_block)
        assert per_block % BLOCK_ALIGN == 0 and BLOCK_ALIGN <= per_block <= BLOCK_ROWS
        assert blocks * per_block - rows < max(1, blocks) * BLOCK_ALIGN


def test_write_quantized_stores_the_blocked_codes_of_every_row(tmp_path: Path) -> None:
    """Written a few blocks at a time (``block_rows``) as at publish, the files equal one blocking of all codes."""
    rng = np.random.default_rng(1)
    vectors = rng.standard_normal((BLOCK_ROWS * 2 + 700, DIM)).astype(np.float32)
    names = write_quantized(tmp_path, vectors, block_rows=BLOCK_ROWS)
    assert sorted(names) == sorted([QUANTIZED, QUANTIZED_SUMS, QUANTIZED_SCALE])
    scale = np.load(tmp_path / QUANTIZED_SCALE)
    codes = np.clip(np.rint(vectors / scale), -127, 127).astype(np.int8)
    per_block = block_rows_for(len(vectors))
    stored = np.load(tmp_path / QUANTIZED)
    assert np.array_equal(stored, blocked_codes(codes, per_block))
    sums = np.load(tmp_path / QUANTIZED_SUMS)
    assert sums.shape == (stored.shape[0] // DIM, per_block)
    flat = sums.reshape(-1)
    assert np.array_equal(flat[: len(codes)], codes.sum(axis=1)) and not flat[len(codes) :].any()


@st.composite
def masks(draw: st.DrawFn) -> np.ndarray:
    """Masks made of runs, as documents make them: allowed and denied stretches of random lengths."""
    runs = draw(st.lists(st.tuples(st.booleans(), st.integers(1, 300)), min_size=1, max_size=20))
    return np.concatenate([np.full(length, allowed) for allowed, length in runs]).astype(bool)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mask=masks(), seed=st.integers(0, 2**32 - 1), blocks_per_window=st.integers(1, 4))
def test_kept_scores_equal_a_brute_force_masked_product_and_ignore_denied_codes(
    tmp_path: Path, mask: np.ndarray, seed: int, blocks_per_window: int
) -> None:
    rng = np.random.default_rng(seed)
    codes = rng.integers(-127, 128, size=(mask.size, DIM), dtype=np.int8)
    query = rng.standard_normal(DIM).astype(np.float32)
    rows = np.flatnonzero(mask)
    block_rows = BLOCK_ALIGN
    where = Path(tempfile.mkdtemp(dir=tmp_path))  # one per example: a mapped file is never rewritten
    matrix = _matrix(where, codes, block_rows)
    spans = BlockSpans.of(rows, block_rows, DIM, window_bytes=blocks_per_window * DIM * block_rows)
    scores = matrix.approximate_scores(spans, query)
    assert scores.shape == rows.shape
    assert np.array_equal(scores, _expected(codes, rows, query, matrix.scale))

    # Windows: at most the byte budget, each block read at most once, and only blocks holding an allowed row.
    read = np.zeros(matrix.blocks, dtype=int)
    for start, end in spans.blocks.windows.tolist():
        assert end - start <= blocks_per_window
        read[start:end] += 1
    held = np.zeros(matrix.blocks, dtype=bool)
    held[rows // block_rows] = True
    assert np.array_equal(read, held.astype(int))

    # Other codes in every denied row (and its sum with them): no kept score moves.
    other = codes.copy()
    other[~mask] = rng.integers(-127, 128, size=(int((~mask).sum()), DIM), dtype=np.int8)
    assert np.array_equal(_matrix(where / "other", other, block_rows).approximate_scores(spans, query), scores)


def test_a_block_without_an_allowed_row_is_never_read() -> None:
    rows = np.concatenate([np.arange(0, 10), np.arange(5 * 64 + 3, 6 * 64 + 1)])
    spans = BlockSpans.of(rows, 64, DIM)
    assert spans.blocks.windows.tolist() == [[0, 1], [5, 7]]
    assert isinstance(spans.blocks, Spans) and spans.blocks.covered == 3


def test_an_all_zero_query_scores_zero(tmp_path: Path) -> None:
    codes = np.random.default_rng(2).integers(-127, 128, size=(100, DIM), dtype=np.int8)
    matrix = _matrix(tmp_path, codes, BLOCK_ALIGN)
    rows = np.arange(100)
    assert not matrix.approximate_scores(matrix.spans(rows), np.zeros(DIM, dtype=np.float32)).any()
