"""``Pool``: CPU work off the event loop on a bounded number of workers, behind a bounded queue.

A request takes a free worker and runs on a thread (``anyio.to_thread``), so
the event loop keeps accepting, refusing and serving ``/healthz`` while
embedding, scoring and answering run. At most ``workers`` run at once and at
most ``queue`` wait; one more is refused at once with ``Overloaded`` (the app
answers 503 with ``Retry-After``) instead of growing everyone's latency. A
request that waits past its deadline without a worker is refused the same way.
A running request is never cut off mid-way (a thread cannot be cancelled):
its own work is bounded instead (an ask's time limit is capped to the deadline).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Literal, TypeVar

import anyio
import anyio.to_thread

from .workers import Worker

if TYPE_CHECKING:
    from .metrics import Metrics

T = TypeVar("T")
RETRY_AFTER_S = 1


class Overloaded(Exception):
    """No worker for this request now: the queue was full (``queue``) or the deadline passed (``deadline``)."""

    def __init__(self, why: Literal["queue", "deadline"]) -> None:
        super().__init__(why)
        self.why: Literal["queue", "deadline"] = why


class Pool:
    """The workers, the queue bound and the deadline every request runs under."""

    def __init__(self, workers: list[Worker], *, queue: int, deadline_s: float, metrics: Metrics) -> None:
        self.workers = workers
        self.queue = queue
        self.deadline_s = deadline_s
        self.metrics = metrics
        self._free = list(workers)
        self._available = anyio.Semaphore(len(workers))
        self._threads = anyio.CapacityLimiter(len(workers))
        self._admitted = 0
        """Requests running or waiting. Counted before the first ``await``: a burst arriving in one event-loop
        turn is admitted against the bound one by one (a count that changed only once a worker was taken would
        let the whole burst in)."""

    @property
    def waiting(self) -> int:
        return max(0, self._admitted - len(self.workers))

    async def run(self, work: Callable[[Worker], T]) -> T:
        """``work(worker)`` on a thread with a worker of its own; ``Overloaded`` when none can be had in time."""
        if self._admitted >= len(self.workers) + self.queue:
            self.metrics.overloaded.labels(why="queue").inc()
            raise Overloaded("queue")
        self._admitted += 1
        self.metrics.queue_depth.set(self.waiting)
        try:
            try:
                with anyio.fail_after(self.deadline_s):
                    await self._available.acquire()
            except TimeoutError:
                self.metrics.overloaded.labels(why="deadline").inc()
                raise Overloaded("deadline") from None
            worker = self._free.pop()
            self.metrics.busy.inc()
            try:
                return await anyio.to_thread.run_sync(_pinned, work, worker, limiter=self._threads)
            finally:
                self.metrics.busy.dec()
                self._free.append(worker)
                self._available.release()
        finally:
            self._admitted -= 1
            self.metrics.queue_depth.set(self.waiting)

    async def refresh_idle(self, tenants: tuple[str, ...]) -> None:
        """Move every idle worker to the newest generations now; busy ones move at their next request."""
        idle = []
        while self._free and self._available.value > 0:
            await self._available.acquire()
            idle.append(self._free.pop())
        try:
            for worker in idle:
                await anyio.to_thread.run_sync(worker.refresh, tenants, limiter=self._threads)
        finally:
            for worker in idle:
                self._free.append(worker)
                self._available.release()

    def close(self) -> None:
        for worker in self.workers:
            worker.close()


def _pinned(work: Callable[[Worker], T], worker: Worker) -> T:
    with worker.retriever.pinned():
        return work(worker)


__all__ = ["RETRY_AFTER_S", "Overloaded", "Pool"]
