"""``ApiKeys``: API keys for teams without an identity provider, kept as SHA-256 hashes bound to principals.

The key file (TOML) stores no key, only its hash and who it stands for::

    [[key]]
    sha256 = "9f2c…"          # hashlib.sha256(KEY.encode()).hexdigest()
    user = "alice"
    tenant = "acme"
    groups = ["support"]

``new_key()`` makes a key (``rgk_`` + 256 random bits) and its entry; the key
is shown once and never written. Keys are random, so a plain SHA-256 is as
strong as a slow hash here, and a lookup costs one hash. Removing an entry
revokes the key: the file is re-read when it changes (checked every request,
one ``stat``).
"""

from __future__ import annotations

import hashlib
import secrets
import threading
from pathlib import Path
from typing import Annotated

from pydantic import ConfigDict, Field, StringConstraints, ValidationError

from ..errors import InputError, plain_validation_message
from ..principal import Principal
from ..record import Record
from .config import as_tuples, file_stamp, read_capped, toml_table
from .refusal import Refused

PREFIX = "rgk_"
"""Every API key starts with it, so a key is never mistaken for a JWT (and a leaked one is easy to grep for)."""
MAX_KEYS_BYTES = 4 * 1024 * 1024


class KeyEntry(Record):
    """One ``[[key]]``: the key's SHA-256 (hex) and the principal it is bound to."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    sha256: Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]
    user: str
    tenant: str
    groups: tuple[str, ...] = Field(default=(), max_length=256)


class KeyFile(Record):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    key: tuple[KeyEntry, ...] = ()


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def new_key(user: str, tenant: str, groups: tuple[str, ...] = ()) -> tuple[str, str]:
    """A fresh key and the ``[[key]]`` entry (TOML) to append to the key file."""
    Principal.model_validate({"user": user, "tenant": tenant, "groups": groups})  # refuse a bad entry now
    key = PREFIX + secrets.token_urlsafe(32)
    groups_toml = ", ".join(f'"{g}"' for g in groups)
    entry = f'[[key]]\nsha256 = "{hash_key(key)}"\nuser = "{user}"\ntenant = "{tenant}"\ngroups = [{groups_toml}]\n'
    return key, entry


class ApiKeys:
    """The key file: hash -> principal, re-read when the file changes."""

    def __init__(self, path: Path, tenants: tuple[str, ...]) -> None:
        self.path = path
        self.tenants = frozenset(tenants)
        self._lock = threading.Lock()
        self._stamp, self._principals = self._read()

    def _read(self) -> tuple[tuple[int, int], dict[str, Principal]]:
        where = f"API key file {self.path}"
        stamp, raw = read_capped(self.path, MAX_KEYS_BYTES, where, "4 MiB")
        data = toml_table(raw, where)
        try:
            entries = KeyFile.model_validate(as_tuples(data)).key
            principals = {
                e.sha256: Principal.model_validate({"user": e.user, "tenant": e.tenant, "groups": e.groups})
                for e in entries
            }
        except ValidationError as exc:
            raise InputError(plain_validation_message(exc, where=where)) from None
        return stamp, principals

    def _fresh(self) -> dict[str, Principal]:
        """The principals, re-read first when the file changed (a removed entry is a revoked key)."""
        with self._lock:
            try:
                if file_stamp(self.path) != self._stamp:
                    self._stamp, self._principals = self._read()
            except (OSError, InputError):
                self._principals = {}  # a key file that went away or broke lets nobody in, never the old keys
            return self._principals

    def principal(self, key: str) -> Principal:
        # A lookup by the key's hash: what a timing difference could reveal is the hash's, not the key's.
        found = self._fresh().get(hash_key(key))
        if found is None:
            raise Refused("unknown_key")
        if found.tenant not in self.tenants:
            raise Refused("tenant")
        return found


__all__ = ["PREFIX", "ApiKeys", "KeyEntry", "hash_key", "new_key"]
