"""``JwtVerifier``: an OpenID Connect / OAuth 2 bearer token (JWT) -> the ``Principal`` it names, or ``Refused``.

Every check is PyJWT's (``jwt.decode`` with the allowed algorithms, audience,
issuer, required claims and a leeway); this module picks the key and maps the
claims. The key comes from the JWKS by ``kid``: a file (re-read when a token
names a kid it lacks and the file changed) or the issuer's URL through
``PyJWKClient`` (cached for ``jwks_cache_s``, refetched on an unknown kid at
most once per ``jwks_refresh_s``). Only asymmetric algorithms from the
configured list are accepted, so neither ``alg: none`` nor an HMAC "signed"
with the public key can pass, and the header's ``alg`` must also be the key's
(its JWK ``alg``, else the one its type implies: RS256 for RSA, ES256 for P-256).
"""

from __future__ import annotations

import ipaddress
import json
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from pydantic import ValidationError

from ..errors import InputError
from ..principal import Principal
from .config import ASYMMETRIC, OidcSection, file_stamp, read_capped, resolve_path
from .refusal import MAX_TOKEN_CHARS, Reason, Refused

if TYPE_CHECKING:
    import jwt

MAX_JWKS_BYTES = 1024 * 1024
REQUIRED_CLAIMS = ["exp", "iss", "aud"]


class JwtVerifier:
    """Verifies tokens for one ``[oidc]`` section; thread-safe (PyJWT's client locks, the file source too)."""

    def __init__(self, oidc: OidcSection, base: Path, tenants: tuple[str, ...]) -> None:
        self.oidc = oidc
        self.tenants = frozenset(tenants)
        self.allowed = tuple(a for a in oidc.algorithms if a in ASYMMETRIC)
        self.fetches = oidc.jwks.startswith(("https://", "http://"))
        """Whether keys come over the network (a verification may wait for a fetch)."""
        self.keys: _FileKeys | _UrlKeys = _UrlKeys(oidc) if self.fetches else _FileKeys(resolve_path(base, oidc.jwks))

    def verified(self, token: str) -> tuple[Principal, int]:
        """The principal the token names and its ``exp``; ``Refused`` (with the failed check) when it is not
        acceptable."""
        import jwt

        if len(token) > MAX_TOKEN_CHARS:
            raise Refused("too_long")
        try:
            header = jwt.get_unverified_header(token)
        except jwt.InvalidTokenError:
            raise Refused("malformed") from None
        alg, kid = header.get("alg"), header.get("kid")
        if alg not in self.allowed:
            raise Refused("algorithm")
        if not isinstance(kid, str) or not kid or len(kid) > 256:
            raise Refused("unknown_kid")
        key = self.keys.key(kid)
        claims = self._decode(token, key, alg)
        return self._principal(claims), int(claims["exp"])

    def _decode(self, token: str, key: jwt.PyJWK, alg: str) -> dict[str, Any]:
        import jwt

        try:
            return jwt.decode(
                token,
                key=key,  # a PyJWK: PyJWT verifies with the key's own algorithm and refuses a header naming another
                algorithms=[alg],
                audience=self.oidc.audience,
                issuer=self.oidc.issuer,
                leeway=self.oidc.leeway_s,
                options={"require": REQUIRED_CLAIMS, "verify_signature": True, "strict_aud": False},
            )
        except jwt.InvalidTokenError as exc:
            raise Refused(_reason(exc)) from None

    def _principal(self, claims: dict[str, Any]) -> Principal:
        """User, groups and tenant from the configured claims; the groups claim must be a list of strings."""
        o = self.oidc
        user = claims.get(o.user_claim)
        groups = claims.get(o.groups_claim, [])
        tenant = o.tenant if o.tenant is not None else claims.get(o.tenant_claim or "")
        if not isinstance(user, str) or not isinstance(groups, list) or not all(isinstance(g, str) for g in groups):
            raise Refused("claims")  # "groups": "admins" is one string, not a list: never read as characters
        if not isinstance(tenant, str) or tenant not in self.tenants:
            raise Refused("tenant")
        try:
            return Principal.model_validate({"user": user, "tenant": tenant, "groups": tuple(groups)})
        except ValidationError:
            raise Refused("claims") from None


