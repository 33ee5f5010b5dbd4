"""The ``.npy`` format read without numpy: a file's header, and a small column's values.

Opening an index for a BM25 search needs the permission columns of a few
rows and the shapes of the arrays, never a matrix: importing numpy for that
was most of such a search's start-up (~0.13 s of CPU, as much as the rest of
the process). This module reads what the reader checks on open (header,
shape, dtype, size) and the small columns (row offsets, ACL bits, validity
days) as ``memoryview``s; numpy maps the arrays only when something scores
or audits them.

Only what numpy's own ``np.save`` writes is accepted: format 1.0, 2.0 or 3.0,
a header that is a literal dict of ``descr``, ``fortran_order`` and
``shape``, and a simple dtype. Anything else is a ``ValueError`` (the reader
reports the index damaged).
"""

from __future__ import annotations

import ast
import os
import sys
from dataclasses import dataclass
from pathlib import Path

MAGIC = b"\x93NUMPY"
MAX_HEADER_BYTES = 1 << 16
"""A header is a few hundred bytes; a larger length field is damage, not a header to read."""
FORMATS = {"b1": "?", "i1": "b", "u1": "B", "i2": "h", "u2": "H", "i4": "i", "u4": "I", "i8": "q", "u8": "Q"}
FLOATS = {"f2": "e", "f4": "f", "f8": "d"}
"""numpy's type code (without byte order) to the ``struct`` code a ``memoryview`` is cast to; floats are only
checked by shape (their values are read with numpy), except a ``float32`` scale (``floats``)."""
_NATIVE = "<" if sys.byteorder == "little" else ">"


@dataclass(frozen=True)
class Header:
    """What a ``.npy`` file says it holds."""

    descr: str
    """numpy's dtype string, e.g. ``<i8`` (little-endian int64), ``|u1`` (a byte)."""
    shape: tuple[int, ...]
    offset: int
    """Where the data begins."""
    itemsize: int

    @property
    def count(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def kind(self) -> str:
        """The type code without byte order: ``i8``, ``u1``, ``f4``."""
        return self.descr[1:]


def read_header(path: Path) -> Header:
    """The header of ``path``, checked against the file's size (ValueError when they disagree)."""
    with open(path, "rb") as fh:
        header = _parse(fh.read(12 + MAX_HEADER_BYTES), path.name)
        size = os.fstat(fh.fileno()).st_size
    if size != header.offset + header.count * header.itemsize:
        raise ValueError(f"{path.name} has {size} bytes, its header says {header.shape} {header.descr}")
    return header


def read_column(path: Path) -> tuple[Header, memoryview]:
    """A whole integer array of ``path`` as a flat ``memoryview`` of its values (row-major)."""
    return _read_native(path, FORMATS, "integer")


def read_floats(path: Path) -> tuple[Header, memoryview]:
    """A whole float array of ``path`` (a per-dimension scale: a few hundred values) as a flat ``memoryview``."""
    return _read_native(path, FLOATS, "float")


def _read_native(path: Path, codes: dict[str, str], kind: str) -> tuple[Header, memoryview]:
    """The header and values of ``path`` when it holds a native-order type of ``codes`` (ValueError otherwise)."""
    header = read_header(path)
    code = codes.get(header.kind)
    if code is None or not _native(header.descr):
        raise ValueError(f"{path.name} holds {header.descr}, not a native {kind} column")
    return header, _values(path, header, code)


def _values(path: Path, header: Header, code: str) -> memoryview:
    """The data of ``path`` after its header, as a flat view of ``code`` (a ``struct`` format)."""
    data = path.read_bytes()[header.offset :]
    # The format is chosen at run time from the header, so it is not one of typeshed's literal overloads.
    return memoryview(data).cast("B").cast(code)  # type: ignore[call-overload, no-any-return]


def packed_bit(packed: memoryview, stride: int, row: int, column: int) -> bool:
    """Bit ``[row, column]`` of a boolean matrix saved as ``np.packbits(matrix, axis=1)`` (``stride`` bytes a row,
    eight columns a byte, the first in the high bit): what ``np.unpackbits(..., axis=1)[row, column]`` reads."""
    return bool(packed[row * stride + column // 8] >> (7 - column % 8) & 1)


def _native(descr: str) -> bool:
    """Whether values in this byte order can be read as they lie (a one-byte type has none: ``|``)."""
    return descr[0] in ("|", "=", _NATIVE)


def _parse(start: bytes, name: str) -> Header:
    if start[:6] != MAGIC or len(start) < 10:
        raise ValueError(f"{name} is not a .npy file")
    major = start[6]
    if major == 1:
        length, begin = int.from_bytes(start[8:10], "little"), 10
    elif major in (2, 3):
        length, begin = int.from_bytes(start[8:12], "little"), 12
    else:
        raise ValueError(f"{name}: .npy format {major} is not one numpy writes")
    if begin + length > len(start):
        raise ValueError(f"{name}: .npy header runs past its length")
    try:
        fields = ast.literal_eval(start[begin : begin + length].decode("utf-8" if major == 3 else "latin1"))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError, UnicodeDecodeError):
        raise ValueError(f"{name}: unreadable .npy header") from None
    return _header(fields, begin + length, name)


def _header(fields: object, offset: int, name: str) -> Header:
    if not isinstance(fields, dict) or set(fields) != {"descr", "fortran_order", "shape"}:
        raise ValueError(f"{name}: a .npy header holds descr, fortran_order and shape")
    descr, fortran, shape = fields["descr"], fields["fortran_order"], fields["shape"]
    if fortran is not False or not isinstance(descr, str) or len(descr) < 3 or descr[0] not in "<>|=":
        raise ValueError(f"{name}: not a C-ordered array of a simple type")
    if not isinstance(shape, tuple) or not all(type(d) is int and d >= 0 for d in shape):
        raise ValueError(f"{name}: unreadable .npy shape")
    kind = descr[1:]
    if kind not in FORMATS and kind not in FLOATS:
        raise ValueError(f"{name} holds {descr}, not a type an index stores")
    return Header(descr, shape, offset, int(kind[1:]))
