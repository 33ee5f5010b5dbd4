"""Writing a generation: the one writer's lock, building aside, atomic publish.

A writer takes the tenant's flock(2) lock (refused, not queued, when another
holds it; the kernel releases it if the writer dies), builds the new
generation in ``.build-<name>``, fsyncs every file, renames the directory into
place and only then replaces CURRENT through a temporary file and a rename.
A crash at any moment leaves the previous generation published.

Everything a writer creates is owner-only (folders 0700, files 0600) whatever
the umask, and it refuses an index directory that others may write, unless
the index is shared on purpose (``shared``: a team's group-owned folder; the
umask then decides). The lock is opened without following a symlink and must
be a regular file of the user's own, with one link: whoever can write a
shared index directory cannot make an ingest truncate another file.

Old generations hold text that may since have been deleted or had its ACL
narrowed, so none is kept longer than a reader needs it: right after
publishing, and again when the write lock is released (the ingest has closed
its own view of the previous generation by then), every generation but the
published one is removed unless a reader still holds it (``layout``). One
still held goes at the next ingest or ``prune_generations`` (``ragcli status
--prune``) after its reader closes it.
"""

from __future__ import annotations

import datetime as dt
import errno
import fcntl
import os
import secrets
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import IndexLockedError, InputError, os_reason
from ..passage import Passage
from ..record import Record
from ..units import UNITS_VERSION
from . import layout
from .bm25 import valid_days, write_bm25
from .layout import (
    ACL,
    BM25_DIRECTORY,
    EMBEDDINGS,
    MANIFEST,
    QUANTIZED,
    QUANTIZED_SCALE,
    QUANTIZED_SUMS,
    UNIT_OFFSETS,
    UNIT_VECTORS,
    VALID_FROM,
    VALID_UNTIL,
)
from .manifest import FORMAT_VERSION, DocumentEntry, Manifest, ModelEntry, checksums_of, seal_of, write_documents
from .rows import write_rows

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True)
class WriteLock:
    """Proof that the caller holds a tenant's write lock; what writing and reading-to-rebuild require."""

    root: Path
    tenant: str
    directory: Path
    shared: bool = False
    """A team's shared index (``--allow-shared-index``): modes follow the umask instead of owner-only."""


@contextmanager
def write_lock(root: Path, tenant: str, *, shared: bool = False) -> Iterator[WriteLock]:
    """Hold the tenant's write lock under ``root``; a second writer is refused, not queued.

    ``shared``: the index directory may be writable by others (a team's group-owned folder).
    """
    base = Path(root)
    directory = layout.tenant_dir(base, tenant)
    for folder in (base, directory):
        try:
            layout.make_directory(folder, shared=shared, parents=True)
        except OSError as exc:
            raise InputError(f"cannot create the index directory {folder}: {os_reason(exc)}") from None
        if not shared:
            layout.refuse_writable_by_others(folder)
    fd = layout.open_lock(directory / layout.LOCK, shared=shared)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                holder = os.pread(fd, 64, 0).decode("ascii", "replace").strip() or "another process"
                raise IndexLockedError(
                    f"tenant '{tenant}' is being ingested by {holder}; wait for it to finish and run again"
                ) from None
            raise
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()}".encode(), 0)
        _remove_leftovers(directory)
        lock = WriteLock(base, tenant, directory, shared)
        yield lock
        remove_old_generations(lock)
    finally:
        os.close(fd)


def _remove_leftovers(directory: Path) -> None:
    """Half-built generations and CURRENT replacements of a killed writer: garbage, since we hold the lock."""
    for child in directory.iterdir():
        if not layout.is_leftover(child):
            continue
        if child.is_dir():
            shutil.rmtree(child, ignore_errors=True)
        else:
            child.unlink(missing_ok=True)


@dataclass
class NewGeneration:
    """Everything a generation holds, in row order, before it is written."""

    passages: list[Passage]
    text_hashes: list[str]
    embeddings: np.ndarray
    documents: list[DocumentEntry]
    chunker_version: int
    model: ModelEntry
    units: list[np.ndarray] | None = None
    """Per passage, its units' vectors (``units.embed_passages``); None writes no unit vectors."""
    root: str | None = None
    """The folder (or file) the tenant is ingested from."""
    quantize: bool = False
    """Also write the vectors' int8 codes (``dense.quantize``), which searches then scan first."""


def write_generation(lock: WriteLock, gen: NewGeneration) -> str:
    """Write ``gen`` beside the published generation, publish it atomically and return its name."""
    name = layout.new_generation_name()
    build = lock.directory / f"{layout.BUILD_PREFIX}{name}"
    layout.make_directory(build, shared=lock.shared, exist_ok=False)
    try:
        groups = _write_files(build, gen)
        write_documents(build, gen.documents)
        if not lock.shared:
            layout.make_private(build)
        for path in sorted(build.rglob("*")):
            if path.is_file():
                layout.fsync_file(path)
        manifest = Manifest(
            format=FORMAT_VERSION,
            tenant=lock.tenant,
            generation=name,
            created=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            chunker_version=gen.chunker_version,
            model=gen.model,
            passages=len(gen.passages),
            groups=groups,
            documents=len(gen.documents),
            checksums=checksums_of(build),
            units_version=UNITS_VERSION if gen.units is not None else None,
            units=sum(len(u) for u in gen.units) if gen.units is not None else None,
            root=gen.root,
        )
        manifest.seal = seal_of(manifest)
        layout.write_new_file(build / MANIFEST, manifest.model_dump_json(indent=1).encode("utf-8"), shared=lock.shared)
        layout.fsync_dir(build)
        os.rename(build, lock.directory / name)
        publish(lock.directory, name, shared=lock.shared)
    except BaseException:
        shutil.rmtree(build, ignore_errors=True)
        raise
    remove_old_generations(lock)
    return name


