"""``ragcli serve``: one HTTP server for a team (``/v1/search``, ``/v1/ask``, ``/mcp``, ``/healthz``, ``/metrics``);
``ragcli keys add``: an API key for one of its users.

``keys`` is its own command group rather than ``serve keys``: ``serve`` is one command whose options
(``--config`` first) would belong to a group, and the CLI reference lists a group's commands only."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .options import DEFAULT_INDEX, AclOpt, IndexOpt, JsonOpt

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


KEYS_EPILOG = (
    "Example: ragcli keys add alice --tenant acme --group support --config /etc/ragcli/serve.toml; "
    "then: curl -H 'Authorization: Bearer rgk_...' .../v1/search. To revoke a key, delete its [[key]] entry. "
    "See docs/serving.md."
)
keys = typer.Typer(help="API keys of ragcli serve: the [api_keys] file of its configuration.", no_args_is_help=True)


@keys.command("add", epilog=KEYS_EPILOG)
def add_key(
    name: Annotated[str, typer.Argument(metavar="NAME", help="The user the key stands for (ACL entries user:NAME).")],
    tenant: Annotated[
        str,
        typer.Option(
            "--tenant", "-t", metavar="TENANT", help="The key's tenant: one of [server] tenants.", show_default=False
        ),
    ],
    config: Annotated[
        Path,
        typer.Option(
            "--config",
            metavar="FILE",
            help="The server's TOML file; the key goes to its [api_keys] file.",
            show_default=False,
        ),
    ],
    group: Annotated[
        list[str] | None,
        typer.Option("--group", "-g", metavar="GROUP", help="A group the user is in (repeatable).", show_default=False),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Make an API key for user NAME in a tenant, and append its entry to the server's key file.

    The key is printed once, on stdout, and stored nowhere: the file keeps only its SHA-256 and the
    user, tenant and groups it stands for. A running server lets the key in at its next request (the
    file is checked on every request). The file is replaced in one rename, never left half written.
    """
    from ..serve.keys import add_configured_key
    from .console import emit_json, note, plural, write_out

    added = add_configured_key(config, name, tenant, tuple(group or ()))
    if as_json:
        emit_json(added)
        return
    write_out(added.key)  # alone on stdout: KEY=$(ragcli keys add ...)
    groups = f"{plural(len(added.groups), 'group')}: {', '.join(added.groups)}" if added.groups else "no groups"
    note(f"API key for {added.user} in tenant {added.tenant} ({groups}) added to {added.file}; shown only now")
