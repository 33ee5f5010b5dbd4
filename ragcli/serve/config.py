"""``ServeConfig``: the one TOML file a server runs from, validated strictly (unknown keys are errors).

    [server]     tenants served, workers, queue, bounds, deadline, freshness poll, answer model, as-of policy
    [oidc]       OpenID Connect / OAuth 2 bearer tokens (JWT): issuer, audience, JWKS, algorithms, claim mapping
    [api_keys]   a file of API-key hashes, each bound to a principal (teams without an identity provider)

At least one of ``[oidc]`` and ``[api_keys]`` must be given: a server that
would accept nobody is a mistake, and one that accepts anybody is not offered.
Relative paths are read relative to the configuration file.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Annotated, Literal

from pydantic import ConfigDict, Field, StringConstraints, ValidationError, model_validator

from ..errors import InputError, os_reason, plain_validation_message
from ..principal import TenantName
from ..record import Record

MAX_CONFIG_BYTES = 256 * 1024
ASYMMETRIC = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA")
"""The algorithms a token may be signed with: public-key ones only (no ``none``, no HS* shared secrets)."""
Algorithm = Literal["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"]
Claim = Annotated[str, StringConstraints(min_length=1, max_length=128)]


class ServerSection(Record):
    """``[server]``: what is served and the bounds every request runs under."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    tenants: tuple[TenantName, ...] = Field(min_length=1, max_length=256)
    """The tenants this server answers for; a credential naming another tenant is refused like a bad one."""
    workers: int = Field(default=2, ge=1, le=64)
    """Requests that run at once (each on its own thread with its own open index); a CPU core each."""
    queue: int = Field(default=16, ge=0, le=10_000)
    """Requests that may wait for a worker; past it the server answers 503 with Retry-After."""
    max_body_bytes: int = Field(default=64 * 1024, ge=1024, le=16 * 1024 * 1024)
    max_query_chars: int = Field(default=2000, ge=16, le=10_000)
    """The longest query or question accepted (search reads the first 1,000 characters, as the CLI does)."""
    deadline_s: float = Field(default=30.0, gt=0, le=600)
    """A request that has not started within this is refused (503); an ask's own time limit is capped to it."""
    poll_s: float = Field(default=0.5, gt=0, le=60)
    """How often each tenant's CURRENT pointer is read: a newly published generation is served within this."""
    model: str = "local"
    """The answer model of ``/v1/ask`` and the ``ask`` tool, as ``ragcli ask --model`` names it."""
    allow_as_of: bool = False
    """Whether a request may set ``as_of`` (a past day's versions); off: every request is as of today."""
    allowed_hosts: tuple[str, ...] = ()
    """``Host`` values ``/mcp`` accepts (DNS-rebinding protection, ``host:*`` for any port); empty: loopback
    names when bound to a loopback address, else any (a reverse proxy in front checks)."""


class OidcSection(Record):
    """``[oidc]``: bearer tokens from an identity provider, verified with its published keys."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    issuer: Annotated[str, StringConstraints(min_length=1, max_length=1000)]
    audience: Annotated[str, StringConstraints(min_length=1, max_length=1000)]
    jwks: Annotated[str, StringConstraints(min_length=1, max_length=2000)]
    """A JWKS file, or the issuer's JWKS URL (https://; http:// only on a loopback address, for tests)."""
    algorithms: tuple[Algorithm, ...] = Field(default=("RS256",), min_length=1)
    user_claim: Claim = "sub"
    groups_claim: Claim = "groups"
    tenant_claim: Claim | None = None
    tenant: TenantName | None = None
    """One tenant for every token (instead of ``tenant_claim``)."""
    leeway_s: int = Field(default=30, ge=0, le=300)
    """Clock skew allowed on ``exp`` and ``nbf``."""
    jwks_cache_s: int = Field(default=300, ge=1, le=86_400)
    """How long fetched keys are kept; a token with an unknown ``kid`` refetches sooner (``jwks_refresh_s``)."""
    jwks_refresh_s: int = Field(default=30, ge=0, le=3600)
    """The least time between two fetches caused by unknown ``kid`` values (a flood of made-up kids
    costs one fetch per this)."""

    @model_validator(mode="after")
    def _one_tenant_rule(self) -> OidcSection:
        if (self.tenant_claim is None) == (self.tenant is None):
            raise ValueError("give exactly one of tenant_claim (a claim naming the tenant) or tenant (one for all)")
        return self


