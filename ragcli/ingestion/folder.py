"""The ingested folder, opened by descriptor: reading inside it only, by construction.

The folder is opened once (``Folder``) and everything is reached through its
directory descriptor: discovery walks it with ``scandir`` on descriptors and
never enters a symlinked directory; a file is opened relative to the
descriptor of its directory, every folder on its path with ``O_NOFOLLOW``.
The opened descriptor, not the path, is then checked: it must be a regular
file whose real location is under the folder (a symlink inside the folder is
followed; one that leaves it, loops or dangles is rejected). The bytes come
from that same descriptor, so nothing can be swapped between the check and
the read. Pipes and devices are never read, and a file over the size limit
is refused before it is read.

Where the system cannot tell an open descriptor's real path (no
``/proc/self/fd``, no ``F_GETPATH``), no symlink is followed at all.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import DocumentRejected, InputError, os_reason, out_of_descriptors
from .sources import (
    MAX_SIDECAR_BYTES,
    NO_SUFFIX,
    SIDECAR_SUFFIX,
    Discovery,
    SourceData,
    SourceFile,
    is_hidden,
)

MAX_DEPTH = 128
"""Folders nested deeper than this are not entered (a bind-mount loop would otherwise never end)."""

OUTSIDE = "symlink points outside the ingested folder; not followed"
LOOP = "symlink loop; not followed"
DANGLING = "broken symlink (its target does not exist); not read"
NOT_REGULAR = "not a regular file (a pipe, socket, device or folder); not read"
PATH_CHANGED = "a folder on its path is now a symlink or not a folder; not followed"
NO_SYMLINKS = "symlink; this system cannot check where it leads, so it is not followed"


def resolve_root(path: str | os.PathLike[str]) -> Path:
    """The ingested path as an absolute path without symlinks (the same folder always has the same root)."""
    try:
        return Path(path).resolve(strict=True)
    except FileNotFoundError:
        raise InputError(f"path not found: {path}") from None
    except (RuntimeError, OSError) as exc:  # a loop in the path the user gave
        raise InputError(f"cannot open {path}: {os_reason(exc)}") from None


def _fd_path(fd: int) -> str | None:
    """Where an open descriptor really is, or None when this system cannot say."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        pass
    import fcntl

    get_path = getattr(fcntl, "F_GETPATH", None)  # macOS
    if get_path is None:
        return None
    try:
        return os.fsdecode(fcntl.fcntl(fd, get_path, b"\0" * 1024).rstrip(b"\0"))
    except OSError:
        return None


_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NONBLOCK | _CLOEXEC


