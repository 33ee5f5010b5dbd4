"""ragcli's one error tree.

    RagcliError                 anything ragcli reports as ``error: ...`` with exit code 2
    ├── InputError              bad input from the user: flags, files, principals, eval lines
    │   └── PrincipalError      a user file that does not describe a valid principal
    ├── IndexCorruptError       an on-disk index that is missing, damaged or from another model
    ├── IndexLockedError        another ingest holds the tenant's write lock
    ├── IndexWriteError         the new generation could not be written (disk full, read-only)
    ├── ModelError              the embedding model cannot be loaded or verified
    └── BackendError            the answering model's API failed after its retries

Every message names the failing value and says what to do next, because it is
the only line a user (or a CI log) will see.
"""

from __future__ import annotations


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


class IndexCorruptError(RagcliError):
    """The tenant's index cannot be trusted; the fix is to re-ingest."""


class IndexLockedError(RagcliError):
    """Another writer holds the tenant's lock."""


class IndexWriteError(RagcliError):
    """Writing a new generation failed; the published one is untouched."""


class ModelError(RagcliError):
    """The embedding model is missing, unreadable or not the expected file."""


class BackendError(RagcliError):
    """The answering model's service failed after the SDK's own retries."""


__all__ = [
    "BackendError",
    "IndexCorruptError",
    "IndexLockedError",
    "IndexWriteError",
    "InputError",
    "ModelError",
    "PrincipalError",
    "RagcliError",
]
