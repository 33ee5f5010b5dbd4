"""``watch()``: run an ingest job now, then again after every change to its folder.

Each round runs the same ``IngestJob`` (``job``): the same write lock, atomic
publish and mirroring of the folder, the same options (a Ray cluster too), and
unchanged files are skipped by the incremental diff, so an edit to one file
costs one file's embedding. One embedder serves every round, so the ONNX
session opens once.

Rounds never overlap: changes that arrive during an ingest are collected by
watchfiles and trigger the next round once the current one has finished.
A failed round (a file rejected, the write lock held by another ingest) is
reported and watching goes on; the published index is whatever the last
successful round published.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..embedder import Embedder
from ..errors import InputError, RagcliError
from ..settings import index_root
from .job import IngestJob
from .report import IngestReport
from .sources import is_hidden

if TYPE_CHECKING:
    from threading import Event

    from watchfiles import Change

DEFAULT_DEBOUNCE_MS = 500
"""Quiet time after the last change before a round starts: an editor's save is several events."""


def watch(
    job: IngestJob,
    *,
    debounce_ms: int = DEFAULT_DEBOUNCE_MS,
    embedder: Embedder | None = None,
    on_ready: Callable[[], None] = lambda: None,
    on_report: Callable[[IngestReport], None] = lambda report: None,
    on_error: Callable[[str], None] = lambda message: None,
    stop: Event | None = None,
) -> None:
    """Run ``job``, then run it again after each batch of changes to its folder until ``stop`` is set or Ctrl-C.

    ``on_report`` gets every round's report (rejections included); ``on_error``
    the message of a round that failed as a whole. KeyboardInterrupt is not
    caught: an interrupted round publishes nothing, as with ``ingest``.
    """
    import watchfiles

    root = Path(job.path)
    if not root.exists():
        raise InputError(f"path not found: {root}")
    embedder = embedder or Embedder()
    index_dir = index_root(job.index).resolve()

    def one_round() -> None:
        try:
            report = job.run(embedder=embedder)
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
