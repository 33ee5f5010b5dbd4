"""``TenantIndex``: one tenant's published generation, opened read-only.

Opening resolves CURRENT once and loads one whole generation: the manifest
(validated), the permission columns, the row file and the BM25 index. It
checks only what is cheap (the manifest parses, every file has its listed
size, array headers agree with the manifest), so a search never reads a whole
file it does not need; ``audit`` and the writer verify checksums. The headers
and the small columns are read without numpy (``npyfile``); the arrays are
mapped with numpy when first used (a dense ranking, the audit), so a BM25
search never imports it.

While open it holds a shared lock on its generation's directory: a writer
removes an old generation only when no reader holds it (``layout``), so an
open index stays whole and a closed one no longer keeps deleted text on disk.

A ``TenantIndex`` offers no passage and no ranking by itself: call
``view(scope)`` for what one principal may see on one day.
"""

from __future__ import annotations

import math
import os
import weakref
from collections.abc import Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import IndexCorruptError
from ..principal import Scope
from . import layout, npyfile
from .bm25 import open_bm25
from .layout import (
    ACL,
    BM25_DIRECTORY,
    EMBEDDINGS,
    OFFSETS,
    PASSAGES,
    QUANTIZED,
    QUANTIZED_SCALE,
    QUANTIZED_SUMS,
    UNIT_OFFSETS,
    UNIT_VECTORS,
    VALID_FROM,
    VALID_UNTIL,
)
from .manifest import Manifest, check_sizes, read_manifest, verify_checksums
from .rows import RowFile
from .view import View

if TYPE_CHECKING:
    import numpy as np
    import tantivy

    from .dense import MappedMatrix
    from .int8_scan import QuantizedMatrix

OPEN_ATTEMPTS = 3


