"""One file's parse, the boundary every ingested file goes through.

A ``DocumentRejected`` stays what it is, and *any* other exception a parser library raises (lxml's
``SyntaxError``, a pypdf ``KeyError``, a ``MemoryError``...) becomes that file's one rejection
(``Refused``), naming the exception's type, never its text (which may quote the document). ``workers``
runs it in limited worker processes, or in this process.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ..errors import DocumentRejected
from ..settings import ParseLimits
from .crossrefs import resolving
from .loaders import Document, load_file, load_jsonl
from .sources import SourceData, SourceFile


@dataclass(frozen=True)
class Refused:
    """A rejection as it crosses from a worker (``DocumentRejected`` does not survive pickling)."""

    source: str
    reason: str

    def error(self) -> DocumentRejected:
        return DocumentRejected(self.source, self.reason)


@dataclass(frozen=True)
class ParseTask:
    """One file to parse, with the bytes the ingest read through the folder's descriptor."""

    src: SourceFile
    data: SourceData
    default_acl: tuple[str, ...]
    salt: str
    max_bytes: int
    titles: Mapping[str, str] = field(default_factory=dict)
    """The titles this file's cross-references show (``references.ReferenceTable.titles_for``)."""


Parsed = list[Document | Refused]
"""What parsing one file gives: one item, or one per JSONL line."""


def parse(task: ParseTask, limits: ParseLimits | None = None) -> Parsed:
    """Parse one file; whatever a parser raises becomes that file's rejection (the one boundary)."""
    src = task.src
    try:
        with resolving(task.titles):
            return _load(task)
    except DocumentRejected as rejected:
        return [Refused(rejected.source, rejected.reason)]
    except MemoryError:
        limit = f" ({limits.memory_mb:,} MiB, RAGCLI_PARSE_MEMORY_MB)" if limits else ""
        return [Refused(str(src.path), f"parsing it ran out of memory{limit}")]
    except RecursionError:
        return [Refused(str(src.path), "nested too deeply to parse")]
    except Exception as exc:  # the point of this boundary: an unforeseen parser error costs this file only
        what = src.format or "JSONL"
        return [Refused(str(src.path), f"the {what} parser failed on it ({_kind(exc)}); not indexed")]


def _load(task: ParseTask) -> Parsed:
    src = task.src
    if src.is_jsonl:
        items = load_jsonl(src, task.data, default_acl=task.default_acl, salt=task.salt)
        return [item if isinstance(item, Document) else Refused(item.source, item.reason) for item in items]
    return [load_file(src, task.data, default_acl=task.default_acl, salt=task.salt, max_bytes=task.max_bytes)]


def _kind(exc: BaseException) -> str:
    module = type(exc).__module__.split(".")[0]
    return type(exc).__name__ if module == "builtins" else f"{module} {type(exc).__name__}"
