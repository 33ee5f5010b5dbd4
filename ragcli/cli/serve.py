"""``ragcli serve``: one HTTP server for a team (``/v1/search``, ``/v1/ask``, ``/mcp``, ``/healthz``, ``/metrics``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .options import DEFAULT_INDEX, AclOpt, IndexOpt

EPILOG = (
    "Example: ragcli serve --config /etc/ragcli/serve.toml --port 8765; "
    "then: curl -H 'Authorization: Bearer TOKEN' -d '{\"query\": \"refund annual plan\"}' "
    "http://127.0.0.1:8765/v1/search. See docs/serving.md."
)


def serve(
    config: Annotated[
        Path,
        typer.Option(
            "--config",
            metavar="FILE",
            help="The server's TOML file: [server] tenants and bounds, [oidc] issuer/audience/jwks/claims, "
            "[api_keys] file.",
            show_default=False,
        ),
    ],
    host: Annotated[
        str, typer.Option("--host", metavar="ADDRESS", help="Address to listen on (0.0.0.0: every interface).")
    ] = "127.0.0.1",
    port: Annotated[
        int, typer.Option("--port", metavar="PORT", help="Port to listen on (0: any free port).", min=0, max=65535)
    ] = 8765,
    index: IndexOpt = DEFAULT_INDEX,
    watch: Annotated[
        Path | None,
        typer.Option(
            "--watch",
            metavar="DIR",
            help="Also ingest DIR into --tenant now and after every change, in this process (as ragcli watch).",
            show_default=False,
        ),
    ] = None,
    tenant: Annotated[
        str | None,
        typer.Option("--tenant", "-t", metavar="TENANT", help="The tenant --watch ingests into.", show_default=False),
    ] = None,
    acl: AclOpt = None,
) -> None:
    """Serve search, ask and MCP over HTTP to everyone the configuration lets in.

    Each request's user, tenant and groups come from its bearer token (a JWT
    verified with the issuer's keys, or an API key), never from the request.
    A newly published generation is served within [server] poll_s. Logs one
    JSON line per request on stderr, passage IDs only. Stops cleanly on
    SIGTERM or Ctrl-C (exit 0); exit 2 on a bad configuration or index.
    """
    from ..errors import InputError
    from ..principal import validate_tenant
    from ..serve.runner import WatchSpec, run

    if (watch is None) != (tenant is None):
        raise InputError("--watch DIR and --tenant TENANT go together: the folder to ingest and the tenant it is for")
    spec = WatchSpec(watch, validate_tenant(tenant), tuple(acl or ())) if watch is not None and tenant else None
    run(config, host=host, port=port, index=index, watch=spec)
