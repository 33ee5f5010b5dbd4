"""``ApiKeys``: API keys for teams without an identity provider, kept as SHA-256 hashes bound to principals.

The key file (TOML) stores no key, only its hash and who it stands for::

    [[key]]
    sha256 = "9f2c…"          # hashlib.sha256(KEY.encode()).hexdigest()
    user = "alice"
    tenant = "acme"
    groups = ["support"]

``new_key()`` makes a key (``rgk_`` + 256 random bits) and its entry; the key
is shown once and never written. ``add_key()`` (``ragcli keys add``) appends
the entry to a key file that still reads as one, replacing the file in one
rename under a lock, so the server never reads half of it and two adds at
once both land. Keys are random, so a plain SHA-256 is as
strong as a slow hash here, and a lookup costs one hash. Removing an entry
revokes the key: the file is re-read when it changes (checked every request,
one ``stat``).
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import threading
from pathlib import Path
from typing import Annotated

from pydantic import ConfigDict, Field, StringConstraints, ValidationError

from ..errors import InputError, os_reason, plain_validation_message
from ..principal import Principal
from ..record import Record
from .config import as_tuples, file_stamp, load_config, read_capped, resolve_path, toml_table
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
    try:  # refuse a bad entry now, not when the server reads the file; write the names as the server will read them
        p = Principal.model_validate({"user": user, "tenant": tenant, "groups": groups})
    except ValidationError as exc:
        raise InputError(plain_validation_message(exc, where="API key")) from None
    user, tenant, groups = p.user, p.tenant, p.groups
    key = PREFIX + secrets.token_urlsafe(32)
    # JSON strings are TOML basic strings: a quote or a backslash in a name is escaped, never the end of it.
    groups_toml = ", ".join(json.dumps(g, ensure_ascii=False) for g in groups)
    entry = (
        f'[[key]]\nsha256 = "{hash_key(key)}"\nuser = {json.dumps(user, ensure_ascii=False)}\n'
        f"tenant = {json.dumps(tenant, ensure_ascii=False)}\ngroups = [{groups_toml}]\n"
    )
    return key, entry


def add_key(path: Path, user: str, tenant: str, groups: tuple[str, ...] = ()) -> tuple[str, str]:
    """A fresh key for (user, tenant, groups), its entry appended to the key file at ``path`` (made if absent):
    the key (shown once, stored nowhere) and its SHA-256. InputError when the file cannot be read or written."""
    import fcntl

    key, entry = new_key(user, tenant, groups)
    where = f"API key file {path}"
    try:
        folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as exc:
        raise InputError(f"cannot open the folder of {where}: {os_reason(exc)}") from None
    try:
        fcntl.flock(folder, fcntl.LOCK_EX)  # another add waits: each reads the file the other wrote
        old = _key_file_text(path, where)
        _replace(path, old + ("\n" if old else "") + entry, where)
    finally:
        os.close(folder)
    return key, hash_key(key)


class AddedKey(Record):
    """A key ``ragcli keys add`` made (``--json``): the key itself is in this output and nowhere else."""

    key: str
    """The API key (``rgk_...``): give it to the user; the key file keeps only its SHA-256."""
    sha256: str
    user: str
    tenant: str
    groups: tuple[str, ...]
    file: str
    """The key file the entry was appended to."""


def add_configured_key(config: Path, user: str, tenant: str, groups: tuple[str, ...] = ()) -> AddedKey:
    """A key for a user of the server ``config`` describes, appended to its ``[api_keys] file``; the tenant must be
    one it serves (else the server would refuse the key)."""
    settings, base = load_config(config)
    if settings.api_keys is None:
        raise InputError(f'config file {config} has no [api_keys] section: add one, e.g. [api_keys] file = "keys.toml"')
    served = settings.server.tenants
    if tenant not in served:
        raise InputError(f"tenant {tenant!r} is not served by {config}: [server] tenants are {', '.join(served)}")
    path = resolve_path(base, settings.api_keys.file)
    key, sha256 = add_key(path, user, tenant, groups)
    p = ApiKeys(path, served).principal(key)  # read back as the server reads it: the entry says what it will
    return AddedKey(key=key, sha256=sha256, user=p.user, tenant=p.tenant, groups=p.groups, file=str(path))


def _key_file_text(path: Path, where: str) -> str:
    """The key file as it is ("" when there is none), refused unless it reads as a key file: an entry appended
    to a broken one would not let its key in either."""
    if not path.exists():
        return ""
    _, raw = read_capped(path, MAX_KEYS_BYTES, where, "4 MiB")
    try:
        KeyFile.model_validate(as_tuples(toml_table(raw, where)))
    except ValidationError as exc:
        raise InputError(plain_validation_message(exc, where=where)) from None
    text = raw.decode("utf-8")
    return text if not text or text.endswith("\n") else text + "\n"


def _replace(path: Path, text: str, where: str) -> None:
    """``path`` holds ``text`` after one rename (written aside, fsynced); an existing file's mode is kept."""
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o600  # hashes only, but nobody else's business
    aside = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        fd = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(aside, mode)  # the umask narrowed the mode os.open was given
        os.replace(aside, path)
    except OSError as exc:
        aside.unlink(missing_ok=True)
        raise InputError(f"cannot write {where}: {os_reason(exc)}; it is unchanged") from None


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


__all__ = ["PREFIX", "AddedKey", "ApiKeys", "KeyEntry", "add_configured_key", "add_key", "hash_key", "new_key"]