def _write_files(build: Path, gen: NewGeneration) -> list[str]:
    """The arrays, the row file and BM25; returns the ACL entries in column order."""
    import numpy as np

    n = len(gen.passages)
    groups = sorted({entry for p in gen.passages for entry in p.acl})
    column = {g: i for i, g in enumerate(groups)}
    acl = np.zeros((n, len(groups)), dtype=bool)
    for row, p in enumerate(gen.passages):
        acl[row, [column[g] for g in p.acl]] = True
    days = np.array([valid_days(p) for p in gen.passages], dtype=np.int32).reshape(n, 2)
    write_rows(build, gen.passages, gen.text_hashes)
    vectors = np.ascontiguousarray(gen.embeddings, dtype=np.float32).reshape(n, gen.model.dim)
    np.save(build / EMBEDDINGS, vectors)
    if gen.quantize:
        write_quantized(build, vectors)
    np.save(build / ACL, np.packbits(acl, axis=1))
    np.save(build / VALID_FROM, np.ascontiguousarray(days[:, 0]))
    np.save(build / VALID_UNTIL, np.ascontiguousarray(days[:, 1]))
    write_bm25(build / BM25_DIRECTORY, gen.passages)
    if gen.units is not None:
        _write_units(build, gen.units, gen.model.dim)
    return groups


def write_quantized(build: Path, vectors: np.ndarray, block_rows: int = 65536) -> list[str]:
    """The int8 codes of every vector in the scan's blocked layout (``int8_scan.blocked_codes``), their row sums
    and per-dimension scale, beside the float32 vectors, and their file names. Quantized ``block_rows`` at a
    time (a multiple of the scan's block), so writing a 1M-row tenant needs no second float copy."""
    import numpy as np

    from .dense import quantize, scale_of
    from .int8_scan import block_rows_for, blocked_codes, row_sums

    rows, dim = vectors.shape
    scale = scale_of(vectors)
    per_block = block_rows_for(rows)
    blocks = -(-rows // per_block)
    step = max(1, block_rows // per_block) * per_block
    codes = np.lib.format.open_memmap(build / QUANTIZED, mode="w+", dtype=np.int8, shape=(blocks * dim, per_block))
    sums = np.zeros(blocks * per_block, dtype=np.int32)
    for start in range(0, rows, step):
        part = quantize(vectors[start : start + step], scale)
        first = start // per_block * dim
        laid = blocked_codes(part, per_block)
        codes[first : first + laid.shape[0]] = laid
        sums[start : start + len(part)] = row_sums(part)
    codes.flush()
    del codes
    np.save(build / QUANTIZED_SUMS, sums.reshape(blocks, per_block))
    np.save(build / QUANTIZED_SCALE, scale)
    return [QUANTIZED, QUANTIZED_SUMS, QUANTIZED_SCALE]


def _write_units(build: Path, units: list[np.ndarray], dim: int) -> None:
    """Every passage's unit vectors in one float16 matrix (half the bytes; cosines need no more), and where
    each passage's rows start."""
    import numpy as np

    offsets = np.zeros(len(units) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(u) for u in units])
    matrix = np.concatenate([u.reshape(-1, dim) for u in units]) if units else np.zeros((0, dim))
    np.save(build / UNIT_VECTORS, np.ascontiguousarray(matrix, dtype=np.float16))
    np.save(build / UNIT_OFFSETS, offsets)


def publish(directory: Path, name: str, *, shared: bool = False) -> None:
    """Point CURRENT at ``name``: write a temporary file, fsync it, rename it over CURRENT."""
    tmp = directory / f"{layout.CURRENT_TMP_PREFIX}{secrets.token_hex(4)}"
    layout.write_new_file(tmp, (name + "\n").encode("utf-8"), shared=shared)
    os.replace(tmp, directory / layout.CURRENT)
    layout.fsync_dir(directory)


class Pruned(Record):
    """What removing old generations did for one tenant (``ragcli status --prune --json``)."""

    tenant: str
    removed: list[str]
    """Generations removed: replaced ones no reader held, and any a crash left unpublished."""
    in_use: list[str]
    """Old generations a reader still holds open: removed by the next ingest or prune after it closes them."""


def remove_old_generations(lock: WriteLock) -> Pruned:
    """Remove every generation but the published one that no reader holds."""
    published = layout.current_name(lock.directory)
    removed: list[str] = []
    in_use: list[str] = []
    for old in sorted(layout.generations(lock.directory)):
        if old.name == published:
            continue
        (removed if layout.remove_generation(old) else in_use).append(old.name)
    if removed:
        layout.fsync_dir(lock.directory)
    return Pruned(tenant=lock.tenant, removed=removed, in_use=in_use)


def prune_generations(root: Path, tenant: str) -> Pruned:
    """Remove the tenant's old generations that no reader holds (refused while an ingest holds the write lock)."""
    layout.published_dir(Path(root), tenant)  # an unknown tenant is an error, not a new directory
    # Pruning only removes what a writer made: a shared index may be pruned by any of its writers.
    with write_lock(root, tenant, shared=True) as lock:
        return remove_old_generations(lock)
