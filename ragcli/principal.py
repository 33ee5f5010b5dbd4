"""Who is asking: the only source of tenant, user and groups.

A user file stands in for a verified session. Nothing else (query text, model
output, eval questions) can name a tenant or a group.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from .errors import InputError, PrincipalError

TENANT_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,63}$"
_TENANT_RE = re.compile(TENANT_PATTERN)

#: Every principal of a tenant belongs to this group.
EVERYONE = "everyone"

MAX_FIELD_CHARS = 256
MAX_USER_FILE_BYTES = 64 * 1024
MAX_GROUPS = 256


def validate_tenant(name: object) -> str:
    """Return ``name`` if it is a safe tenant name, else raise InputError.

    Tenant names become directory names, so anything that could be a path
    trick (``/``, ``..``, absolute paths, odd characters) is refused here.
    """
    if not isinstance(name, str) or not _TENANT_RE.fullmatch(name):
        shown = repr(name)[:80]
        raise InputError(
            f"invalid tenant name {shown}: use 1-64 characters of a-z, 0-9, '_' or '-', starting with a letter or digit"
        )
    return name


Name = Annotated[str, StringConstraints(min_length=1, max_length=MAX_FIELD_CHARS, strip_whitespace=True)]


class Principal(BaseModel):
    """The person a search or answer is for."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    user: Name
    """User name; ACL entries ``user:NAME`` match it."""
    tenant: str = Field(pattern=TENANT_PATTERN)
    """The tenant whose index is searched; picks the index directory."""
    groups: tuple[Name, ...] = Field(default=(), max_length=MAX_GROUPS)
    """Groups the user belongs to; ``everyone`` is implied."""

    def acl_tokens(self) -> frozenset[str]:
        """The ACL entries this principal matches: its groups, ``everyone`` and ``user:NAME``."""
        return frozenset((*self.groups, EVERYONE, f"user:{self.user}"))


def parse_principal(data: object, *, where: str = "principal") -> Principal:
    """Validate an already-decoded principal object."""
    if not isinstance(data, dict):
        raise PrincipalError(f"{where}: expected a JSON object with user, tenant and groups")
    if "groups" in data and isinstance(data["groups"], list):
        data = {**data, "groups": tuple(data["groups"])}
    try:
        return Principal.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "value"
        raise PrincipalError(f"{where}: field '{field}': {first['msg']}") from None


def load_principal(path: str | Path) -> Principal:
    """Read and validate a user file such as ``{"user": "alice", "tenant": "acme", "groups": ["support"]}``."""
    path = Path(path)
    try:
        if path.exists() and not path.is_file():
            # A pipe or /dev/zero would block or never end.
            raise PrincipalError(f"cannot read user file {path}: not a regular file")
        with path.open("rb") as fh:
            raw = fh.read(MAX_USER_FILE_BYTES + 1)
    except OSError as exc:
        raise InputError(f"cannot read user file {path}: {exc.strerror or exc}") from None
    except ValueError as exc:  # a NUL byte in the path
        raise InputError(f"cannot read user file {path!r}: {exc}") from None
    if len(raw) > MAX_USER_FILE_BYTES:
        raise PrincipalError(f"user file {path} is larger than 64 KiB")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise PrincipalError(f"user file {path} is not valid JSON: {exc}") from None
    return parse_principal(data, where=f"user file {path}")
