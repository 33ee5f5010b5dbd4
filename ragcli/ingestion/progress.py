"""Progress of an ingest: the hooks the CLI draws bars with, and a remaining-time estimate that holds.

Embedding is the long part of an ingest, and its cost per passage is not
constant: passages run shortest first, padded to the longest of their batch,
and attention costs more per token as sequences grow. Progress is therefore
counted in model work (``Embedder.batch_work``: positions computed, padding
included, weighted by sequence length), and the time left is that work divided
by a moving rate of work per second, so the estimate neither starts optimistic
nor lags behind a machine that slows down.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field


class Progress:
    """Hooks the CLI uses to draw bars; the library stays silent by default.

    ``embedding`` announces the passages to embed and their total model work;
    ``embedded`` reports the work of each step as it finishes.
    """

    def files(self, total: int) -> None: ...
    def file_done(self) -> None: ...
    def embedding(self, passages: int, work: float) -> None: ...
    def embedded(self, work: float) -> None: ...


RATE_WINDOW_S = 20.0
"""Seconds of recent progress the rate is measured over: long enough to smooth one slow batch, short enough
to follow a machine that gets busier (bench/eta_bench.py)."""
MIN_SPAN_S = 1.0
"""No estimate until progress was seen over at least this long: one step's rate says little."""


@dataclass
class RemainingTime:
    """Seconds left of a job of ``total`` work units, from the rate over the last ``window_s`` seconds.

    Feed it ``update(done, now)`` as work completes (``done`` cumulative, ``now``
    any monotonic clock); ``seconds_left(now)`` is None until there is a rate.
    """

    total: float
    window_s: float = RATE_WINDOW_S
    min_span_s: float = MIN_SPAN_S
    _samples: deque[tuple[float, float]] = field(default_factory=deque)

    def start(self, now: float) -> None:
        """The clock starts: work done so far (none) at ``now``."""
        self._samples.clear()
        self._samples.append((now, 0.0))

    def update(self, done: float, now: float) -> None:
        if not self._samples:
            self.start(now)
        self._samples.append((now, done))
        # Keep the newest sample at or before the window's start, so the rate always spans the whole window.
        while len(self._samples) > 2 and self._samples[1][0] <= now - self.window_s:
            self._samples.popleft()

    def rate(self) -> float | None:
        """Work per second over the window, or None when too little was seen."""
        if len(self._samples) < 2:
            return None
        (t0, d0), (t1, d1) = self._samples[0], self._samples[-1]
        if t1 - t0 < self.min_span_s or d1 <= d0:
            return None
        return (d1 - d0) / (t1 - t0)

    def seconds_left(self, now: float | None = None) -> float | None:
        """The remaining work at the current rate, less the time since the last update."""
        rate = self.rate()
        if rate is None:
            return None
        t_last, done = self._samples[-1]
        left = max(0.0, self.total - done) / rate
        return max(0.0, left - (max(0.0, now - t_last) if now is not None else 0.0))
