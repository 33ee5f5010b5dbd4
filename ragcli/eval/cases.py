"""The question file: one labelled case per JSON line, validated before anything runs.

    {"id": "q07", "question": "...", "as": "users/alice.json", "as_of": "2026-11-29",
     "expect": "answer", "reason": null, "relevant": ["refunds-policy@2026-09"], "forbidden": ["pay-bands"],
     "answer_contains": ["30 days"]}

``as`` is a user file relative to the question file, and it must lie inside
the folder of user files (``users``: by default the question file's own
folder and below), so a question file cannot run as any user file on disk.
An inline ``principal`` is accepted only with ``allow_inline_principals``.
A question file is a source of principals: whoever can write one and read
its report sees what its principals can see. ``as_of`` defaults to today,
within the bound the user file sets. Unknown keys are errors (a misspelt
``relevent`` would otherwise silently score nothing).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, StringConstraints, ValidationError

from ..answer import ReasonCode
from ..dates import IsoDate
from ..errors import InputError, RagcliError, json_object, os_reason, plain_validation_message
from ..principal import Principal, Scope, load_principal, parse_principal
from ..record import Record

MAX_CASES = 100_000


class CaseLine(Record):
    """One line of the question file, validated where it enters."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    id: str | int | None = None
    question: str = Field(min_length=1, max_length=10_000)
    as_file: str | None = Field(default=None, alias="as")
    principal: dict[str, Any] | None = None
    as_of: IsoDate | None = None
    expect: Literal["answer", "abstain"] | None = None
    reason: ReasonCode | None = None
    relevant: list[str] = Field(default_factory=list)
    forbidden: list[str] = Field(default_factory=list)
    answer_contains: list[Annotated[str, StringConstraints(min_length=1)]] = Field(default_factory=list)
    """Any one of these (case-insensitive) in the answer text shows the fact asked for was given."""


KNOWN_KEYS = ("as", *(name for name in CaseLine.model_fields if name != "as_file"))


@dataclass(frozen=True)
class Case:
    id: str
    line: int
    question: str
    scope: Scope
    expect: Literal["answer", "abstain"] | None
    reason: ReasonCode | None
    relevant: tuple[str, ...]
    forbidden: tuple[str, ...]
    answer_contains: tuple[str, ...] = ()

    @property
    def principal(self) -> Principal:
        return self.scope.principal


def load_cases(
    path: str | Path,
    *,
    today: dt.date | None = None,
    users: str | Path | None = None,
    allow_inline_principals: bool = False,
) -> list[Case]:
    """Read and validate every line before anything runs; a bad line is an error naming it.

    ``users``: the folder the ``as`` user files must lie in (default: the question file's folder);
    ``allow_inline_principals``: accept ``principal`` objects written in the file itself.
    """
    path = Path(path)
    sources = PrincipalSources.of(path, users, allow_inline=allow_inline_principals)
    try:
        if path.exists() and not path.is_file():
            raise InputError(f"cannot read question file {path}: not a regular file")
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read question file {path}: {os_reason(exc)}") from None
    cases: list[Case] = []
    principals: dict[Path, Principal] = {}
    for lineno, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        if len(cases) >= MAX_CASES:
            raise InputError(f"{path}: more than {MAX_CASES} cases")
        cases.append(parse_case(raw, path=path, lineno=lineno, principals=principals, today=today, sources=sources))
    if not cases:
        raise InputError(f"question file {path} has no cases")
    return cases


@dataclass(frozen=True)
class PrincipalSources:
    """Where a question file may take its principals from: user files inside ``users``, inline ones if allowed."""

    users: Path
    allow_inline: bool = False

    @classmethod
    def of(cls, questions: Path, users: str | Path | None, *, allow_inline: bool = False) -> PrincipalSources:
        folder = Path(users) if users is not None else questions.parent
        try:
            resolved = folder.resolve(strict=True)
        except (OSError, RuntimeError):
            raise InputError(f"--users {folder}: not a folder of user files") from None
        if not resolved.is_dir():
            raise InputError(f"--users {folder}: not a folder of user files")
        return cls(resolved, allow_inline)


def parse_case(
    raw: str,
    *,
    path: Path,
    lineno: int,
    principals: dict[Path, Principal] | None = None,
    today: dt.date | None = None,
    sources: PrincipalSources | None = None,
) -> Case:
    """Line ``lineno`` of the question file ``path``; every error message starts with ``FILE:LINE``."""
    where = f"{path}:{lineno}"
    data = json_object(raw, where=where)
    try:
        line = CaseLine.model_validate(data)
    except ValidationError as exc:
        raise InputError(plain_validation_message(exc, where=where, known_fields=KNOWN_KEYS)) from None
    sources = sources or PrincipalSources.of(path, None)
    principal = _principal(line, where, path.parent, sources, principals if principals is not None else {})
    try:
        scope = Scope.of(principal, line.as_of or today)
    except InputError as exc:  # a date outside the bound the user file sets
        raise InputError(f"{where}: {exc.message}") from None
    return Case(
        id=str(line.id) if line.id is not None else f"line{lineno}",
        line=lineno,
        question=line.question,
        scope=scope,
        expect=line.expect,
        reason=line.reason,
        relevant=tuple(line.relevant),
        forbidden=tuple(line.forbidden),
        answer_contains=tuple(line.answer_contains),
    )


def _principal(
    line: CaseLine, where: str, base: Path, sources: PrincipalSources, principals: dict[Path, Principal]
) -> Principal:
    if (line.as_file is None) == (line.principal is None):
        raise InputError(f"{where}: give exactly one of 'as' (a user file) or 'principal'")
    try:
        if line.principal is not None:
            if not sources.allow_inline:
                raise InputError(
                    "an inline 'principal' runs as whoever it names; give 'as' (a user file) or pass "
                    "--allow-inline-principals if you vouch for this file"
                )
            return parse_principal(line.principal, where=f"{where}: principal")
        assert line.as_file is not None
        user_file = (base / line.as_file).resolve()
        if not user_file.is_relative_to(sources.users):
            raise InputError(
                f"field 'as': {line.as_file} is outside {sources.users}, the folder of user files (--users DIR)"
            )
        if user_file not in principals:
            principals[user_file] = load_principal(user_file)
        return principals[user_file]
    except RagcliError as exc:
        raise InputError(f"{where}: {exc.message}") from None
    except RuntimeError:  # a symlink loop on the way to the user file
        raise InputError(f"{where}: field 'as': not a usable file path (a symlink loop)") from None
    except ValueError as exc:  # a path with a NUL byte cannot name a file
        raise InputError(f"{where}: field 'as': not a usable file path ({exc})") from None