class Folder:
    """The ingested folder (or the folder of the one ingested file), open for reading by descriptor."""

    def __init__(self, root: Path) -> None:
        """Use ``open_folder``. ``root`` is resolved (``resolve_root``)."""
        self.root = root
        """What was ingested: a folder, or one file."""
        self.single = None if root.is_dir() else root.name
        self.directory = root if self.single is None else root.parent
        try:
            self._fd = os.open(self.directory, _DIR_FLAGS)
        except OSError as exc:
            raise InputError(f"cannot open {self.directory}: {os_reason(exc)}") from None
        real = _fd_path(self._fd)
        self._real = real.rstrip("/") + "/" if real is not None else None
        """The folder's real path with a trailing '/', or None: symlinks are then never followed."""

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    # -- discovery ----------------------------------------------------------------

    def discover(self) -> Discovery:
        """Every file under the folder: ingestable, or skipped by type; hidden names and symlinked folders not entered.

        Nothing is opened or judged here: a file is checked when it is read, on the descriptor it is read from.
        """
        out = Discovery()
        if self.single is not None:
            out.files.append(SourceFile(self.root, self.single))
            return out
        self._walk(self._fd, "", 0, out)
        return out

    def _walk(self, dir_fd: int, prefix: str, depth: int, out: Discovery) -> None:
        with os.scandir(dir_fd) as entries:
            listed = sorted(entries, key=lambda e: e.name)
        folders = []
        for entry in listed:
            name = entry.name
            if is_hidden(name):
                continue
            if entry.is_dir(follow_symlinks=False):
                folders.append(name)
                continue
            if name.endswith(SIDECAR_SUFFIX) or _links_to_folder(entry):
                continue  # a symlinked folder is never entered
            src = SourceFile(self.directory / prefix / name, prefix + name)
            if src.format is None and not src.is_jsonl:
                suffix = src.path.suffix.lower() or NO_SUFFIX
                out.skipped[suffix] = out.skipped.get(suffix, 0) + 1
                continue
            out.files.append(src)
        for name in folders:
            if depth >= MAX_DEPTH:
                out.rejected.append(
                    DocumentRejected(str(self.directory / prefix / name), "folder nested too deep; not entered")
                )
                continue
            try:
                child = os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
            except OSError as exc:  # swapped for a link since it was listed, or unreadable
                out.rejected.append(
                    DocumentRejected(str(self.directory / prefix / name), _open_reason(exc, folder=True))
                )
                continue
            try:
                self._walk(child, f"{prefix}{name}/", depth + 1, out)
            finally:
                os.close(child)

    # -- reading ------------------------------------------------------------------

    def read(self, src: SourceFile, max_bytes: int) -> SourceData:
        """The file's bytes and its sidecar's, each checked on the descriptor it is read from (or DocumentRejected)."""
        raw = self.read_file(src.relative, max_bytes, source=str(src.path)) or b""
        if src.is_jsonl:
            return SourceData(raw)
        sidecar = self.read_file(src.sidecar_relative, MAX_SIDECAR_BYTES, source=str(src.sidecar), optional=True)
        return SourceData(raw, sidecar or b"")

    def read_file(self, relative: str, max_bytes: int, *, source: str, optional: bool = False) -> bytes | None:
        """``relative``'s bytes; None only when ``optional`` and there is none (a broken link is not "none")."""
        with self._open(relative, source=source, optional=optional) as fd:
            if fd is None:
                return None
            return _read_limited(fd, max_bytes, source)

    @contextmanager
    def _open(self, relative: str, *, source: str, optional: bool) -> Iterator[int | None]:
        *folders, name = relative.split("/")
        opened: list[int] = []
        dir_fd = self._fd
        try:
            for part in folders:
                try:
                    dir_fd = os.open(part, _DIR_FLAGS, dir_fd=dir_fd)
                except OSError as exc:
                    if out_of_descriptors(exc):
                        raise  # the process's limit, not this file's fault: the run stops (``pipeline.ingest``)
                    raise DocumentRejected(source, _open_reason(exc, folder=True)) from None
                opened.append(dir_fd)
            fd = self._open_file(dir_fd, name, source=source, optional=optional)
            if fd is None:
                yield None
                return
            opened.append(fd)
            yield fd
        finally:
            for fd in reversed(opened):
                os.close(fd)

    def _open_file(self, dir_fd: int, name: str, *, source: str, optional: bool) -> int | None:
        """An open descriptor of ``name`` in ``dir_fd``, checked; None when ``optional`` and absent."""
        o_path = getattr(os, "O_PATH", 0)
        follow = self._real is not None
        # O_PATH: a path-only descriptor, so the target is not opened (no device wakes up) before it is checked.
        flags = (o_path | _CLOEXEC) if follow and o_path else _FILE_FLAGS | (0 if follow else os.O_NOFOLLOW)
        try:
            handle = os.open(name, flags, dir_fd=dir_fd)
        except OSError as exc:
            if out_of_descriptors(exc):
                raise
            link = _is_link(dir_fd, name)
            if exc.errno == errno.ENOENT and optional and not link:
                return None
            if exc.errno == errno.ENOENT and link:
                raise DocumentRejected(source, DANGLING) from None
            if exc.errno == errno.ELOOP and not follow:
                raise DocumentRejected(source, NO_SYMLINKS) from None
            raise DocumentRejected(source, _open_reason(exc, folder=False)) from None
        try:
            checked = self._check(handle, source)
            if not (follow and o_path):
                return handle
            fd = os.open(f"/proc/self/fd/{handle}", _FILE_FLAGS)  # the same file the path-only descriptor holds
        except BaseException:
            os.close(handle)
            raise
        os.close(handle)
        if _identity(os.fstat(fd)) != checked:
            os.close(fd)
            raise DocumentRejected(source, "the file changed while it was opened; not read")
        return fd

    def _check(self, fd: int, source: str) -> tuple[int, int]:
        """The opened descriptor is a regular file inside the folder; returns its identity."""
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise DocumentRejected(source, NOT_REGULAR)
        if self._real is not None:
            real = _fd_path(fd)
            if real is None or not real.startswith(self._real):
                raise DocumentRejected(source, OUTSIDE)
        return _identity(st)


def _links_to_folder(entry: os.DirEntry[str]) -> bool:
    """A symlink to a folder (never entered); a loop or a dangling link is a file that is rejected when read."""
    try:
        return entry.is_symlink() and entry.is_dir()
    except OSError:
        return False


def _identity(st: os.stat_result) -> tuple[int, int]:
    return st.st_dev, st.st_ino


def _is_link(dir_fd: int, name: str) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _open_reason(exc: OSError, *, folder: bool) -> str:
    if exc.errno == errno.ELOOP:
        return PATH_CHANGED if folder else LOOP
    if folder and exc.errno == errno.ENOTDIR:
        return PATH_CHANGED
    if exc.errno == errno.ENOENT:
        return "file disappeared while the folder was read; not read"
    return f"cannot read file: {os_reason(exc)}"


def _read_limited(fd: int, max_bytes: int, source: str) -> bytes:
    """Read an open regular file with the size limit applied before (and while) reading it."""
    size = os.fstat(fd).st_size
    if size > max_bytes:
        raise DocumentRejected(source, f"file is {size:,} bytes, over the {max_bytes:,}-byte limit (--max-file-size)")
    chunks = []
    total = 0
    try:
        while True:
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > max_bytes:  # it grew since fstat
                raise DocumentRejected(source, f"file is over the {max_bytes:,}-byte limit (--max-file-size)")
    except OSError as exc:
        raise DocumentRejected(source, f"cannot read file: {os_reason(exc)}") from None
    return b"".join(chunks)


@contextmanager
def open_folder(path: str | os.PathLike[str]) -> Iterator[Folder]:
    """The ingested path (a folder or one file), open by descriptor for as long as the block runs."""
    folder = Folder(resolve_root(path))
    try:
        yield folder
    finally:
        folder.close()


def discover(root: Path) -> tuple[list[SourceFile], list[DocumentRejected]]:
    """List ingestable files under ``root`` (a folder or one file), with the folders refused on sight."""
    found = discover_all(root)
    return found.files, found.rejected


def discover_all(root: Path) -> Discovery:
    """Every file under ``root`` (a folder or one file): ingestable, refused on sight, or skipped by type."""
    with open_folder(root) as folder:
        return folder.discover()
