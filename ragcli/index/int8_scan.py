"""The int8 scan: int8 codes laid out in blocks of dimension-major rows, scored by onnxruntime's MLAS kernel.

numpy has no int8 matrix-vector kernel (``einsum`` casts and runs at the float32 BLAS's speed over four times
the bytes). onnxruntime's ``MatMulInteger`` on the CPU does have one, but only in one shape: a one-row uint8
query times int8 codes of shape (dim, rows), ``[1, dim] x [dim, rows]``. Measured at 1M rows of 384 dims on
this 2-core machine, in one process against the float32 ``matrix @ query`` floor: row-major codes
``[rows, dim] x [dim, 1]`` ran at 0.7-1.0x the floor (the one output column wastes MLAS's 16-column
panels), two query rows at 0.5-0.6x, a query zero point input at 0.5-0.7x, and the shape used here at
0.13-0.3x. So the codes are stored in blocks of ``block_rows`` rows, each block dimension-major
(``[blocks, dim, block_rows]``, one ``MatMulInteger`` batch per block), written at publish
(``blocked_codes``); a window of consecutive blocks is one contiguous stretch of the mapped file, fed to
the session without a copy.

The query is quantized to 7 bits and offset by ``QUERY_OFFSET`` into uint8 (1..127): on x86 without VNNI,
MLAS's u8 x s8 kernel sums pairs of products in saturating int16 (``vpmaddubsw``), and 2 x 127 x 127 =
32,258 fits where 2 x 255 x 127 does not (a full-range query gave wrong scores in a side test). The offset
is taken back off with each row's code sum (``row_sums``, stored beside the codes): ``(q + 64) . c - 64 *
sum(c) = q . c``, exact in int32. The graph (``GRAPH``, below) is vendored as bytes: the ``onnx`` package
is needed only to rebuild it (``build_graph``; a test checks the two agree when ``onnx`` is importable).

Denied rows: ``BlockSpans`` are the windows of blocks that hold a view's allowed rows. A block that holds
one allowed row is scored whole, but every score is one row's own product with the query, and only the
allowed rows' scores are kept (``BlockSpans.keep``): a denied vector enters no kept score. Blocks without
an allowed row are never read. Codes beyond ``KEEP_MAPPED_BYTES`` give their pages back behind each window.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .dense import WINDOW_BYTES, MappedMatrix, Spans

if TYPE_CHECKING:
    import numpy as np
    import onnxruntime as ort

BLOCK_ROWS = 16384
"""The most rows of one dimension-major block (6 MiB of codes at 384 dims). Large blocks keep the per-batch
cost of ``MatMulInteger`` low (blocks of 1,024 rows ran 1.5-2x slower than 16,384); a denied stretch shorter
than a block is read and its scores dropped."""
BLOCK_ALIGN = 64
"""Block rows are a multiple of this: a tenant of n rows gets blocks of about n / ceil(n / BLOCK_ROWS) rows,
so padding (zero codes, never kept) stays under ``BLOCK_ALIGN`` rows a block."""
QUERY_LEVELS = 63
"""The query's codes run from -63 to 63: 7 bits, so no pair of u8 x s8 products saturates int16."""
QUERY_OFFSET = 64
"""Added to the query's codes to make them uint8 (1..127); taken back off with the row sums."""
KEEP_MAPPED_BYTES = 1 << 30
"""Codes up to this size stay mapped between queries (384 MiB at 1M rows of 384 dims): giving their pages
back behind each window made the next query fault them in again, 10-40% of a scan's time at 100k. Larger
codes are given back like the float32 vectors, so the resident set stays flat."""
SCAN_THREADS = 1
"""onnxruntime threads of the scan: the kernel reads memory faster than one core can use it only barely,
and on a shared 2-core machine a second thread waits on the first as often as it helps."""

