"""``watch()``: ingest a folder now, then again after every change to it.

Each round is a whole ``ingest()``: the same write lock, atomic publish and
mirroring of the folder, and unchanged files are skipped by the incremental
diff, so an edit to one file costs one file's embedding. One embedder serves
every round, so the ONNX session opens once.

Rounds never overlap: changes that arrive during an ingest are collected by
watchfiles and trigger the next round once the current one has finished.
A failed round (a file rejected, the write lock held by another ingest) is
reported and watching goes on; the published index is whatever the last
successful round published.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..embedder import Embedder
from ..errors import InputError, RagcliError
from ..settings import index_root
from .pipeline import IngestReport, ingest
from .sources import DEFAULT_MAX_FILE_BYTES, is_hidden

if TYPE_CHECKING:
    from threading import Event

    from watchfiles import Change

DEFAULT_DEBOUNCE_MS = 500
"""Quiet time after the last change before a round starts: an editor's save is several events."""


def watch(
    path: str | os.PathLike[str],
    tenant: str,
    *,
    index: str | os.PathLike[str] | None = None,
    default_acl: tuple[str, ...] | list[str] = (),
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    debounce_ms: int = DEFAULT_DEBOUNCE_MS,
    embedder: Embedder | None = None,
    on_ready: Callable[[], None] = lambda: None,
    on_report: Callable[[IngestReport], None] = lambda report: None,
    on_error: Callable[[str], None] = lambda message: None,
    stop: Event | None = None,
) -> None:
    """Ingest ``path`` into ``tenant``, then re-ingest after each batch of changes until ``stop`` is set or Ctrl-C.

    ``on_report`` gets every round's report (rejections included); ``on_error``
    the message of a round that failed as a whole. KeyboardInterrupt is not
    caught: an interrupted round publishes nothing, as with ``ingest``.
    """
    import watchfiles

    root = Path(path)
    if not root.exists():
        raise InputError(f"path not found: {root}")
    embedder = embedder or Embedder()
    index_dir = index_root(index).resolve()

    def one_round() -> None:
        try:
            report = ingest(
                root, tenant, index=index, default_acl=default_acl, embedder=embedder, max_file_bytes=max_file_bytes
            )
        except RagcliError as exc:
            on_error(exc.message)
            return
        on_report(report)

    one_round()
    on_ready()
    changes = watchfiles.watch(
        root,
        watch_filter=_SourceFilter(root.resolve(), index_dir),
        debounce=debounce_ms,
        stop_event=stop,
        raise_interrupt=True,
    )
    for _batch in changes:
        one_round()


class _SourceFilter:
    """The changes that can alter an ingest: not hidden paths (``discover`` skips them), not the index itself."""

    def __init__(self, root: Path, index_dir: Path) -> None:
        import watchfiles

        self._default = watchfiles.DefaultFilter()
        self._root = root
        self._index_dir = index_dir

    def __call__(self, change: Change, path: str) -> bool:
        p = Path(path)
        if p.is_relative_to(self._index_dir):
            return False  # our own publish must not trigger the next round
        if p.is_relative_to(self._root) and any(is_hidden(part) for part in p.relative_to(self._root).parts):
            return False
        return self._default(change, path)
