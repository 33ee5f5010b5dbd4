"""Where a tenant's index lives on disk. The only module that knows the names.

    <root>/<tenant>/
        CURRENT          name of the published generation, replaced atomically
        lock             flock(2) lock of the one writer
        gen-<stamp>/     one complete, immutable generation:
            manifest.json    format, chunker version, model id + sha256, counts, checksums (small: read on every open)
            documents.json   what each source document contributed (read by ingest and status only)
            passages.jsonl   one passage record per row; offsets.npy indexes it
            embeddings.npy   float32 (rows, dim), opened memory-mapped
            quantized_blocks.npy  int8 (blocks * dim, block rows), optional (``ingest --quantize``): the vectors'
                             codes in dimension-major blocks (``int8_scan``)
            quantized_sums.npy   int32 (blocks, block rows): each row's sum of codes
            quantized_scale.npy  float32 (dim,): the per-dimension scale of those codes
            unit_vectors.npy float16 (units, dim): one vector per unit of each passage (``structure``)
            unit_offsets.npy int64 (rows + 1): passage i's units are unit_vectors[o[i]:o[i+1]]
            acl.npy          packed bits (rows, ACL entries)
            valid_from.npy   int32 day numbers (inclusive), int32 min where open
            valid_until.npy  int32 day numbers (exclusive), int32 max where open
            tantivy/         BM25 index of the same rows
        .build-<name>/   a generation being written (garbage if its writer died)
        .CURRENT.<rand>  a CURRENT replacement not yet renamed into place
        .trash-<name>/   an old generation being removed (garbage if its remover died)

Everything is created owner-only (folders 0700, files 0600) whatever the
umask, unless the index is shared on purpose (``shared``: the umask decides).

Readers hold a shared flock(2) on the directory of the generation they
opened (``hold_generation``); an old generation is removed only by whoever
gets the exclusive lock on it (``remove_generation``), i.e. once no reader
holds it. The kernel drops a dead reader's lock, so nothing is pinned forever.
"""

from __future__ import annotations

import errno
import fcntl
import os
import shutil
import stat
import time
from pathlib import Path

from ..errors import IndexCorruptError, InputError, os_reason
from ..principal import validate_tenant
from ..settings import INDEX_ENV, index_origin

CURRENT = "CURRENT"
MANIFEST = "manifest.json"
DOCUMENTS = "documents.json"
PASSAGES = "passages.jsonl"
OFFSETS = "offsets.npy"
EMBEDDINGS = "embeddings.npy"
QUANTIZED = "quantized_blocks.npy"
QUANTIZED_SUMS = "quantized_sums.npy"
QUANTIZED_SCALE = "quantized_scale.npy"
UNIT_VECTORS = "unit_vectors.npy"
UNIT_OFFSETS = "unit_offsets.npy"
ACL = "acl.npy"
VALID_FROM = "valid_from.npy"
VALID_UNTIL = "valid_until.npy"
BM25_DIRECTORY = "tantivy"
LOCK = "lock"
GEN_PREFIX = "gen-"
BUILD_PREFIX = ".build-"
CURRENT_TMP_PREFIX = f".{CURRENT}."
TRASH_PREFIX = ".trash-"


def tenant_dir(root: Path, tenant: str) -> Path:
    """The tenant's directory; the tenant name is checked here, where it becomes a path."""
    return root / validate_tenant(tenant)


def published_dir(root: Path, tenant: str) -> Path:
    """The tenant's directory if it has a published generation; else a clear InputError."""
    directory = tenant_dir(root, tenant)
    if not (directory / CURRENT).exists():
        raise InputError(unknown_tenant(root, tenant))
    return directory


SHOWN_TENANTS = 10


def described(root: Path) -> str:
    """The index folder as messages name it: absolute, with how it was found (``--index``, the nearest .ragcli, …)."""
    origin = index_origin(Path(root))
    return f"{Path(root).absolute()}" + (f" ({origin})" if origin else "")


def unknown_tenant(root: Path, tenant: str) -> str:
    """The folder searched (and why there), the tenants it holds; ``ingest`` is suggested only when it holds none."""
    where = described(root)
    elsewhere = f"give --index DIR or set {INDEX_ENV}"
    others = list_tenants(Path(root))
    if not others:
        return (
            f"unknown tenant '{tenant}': no tenant is indexed in {where}; if the index is elsewhere, {elsewhere}; "
            f"else run: ragcli ingest PATH --tenant {tenant}"
        )
    shown = ", ".join(others[:SHOWN_TENANTS]) + (
        f" and {len(others) - SHOWN_TENANTS} more" if len(others) > SHOWN_TENANTS else ""
    )
    return f"unknown tenant '{tenant}' in the index at {where}; tenants there: {shown}; for another index, {elsewhere}"


def current_name(directory: Path) -> str | None:
    """The name CURRENT holds, or None when it is missing or unreadable."""
    try:
        return (directory / CURRENT).read_text(encoding="utf-8").strip() or None
    except (OSError, UnicodeDecodeError):
        return None


def current_generation(directory: Path) -> Path:
    """The published generation's directory; IndexCorruptError if CURRENT is damaged."""
    tenant = directory.name
    try:
        name = (directory / CURRENT).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        raise IndexCorruptError.damaged(tenant, "CURRENT pointer unreadable") from None
    if not name.startswith(GEN_PREFIX) or "/" in name or not (directory / name).is_dir():
        raise IndexCorruptError.damaged(tenant, f"CURRENT points at a missing generation {name[:40]!r}")
    return directory / name


def list_tenants(root: Path) -> list[str]:
    """Tenants under ``root`` that have a published generation."""
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if (p / CURRENT).exists())