# fmt: off
GRAPH = (
    b'\x08\x07\x12\x06ragcli:\x9b\x02\n&\n\x05query\n\x05codes\x12\x07product"\rMatMulInteger\n\x1f\n\x04s'
    b'ums\n\x06offset\x12\ncorrection"\x03Mul\n"\n\x07product\n\ncorrection\x12\x06scores"\x03Sub\x12\tint'
    b'8_scan*\r\x10\x06*\x01@B\x06offsetZ\x1a\n\x05query\x12\x11\n\x0f\x08\x02\x12\x0b\n\x02\x08\x01\n\x05'
    b'\x12\x03dimZ(\n\x05codes\x12\x1f\n\x1d\x08\x03\x12\x19\n\x08\x12\x06blocks\n\x05\x12\x03dim\n\x06'
    b'\x12\x04rowsZ$\n\x04sums\x12\x1c\n\x1a\x08\x06\x12\x16\n\x08\x12\x06blocks\n\x02\x08\x01\n\x06\x12'
    b'\x04rowsb&\n\x06scores\x12\x1c\n\x1a\x08\x06\x12\x16\n\x08\x12\x06blocks\n\x02\x08\x01\n\x06\x12\x04'
    b'rowsB\x04\n\x00\x10\r'
)
"""``build_graph()``'s bytes: scores = MatMulInteger(query, codes) - sums * QUERY_OFFSET, all int32."""
# fmt: on


def build_graph() -> bytes:
    """The scan's ONNX graph, built with the ``onnx`` package (a development tool: ``GRAPH`` holds its bytes).

    Inputs: ``query`` uint8 [1, dim], ``codes`` int8 [blocks, dim, rows], ``sums`` int32 [blocks, 1, rows];
    output ``scores`` int32 [blocks, 1, rows].
    """
    import onnx
    from onnx import TensorProto, helper

    inputs = [
        helper.make_tensor_value_info("query", TensorProto.UINT8, [1, "dim"]),
        helper.make_tensor_value_info("codes", TensorProto.INT8, ["blocks", "dim", "rows"]),
        helper.make_tensor_value_info("sums", TensorProto.INT32, ["blocks", 1, "rows"]),
    ]
    output = helper.make_tensor_value_info("scores", TensorProto.INT32, ["blocks", 1, "rows"])
    offset = helper.make_tensor("offset", TensorProto.INT32, [], [QUERY_OFFSET])
    nodes = [
        helper.make_node("MatMulInteger", ["query", "codes"], ["product"]),
        helper.make_node("Mul", ["sums", "offset"], ["correction"]),
        helper.make_node("Sub", ["product", "correction"], ["scores"]),
    ]
    graph = helper.make_graph(nodes, "int8_scan", inputs, [output], initializer=[offset])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="ragcli")
    model.ir_version = 7
    onnx.checker.check_model(model)
    data: bytes = model.SerializeToString()
    return data


_session: ort.InferenceSession | None = None
_session_lock = threading.Lock()


def _scan_session() -> ort.InferenceSession:
    """The process's one session on ``GRAPH``, made on first use (0.3-0.6 ms once onnxruntime is loaded, which a
    dense search has done already to embed its query)."""
    global _session
    with _session_lock:
        if _session is None:
            import onnxruntime as ort

            options = ort.SessionOptions()
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL  # three nodes, as written
            options.intra_op_num_threads = SCAN_THREADS
            options.inter_op_num_threads = 1
            options.log_severity_level = 3
            # As the embedder's session: idle worker threads must not spin on a 2-core machine.
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            _session = ort.InferenceSession(GRAPH, options, providers=["CPUExecutionProvider"])
        return _session


