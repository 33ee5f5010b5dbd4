"""Dense scoring: dot products of a view's allowed rows, read once, straight from the mapped matrix.

A view's allowed rows come in runs (a document's passages are contiguous
rows, and so are the documents of one source folder). ``Spans.of(mask)``
turns the mask into a few windows of the matrix, once per view: runs closer
than ``MERGE_GAP_ROWS`` are joined (reading a short denied gap costs less than
one more step of the Python loop), longer denied stretches are skipped and
never read, and no window exceeds ``WINDOW_BYTES``. Scoring multiplies each
window where it is mapped (no copy) and keeps the scores of the allowed rows
only (``Spans.keep``): each score is one row's own dot product, so a denied
row read inside a short gap adds to no kept score, and its own score is
dropped before anything else sees it.

Memory stays flat: behind each window the pages it touched are given back
(``madvise(MADV_DONTNEED)``; they stay in the page cache, so the next query
maps them again without reading the disk), and a 1M-row tenant does not keep
its 1.5 GB of vectors resident in every reader.

The quantized scan: int8 vectors with one scale per dimension (``quantize``,
``scale_of``), written beside the float32 vectors at publish when asked for
(``ingest --quantize``) and scanned by ``int8_scan`` (a quarter of the bytes,
onnxruntime's integer kernel). The best ``RESCORE_CANDIDATES`` of that scan are
scored again exactly in float32 (``rescored``): the ranking returned is exact
over those candidates, and a row outside them is one the exact ranking would
almost never put in a top 10 (recall@10 against exact: ``bench/quantized_quality.py``).
"""

from __future__ import annotations

import mmap
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

WINDOW_BYTES = 256 << 20
"""The most matrix bytes one step multiplies: few steps (6 at 1M rows of 384 dims), because each BLAS call
wakes its threads and on a loaded machine that costs milliseconds; small enough that the pages given back
behind each window keep the resident set flat (256 MiB beside the model, against 1.5 GB mapped whole)."""
MERGE_GAP_ROWS = 256
"""Allowed runs closer than this are one window: 256 denied rows (384 KiB at 384 dims) cost less to read than
one more BLAS call; a longer denied stretch is skipped."""
RESCORE_CANDIDATES = 256
"""Rows of the quantized scan rescored exactly: the exact top 10 is among them at recall@10 >= 0.99
(bench/search_speed.py --scale measures it)."""
QUANT_LEVELS = 127
"""int8 codes run from -127 to 127 (symmetric: no zero point)."""
_PAGE = mmap.PAGESIZE


class MappedMatrix:
    """A 2-D ``.npy`` array mapped read-only, whose pages a scan gives back behind it."""

    def __init__(self, path: Path) -> None:
        import numpy as np

        with open(path, "rb") as fh:
            version = np.lib.format.read_magic(fh)
            read_header = (
                np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
            )
            shape, fortran, dtype = read_header(fh)
            self.offset = fh.tell()
            if fortran or len(shape) != 2:
                raise ValueError(f"{path.name} is not a C-ordered matrix")
            size = os.fstat(fh.fileno()).st_size
            rows, dim = int(shape[0]), int(shape[1])
            if size != self.offset + rows * dim * dtype.itemsize:
                raise ValueError(f"{path.name} has {size} bytes, its header says {rows} x {dim} {dtype}")
            self._map: mmap.mmap | None = None
            if rows * dim == 0:
                self.array: np.ndarray = np.zeros((rows, dim), dtype=dtype)
            else:
                self._map = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
                self.array = np.frombuffer(self._map, dtype=dtype, count=rows * dim, offset=self.offset).reshape(
                    rows, dim
                )
        self.row_bytes = dim * dtype.itemsize

    def release(self, start: int, end: int) -> None:
        """Give back the pages of rows ``start:end`` (still cached by the kernel; the next touch maps them again)."""
        if self._map is None or end <= start:
            return
        first = (self.offset + start * self.row_bytes) // _PAGE * _PAGE
        last = self.offset + end * self.row_bytes
        self._map.madvise(mmap.MADV_DONTNEED, first, last - first)


