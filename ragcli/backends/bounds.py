"""What a model server may cost a run: one wall-clock deadline, bounded retries, a cap on a reply's size.

A server given by URL is untrusted: it may trickle a byte every two seconds
(each read within the per-read timeout, so the SDK never times out), ask to
be retried after a minute, send 300 MB, or report negative token counts.

- **One deadline per ask.** ``with_retries`` runs every attempt of a request
  with the time left as its timeout, stops retrying when the deadline is
  spent (sleeps included), and raises ``OutOfTime``, which the loop turns
  into ``budget_exhausted``. The SDKs' own retries are off (``max_retries=0``
  per request): they sleep as the server says.
- **Every socket operation** of the client ``bounded_http_client`` builds
  gets at most the time left (``_DeadlineStream``), so a trickling server
  cannot outlast the deadline in the headers or the body.
- **A reply larger than its cap is refused** (``ReplyTooLarge``) while it is
  read, before the SDK parses it; compressed replies are refused (the
  client asks for ``identity``), so the cap is on the bytes parsed.
- **Usage numbers are clamped at zero** by ``clamped``; the backends treat a
  negative one as an invalid reply.
"""

from __future__ import annotations

import contextlib
import contextvars
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

import httpcore2
import httpx2

from ..answer.protocol import OutOfTime

T = TypeVar("T")

REPLY_BASE_BYTES = 64 * 1024
REPLY_BYTES_PER_TOKEN = 64
"""A reply may hold at most REPLY_BASE_BYTES + REPLY_BYTES_PER_TOKEN * max_output_tokens bytes (JSON of a tool
call escapes a token of text into a few bytes; 64 leaves room for any escaping): 320 KiB at 4096 tokens."""
RETRY_BASE_S = 0.5
RETRY_MAX_S = 8.0


def reply_cap(max_output_tokens: int) -> int:
    return REPLY_BASE_BYTES + REPLY_BYTES_PER_TOKEN * max(0, max_output_tokens)


class ReplyTooLarge(Exception):
    """The server sent more than a reply's cap (raised while reading; the SDK does not wrap it)."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        super().__init__(f"the reply is larger than {cap:,} bytes")


class CompressedReply(Exception):
    """The server compressed a reply it was asked to send as identity (its size could not be capped)."""


@dataclass
class _Budget:
    deadline: float | None
    cap: int | None
    received: int = 0

    def left(self) -> float | None:
        return None if self.deadline is None else self.deadline - time.monotonic()


_BUDGET: contextvars.ContextVar[_Budget | None] = contextvars.ContextVar("ragcli_http_budget", default=None)


@contextlib.contextmanager
def budget(deadline: float | None, cap: int | None) -> Iterator[None]:
    """Bound every socket operation of a bounded client in this context by ``deadline`` and the reply by ``cap``."""
    token = _BUDGET.set(_Budget(deadline, cap))
    try:
        yield
    finally:
        _BUDGET.reset(token)


def time_left(deadline: float | None) -> float | None:
    """Seconds until ``deadline`` (a ``time.monotonic()`` value); OutOfTime when none is left."""
    if deadline is None:
        return None
    left = deadline - time.monotonic()
    if left <= 0:
        raise OutOfTime()
    return left


def with_retries(
    attempt: Callable[[int, float | None], T],
    *,
    deadline: float | None,
    max_retries: int,
    retry_after: Callable[[Exception], float | None],
    cap: int | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> T:
    """``attempt(n, seconds_left)`` until it succeeds, at most ``max_retries`` more times, within ``deadline``.

    ``retry_after(exc)`` says whether ``exc`` may be retried: None no, else the seconds the server asked to wait
    (0 for the default backoff). Past the deadline (while waiting or in a request) raises OutOfTime.
    """
    for n in range(max_retries + 1):
        left = time_left(deadline)
        try:
            with budget(deadline, cap):
                return attempt(n, left)
        except (ReplyTooLarge, CompressedReply):
            raise
        except Exception as exc:
            if deadline is not None and time.monotonic() >= deadline:
                raise OutOfTime() from exc
            wait = retry_after(exc) if n < max_retries else None
            if wait is None:
                raise
            wait = wait or min(RETRY_BASE_S * 2**n, RETRY_MAX_S) * (1 - 0.25 * random.random())
            if deadline is not None and time.monotonic() + wait >= deadline:
                raise OutOfTime() from exc
            sleep(wait)
    raise AssertionError("unreachable")


def header_wait(headers: Any) -> float:
    """The wait a 429/5xx asks for (``retry-after-ms``, ``retry-after`` in seconds), 0 for none (the default backoff).

    Whatever it asks, ``with_retries`` never waits past the deadline."""
    if headers is None:
        return 0.0
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            return max(0.0, float(value) * scale)
        except ValueError:  # an HTTP date: the default backoff
            continue
    return 0.0


def clamped(value: object) -> tuple[int, bool]:
    """A usage count as a non-negative int, and whether the server's value was unusable (negative or not a number)."""
    if isinstance(value, bool) or not isinstance(value, int):
        return 0, value is not None
    return (value, False) if value >= 0 else (0, True)


