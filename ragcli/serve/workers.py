"""``Worker``: one request at a time over its own open index, so requests never share a ``Retriever``.

A ``Retriever`` keeps caches and switches generations in place; it is not for
two threads at once. Each worker has its own (over the one shared ONNX
session: onnxruntime runs a session from several threads) and its own
answer backend. A request pins the generation it starts with
(``PinnedRetriever.pinned``): every search of a multi-search ask reads that
one generation, even if another is published meanwhile, and the next request
on the worker switches to the newest. A generation is only ever opened once
CURRENT names it, i.e. once it was published whole.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..search import Retriever

if TYPE_CHECKING:
    from ..answer import Answerer, AnswerSetup
    from ..embedder import Embedder
    from ..index import TenantIndex


class PinnedRetriever(Retriever):
    """A ``Retriever`` whose tenants' generations stay fixed inside ``pinned()``."""

    _pin: dict[str, TenantIndex] | None = None

    def index_for(self, tenant: str) -> TenantIndex:
        if self._pin is not None and tenant in self._pin:
            return self._pin[tenant]
        index = super().index_for(tenant)  # the newest published generation (the old one closed if it changed)
        if self._pin is not None:
            self._pin[tenant] = index
        return index

    @contextlib.contextmanager
    def pinned(self) -> Iterator[None]:
        """Inside: the first read of a tenant fixes its generation until the block ends."""
        self._pin = {}
        try:
            yield
        finally:
            self._pin = None


@dataclasses.dataclass
class Worker:
    """An index reader and an answer backend for one request at a time."""

    number: int
    retriever: PinnedRetriever
    answerer: Answerer
    memo: OrderedDict[Any, Any] = dataclasses.field(default_factory=OrderedDict)
    """What a route keeps per worker between requests (``mcp_http``: one ``Service`` per principal)."""

    def refresh(self, tenants: tuple[str, ...]) -> None:
        """Open each tenant's newest generation now (and let go of the old one), so the next request does not
        pay for opening it and an unpublished generation's files are not kept on disk by an idle worker."""
        for tenant in tenants:
            self.retriever.index_for(tenant)

    def close(self) -> None:
        self.retriever.close()


def open_workers(
    count: int, index: str | Path | None, tenants: tuple[str, ...], setup: AnswerSetup, embedder: Embedder
) -> list[Worker]:
    """``count`` workers with every tenant's index open and the model checked and warm: a missing tenant, a
    model the index was not built with or a bad answer model fails here, before the server listens."""
    from ..backends import open_answerer

    workers = []
    for number in range(count):
        retriever = PinnedRetriever(index, embedder=embedder)
        for tenant in tenants:
            retriever.index_for(tenant).check_model(embedder.model_id, embedder.sha256)
        workers.append(Worker(number, retriever, open_answerer(setup, embedder=embedder, vectors=retriever)))
    embedder.embed(["warm up"])
    return workers


__all__ = ["PinnedRetriever", "Worker", "open_workers"]
