"""``TenantIndex``: one tenant's published generation, opened read-only.

Opening resolves CURRENT once and loads one whole generation: the manifest
(validated), the permission columns, the memory-mapped embeddings, the row
file and the BM25 index. It checks only what is cheap (the manifest parses,
every file has its listed size, array shapes agree), so a search never reads
a whole file it does not need; ``audit`` and the writer verify checksums.

While open it holds a shared lock on its generation's directory: a writer
removes an old generation only when no reader holds it (``layout``), so an
open index stays whole and a closed one no longer keeps deleted text on disk.

A ``TenantIndex`` offers no passage and no ranking by itself: call
``view(scope)`` for what one principal may see on one day.
"""

from __future__ import annotations

import os
import weakref
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import IndexCorruptError
from ..principal import Scope
from ..structure import UNITS_VERSION
from . import layout
from .bm25 import open_bm25
from .dense import MappedMatrix
from .int8_scan import QuantizedMatrix
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

OPEN_ATTEMPTS = 3


class TenantIndex:
    """A published generation of one tenant's index, opened read-only."""

    def __init__(self, directory: Path, generation: Path, manifest: Manifest, hold: int) -> None:
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
            self._rows = RowFile(generation, self.tenant, self.offsets)
        except BaseException:
            self._release()
            raise
        try:
            self._bm25: tantivy.Index = open_bm25(generation / BM25_DIRECTORY)
        except ValueError as exc:
            self.close()
            raise IndexCorruptError.damaged(self.tenant, f"BM25 index unreadable ({exc})") from None

    # -- opening ----------------------------------------------------------------

    @classmethod
    def open(cls, root: Path, tenant: str, *, verify: bool = False) -> TenantIndex:
        """Open the tenant's published generation under ``root``; ``verify`` also checks every file's checksum."""
        directory = layout.published_dir(Path(root), tenant)
        # A writer may publish and remove the generation CURRENT named a moment
        # ago, but never one a reader holds: lock it first, re-resolve if it went.
        for attempt in range(OPEN_ATTEMPTS):
            generation = layout.current_generation(directory)
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
            return cls(directory, generation, manifest, hold)
        raise AssertionError("unreachable")

    def _load_arrays(self) -> None:
        import numpy as np

        m = self.manifest
        try:
            self.vectors = MappedMatrix(self.path / EMBEDDINGS)
            self.embeddings: np.ndarray = self.vectors.array
            self.offsets: np.ndarray = np.load(self.path / OFFSETS)
            acl_packed = np.load(self.path / ACL)
            self.valid_from: np.ndarray = np.load(self.path / VALID_FROM)
            self.valid_until: np.ndarray = np.load(self.path / VALID_UNTIL)
        except FileNotFoundError:
            raise
        except (ValueError, OSError, EOFError) as exc:
            raise IndexCorruptError.damaged(self.tenant, f"unreadable array ({exc})") from None
        n = m.passages
        groups = len(m.groups)
        self.acl: np.ndarray = (
            np.unpackbits(acl_packed, axis=1, count=groups).astype(bool) if n else np.zeros((0, groups), bool)
        )
        shapes_ok = (
            self.embeddings.shape == (n, m.model.dim)
            and self.embeddings.dtype == np.float32
            and self.offsets.shape == (n + 1,)
            and self.acl.shape == (n, groups)
            and self.valid_from.shape == (n,)
            and self.valid_until.shape == (n,)
        )
        if not shapes_ok:
            raise IndexCorruptError.damaged(self.tenant, "array shapes do not match the manifest")
        self._check_offsets()
        self._load_units()
        self._load_quantized()

    def _load_quantized(self) -> None:
        """The int8 codes of the vectors, when the generation was written with them (``ingest --quantize``); the
        manifest lists them, so an index without them is whole and scored exactly."""
        import numpy as np

        m = self.manifest
        self.quantized: QuantizedMatrix | None = None
        if QUANTIZED not in m.checksums:
            return
        try:
            codes = MappedMatrix(self.path / QUANTIZED)
            sums = np.load(self.path / QUANTIZED_SUMS)
            scale = np.load(self.path / QUANTIZED_SCALE)
        except (ValueError, OSError, EOFError) as exc:
            raise IndexCorruptError.damaged(self.tenant, f"unreadable quantized vectors ({exc})") from None
        blocks, block_rows = sums.shape if sums.ndim == 2 else (-1, 0)
        ok = (
            block_rows > 0
            and blocks == -(-m.passages // block_rows)
            and codes.array.shape == (blocks * m.model.dim, block_rows)
            and codes.array.dtype == np.int8
            and sums.dtype == np.int32
            and scale.shape == (m.model.dim,)
            and scale.dtype == np.float32
            and bool(np.all(np.isfinite(scale) & (scale > 0)))
        )
        if not ok:
            raise IndexCorruptError.damaged(self.tenant, "quantized vector shapes do not match the manifest")
        self.quantized = QuantizedMatrix(codes, sums, scale)

    def _load_units(self) -> None:
        """The units' vectors, when the generation has them and they were cut the way this ragcli cuts units
        (otherwise the local answerer computes them itself: slower, never wrong)."""
        import numpy as np

        m = self.manifest
        self.unit_vectors: np.ndarray | None = None
        self.unit_offsets: np.ndarray | None = None
        if m.units_version != UNITS_VERSION or m.units is None:
            return
        try:
            vectors = np.load(self.path / UNIT_VECTORS, mmap_mode="r")
            offsets = np.load(self.path / UNIT_OFFSETS)
        except (ValueError, OSError, EOFError) as exc:
            raise IndexCorruptError.damaged(self.tenant, f"unreadable unit vectors ({exc})") from None
        ok = (
            vectors.shape == (m.units, m.model.dim)
            and vectors.dtype == np.float16
            and offsets.shape == (m.passages + 1,)
            and offsets.dtype == np.int64
            and (offsets.size == 0 or (int(offsets[0]) == 0 and int(offsets[-1]) == m.units))
        )
        if not ok:
            raise IndexCorruptError.damaged(self.tenant, "unit vector shapes do not match the manifest")
        self.unit_vectors, self.unit_offsets = vectors, offsets

    def units_of(self, row: int) -> np.ndarray | None:
        """The unit vectors of the passage at ``row`` (float32), or None when the generation has none.
        Unscoped: ``View.unit_vectors`` is the way for a reader."""
        import numpy as np

        if self.unit_vectors is None or self.unit_offsets is None:
            return None
        start, end = int(self.unit_offsets[row]), int(self.unit_offsets[row + 1])
        if not 0 <= start <= end <= len(self.unit_vectors):
            raise IndexCorruptError.damaged(self.tenant, "unit offsets out of range")
        return np.asarray(self.unit_vectors[start:end], dtype=np.float32)

    def _check_offsets(self) -> None:
        """Row ``r`` is bytes ``offsets[r]:offsets[r+1]`` of passages.jsonl: they must rise from 0 to its size
        (a flipped byte would otherwise ask for a read of exabytes)."""
        import numpy as np

        offsets = self.offsets
        size = self.manifest.checksums.get(PASSAGES, [None])[0]
        rising = offsets.dtype == np.int64 and offsets[0] == 0 and bool(np.all(offsets[1:] > offsets[:-1]))
        if not rising or (size is not None and int(offsets[-1]) != size):
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
