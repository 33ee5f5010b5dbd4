"""``build_app``: the Starlette application: routes, authentication, limits, metrics, and the lifespan.

    POST /v1/search, POST /v1/ask   bearer token required (``api``)
    /mcp                            bearer token required; MCP Streamable HTTP (``mcp_http``)
    GET  /healthz, GET /metrics     no credential; no user name, no document text

Authentication is Starlette's ``AuthenticationMiddleware`` with our backend
(``credentials``) and the MCP SDK's ``AuthContextMiddleware``; every
protected route is wrapped in the SDK's ``RequireAuthMiddleware``, so a
missing, bad or foreign credential gets the same 401 and body everywhere,
and is counted by reason. Request bodies are bounded by the SDK's
``RequestBodyLimitMiddleware`` (413).
"""

from __future__ import annotations

import contextlib
import json
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import anyio
from mcp.server.auth.middleware.auth_context import AuthContextMiddleware
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser, RequireAuthMiddleware
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import RequestBodyLimitMiddleware, TransportSecuritySettings
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.authentication import AuthenticationMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from ..errors import InputError, RagcliError
from .api import AskRequest, SearchRequest, ask_on, parse_request, search_on
from .config import ServerSection
from .credentials import REFUSED_KEY, CredentialBackend, Credentials, principal_of
from .freshness import Freshness
from .limits import RETRY_AFTER_S, Overloaded, Pool
from .mcp_http import build_mcp_server
from .metrics import Metrics

log = logging.getLogger("ragcli.serve")
INTERNAL = "internal error; the server log has the details"


@dataclass
class ServeState:
    """What the routes share: the settings, the workers, the poller and the counters."""

    server: ServerSection
    pool: Pool
    freshness: Freshness
    metrics: Metrics
    credentials: Credentials
    model_loaded: bool
    """The embedding model answered a warm-up before the server listened (``workers.open_workers``)."""


class Guard:
    """A protected route: the SDK's ``RequireAuthMiddleware`` (the one 401), with each refusal counted."""

    def __init__(self, app: ASGIApp, metrics: Metrics, route: str) -> None:
        self.inner = RequireAuthMiddleware(app, required_scopes=[])
        self.metrics = metrics
        self.route = route

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not isinstance(scope.get("user"), AuthenticatedUser):
            self.metrics.refuse(scope.get(REFUSED_KEY, "missing"))
            self.metrics.requests.labels(route=self.route, status="401").inc()
        await self.inner(scope, receive, send)


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=headers)


def _endpoint(state: ServeState, route: str, run: Callable[[Request], Awaitable[Response]]) -> ASGIApp:
    """A /v1 endpoint: bounded body, refusals as JSON errors, one log line and the metrics for each request."""

    async def endpoint(request: Request) -> Response:
        started = time.perf_counter()
        try:
            response = await run(request)
        except InputError as exc:
            response = _error(400, exc.message)
        except Overloaded as exc:
            response = _error(503, f"the server is busy ({exc.why}); retry", {"Retry-After": str(RETRY_AFTER_S)})
            _log("overloaded", "-", started, route=route, why=exc.why)
        except RagcliError as exc:  # a damaged index: the operator's problem, said plainly, the server goes on
            response = _error(500, exc.message)
        except Exception:
            log.exception(json.dumps({"event": route, "ok": False, "error": "internal error"}))
            response = _error(500, INTERNAL)
        seconds = time.perf_counter() - started
        state.metrics.requests.labels(route=route, status=str(response.status_code)).inc()
        state.metrics.latency.labels(route=route).observe(seconds)
        return response

    limited = RequestBodyLimitMiddleware(_as_asgi(endpoint), state.server.max_body_bytes)
    return Guard(limited, state.metrics, route)


def _as_asgi(endpoint: Callable[[Request], Awaitable[Response]]) -> ASGIApp:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        response = await endpoint(Request(scope, receive))
        await response(scope, receive, send)

    return app


async def _read_body(request: Request, limit: int) -> bytes:
    body = await request.body()
    if len(body) > limit:  # a chunked body has no Content-Length for the middleware to check first
        raise InputError(f"the body is larger than {limit} bytes")
    return body