@dataclass(frozen=True)
class Spans:
    """Which windows of the matrix hold a view's allowed rows, and which of their scores to keep."""

    windows: np.ndarray
    """(k, 2) int64: [start, end) rows, ascending and disjoint, each at most ``WINDOW_BYTES``."""
    keep: np.ndarray
    """Per allowed row (ascending), its position in the windows' scores laid end to end."""
    covered: int
    """Rows the windows hold (allowed, and denied rows of short gaps)."""

    @classmethod
    def of(
        cls, rows: np.ndarray, row_bytes: int, *, window_bytes: int = WINDOW_BYTES, merge_gap: int = MERGE_GAP_ROWS
    ) -> Spans:
        """The windows over ``rows`` (the allowed rows, ascending)."""
        import numpy as np

        if rows.size == 0:
            return cls(np.zeros((0, 2), dtype=np.int64), np.zeros(0, dtype=np.int64), 0)
        rows = rows.astype(np.int64, copy=False)
        gap_after = np.flatnonzero(np.diff(rows) > merge_gap)
        starts = rows[np.concatenate(([0], gap_after + 1))]
        ends = rows[np.concatenate((gap_after, [rows.size - 1]))] + 1
        # Cut each span into windows of at most ``limit`` rows.
        limit = max(1, window_bytes // row_bytes)
        pieces = (ends - starts + limit - 1) // limit
        span = np.repeat(np.arange(starts.size), pieces)
        first_piece = np.repeat(np.cumsum(pieces) - pieces, pieces)
        w_start = starts[span] + (np.arange(span.size) - first_piece) * limit
        w_end = np.minimum(w_start + limit, ends[span])
        lengths = w_end - w_start
        laid = np.cumsum(lengths) - lengths  # where each window's scores begin
        window = np.searchsorted(w_start, rows, side="right") - 1
        keep = laid[window] + rows - w_start[window]
        return cls(np.stack([w_start, w_end], axis=1), keep, int(lengths.sum()))


def window_scores(matrix: MappedMatrix, spans: Spans, query: np.ndarray) -> np.ndarray:
    """``matrix[window] @ query`` for every window, laid end to end (``spans.covered`` scores), float32.

    Each window is multiplied where it is mapped and given back right after.
    """
    import numpy as np

    out = np.empty(spans.covered, dtype=np.float32)
    array, done = matrix.array, 0
    for start, end in spans.windows.tolist():
        np.matmul(array[start:end], query, out=out[done : done + end - start])
        matrix.release(start, end)
        done += end - start
    return out


def allowed_scores(matrix: MappedMatrix, spans: Spans, query: np.ndarray) -> np.ndarray:
    """The exact score of every allowed row, in ascending row order (a query cast to the matrix's float32)."""
    import numpy as np

    kept: np.ndarray = window_scores(matrix, spans, np.asarray(query, dtype=np.float32))[spans.keep]
    return kept


def top(scores: np.ndarray, rows: np.ndarray, limit: int) -> tuple[np.ndarray, np.ndarray]:
    """The best ``limit`` of ``scores`` (one per row of ``rows``): (rows, scores), best first, ties by row."""
    import numpy as np

    count = min(limit, rows.size)
    if count <= 0:
        return rows[:0], scores[:0]
    best = np.argpartition(-scores, count - 1)[:count] if count < rows.size else np.arange(rows.size)
    best = best[np.lexsort((rows[best], -scores[best]))]
    return rows[best], scores[best]


# -- the quantized scan -------------------------------------------------------------------------------------


def quantize(vectors: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """int8 codes of ``vectors`` (rows) for the per-dimension ``scale``: round(v / scale), within ±127."""
    import numpy as np

    codes = np.rint(np.asarray(vectors, dtype=np.float32) / scale)
    np.clip(codes, -QUANT_LEVELS, QUANT_LEVELS, out=codes)
    small: np.ndarray = codes.astype(np.int8)
    return small


def scale_of(vectors: np.ndarray, block_rows: int = 65536) -> np.ndarray:
    """The per-dimension scale: the largest magnitude of each dimension over all rows, / 127 (1 where all are 0).

    No value is clipped, so a code's error is at most half a step of its dimension.
    """
    import numpy as np

    dim = vectors.shape[1]
    peak = np.zeros(dim, dtype=np.float32)
    for start in range(0, vectors.shape[0], block_rows):
        np.maximum(
            peak, np.abs(np.asarray(vectors[start : start + block_rows], dtype=np.float32)).max(axis=0), out=peak
        )
    return np.where(peak > 0, peak / QUANT_LEVELS, 1.0).astype(np.float32)


def rescored(
    matrix: MappedMatrix, approximate: np.ndarray, rows: np.ndarray, query: np.ndarray, limit: int
) -> tuple[np.ndarray, np.ndarray]:
    """The best ``limit`` allowed rows: the best ``max(limit, RESCORE_CANDIDATES)`` by ``approximate`` (the
    quantized scan's score of each of ``rows``), rescored exactly in float32. (rows, exact scores), best first."""
    import numpy as np

    candidates, _ = top(approximate, rows, max(limit, RESCORE_CANDIDATES))
    candidates = np.sort(candidates)
    if candidates.size == 0:
        return candidates, np.zeros(0, dtype=np.float32)
    exact = matrix.array[candidates] @ np.asarray(query, dtype=np.float32)
    # The kernel maps large folios around each row read (MiBs each on ext4): give them all back at once.
    matrix.release(int(candidates[0]), int(candidates[-1]) + 1)
    return top(exact, candidates, limit)
