"""``ragcli serve``: one HTTP server for a team, with identities it verifies and an index that stays fresh.

    config        ``ServeConfig``: the TOML file ([server], [oidc], [api_keys]), validated strictly
    refusal       ``Refused`` and its reason codes (counted in /metrics, never told to the client)
    tokens        ``JwtVerifier``: a JWT checked with the issuer's JWKS -> a ``Principal``
    keys          ``ApiKeys``: hashed API keys bound to principals; ``new_key``, ``add_key`` (``ragcli keys add``)
    credentials   ``Credentials`` (the MCP SDK's TokenVerifier) and Starlette's authentication backend
    metrics       ``Metrics``: the Prometheus counters, histograms and gauges of /metrics
    workers       ``Worker``: its own ``Retriever`` (generation pinned per request) and answer backend
    limits        ``Pool``: bounded workers off the event loop, a bounded queue, 503 past it, a deadline
    freshness     ``Freshness``: polls each tenant's CURRENT, moves idle workers to a new generation
    api           POST /v1/search and /v1/ask: request models and the CLI's --json objects
    mcp_http      /mcp: the MCP tools of ``ragcli mcp`` over Streamable HTTP, principal per request
    app           ``build_app``: the Starlette routes, middleware and lifespan
    runner        ``run``: open and check everything, then serve with uvicorn until SIGTERM or Ctrl-C

``ragcli.serve`` sits at the top beside ``ragcli.cli`` and ``ragcli.mcp``:
it reuses ``ragcli.mcp``'s tools and ``Service`` and imports nothing of the CLI.
Imports are lazy: Starlette, uvicorn, PyJWT and the SDK load when a server starts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import export_names, lazy_exports

if TYPE_CHECKING:  # the exports, once: "X as X" for type checkers, read by ``lazy`` for the runtime
    from .config import ServeConfig as ServeConfig
    from .config import load_config as load_config
    from .keys import new_key as new_key
    from .runner import run as run

__all__ = export_names(__file__)


__getattr__ = lazy_exports(__name__, __file__)
