"""``index.npyfile`` reads what numpy writes, as numpy reads it, and refuses what it did not write.

Held against numpy itself: arrays saved with ``np.save`` (every dtype and shape an index stores, empty ones
included) read back with the same shape and values; packed ACL bits read bit by bit equal ``np.unpackbits``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from ragcli.index import npyfile

INTEGERS = [np.int64, np.int32, np.uint8, np.int8, np.int16, np.uint32]
ANY_SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@ANY_SETTINGS
@given(array=hnp.arrays(st.sampled_from(INTEGERS), hnp.array_shapes(min_dims=1, max_dims=2, min_side=0, max_side=40)))
def test_an_integer_column_reads_as_numpy_loads_it(tmp_path: Path, array: np.ndarray) -> None:
    path = tmp_path / "column.npy"
    np.save(path, array)
    header, values = npyfile.read_column(path)
    assert header.shape == array.shape
    assert np.dtype(header.descr) == array.dtype
    assert list(values) == array.ravel().tolist()


@ANY_SETTINGS
@given(
    array=hnp.arrays(
        st.sampled_from([np.float32, np.float16]), hnp.array_shapes(min_dims=1, max_dims=2, min_side=0, max_side=30)
    )
)
def test_a_float_header_is_numpy_s_and_a_float32_column_its_values(tmp_path: Path, array: np.ndarray) -> None:
    path = tmp_path / "floats.npy"
    np.save(path, array)
    header = npyfile.read_header(path)
    assert (header.shape, np.dtype(header.descr), header.offset) == (
        array.shape,
        array.dtype,
        path.stat().st_size - array.nbytes,
    )
    if array.dtype == np.float32:
        _, values = npyfile.read_floats(path)
        assert np.array_equal(np.array(list(values), dtype=np.float32), array.ravel(), equal_nan=True)


@ANY_SETTINGS
@given(bits=hnp.arrays(np.bool_, hnp.array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=30)))
def test_a_packed_bit_is_the_bit_unpackbits_gives(tmp_path: Path, bits: np.ndarray) -> None:
    """acl.npy's rows pack eight ACL entries a byte (``np.packbits(axis=1)``): more than eight span bytes."""
    path = tmp_path / "acl.npy"
    np.save(path, np.packbits(bits, axis=1))
    header, packed = npyfile.read_column(path)
    stride = header.shape[1]
    rows, columns = bits.shape
    read = [[npyfile.packed_bit(packed, stride, r, c) for c in range(columns)] for r in range(rows)]
    assert read == bits.tolist()


def test_a_header_too_large_for_its_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "short.npy"
    np.save(path, np.arange(10, dtype=np.int64))
    path.write_bytes(path.read_bytes()[:-8])
    with pytest.raises(ValueError, match="its header says"):
        npyfile.read_column(path)


@pytest.mark.parametrize(
    "content",
    [
        b"not an array at all, just text",
        b"\x93NUMPY\x01\x00\x10\x00{'descr': 'junk'",
        b"\x93NUMPY\x01\x00\x20\x00__import__('os').system('x')  \n",
        b"\x93NUMPY\x09\x00\x00\x00",
        b"\x93NUMPY\x01\x00\x40\x00{'descr': '<i8', 'fortran_order': True, 'shape': (0,), }            \n",
        b"\x93NUMPY\x01\x00\x40\x00{'descr': '<U3', 'fortran_order': False, 'shape': (0,), }           \n",
        b"\x93NUMPY\x01\x00\x40\x00{'descr': '<i8', 'fortran_order': False, 'shape': (-1,), }           \n",
    ],
    ids=["text", "cut-header", "code", "format-9", "fortran", "strings", "negative-shape"],
)
def test_what_numpy_would_not_have_written_is_a_value_error(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "bad.npy"
    path.write_bytes(content)
    with pytest.raises(ValueError):
        npyfile.read_column(path)


def test_an_other_byte_order_is_refused_not_misread(tmp_path: Path) -> None:
    path = tmp_path / "swapped.npy"
    np.save(path, np.arange(3, dtype=">i8" if np.little_endian else "<i8"))
    with pytest.raises(ValueError, match="not a native integer column"):
        npyfile.read_column(path)
