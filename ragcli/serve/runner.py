"""``run``: open everything a server needs, then serve with uvicorn until SIGTERM or Ctrl-C.

Everything that can be wrong is checked before the port is bound (the
configuration, the JWKS file, the key file, every served tenant's index, the
embedding model against each index, the answer model), so a bad start is one
``error:`` line and exit 2, not a server that fails its first request.
``watch`` (``--watch DIR --tenant T``) runs ``ragcli watch``'s loop on a
thread of the same process; the server picks up what it publishes like any
other publisher's generation.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import signal
import socket
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import InputError, os_reason
from ..settings import index_root
from .config import load_config

if TYPE_CHECKING:
    from .app import ServeState
    from .config import ServeConfig
    from .credentials import Credentials

log = logging.getLogger("ragcli.serve")


@dataclass(frozen=True)
class WatchSpec:
    """``--watch DIR --tenant T``: a folder to ingest into a served tenant whenever it changes."""

    path: Path
    tenant: str
    acl: tuple[str, ...] = ()


def configure_logging() -> None:
    """One JSON line per event on stderr, prefixed ``ragcli serve:``; uvicorn's access log off (ours has more)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("ragcli serve: %(message)s"))
    for name in ("ragcli.serve", "ragcli.mcp"):
        logger = logging.getLogger(name)
        logger.handlers[:] = [handler]
        logger.setLevel(logging.INFO)
        logger.propagate = False
    logging.getLogger("mcp").setLevel(logging.WARNING)


def run(
    config_path: Path,
    *,
    host: str = "127.0.0.1",
    port: int = 8765,
    index: Path | None = None,
    watch: WatchSpec | None = None,
) -> None:
    """Serve until stopped. InputError (exit 2) for anything wrong found before listening."""
    import uvicorn

    from .app import build_app
    from .credentials import Credentials

    config, base = load_config(config_path)
    s = config.server
    if watch is not None and watch.tenant not in s.tenants:
        raise InputError(f"--tenant {watch.tenant}: not one of the tenants the config serves ({', '.join(s.tenants)})")
    configure_logging()
    credentials = Credentials(config, base)
    listener = _bind(host, port)  # a port in use is an error line now, not after the model has loaded
    try:
        state, watcher = _open(config, credentials, index, watch)
    except BaseException:
        listener.close()
        raise
    pool, workers = state.pool, state.pool.workers
    app = build_app(state, host=host)
    server = uvicorn.Server(
        uvicorn.Config(
            app,
            host=host,
            port=port,
            http="h11",  # a header block over 16 KiB is refused (400) before it reaches the app
            lifespan="on",
            access_log=False,
            log_level="warning",
            timeout_graceful_shutdown=int(s.deadline_s) + 1,
        )
    )
    try:
        with _stop_is_success():
            asyncio.run(_serve(server, listener, s.tenants, len(workers)))
    finally:
        if watcher is not None:
            watcher.set()
        pool.close()
        log.info(json.dumps({"event": "stop"}))


def _open(
    config: ServeConfig, credentials: Credentials, index: Path | None, watch: WatchSpec | None
) -> tuple[ServeState, threading.Event | None]:
    """The watcher (its first round done), the workers with every index open and the model warm, the poller."""
    from ..answer import AnswerSetup
    from ..answer.setup import Limits
    from ..embedder import Embedder
    from .app import ServeState
    from .freshness import Freshness
    from .limits import Pool
    from .metrics import Metrics
    from .workers import open_workers

    s = config.server
    root = index_root(index)
    embedder = Embedder()
    limits = Limits()
    setup = AnswerSetup(model=s.model, limits=replace(limits, timeout_s=min(limits.timeout_s, s.deadline_s)))
    metrics = Metrics()
    watcher = _start_watch(watch, root, embedder) if watch is not None else None
    try:
        workers = open_workers(s.workers, root, s.tenants, setup, embedder)
    except BaseException:
        if watcher is not None:
            watcher.set()
        raise
    pool = Pool(workers, queue=s.queue, deadline_s=s.deadline_s, metrics=metrics)
    freshness = Freshness(root, s.tenants, pool, metrics, s.poll_s)
    state = ServeState(
        server=s, pool=pool, freshness=freshness, metrics=metrics, credentials=credentials, model_loaded=bool(workers)
    )
    return state, watcher


@contextlib.contextmanager
def _stop_is_success() -> Iterator[None]:
    """SIGTERM and Ctrl-C stop the server with exit 0 once in-flight requests are done.

    uvicorn handles both while serving (a graceful shutdown), then raises the signal again for the handler it
    found installed; this one lets the server return normally instead of dying of the signal.
    """
    stopping = {sig: signal.signal(sig, lambda signum, frame: None) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for sig, handler in stopping.items():
            signal.signal(sig, handler)


def _bind(host: str, port: int) -> socket.socket:
    """The listening socket; InputError (one line, exit 2) when the address cannot be had."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        sock = socket.socket(family, kind, proto)
    except (OSError, UnicodeError) as exc:
        raise InputError(f"--host {host!r}: not an address to listen on ({exc})") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
    except OSError as exc:
        sock.close()
        raise InputError(f"cannot listen on {host}:{port}: {os_reason(exc)}") from None
    return sock


async def _serve(server: object, listener: socket.socket, tenants: tuple[str, ...], workers: int) -> None:
    """uvicorn's ``serve`` (it handles SIGTERM and SIGINT: in-flight requests finish), and the one line saying
    where it listens once it does (the actual port when 0 was asked for)."""
    import uvicorn

    assert isinstance(server, uvicorn.Server)

    async def announce() -> None:
        while not server.started:
            if server.should_exit:
                return
            await asyncio.sleep(0.02)
        sockets = [sock for s in server.servers for sock in s.sockets]
        host, port = sockets[0].getsockname()[:2]
        shown = f"[{host}]" if ":" in host else host
        log.info(
            json.dumps(
                {"event": "listening", "url": f"http://{shown}:{port}", "tenants": list(tenants), "workers": workers}
            )
        )

    task = asyncio.create_task(announce())
    try:
        await server.serve(sockets=[listener])
    finally:
        task.cancel()


def _start_watch(watch: WatchSpec, root: Path, embedder: object) -> threading.Event:
    """``ragcli watch``'s loop on a daemon thread, once its first round is done; returns the event that stops it."""
    from ..embedder import Embedder
    from ..ingestion import IngestJob
    from ..ingestion.watch import watch as run_watch

    assert isinstance(embedder, Embedder)
    if not watch.path.is_dir():
        raise InputError(f"--watch {watch.path}: not a folder")
    stop = threading.Event()
    job = IngestJob(watch.path, watch.tenant, index=root, default_acl=watch.acl)

    def report(r: object) -> None:
        log.info(json.dumps({"event": "ingest", "tenant": watch.tenant, "generation": getattr(r, "generation", None)}))

    ready = threading.Event()

    def loop() -> None:
        try:
            run_watch(
                job,
                embedder=embedder,
                stop=stop,
                on_ready=ready.set,
                on_report=report,
                on_error=lambda message: log.info(json.dumps({"event": "ingest", "ok": False, "error": message})),
            )
        except Exception:
            log.exception(json.dumps({"event": "watch", "ok": False}))

    thread = threading.Thread(target=loop, name="ragcli-watch", daemon=True)
    thread.start()
    # The first round runs before serving starts: a tenant first created by it has an index to open.
    while not ready.wait(0.1):
        if not thread.is_alive():
            raise InputError(f"--watch {watch.path}: the watcher stopped before its first ingest (see the log)")
    return stop


__all__ = ["WatchSpec", "configure_logging", "run"]