def _reason(exc: jwt.InvalidTokenError) -> Reason:
    """The check a token PyJWT refused failed: its most specific error class (subclasses first), else malformed."""
    import jwt

    checks: tuple[tuple[type[jwt.InvalidTokenError], Reason], ...] = (
        (jwt.ExpiredSignatureError, "expired"),
        (jwt.ImmatureSignatureError, "not_yet_valid"),
        (jwt.InvalidAudienceError, "audience"),
        (jwt.InvalidIssuerError, "issuer"),
        (jwt.InvalidSignatureError, "signature"),
        (jwt.InvalidAlgorithmError, "algorithm"),
        (jwt.MissingRequiredClaimError, "claims"),
    )
    return next((reason for kind, reason in checks if isinstance(exc, kind)), "malformed")


class _FileKeys:
    """A JWKS file, read at start (an unreadable one stops the server) and again when an unknown kid comes
    and the file changed (a rotated key is picked up without a restart)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._stamp, self._keys = self._read()

    def _read(self) -> tuple[tuple[int, int], dict[str, jwt.PyJWK]]:
        where = f"JWKS file {self.path}"
        stamp, raw = read_capped(self.path, MAX_JWKS_BYTES, where, "1 MiB")
        return stamp, _key_set(raw, where=where)

    def key(self, kid: str) -> jwt.PyJWK:
        with self._lock:
            found = self._keys.get(kid)
            if found is None:
                try:
                    if file_stamp(self.path) != self._stamp:
                        self._stamp, self._keys = self._read()
                except (OSError, InputError):
                    raise Refused("jwks_unavailable") from None
                found = self._keys.get(kid)
        if found is None:
            raise Refused("unknown_kid")
        return found


class _UrlKeys:
    """The issuer's JWKS URL through PyJWT's ``PyJWKClient`` (its cache, lock and refresh cooldown)."""

    def __init__(self, oidc: OidcSection) -> None:
        import jwt

        _check_url(oidc.jwks)
        self.client = jwt.PyJWKClient(
            oidc.jwks,
            cache_jwk_set=True,
            lifespan=oidc.jwks_cache_s,
            cooldown_duration=oidc.jwks_refresh_s,
            timeout=5,
        )

    def key(self, kid: str) -> jwt.PyJWK:
        import jwt

        try:
            return self.client.get_signing_key(kid)
        except jwt.PyJWKClientConnectionError:
            raise Refused("jwks_unavailable") from None
        except jwt.PyJWKClientError as exc:
            raise Refused("unknown_kid" if "matches" in str(exc) else "jwks_unavailable") from None
        except jwt.PyJWKSetError:
            raise Refused("jwks_unavailable") from None


def _check_url(url: str) -> None:
    """https:// for a real issuer; plain http:// only to a loopback address (a test's own JWKS server)."""
    parts = urlsplit(url)
    if parts.scheme == "https" and parts.hostname:
        return
    try:
        loopback = parts.scheme == "http" and ipaddress.ip_address(parts.hostname or "").is_loopback
    except ValueError:
        loopback = parts.hostname == "localhost"
    if not loopback:
        raise InputError(f"[oidc] jwks {url[:200]!r}: use an https:// URL (http:// is accepted for loopback only)")


def _key_set(raw: bytes, *, where: str) -> dict[str, jwt.PyJWK]:
    """kid -> key of a JWKS document's signing keys (each ``alg`` from the key's ``alg`` or its type)."""
    import jwt

    try:
        data = json.loads(raw.decode("utf-8"))
        keys = jwt.PyJWKSet.from_dict(data).keys
    except (UnicodeDecodeError, json.JSONDecodeError, jwt.PyJWKSetError, jwt.InvalidKeyError, KeyError) as exc:
        raise InputError(f"{where} is not a usable JWK set: {exc}") from None
    return {k.key_id: k for k in keys if k.key_id and k.public_key_use in ("sig", None)}


__all__ = ["JwtVerifier"]
