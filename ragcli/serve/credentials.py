"""``Credentials``: a request's ``Authorization: Bearer`` header -> the ``Principal`` it proves, once per request.

The principal comes from the credential alone (a verified JWT's claims, or
the entry an API key's hash is bound to), never from the body, a query
parameter or a header the client can write freely. ``Credentials`` is the
MCP SDK's ``TokenVerifier``; ``CredentialBackend`` is Starlette's
``AuthenticationBackend`` that calls it and puts the SDK's
``AuthenticatedUser`` on the request, so the SDK's ``AuthContextMiddleware``,
``RequireAuthMiddleware`` and Streamable HTTP session ownership all apply
to ``/mcp`` and ``/v1`` alike. A refusal's reason goes in the ASGI scope,
for ``/metrics``; the client gets the one 401 whatever it was.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio.to_thread
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from starlette.authentication import AuthCredentials, AuthenticationBackend
from starlette.requests import HTTPConnection

from ..principal import Principal
from ..record import Record
from .config import ServeConfig, resolve_path
from .keys import PREFIX, ApiKeys
from .refusal import MAX_TOKEN_CHARS, Refused
from .tokens import JwtVerifier

log = logging.getLogger("ragcli.serve")
REFUSED_KEY = "ragcli.refused"
"""Where the backend leaves the reason of a refusal in the ASGI scope."""
API_KEY_ISSUER = "ragcli:api-key"


class PrincipalToken(AccessToken, Record):
    """The SDK's ``AccessToken`` carrying the principal it proved (not shown to clients); a ``Record`` as every
    ragcli model, so its validator is built on first use, not at import."""

    principal: Principal


class Credentials:
    """The server's ways in: JWTs from ``[oidc]``, API keys from ``[api_keys]``."""

    def __init__(self, config: ServeConfig, base: Path) -> None:
        tenants = config.server.tenants
        self.jwt = JwtVerifier(config.oidc, base, tenants) if config.oidc is not None else None
        self.keys = ApiKeys(resolve_path(base, config.api_keys.file), tenants) if config.api_keys else None
        self.issuer = config.oidc.issuer if config.oidc is not None else None
        self.may_block = self.jwt is not None and self.jwt.fetches
        """Whether a check may wait on the network (a JWKS URL): then it runs on a thread, else on the event loop
        (a signature check is ~0.1 ms, less than the hop to a thread and back)."""

    def check(self, token: str) -> PrincipalToken:
        """The verified token; ``Refused`` with the failed check."""
        if len(token) > MAX_TOKEN_CHARS:
            raise Refused("too_long")
        if token.startswith(PREFIX):
            if self.keys is None:
                raise Refused("unknown_key")
            principal = self.keys.principal(token)
            return _token(token, principal, API_KEY_ISSUER, expires_at=None)
        if self.jwt is None:
            raise Refused("malformed")
        principal, expires_at = self.jwt.verified(token)
        return _token(token, principal, self.issuer, expires_at=expires_at)

    async def verified(self, token: str) -> PrincipalToken:
        """``check``, on a thread when it may wait on the network."""
        if self.may_block:
            return await anyio.to_thread.run_sync(self.check, token)
        return self.check(token)

    async def verify_token(self, token: str) -> AccessToken | None:
        """The SDK's ``TokenVerifier``: the token, or None when refused (the reason is in ``authenticate``)."""
        try:
            return await self.verified(token)
        except Refused:
            return None


def _token(raw: str, principal: Principal, issuer: str | None, *, expires_at: int | None) -> PrincipalToken:
    # (client, issuer, subject) is what the SDK binds an MCP session to: a session opened with one principal's
    # credential cannot be used with another's.
    return PrincipalToken(
        token=raw,
        client_id=f"{principal.tenant}/{principal.user}",
        scopes=[],
        expires_at=expires_at,
        subject=principal.user,
        claims={"iss": issuer},
        principal=principal,
    )


class CredentialBackend(AuthenticationBackend):
    """Starlette's authentication step: a verified ``AuthenticatedUser`` or nobody (and why, in the scope)."""

    def __init__(self, credentials: Credentials) -> None:
        self.credentials = credentials

    async def authenticate(self, conn: HTTPConnection) -> tuple[AuthCredentials, AuthenticatedUser] | None:
        header = conn.headers.get("authorization")
        if header is None:
            return None  # counted as "missing" where a credential was needed (not on /healthz, /metrics)
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            conn.scope[REFUSED_KEY] = "malformed"
            return None
        try:
            verified = await self.credentials.verified(token.strip())
        except Refused as refusal:
            conn.scope[REFUSED_KEY] = refusal.reason
            return None
        except Exception:  # a verifier bug must refuse, never let in and never be a traceback to the client
            log.exception(json.dumps({"event": "credential", "ok": False}))
            conn.scope[REFUSED_KEY] = "malformed"
            return None
        return AuthCredentials([]), AuthenticatedUser(verified)


def principal_of(scope: Mapping[str, Any]) -> Principal | None:
    """The principal the request's credential proved, or None."""
    user = scope.get("user")
    if isinstance(user, AuthenticatedUser) and isinstance(user.access_token, PrincipalToken):
        return user.access_token.principal
    return None


__all__ = ["REFUSED_KEY", "CredentialBackend", "Credentials", "PrincipalToken", "principal_of"]