# --------------------------------------------------------------------------- the HTTP client


def bounded_http_client(**kwargs: Any) -> httpx2.Client:
    """An ``httpx2.Client`` whose every socket operation honours the budget in force (``budget``)."""
    headers = {"accept-encoding": "identity", **kwargs.pop("headers", {})}
    return httpx2.Client(transport=_BoundedTransport(), headers=headers, **kwargs)


class _BoundedTransport(httpx2.HTTPTransport):
    """httpx2's transport over a connection pool whose sockets honour the budget; compressed replies refused."""

    def __init__(self) -> None:
        super().__init__()
        self._pool.close()
        # The one private touch: httpx2 builds its pool without a way to pass a network backend.
        self._pool = httpcore2.ConnectionPool(
            ssl_context=httpx2.create_ssl_context(), network_backend=_DeadlineBackend(httpcore2.SyncBackend())
        )

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        response = super().handle_request(request)
        current = _BUDGET.get()
        encoding = response.headers.get("content-encoding", "identity").strip().lower()
        length = response.headers.get("content-length")
        if encoding not in ("", "identity"):
            response.close()
            raise CompressedReply(f"the server compressed its reply ({encoding[:20]}) though asked not to")
        if current is not None and current.cap is not None and length and length.isdigit():
            if int(length) > current.cap:
                response.close()
                raise ReplyTooLarge(current.cap)
        return response


def _bound(timeout: float | None, kind: str) -> float | None:
    """``timeout`` shortened to the time left; the httpcore timeout of ``kind`` when none is left."""
    current = _BUDGET.get()
    left = current.left() if current is not None else None
    if left is None:
        return timeout
    if left <= 0:
        spent: dict[str, type[Exception]] = {"connect": httpcore2.ConnectTimeout, "write": httpcore2.WriteTimeout}
        raise spent.get(kind, httpcore2.ReadTimeout)("the answer's time budget is spent")
    return left if timeout is None else min(timeout, left)


class _DeadlineStream(httpcore2.NetworkStream):
    """A network stream whose reads and writes never outlast the budget, and whose reads count toward its cap."""

    def __init__(self, inner: httpcore2.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        data: bytes = self._inner.read(max_bytes, _bound(timeout, "read"))
        current = _BUDGET.get()
        if current is not None and current.cap is not None:
            current.received += len(data)
            if current.received > current.cap:
                raise ReplyTooLarge(current.cap)
        return data

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _bound(timeout, "write"))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore2.NetworkStream:
        return _DeadlineStream(self._inner.start_tls(ssl_context, server_hostname, _bound(timeout, "connect")))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _DeadlineBackend(httpcore2.NetworkBackend):
    """httpcore's sync backend with every connection's stream bounded by the budget."""

    def __init__(self, inner: httpcore2.NetworkBackend) -> None:
        self._inner = inner

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Any = None,
    ) -> httpcore2.NetworkStream:
        stream = self._inner.connect_tcp(host, port, _bound(timeout, "connect"), local_address, socket_options)
        return _DeadlineStream(stream)

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Any = None
    ) -> httpcore2.NetworkStream:
        return _DeadlineStream(self._inner.connect_unix_socket(path, _bound(timeout, "connect"), socket_options))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)