class ApiKeysSection(Record):
    """``[api_keys]``: a file that stores only the SHA-256 of each key, each bound to a principal (``keys``)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    file: Annotated[str, StringConstraints(min_length=1, max_length=2000)]


class ServeConfig(Record):
    """The whole configuration file."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    server: ServerSection
    oidc: OidcSection | None = None
    api_keys: ApiKeysSection | None = None

    @model_validator(mode="after")
    def _some_credential(self) -> ServeConfig:
        if self.oidc is None and self.api_keys is None:
            raise ValueError("give [oidc], [api_keys] or both: with neither, no request could be let in")
        if self.oidc is not None and self.oidc.tenant is not None and self.oidc.tenant not in self.server.tenants:
            raise ValueError(f"[oidc] tenant {self.oidc.tenant!r} is not one of [server] tenants")
        return self


def read_capped(path: Path, limit: int, where: str, limit_text: str) -> tuple[tuple[int, int], bytes]:
    """A server-side file's (mtime, size) stamp and its bytes, at most ``limit`` of them: a file the server
    cannot read, or one over the limit, is one ``error:`` line naming ``where``."""
    try:
        stamp = file_stamp(path)
        with path.open("rb") as fh:
            raw = fh.read(limit + 1)
    except OSError as exc:
        raise InputError(f"cannot read {where}: {os_reason(exc)}") from None
    if len(raw) > limit:
        raise InputError(f"{where} is larger than {limit_text}")
    return stamp, raw


def file_stamp(path: Path) -> tuple[int, int]:
    """What tells that a server-side file changed (its modification time and size); OSError when it is gone."""
    stat = path.stat()
    return stat.st_mtime_ns, stat.st_size


def toml_table(raw: bytes, where: str) -> dict[str, object]:
    """``raw`` read as UTF-8 TOML; anything else is one ``error:`` line naming ``where``."""
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise InputError(f"{where} is not valid TOML: {exc}") from None


def load_config(path: str | Path) -> tuple[ServeConfig, Path]:
    """Read and validate the configuration file; the directory relative paths in it start from.

    InputError, naming the file and the key, when it cannot be read or is not valid.
    """
    path = Path(path)
    where = f"config file {path}"
    if path.exists() and not path.is_file():
        raise InputError(f"cannot read {where}: not a regular file")
    _, raw = read_capped(path, MAX_CONFIG_BYTES, where, "256 KiB")
    data = toml_table(raw, where)
    try:
        config = ServeConfig.model_validate(as_tuples(data))
    except ValidationError as exc:
        raise InputError(plain_validation_message(exc, where=where, known_fields=_known_fields(exc))) from None
    return config, path.resolve().parent


def as_tuples(value: object) -> object:
    """TOML arrays are lists; strict validation of the frozen models wants tuples."""
    if isinstance(value, dict):
        return {k: as_tuples(v) for k, v in value.items()}
    if isinstance(value, list):
        return tuple(as_tuples(v) for v in value)
    return value


def _known_fields(exc: ValidationError) -> list[str]:
    """The keys of the table the first error is in, for a "did you mean" hint."""
    loc = exc.errors(include_url=False)[0]["loc"]
    tables: dict[str, type[Record]] = {"server": ServerSection, "oidc": OidcSection, "api_keys": ApiKeysSection}
    table = tables.get(str(loc[0])) if len(loc) > 1 else None
    return list((table or ServeConfig).model_fields)


def resolve_path(base: Path, value: str) -> Path:
    """A path from the configuration, relative to the file's directory unless absolute."""
    path = Path(value).expanduser()
    return path if path.is_absolute() else base / path


__all__ = [
    "ASYMMETRIC",
    "ApiKeysSection",
    "OidcSection",
    "ServeConfig",
    "ServerSection",
    "as_tuples",
    "load_config",
    "resolve_path",
]
