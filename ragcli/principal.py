"""Who is asking, and as of when: the only source of tenant, user and groups.

A user file stands in for a verified session. Nothing else (query text, model
output, eval questions) can name a tenant or a group. A ``Scope`` (principal
plus as-of date) is built once where a request enters (the CLI, an eval case,
a library call) and is what every read of the index is opened for.

Validity dates choose which version of a document is in force; they are not a
confidentiality control (an embargo needs an ACL). A user file may still bound
the dates its holder may ask about (``"as_of": {"max": "today"}``): a Scope
outside the bound cannot be built, whichever way the date came in.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Annotated, Literal

from . import dates
from .checked import After, Before, Checked, Size, Strict, Text, field_names
from .errors import DuplicateKey, InputError, PrincipalError, os_reason, plain_validation_message, strict_json

TENANT_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,63}$"
_TENANT_RE = re.compile(TENANT_PATTERN)
TENANT_RULE = "use 1-64 characters of a-z, 0-9, '_' or '-', starting with a letter or digit"

#: Every principal of a tenant belongs to this group.
EVERYONE = "everyone"

MAX_FIELD_CHARS = 256
MAX_USER_FILE_BYTES = 64 * 1024
MAX_GROUPS = 256


def _tenant_rule(name: str) -> str:
    if not _TENANT_RE.fullmatch(name):
        raise ValueError(f"is not a valid tenant name: {TENANT_RULE}")
    return name


def validate_tenant(name: object) -> str:
    """Return ``name`` if it is a safe tenant name, else raise InputError.

    Tenant names become directory names, so anything that could be a path
    trick (``/``, ``..``, absolute paths, odd characters) is refused here.
    """
    if not isinstance(name, str) or not _TENANT_RE.fullmatch(name):
        raise InputError(f"invalid tenant name {repr(name)[:80]}: {TENANT_RULE}")
    return name


_INVISIBLE = frozenset({"Cc", "Cf", "Co", "Cn", "Zl", "Zp", "Zs"})
"""Unicode categories of characters one cannot see (or tell from a space): zero-width space, bidi marks, NBSP."""


_LOOKALIKE_SCRIPTS = frozenset({"LATIN", "CYRILLIC", "GREEK", "ARMENIAN", "CHEROKEE", "COPTIC"})
"""Scripts with letters drawn like Latin ones: a name mixing two of them is a look-alike (Japanese mixing kana
and kanji is not)."""


def suspicious_character(name: str) -> str | None:
    """The first character that makes ``name`` look like another name, as ``U+0435 CYRILLIC SMALL LETTER IE``.

    Invisible characters (``hr`` + U+200B), compatibility forms (fullwidth ``ｈｒ``) and letters of a second
    look-alike script among Latin ones (Cyrillic ``е`` in ``tеam``) make a group that matches nobody while it reads like
    one that does. None for a plain name, Latin or not (``бухгалтерия`` is one script).
    """
    import unicodedata

    scripts: dict[str, str] = {}
    for ch in name:
        category = unicodedata.category(ch)
        if (category in _INVISIBLE and ch != " ") or unicodedata.normalize("NFKC", ch) != ch:
            return _code_point(ch)
        script = unicodedata.name(ch, "?").split(" ")[0] if category.startswith("L") else ""
        if script in _LOOKALIKE_SCRIPTS:
            scripts.setdefault(script, ch)
    if len(scripts) > 1:
        other = [ch for script, ch in scripts.items() if script != "LATIN"] if "LATIN" in scripts else []
        return _code_point((other or list(scripts.values())[1:])[0])
    return None


def _code_point(ch: str) -> str:
    import unicodedata

    return f"U+{ord(ch):04X} {unicodedata.name(ch, 'unnamed character')}"


def _plain_name(name: str) -> str:
    found = suspicious_character(name)
    if found is not None:
        raise ValueError(f"holds {found}, which makes it look like another name; type it plainly")
    return name


Name = Annotated[
    str,
    Strict(),
    Text(min_length=1, max_length=MAX_FIELD_CHARS, strip_whitespace=True),
    After(_plain_name),
]
TenantName = Annotated[str, Strict(), After(_tenant_rule)]
TODAY = "today"


def _day_or_today(value: object) -> object:
    return value if value == TODAY else dates.parse_iso_date(value)


DayOrToday = Annotated[dt.date | Literal["today"], Before(_day_or_today)]


@dataclass(frozen=True, kw_only=True)
class AsOfBound(Checked):
    """The dates a principal may ask about (``"as_of": {"min": "2026-01-01", "max": "today"}``); ``today`` moves."""

    extra = "forbid"

    min: DayOrToday | None = None
    max: DayOrToday | None = None

    def check(self, day: dt.date) -> None:
        """InputError when ``day`` is outside the bound (named without the principal's other fields)."""
        today = dates.today()
        low, high = (today if b == TODAY else b for b in (self.min, self.max))
        if high is not None and day > high:  # type: ignore[operator]
            raise InputError(
                f"as-of date {day.isoformat()} is after {_named(self.max, high)}, the latest the user file allows"
            )
        if low is not None and day < low:  # type: ignore[operator]
            raise InputError(
                f"as-of date {day.isoformat()} is before {_named(self.min, low)}, the earliest the user file allows"
            )


def _named(given: object, day: object) -> str:
    return f"today ({day.isoformat()})" if given == TODAY else day.isoformat()  # type: ignore[attr-defined]


@dataclass(frozen=True, kw_only=True)
class Principal(Checked):
    """The person a search or answer is for."""

    extra = "forbid"

    user: Name
    """User name; ACL entries ``user:NAME`` match it."""
    tenant: TenantName
    """The tenant whose index is searched; picks the index directory."""
    groups: Annotated[tuple[Name, ...], Size(max_length=MAX_GROUPS)] = ()
    """Groups the user belongs to; ``everyone`` is implied."""
    as_of: AsOfBound | None = None
    """The dates this principal may ask about (``--as-of``, an eval case's ``as_of``, a replayed trace's day);
    None: any date."""

    def acl_tokens(self) -> frozenset[str]:
        """The ACL entries this principal matches: its groups, ``everyone`` and ``user:NAME``."""
        return frozenset((*self.groups, EVERYONE, f"user:{self.user}"))


@dataclass(frozen=True)
class Scope:
    """A principal on a day: what one request may see. Built once, passed down."""

    principal: Principal
    as_of: dt.date

    def __post_init__(self) -> None:
        if self.principal.as_of is not None:
            self.principal.as_of.check(self.as_of)

    @classmethod
    def of(cls, principal: Principal, as_of: dt.date | None = None) -> Scope:
        """The scope of ``principal`` on ``as_of``; today when not given (the one place that default lives)."""
        return cls(principal, as_of if as_of is not None else dates.today())

    @property
    def tenant(self) -> str:
        return self.principal.tenant

    @cached_property
    def acl_tokens(self) -> frozenset[str]:
        return self.principal.acl_tokens()

    @cached_property
    def day(self) -> int:
        """``as_of`` as the index's day number."""
        return dates.day_number(self.as_of)


def parse_principal(data: object, *, where: str = "principal") -> Principal:
    """Validate an already-decoded principal object."""
    if not isinstance(data, dict):
        raise PrincipalError(f"{where}: expected a JSON object with user, tenant and groups")
    from pydantic_core import ValidationError

    try:
        return Principal.model_validate(data)
    except ValidationError as exc:
        raise PrincipalError(plain_validation_message(exc, where=where, known_fields=field_names(Principal))) from None


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
        raise InputError(f"cannot read user file {path}: {os_reason(exc)}") from None
    except ValueError as exc:  # a NUL byte in the path
        raise InputError(f"cannot read user file {path!r}: {exc}") from None
    if len(raw) > MAX_USER_FILE_BYTES:
        raise PrincipalError(f"user file {path} is larger than 64 KiB")
    try:
        data = strict_json(raw.decode("utf-8"))
    except DuplicateKey as exc:
        raise PrincipalError(f"user file {path}: {exc}; remove one") from None
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise PrincipalError(f"user file {path} is not valid JSON: {exc}") from None
    return parse_principal(data, where=f"user file {path}")