def _v1(
    state: ServeState,
    route: str,
    model: type[SearchRequest] | type[AskRequest],
    work: Callable[..., tuple[str, dict[str, Any]]],
    counted: Callable[[dict[str, Any]], None] | None = None,
) -> Callable[[Request], Awaitable[Response]]:
    """POST /v1/``route``: the principal and its validated body (InputError, in plain words, for a body not
    acceptable), ``work`` on a worker, the route's own metrics from its facts (``counted``) and one log line."""

    async def run(request: Request) -> Response:
        principal = principal_of(request.scope)
        assert principal is not None  # Guard let only authenticated requests in
        s = state.server
        raw = await _read_body(request, s.max_body_bytes)
        body = parse_request(raw, model, max_chars=s.max_query_chars, allow_as_of=s.allow_as_of)
        started = time.perf_counter()
        text, facts = await state.pool.run(lambda w: _timed(work, w, principal, body))
        if counted is not None:
            counted(facts)
        _log(route, principal.tenant, started, **facts)
        return Response(text, media_type="application/json")

    return run


def _dispositions(state: ServeState) -> Callable[[dict[str, Any]], None]:
    """Counts each answer's disposition and reason (the ``ragcli_answers`` counter)."""

    def count(facts: dict[str, Any]) -> None:
        state.metrics.dispositions.labels(disposition=facts["disposition"], reason=facts["reason"]).inc()

    return count


def _timed(work: Callable[..., tuple[str, dict[str, Any]]], *args: Any) -> tuple[str, dict[str, Any]]:
    """``work(*args)`` on the worker, with the time it took there (``work_ms``; ``ms`` adds the wait for a worker)."""
    started = time.perf_counter()
    text, facts = work(*args)
    return text, {**facts, "work_ms": round((time.perf_counter() - started) * 1000, 2)}


def _log(event: str, tenant: str, started: float, **facts: Any) -> None:
    """One JSON line per request: tenant, generation, passage IDs, time; never a query or passage text."""
    ms = round((time.perf_counter() - started) * 1000, 2)
    log.info(json.dumps({"event": event, "tenant": tenant, "ms": ms, **facts}, default=str))


def _healthz(state: ServeState) -> Callable[[Request], Awaitable[Response]]:
    async def healthz(request: Request) -> Response:
        return JSONResponse(
            {
                "status": "ok",
                "model_loaded": state.model_loaded,
                "workers": len(state.pool.workers),
                "queue": state.pool.waiting,
                "tenants": state.freshness.health(),
            }
        )

    return healthz


def _metrics(state: ServeState) -> Callable[[Request], Awaitable[Response]]:
    async def metrics(request: Request) -> Response:
        body, content_type = state.metrics.exposition()
        return Response(body, headers={"Content-Type": content_type})

    return metrics


class _Mcp:
    """``/mcp``: the session manager's ASGI handler, counted like the other routes."""

    def __init__(self, manager: StreamableHTTPSessionManager, metrics: Metrics) -> None:
        self.manager = manager
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        status = {"code": 500}

        async def counted(message: Any) -> None:
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
            await send(message)

        started = time.perf_counter()
        try:
            await self.manager.handle_request(scope, receive, counted)
        finally:
            self.metrics.requests.labels(route="mcp", status=str(status["code"])).inc()
            self.metrics.latency.labels(route="mcp").observe(time.perf_counter() - started)


def transport_security(server: ServerSection, host: str) -> TransportSecuritySettings | None:
    """DNS-rebinding protection for ``/mcp``: the configured hosts, else loopback names on a loopback bind."""
    if server.allowed_hosts:
        return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=list(server.allowed_hosts))
    if host in ("127.0.0.1", "localhost", "::1"):
        return TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
            allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
        )
    return None


def build_app(state: ServeState, *, host: str) -> Starlette:
    manager = StreamableHTTPSessionManager(
        app=build_mcp_server(state.pool, state.metrics),
        json_response=True,
        security_settings=transport_security(state.server, host),
        max_request_body_size=state.server.max_body_bytes,
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with manager.run(), anyio.create_task_group() as tasks:
            tasks.start_soon(state.freshness.run)
            try:
                yield
            finally:
                tasks.cancel_scope.cancel()

    routes = [
        Route(
            "/v1/search", _endpoint(state, "search", _v1(state, "search", SearchRequest, search_on)), methods=["POST"]
        ),
        Route(
            "/v1/ask",
            _endpoint(state, "ask", _v1(state, "ask", AskRequest, ask_on, _dispositions(state))),
            methods=["POST"],
        ),
        Route("/mcp", Guard(_Mcp(manager, state.metrics), state.metrics, "mcp")),
        Route("/healthz", _healthz(state), methods=["GET"]),
        Route("/metrics", _metrics(state), methods=["GET"]),
    ]
    middleware = [
        Middleware(AuthenticationMiddleware, backend=CredentialBackend(state.credentials)),
        Middleware(AuthContextMiddleware),
    ]
    return Starlette(routes=routes, middleware=middleware, lifespan=lifespan)


__all__ = ["ServeState", "build_app"]
