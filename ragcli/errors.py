"""ragcli's one error tree, and the one formatter of validation errors.

    RagcliError                 anything ragcli reports as ``error: ...`` with exit code 2
    ├── InputError              bad input from the user: flags, files, principals, eval lines
    │   ├── PrincipalError      a user file that does not describe a valid principal
    │   └── DocumentRejected    one source file (or JSONL line) that cannot be ingested
    ├── IndexCorruptError       an on-disk index that is missing, damaged or from another model
    ├── IndexLockedError        another ingest holds the tenant's write lock
    ├── IndexWriteError         the new generation could not be written (disk full, read-only)
    ├── LimitError              a limit of the process stopped the run (too many open files)
    ├── ModelError              the embedding model cannot be loaded or verified
    └── BackendError            the answering model's API failed after its retries

Every message names the failing value and says what to do next, because it is
the only line a user (or a CI log) will see; ``error_line`` is how that line
reads, wherever it is written. ``plain_validation_message`` is
the one place where a pydantic error becomes such a line: which field, what
was given, what is allowed, in words a user understands.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import ValidationError
    from pydantic_core import ErrorDetails


def error_line(message: str) -> str:
    """The one way an error reads for a person, on a terminal, in a log or in an MCP tool result:
    ``error: MESSAGE`` on one line (whitespace runs are one space; a control character, perhaps from a file
    name, is written out as its escape)."""
    text = " ".join(message.split())
    return "error: " + "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)


def out_of_descriptors(exc: BaseException) -> bool:
    """Whether ``exc`` is the process (or the system) running out of file descriptors: a low ``ulimit -n``, not a
    bad file or a damaged index. Wherever it happens the run stops with one line naming the limit
    (``os_reason``), never a traceback and never "re-ingest"."""
    import errno

    if isinstance(exc, OSError):
        return exc.errno in (errno.EMFILE, errno.ENFILE)
    # Tantivy reports an I/O error as a ValueError carrying Rust's own text for it.
    return isinstance(exc, ValueError) and "Too many open files" in str(exc)


def descriptor_errno(exc: BaseException) -> int | None:
    """The errno of ``exc`` when it is running out of file descriptors (``out_of_descriptors``): EMFILE for this
    process's limit, ENFILE for the system's file table (Rust's "Too many open files in system", os error 23);
    None for anything else. For an error that arrives as text (Tantivy's) and must leave as an OSError."""
    import errno

    if not out_of_descriptors(exc):
        return None
    if isinstance(exc, OSError):
        return exc.errno
    return errno.ENFILE if "in system" in str(exc) else errno.EMFILE


def _descriptor_limit(exc: BaseException) -> str:
    """What went wrong and the way out, for ``out_of_descriptors``: this process's limit (``ulimit -n``), or the
    system's file table, which no setting of this process raises."""
    import errno
    import resource

    if isinstance(exc, OSError) and exc.errno == errno.ENFILE:
        return "too many open files in the system (its file table is full; close other programs and try again)"
    limit = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return f"too many open files (the limit is {limit:,}; raise it with 'ulimit -n')"


def os_reason(exc: BaseException) -> str:
    """Why reading, writing or opening something failed, for an error line: the descriptor limit and the way out
    of it when that is what stopped it (``out_of_descriptors``), else the system's words (``strerror``), else the
    exception's text (a file that is not UTF-8) or its name."""
    if out_of_descriptors(exc):
        return _descriptor_limit(exc)
    return getattr(exc, "strerror", None) or str(exc) or type(exc).__name__


class RagcliError(Exception):
    """Base of every error ragcli raises on purpose; the CLI prints it on one line."""

    def __init__(self, message: str) -> None:
        # One line only: a message is printed after ``error:`` and must not spill.
        super().__init__(" ".join(str(message).split()))

    @property
    def message(self) -> str:
        return str(self)


class InputError(RagcliError):
    """Bad input: a flag, a file, a date, a tenant name."""


class PrincipalError(InputError):
    """A user file that does not describe a valid principal."""


class DocumentRejected(InputError):
    """One source (file or JSONL line) that cannot be ingested, with the reason."""

    def __init__(self, source: str, reason: str) -> None:
        self.source = source
        self.reason = " ".join(reason.split())
        super().__init__(f"{source}: {self.reason}")


class IndexCorruptError(RagcliError):
    """The tenant's index cannot be trusted; the fix is to re-ingest."""

    @classmethod
    def damaged(cls, tenant: str, what: str) -> IndexCorruptError:
        """The one wording for a damaged index: names the tenant, the damage and the fix."""
        return cls(
            f"index of tenant '{tenant}' is damaged: {what}; "
            f"re-ingest to rebuild it (ragcli ingest PATH --tenant {tenant})"
        )

    @classmethod
    def unreadable(cls, tenant: str, what: str, exc: BaseException) -> RagcliError:
        """The error for an index file that could not be read: damage, unless the process is out of descriptors."""
        if out_of_descriptors(exc):
            return LimitError(f"cannot read the index of tenant '{tenant}': {os_reason(exc)}; the index is intact")
        return cls.damaged(tenant, f"{what} ({exc})")


class IndexLockedError(RagcliError):
    """Another writer holds the tenant's lock."""


class IndexWriteError(RagcliError):
    """Writing a new generation failed; the published one is untouched."""


class LimitError(RagcliError):
    """A limit of this process stopped the run (its open files: ``ulimit -n``); the input and the index are fine."""


class ModelError(RagcliError):
    """The embedding model is missing, unreadable or not the expected file."""


class BackendError(RagcliError):
    """The answering model's service failed after the SDK's own retries."""


# --------------------------------------------------------------------------- validation errors in plain words

_PLAIN: dict[str, str] = {
    "missing": "is required",
    "string_type": "must be text",
    "int_type": "must be a whole number",
    "int_parsing": "must be a whole number",
    "int_from_float": "must be a whole number",
    "float_type": "must be a number",
    "float_parsing": "must be a number",
    "bool_type": "must be true or false",
    "bool_parsing": "must be true or false",
    "list_type": "must be a list",
    "tuple_type": "must be a list",
    "dict_type": "must be an object",
    "model_type": "must be an object",
    "model_attributes_type": "must be an object",
    "dataclass_type": "must be an object",
    "date_type": "must be a date (YYYY-MM-DD)",
    "date_parsing": "must be a date (YYYY-MM-DD)",
    "date_from_datetime_parsing": "must be a date (YYYY-MM-DD)",
    "date_from_datetime_inexact": "must be a date (YYYY-MM-DD), without a time",
    "string_unicode": "must be text",
}


def _requirement(error: ErrorDetails) -> str:
    kind = error["type"]
    ctx = error.get("ctx") or {}
    if kind in _PLAIN:
        return _PLAIN[kind]
    if kind == "string_too_short":
        n = ctx.get("min_length", 1)
        return "must not be empty" if n == 1 else f"must be at least {n} characters"
    if kind == "string_too_long":
        return f"must be at most {ctx.get('max_length')} characters"
    if kind == "too_short":
        n = ctx.get("min_length", 1)
        return f"must have at least {n} item{'s' if n != 1 else ''}"
    if kind == "too_long":
        return f"must have at most {ctx.get('max_length')} items"
    if kind == "literal_error":
        return f"must be one of {ctx.get('expected')}"
    if kind in ("greater_than_equal", "greater_than", "less_than_equal", "less_than"):
        words = {
            "greater_than_equal": "at least",
            "greater_than": "more than",
            "less_than_equal": "at most",
            "less_than": "less than",
        }
        bound = ctx.get("ge", ctx.get("gt", ctx.get("le", ctx.get("lt"))))
        return f"must be {words[kind]} {bound}"
    if kind in ("value_error", "assertion_error"):
        return str(error["msg"]).removeprefix("Value error, ").removeprefix("Assertion failed, ")
    return str(error["msg"])


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def plain_validation_message(exc: ValidationError, *, where: str, known_fields: Iterable[str] = ()) -> str:
    """The first error of ``exc`` as ``WHERE: field 'F': <what is allowed> (got <value>)``.

    ``known_fields`` turns an unknown key into a hint (``did you mean 'relevant'?``).
    """
    error = exc.errors(include_url=False)[0]
    loc = ".".join(str(p) for p in error["loc"])
    if error["type"] in ("extra_forbidden", "unexpected_keyword_argument"):  # a model's, a ``checked`` record's
        key = str(error["loc"][-1]) if error["loc"] else "?"
        import difflib  # here, not at the top: errors is imported at every start, a misspelt key is rare

        close = difflib.get_close_matches(key, list(known_fields), n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        return f"{where}: unknown key '{key}'{hint}"
    if not loc:  # a rule about the whole object (e.g. "give either claims or abstain")
        return f"{where}: {_requirement(error)}"
    text = f"{where}: field '{loc}' {_requirement(error)}"
    if error["type"] != "missing" and "input" in error:
        text += f" (got {_shown(error['input'])})"
    return text


__all__ = [
    "BackendError",
    "DocumentRejected",
    "DuplicateKey",
    "IndexCorruptError",
    "IndexLockedError",
    "IndexWriteError",
    "InputError",
    "ModelError",
    "PrincipalError",
    "RagcliError",
    "error_line",
    "plain_validation_message",
    "strict_json",
]


class DuplicateKey(ValueError):
    """A JSON object (or YAML mapping) names one key twice: the last would silently win."""

    def __init__(self, key: object) -> None:
        self.key = str(key)[:80]
        super().__init__(f"key {self.key!r} appears twice")


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise DuplicateKey(key)
        out[key] = value
    return out


def strict_json(raw: str | bytes) -> Any:
    """``json.loads`` that refuses an object naming a key twice (``DuplicateKey``) instead of keeping the last.

    ``{"acl": ["hr"], ..., "acl": ["everyone"]}`` or ``{"tenant": "globex", ..., "tenant": "acme"}`` must not
    mean whatever its last copy says.
    """
    import json

    return json.loads(raw, object_pairs_hook=_unique_pairs)


def json_object(raw: str, *, where: str, not_object: str = "each line must be a JSON object") -> dict[str, Any]:
    """``raw`` parsed as one JSON object, or an InputError that starts with ``where`` (a file and line)."""
    import json

    try:
        data = strict_json(raw)
    except json.JSONDecodeError as exc:
        raise InputError(f"{where}: not valid JSON ({exc.msg})") from None
    except DuplicateKey as exc:
        raise InputError(f"{where}: {exc}; remove one") from None
    except RecursionError:
        raise InputError(f"{where}: not valid JSON (nested too deeply)") from None
    if not isinstance(data, dict):
        raise InputError(f"{where}: {not_object}")
    return data