def new_generation_name() -> str:
    import secrets  # a writer's need only: a search does not import it

    return f"{GEN_PREFIX}{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}-{secrets.token_hex(4)}"


def generations(directory: Path) -> list[Path]:
    return [p for p in directory.iterdir() if p.name.startswith(GEN_PREFIX)]


def is_leftover(path: Path) -> bool:
    """A half-built generation, an unrenamed CURRENT replacement or a half-removed generation of a writer that died."""
    return path.name.startswith((BUILD_PREFIX, CURRENT_TMP_PREFIX, TRASH_PREFIX))


def hold_generation(generation: Path) -> int | None:
    """A shared lock on ``generation`` (an fd; close it to release), or None if it is gone or being removed.

    Taken before any file of the generation is read. None means a writer
    removed (or is removing) it after CURRENT was read: re-resolve CURRENT.
    """
    try:
        fd = os.open(generation, os.O_RDONLY | os.O_DIRECTORY)
    except (FileNotFoundError, NotADirectoryError):
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        # Locked, but a remover may have renamed it away between our open and our lock.
        here, held = os.stat(generation), os.fstat(fd)
        if (here.st_dev, here.st_ino) == (held.st_dev, held.st_ino):
            return fd
    except FileNotFoundError:
        pass
    except OSError as exc:
        if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
            os.close(fd)
            raise
    os.close(fd)
    return None


def remove_generation(generation: Path) -> bool:
    """Remove ``generation`` unless a reader holds it; True if it was removed.

    Only a writer holding the tenant's write lock calls this, and never on the
    published generation. The exclusive lock proves no reader holds it; the
    directory is renamed away before the lock is released, so a reader that
    opened it a moment ago finds it gone and re-resolves CURRENT.
    """
    try:
        fd = os.open(generation, os.O_RDONLY | os.O_DIRECTORY)
    except FileNotFoundError:
        return True
    trash = generation.with_name(f"{TRASH_PREFIX}{generation.name}")
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.rename(generation, trash)
    except OSError:
        # Held by a reader (EWOULDBLOCK), or not ours to remove: kept, tried again next time.
        return False
    finally:
        os.close(fd)
    shutil.rmtree(trash, ignore_errors=True)
    return True


PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600
SHARED_DIR_MODE = 0o777
SHARED_FILE_MODE = 0o666
"""A shared index's modes before the umask: a team sets ``umask 007`` so its group may read and write."""
_NOFOLLOW = os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


def make_directory(path: Path, *, shared: bool, parents: bool = False, exist_ok: bool = True) -> None:
    """Create ``path`` (owner-only unless ``shared``); an existing folder is left as it is."""
    if exist_ok and path.is_dir():
        return
    if parents and not path.parent.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
    path.mkdir(mode=SHARED_DIR_MODE if shared else PRIVATE_DIR_MODE, exist_ok=exist_ok)
    if not shared:
        os.chmod(path, PRIVATE_DIR_MODE)  # a umask can only remove bits; this makes it exact


def refuse_writable_by_others(path: Path) -> None:
    """An index folder others may write could be pointed at anything: refuse it (``--allow-shared-index`` to share)."""
    mode = os.stat(path).st_mode
    if mode & 0o022:
        raise InputError(
            f"the index directory {path} is writable by others (mode {stat.S_IMODE(mode):04o}); make it private "
            f"(chmod go-w {path}) or, for a team's shared index, pass --allow-shared-index"
        )


def open_lock(path: Path, *, shared: bool) -> int:
    """The tenant's lock file, never through a symlink, and only a regular file of the user's own with one link."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NONBLOCK | _NOFOLLOW, PRIVATE_FILE_MODE)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise InputError(f"the lock file {path} is a symlink; remove it and run again") from None
        raise InputError(f"cannot open the lock file {path}: {os_reason(exc)}") from None
    st = os.fstat(fd)
    problem = None
    if not stat.S_ISREG(st.st_mode):
        problem = "is not a regular file"
    elif st.st_nlink != 1:
        problem = "has other hard links"
    elif not shared and st.st_uid != os.getuid():
        problem = "belongs to another user"
    if problem is not None:
        os.close(fd)
        raise InputError(f"the lock file {path} {problem}; remove it and run again")
    return fd


def make_private(directory: Path) -> None:
    """Every file under ``directory`` 0600 and every folder 0700 (Tantivy and numpy create theirs with the umask)."""
    for path in directory.rglob("*"):
        if path.is_symlink():
            continue
        os.chmod(path, PRIVATE_DIR_MODE if path.is_dir() else PRIVATE_FILE_MODE)
    os.chmod(directory, PRIVATE_DIR_MODE)


def write_new_file(path: Path, data: bytes, *, shared: bool) -> None:
    """Create ``path`` (it must not exist; owner-only unless ``shared``), write ``data`` and fsync it."""
    mode = SHARED_FILE_MODE if shared else PRIVATE_FILE_MODE
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, mode)
    try:
        if not shared:
            os.fchmod(fd, PRIVATE_FILE_MODE)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)


def exposed(path: Path, *, recursive: bool = True) -> list[str]:
    """``path`` and (``recursive``) what is under it that others may read or write, as ``PATH (mode)``."""
    paths = [path, *sorted(path.rglob("*"))] if recursive and path.is_dir() else [path]
    out = []
    for p in paths:
        try:
            st = os.lstat(p)
        except OSError:
            continue
        mode = stat.S_IMODE(st.st_mode)
        if not stat.S_ISLNK(st.st_mode) and mode & 0o066:
            out.append(f"{p} ({mode:04o})")
    return out


def fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