def block_rows_for(rows: int) -> int:
    """The rows of each block for a tenant of ``rows`` rows (at most ``BLOCK_ROWS``, a multiple of ``BLOCK_ALIGN``)."""
    blocks = max(1, -(-rows // BLOCK_ROWS))
    per_block = -(-rows // blocks)
    return max(BLOCK_ALIGN, -(-per_block // BLOCK_ALIGN) * BLOCK_ALIGN)


def blocked_codes(codes: np.ndarray, block_rows: int) -> np.ndarray:
    """Row-major codes ``(rows, dim)`` as the stored 2-D layout ``(blocks * dim, block_rows)``: block ``b``'s
    rows ``dim * b : dim * (b + 1)`` are its ``block_rows`` rows transposed, zero-padded past the last row."""
    import numpy as np

    rows, dim = codes.shape
    blocks = -(-rows // block_rows)
    padded = np.zeros((blocks * block_rows, dim), dtype=np.int8)
    padded[:rows] = codes
    laid: np.ndarray = np.ascontiguousarray(padded.reshape(blocks, block_rows, dim).transpose(0, 2, 1))
    return laid.reshape(blocks * dim, block_rows)


def row_sums(codes: np.ndarray) -> np.ndarray:
    """Each row's sum of codes, int32 (the uint8 query's offset comes back off with it)."""
    import numpy as np

    sums: np.ndarray = codes.sum(axis=1, dtype=np.int32)
    return sums


def quantized_query(folded: np.ndarray) -> np.ndarray:
    """The query (already times the codes' scale) as uint8 ``[1, dim]``: 7-bit codes plus ``QUERY_OFFSET``.

    One step for the whole query, so every row's score is scaled alike and the ranking is the int8 one's.
    """
    import numpy as np

    peak = float(np.abs(folded).max(initial=0.0))
    step = peak / QUERY_LEVELS if peak > 0 else 1.0
    levels = np.clip(np.rint(folded / step), -QUERY_LEVELS, QUERY_LEVELS)
    return (levels + QUERY_OFFSET).astype(np.uint8).reshape(1, -1)


@dataclass(frozen=True)
class BlockSpans:
    """Which windows of blocks hold a view's allowed rows, and where each allowed row's score lies."""

    blocks: Spans
    """Windows in block units ([start, end) blocks), at most ``WINDOW_BYTES`` of codes each."""
    keep: np.ndarray
    """Per allowed row (ascending), its position in the windows' scores laid end to end."""
    block_rows: int

    @classmethod
    def of(cls, rows: np.ndarray, block_rows: int, dim: int, *, window_bytes: int = WINDOW_BYTES) -> BlockSpans:
        """The windows over the blocks of ``rows`` (the allowed rows, ascending)."""
        import numpy as np

        rows = rows.astype(np.int64, copy=False)
        block_of = rows // block_rows  # ascending, as the rows are: no sort needed to find the blocks held
        first = np.flatnonzero(np.diff(block_of, prepend=-1))
        held = block_of[first]
        # Only adjacent blocks join a window (merge_gap 1): a block without an allowed row is never read.
        blocks = Spans.of(held, dim * block_rows, window_bytes=window_bytes, merge_gap=1)
        at = np.repeat(np.arange(held.size), np.diff(np.append(first, rows.size)))
        keep = blocks.keep[at] * block_rows + rows - block_of * block_rows
        return cls(blocks, keep, block_rows)


class QuantizedMatrix:
    """A generation's int8 codes in blocks (``blocked_codes``), their row sums and per-dimension scale."""

    def __init__(self, codes: MappedMatrix, sums: np.ndarray, scale: np.ndarray) -> None:
        self.codes = codes
        self.scale = scale
        self.dim = int(scale.shape[0])
        self.block_rows = int(codes.array.shape[1])
        self.blocks = int(codes.array.shape[0]) // max(1, self.dim)
        self.sums = sums.reshape(self.blocks, 1, self.block_rows)

    def spans(self, rows: np.ndarray) -> BlockSpans:
        """The windows of blocks over ``rows`` (allowed, ascending)."""
        return BlockSpans.of(rows, self.block_rows, self.dim)

    def approximate_scores(self, spans: BlockSpans, query: np.ndarray) -> np.ndarray:
        """int32 scores of every allowed row, ascending: ``codes . q`` with ``q`` the 7-bit ``scale * query``,
        proportional to the float score up to rounding (so ranking by them is the int8 ranking)."""
        import numpy as np

        folded = self.scale * np.asarray(query, dtype=np.float32)
        feed = {"query": quantized_query(folded)}
        session = _scan_session()
        blocks = self.codes.array.reshape(self.blocks, self.dim, self.block_rows)
        out = np.empty(spans.blocks.covered * self.block_rows, dtype=np.int32)
        done = 0
        for start, end in spans.blocks.windows.tolist():
            feed["codes"], feed["sums"] = blocks[start:end], self.sums[start:end]
            (scores,) = session.run(["scores"], feed)
            out[done : done + scores.size] = scores.reshape(-1)
            if self.codes.array.nbytes > KEEP_MAPPED_BYTES:
                self.codes.release(start * self.dim, end * self.dim)
            done += scores.size
        kept: np.ndarray = out[spans.keep]
        return kept