class TenantIndex:
    """A published generation of one tenant's index, opened read-only."""

    def __init__(self, directory: Path, generation: Path, manifest: Manifest, hold: int, *, words: bool = True) -> None:
        """Use ``open``; ``hold`` is the shared lock on ``generation``
        (``layout.hold_generation``), released by ``close``."""
        self.directory = directory
        """The tenant's directory (holds CURRENT)."""
        self.path = generation
        self.manifest = manifest
        self.tenant = manifest.tenant
        # Released by close(), or when the object is collected: a forgotten index must not pin old text on disk.
        self._release = weakref.finalize(self, os.close, hold)
        try:
            self._load_arrays()
            self._rows = RowFile(generation, self.tenant, self._offsets)
        except BaseException:
            self._release()
            raise
        if not words:
            return
        try:
            self._bm25: tantivy.Index = open_bm25(generation / BM25_DIRECTORY)
        except ValueError as exc:
            self.close()
            raise IndexCorruptError.unreadable(self.tenant, "BM25 index unreadable", exc) from None

    # -- opening ----------------------------------------------------------------

    @classmethod
    def open(cls, root: Path, tenant: str, *, verify: bool = False, words: bool = True) -> TenantIndex:
        """Open the tenant's published generation under ``root``; ``verify`` also checks every file's checksum.
        ``words=False`` leaves its BM25 index closed (an ingest reuses only rows and vectors): Tantivy polls an open
        index's ``meta.json`` from a thread of its own, a descriptor taken at moments nobody chose."""
        directory = layout.published_dir(Path(root), tenant)
        # A writer may publish and remove the generation CURRENT named a moment
        # ago, but never one a reader holds: lock it first, re-resolve if it went.
        for attempt in range(OPEN_ATTEMPTS):
            try:
                generation = layout.current_generation(directory)
            except IndexCorruptError:
                # CURRENT may have named a generation a writer then replaced and removed before we looked for it:
                # read it again; a CURRENT that stays damaged is reported after the last attempt.
                if attempt < OPEN_ATTEMPTS - 1:
                    continue
                raise
            hold = layout.hold_generation(generation)
            if hold is None:
                if attempt == OPEN_ATTEMPTS - 1 or layout.current_generation(directory) == generation:
                    raise IndexCorruptError.damaged(tenant, f"generation {generation.name} cannot be opened")
                continue
            try:
                manifest = read_manifest(generation, tenant)
                if verify:
                    verify_checksums(generation, manifest)
                else:
                    check_sizes(generation, manifest)
            except FileNotFoundError:
                os.close(hold)
                raise IndexCorruptError.damaged(tenant, f"generation {generation.name} is incomplete") from None
            except BaseException:
                os.close(hold)
                raise
            return cls(directory, generation, manifest, hold, words=words)
        raise AssertionError("unreachable")

    def _load_arrays(self) -> None:
        """Check every array's header against the manifest and read the small columns, without numpy
        (``npyfile``): the arrays themselves are mapped on first use (``vectors``, ``acl``, ...)."""
        m = self.manifest
        try:
            embeddings = npyfile.read_header(self.path / EMBEDDINGS)
            offsets_header, self._offsets = npyfile.read_column(self.path / OFFSETS)
            acl_header, self._acl_bits = npyfile.read_column(self.path / ACL)
            from_header, self._valid_from = npyfile.read_column(self.path / VALID_FROM)
            until_header, self._valid_until = npyfile.read_column(self.path / VALID_UNTIL)
        except FileNotFoundError:
            raise
        except (ValueError, OSError, EOFError) as exc:
            raise IndexCorruptError.unreadable(self.tenant, "unreadable array", exc) from None
        n = m.passages
        self._acl_stride = (len(m.groups) + 7) // 8
        """Bytes of acl.npy per row: its bits packed eight ACL entries a byte, first entry in the high bit."""
        shapes_ok = (
            embeddings.shape == (n, m.model.dim)
            and embeddings.descr == "<f4"
            and offsets_header.shape == (n + 1,)
            and acl_header.shape == (n, self._acl_stride)
            and acl_header.kind == "u1"
            and from_header.shape == (n,)
            and until_header.shape == (n,)
        )
        if not shapes_ok:
            raise IndexCorruptError.damaged(self.tenant, "array shapes do not match the manifest")
        self._check_offsets(offsets_header.kind)
        self._check_quantized()

    # The arrays, mapped with numpy when first asked for (a BM25 search never asks).

    @cached_property
    def vectors(self) -> MappedMatrix:
        """The float32 vectors, mapped (``embeddings`` is their array)."""
        return self._mapped(EMBEDDINGS)

    @cached_property
    def embeddings(self) -> np.ndarray:
        return self.vectors.array

    @cached_property
    def offsets(self) -> np.ndarray:
        """Row ``r`` is bytes ``offsets[r]:offsets[r+1]`` of passages.jsonl."""
        import numpy as np

        return np.frombuffer(self._offsets, dtype=np.int64)

    @cached_property
    def acl(self) -> np.ndarray:
        """Per row and ACL entry of ``manifest.groups``: may the entry read the row."""
        import numpy as np

        n, groups = self.manifest.passages, len(self.manifest.groups)
        if not n:
            return np.zeros((0, groups), bool)
        packed = np.frombuffer(self._acl_bits, dtype=np.uint8).reshape(n, self._acl_stride)
        return np.unpackbits(packed, axis=1, count=groups).astype(bool)

    @cached_property
    def valid_from(self) -> np.ndarray:
        import numpy as np

        return np.frombuffer(self._valid_from, dtype=np.dtype(self._valid_from.format))

    @cached_property
    def valid_until(self) -> np.ndarray:
        import numpy as np

        return np.frombuffer(self._valid_until, dtype=np.dtype(self._valid_until.format))

    @cached_property
    def quantized(self) -> QuantizedMatrix | None:
        """The int8 codes of the vectors, when the generation was written with them (``ingest --quantize``)."""
        if self._quantized_scale is None:
            return None
        import numpy as np

        from .int8_scan import QuantizedMatrix

        try:
            sums = np.load(self.path / QUANTIZED_SUMS)
        except (ValueError, OSError, EOFError) as exc:
            raise IndexCorruptError.unreadable(self.tenant, "unreadable quantized vectors", exc) from None
        scale = np.frombuffer(self._quantized_scale, dtype=np.float32)
        return QuantizedMatrix(self._mapped(QUANTIZED), sums, scale)

    @cached_property
    def unit_vectors(self) -> np.ndarray | None:
        """The units' vectors (float16, mapped), when the generation has them cut the way this ragcli cuts."""
        if self._unit_offsets is None:
            return None
        import numpy as np

        try:
            vectors: np.ndarray = np.load(self.path / UNIT_VECTORS, mmap_mode="r")
        except (ValueError, OSError, EOFError) as exc:
            raise IndexCorruptError.unreadable(self.tenant, "unreadable unit vectors", exc) from None
        return vectors

    @cached_property
    def unit_offsets(self) -> np.ndarray | None:
        if self._unit_offsets is None:
            return None
        import numpy as np

        return np.frombuffer(self._unit_offsets, dtype=np.int64)

    def _mapped(self, name: str) -> MappedMatrix:
        from .dense import MappedMatrix

        try:
            return MappedMatrix(self.path / name)
        except (ValueError, OSError, EOFError) as exc:
            raise IndexCorruptError.unreadable(self.tenant, "unreadable array", exc) from None

    def row_permitted(self, row: int, columns: Sequence[int], day: int) -> bool:
        """Whether an ACL entry among ``columns`` may read ``row`` and the row is valid on ``day``: one row of the
        permission columns, read without numpy (``View`` builds the whole mask only when it ranks densely)."""
        bits, stride = self._acl_bits, self._acl_stride
        if not any(npyfile.packed_bit(bits, stride, row, c) for c in columns):
            return False
        return bool(self._valid_from[row] <= day < self._valid_until[row])

    def _check_quantized(self) -> None:
        """The int8 codes' shape and their scale (positive, finite), when the manifest lists them: an index
        without them is whole and scored exactly."""
        m = self.manifest
        self._quantized_scale: memoryview | None = None
        if QUANTIZED not in m.checksums:
            return
        try:
            codes = npyfile.read_header(self.path / QUANTIZED)
            sums = npyfile.read_header(self.path / QUANTIZED_SUMS)
            scale_header, scale = npyfile.read_floats(self.path / QUANTIZED_SCALE)
        except (ValueError, OSError, EOFError) as exc:
            raise IndexCorruptError.unreadable(self.tenant, "unreadable quantized vectors", exc) from None
        blocks, block_rows = sums.shape if len(sums.shape) == 2 else (-1, 0)
        ok = (
            block_rows > 0
            and blocks == -(-m.passages // block_rows)
            and codes.shape == (blocks * m.model.dim, block_rows)
            and codes.kind == "i1"
            and sums.kind == "i4"
            and scale_header.shape == (m.model.dim,)
            and scale_header.kind == "f4"
            and all(math.isfinite(s) and s > 0 for s in scale)
        )
        if not ok:
            raise IndexCorruptError.damaged(self.tenant, "quantized vector shapes do not match the manifest")
        self._quantized_scale = scale

    @cached_property
    def _unit_offsets(self) -> memoryview | None:
        """The units' offsets, when the generation has unit vectors cut the way this ragcli cuts units (otherwise
        the local answerer computes them itself: slower, never wrong). Checked when first used (by the local
        answerer): a search does not read them."""
        from ..units import UNITS_VERSION

        m = self.manifest
        if m.units_version != UNITS_VERSION or m.units is None:
            return None
        try:
            vectors = npyfile.read_header(self.path / UNIT_VECTORS)
            offsets_header, offsets = npyfile.read_column(self.path / UNIT_OFFSETS)
        except (ValueError, OSError, EOFError) as exc:
            raise IndexCorruptError.unreadable(self.tenant, "unreadable unit vectors", exc) from None
        ok = (
            vectors.shape == (m.units, m.model.dim)
            and vectors.kind == "f2"
            and offsets_header.shape == (m.passages + 1,)
            and offsets_header.kind == "i8"
            and (offsets_header.count == 0 or (offsets[0] == 0 and offsets[-1] == m.units))
        )
        if not ok:
            raise IndexCorruptError.damaged(self.tenant, "unit vector shapes do not match the manifest")
        return offsets

    def units_of(self, row: int) -> np.ndarray | None:
        """The unit vectors of the passage at ``row`` (float32), or None when the generation has none.
        Unscoped: ``View.unit_vectors`` is the way for a reader."""
        import numpy as np

        if self.unit_vectors is None or self._unit_offsets is None:
            return None
        start, end = int(self._unit_offsets[row]), int(self._unit_offsets[row + 1])
        if not 0 <= start <= end <= len(self.unit_vectors):
            raise IndexCorruptError.damaged(self.tenant, "unit offsets out of range")
        return np.asarray(self.unit_vectors[start:end], dtype=np.float32)

    def _check_offsets(self, kind: str) -> None:
        """Row ``r`` is bytes ``offsets[r]:offsets[r+1]`` of passages.jsonl: they must run from 0 to its size.
        That they rise in between is checked by each read (``RowFile``), so an open stays O(1): a flipped byte
        must never ask for a read of exabytes, and the row that reads it is reported damaged."""
        offsets = self._offsets
        size = self.manifest.checksums.get(PASSAGES, [None])[0]
        ends_ok = kind == "i8" and offsets[0] == 0 and (size is None or offsets[-1] == size)
        if not ends_ok:
            raise IndexCorruptError.damaged(self.tenant, f"{OFFSETS} does not index {PASSAGES}")

    # -- what it is -------------------------------------------------------------

    @property
    def size(self) -> int:
        return self.manifest.passages

    @property
    def generation(self) -> str:
        return self.manifest.generation

    def is_current(self) -> bool:
        """Whether this is still the generation CURRENT names (a later ingest may have replaced it)."""
        return layout.current_name(self.directory) == self.path.name

    def check_model(self, model_id: str, sha256: str) -> None:
        """Refuse to embed queries with a model other than the one the passages were embedded with."""
        recorded = self.manifest.model
        if sha256 != recorded.sha256:
            raise IndexCorruptError(
                f"tenant '{self.tenant}' was indexed with model {recorded.id} (sha256 {recorded.sha256[:12]}…) "
                f"but the configured model is {model_id} (sha256 {sha256[:12]}…); re-ingest the tenant with "
                f"this model (ragcli ingest PATH --tenant {self.tenant})"
            )

    def disk_bytes(self) -> int:
        return sum(f.stat().st_size for f in self.path.rglob("*") if f.is_file())

    # -- reading ----------------------------------------------------------------

    def view(self, scope: Scope) -> View:
        """The index as ``scope`` may see it: the only way to rank or fetch its passages."""
        return View(self, scope)

    def close(self) -> None:
        """Close the files and release the generation (a writer may then remove it if it is no longer published)."""
        rows = getattr(self, "_rows", None)
        if rows is not None:
            rows.close()
        self._release()

    def __enter__(self) -> TenantIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
