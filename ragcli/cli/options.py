"""Options every command shares, and the one place a CLI request's scope is resolved."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from ..principal import Scope

IndexOpt = Annotated[
    Path | None,
    typer.Option(
        "--index",
        metavar="DIR",
        help="Index directory (one subfolder per tenant). Found like git finds a repository: --index, else "
        "$RAGCLI_INDEX, else the nearest .ragcli folder here or in a parent folder, else the per-user data "
        "directory (~/.local/share/ragcli/index on Linux).",
        show_default=False,
    ),
]
JsonOpt = Annotated[
    bool, typer.Option("--json", help="Print one JSON object on stdout (for scripts).", show_default=False)
]
AsOpt = Annotated[
    Path,
    typer.Option(
        "--as",
        metavar="USER.json",
        help='User file: {"user", "tenant", "groups"}. The only source of tenant and groups.',
        show_default=False,
    ),
]
TenantOpt = Annotated[
    str,
    typer.Option(
        "--tenant", "-t", metavar="TENANT", help="Tenant to ingest into (a-z, 0-9, '_', '-').", show_default=False
    ),
]
AclOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--acl",
        metavar="GROUP",
        help="ACL group for documents that name none (repeatable). 'everyone' = all users of the tenant.",
        show_default=False,
    ),
]
MaxFileSizeOpt = Annotated[
    int, typer.Option("--max-file-size", metavar="MiB", help="Reject files larger than this many MiB.", min=1)
]
RAY_INSTALL = "pip install 'ragcli[ray]'"  # as ingestion.ray_embed says it (importing that would slow --help)
RayOpt = Annotated[
    bool,
    typer.Option(
        "--ray",
        help=f"Embed new passages on Ray: a local Ray instance with this machine's CPUs, or the cluster of "
        f"--ray-address. Needs {RAY_INSTALL}.",
        show_default=False,
    ),
]
RayAddressOpt = Annotated[
    str | None,
    typer.Option(
        "--ray-address",
        metavar="ADDRESS",
        help="Embed on a running Ray cluster: auto (the one this machine joined with ray start) or HEAD:6379; "
        "implies --ray.",
        show_default=False,
    ),
]
KeepOnErrorOpt = Annotated[
    bool,
    typer.Option(
        "--keep-on-error",
        help="Keep the indexed version of a document whose file is rejected now (a warning each), instead of "
        "withdrawing it: the rejected version may have narrowed who may read it.",
    ),
]
SharedIndexOpt = Annotated[
    bool,
    typer.Option(
        "--allow-shared-index",
        help="Allow an index directory others may write (a team's group-owned folder); files are then created "
        "with your umask (use umask 007) instead of owner-only.",
    ),
]
AsOfOpt = Annotated[
    str | None,
    typer.Option(
        "--as-of", metavar="YYYY-MM-DD", help="Date for document validity. Default: today.", show_default=False
    ),
]

DEFAULT_INDEX = None
"""No --index: the index is located (see ``settings.locate_index``)."""


def resolve_scope(as_file: Path, as_of: str | None) -> Scope:
    """The principal from the user file, on the ``--as-of`` day (today by default)."""
    from ..dates import parse_iso_date
    from ..errors import InputError
    from ..principal import Scope, load_principal

    principal = load_principal(as_file)
    try:
        day = parse_iso_date(as_of) if as_of is not None else None
    except ValueError:
        raise InputError(f"--as-of {as_of!r} is not a date: use YYYY-MM-DD") from None
    return Scope.of(principal, day)
