"""``Freshness``: notice a tenant's newly published generation within one poll, and move idle workers to it.

Every ``poll_s`` the poller reads each served tenant's CURRENT pointer (one
small file; ``ingest``, ``watch`` or another machine writing the shared index
directory replace it atomically, and only once a generation is whole). When
it changed, idle workers open the new generation at once and busy ones at
their next request (each request also checks CURRENT when it starts, so no
request starts on a generation older than the last published one by more
than that check). What it read is what ``/healthz`` reports.
"""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path

import anyio
import anyio.to_thread

from ..index import layout
from .limits import Pool
from .metrics import Metrics

log = logging.getLogger("ragcli.serve")


class Freshness:
    """The generation CURRENT names for each served tenant, as of the last poll."""

    def __init__(self, root: Path, tenants: tuple[str, ...], pool: Pool, metrics: Metrics, poll_s: float) -> None:
        self.directories = {t: layout.tenant_dir(root, t) for t in tenants}
        self.pool = pool
        self.metrics = metrics
        self.poll_s = poll_s
        self.seen: dict[str, str | None] = {t: layout.current_name(d) for t, d in self.directories.items()}

    async def run(self) -> None:
        """Poll until cancelled (the server's lifespan cancels it at shutdown)."""
        while True:
            await anyio.sleep(self.poll_s)
            try:
                changed = await anyio.to_thread.run_sync(self._changes)
                if changed:
                    await self.pool.refresh_idle(changed)
            except Exception:  # a damaged index shows in requests and /healthz; polling goes on
                log.exception(json.dumps({"event": "poll", "ok": False}))

    def _changes(self) -> tuple[str, ...]:
        changed = []
        for tenant, directory in self.directories.items():
            name = layout.current_name(directory)
            if name == self.seen[tenant]:
                continue
            previous, self.seen[tenant] = self.seen[tenant], name
            changed.append(tenant)
            self.metrics.generation_changes.labels(tenant=tenant).inc()
            lag = _age(directory / layout.CURRENT)
            if lag is not None:
                self.metrics.publish_lag.observe(lag)
            log.info(json.dumps({"event": "generation", "tenant": tenant, "previous": previous, "current": name}))
        return tuple(changed)

    def health(self) -> dict[str, dict[str, str | None]]:
        return {tenant: {"generation": name} for tenant, name in self.seen.items()}


def _age(path: Path) -> float | None:
    """Seconds since ``path`` was last replaced (CURRENT is renamed into place when a generation is published)."""
    try:
        return max(0.0, time.time() - path.stat().st_mtime)
    except OSError:
        return None


__all__ = ["Freshness"]
