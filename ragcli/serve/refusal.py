"""``Refused``: why a credential was not accepted, as a reason code for ``/metrics`` and the log only.

The client never learns the reason: every refusal gets the same 401 and the
same body (``app``), so a caller probing with forged tokens learns nothing
about which check failed. The operator sees the counts per reason.
"""

from __future__ import annotations

from typing import Literal

Reason = Literal[
    "missing",
    "too_long",
    "malformed",
    "algorithm",
    "unknown_kid",
    "jwks_unavailable",
    "signature",
    "expired",
    "not_yet_valid",
    "audience",
    "issuer",
    "claims",
    "tenant",
    "unknown_key",
]
REASONS: tuple[Reason, ...] = Reason.__args__  # type: ignore[attr-defined]

MAX_TOKEN_CHARS = 8192
"""A bearer token longer than this is refused before any parsing (an ID token is well under 2 KiB)."""


class Refused(Exception):
    """A credential not accepted, and the check it failed."""

    def __init__(self, reason: Reason) -> None:
        super().__init__(reason)
        self.reason: Reason = reason


__all__ = ["MAX_TOKEN_CHARS", "REASONS", "Reason", "Refused"]
