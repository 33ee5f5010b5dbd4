"""What one ingest did: the report ``ingest()`` returns and ``ingest --json`` prints."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_serializer

from ..record import Record
from ..settings import ParseLimits


class Rejection(Record):
    path: str
    reason: str


class Withdrawn(Record):
    """A document of the published index whose new version was rejected: the new generation leaves it out."""

    doc_id: str
    path: str
    """The file it came from (absolute, as rejections name files)."""


class IngestWarning(Record):
    """Something that did not stop the ingest but probably is not what the author meant."""

    path: str
    message: str


class DocumentCounts(Record):
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    deleted: int = 0
    rejected: list[Rejection] = Field(default_factory=list)
    withdrawn: list[Withdrawn] = Field(default_factory=list)
    """Documents that were searchable before this ingest and are not any more because their file was rejected
    (fail closed: a rule the author tightened must not leave the old, wider version live). Empty with
    ``--keep-on-error``, which keeps their previous version instead (with a warning each)."""


class UnreadPdf(Record):
    """A PDF whose pages without a text layer were left unread in this ingest."""

    path: str
    pages: list[int]
    """The pages (1-based) no text was read from."""
    reason: Literal["no_ocr", "pages", "seconds"]
    """OCR is not available here, or the per-document page or time limit was reached."""


class PdfReport(Record):
    """PDF pages without a text layer met by this ingest (scans): what OCR read, within which limits, and what
    it left unread. Only in the report when such a page was met."""

    ocr_available: bool
    ocr_missing: str | None = None
    """What OCR lacks on this machine, and so how to enable it."""
    page_limit: int
    """Pages OCRed per document at most."""
    seconds_limit: float
    """OCR seconds per document at most."""
    ocr_pages: int = 0
    """Pages read by OCR in this ingest."""
    ocr_seconds: float = 0.0
    unread: list[UnreadPdf] = Field(default_factory=list)


class ParsingLimits(Record):
    """What parsing one file could cost before it was rejected (``RAGCLI_PARSE_*``; ``ingestion.workers``)."""

    workers: int
    """Parsing processes; 0: files were parsed in the ingesting process, without the limits below."""
    cpu_seconds: int
    wall_seconds: int
    memory_mb: int

    @classmethod
    def of(cls, limits: ParseLimits) -> ParsingLimits:
        return cls(
            workers=limits.workers,
            cpu_seconds=limits.cpu_seconds,
            wall_seconds=limits.wall_seconds,
            memory_mb=limits.memory_mb,
        )


class IngestReport(Record):
    """What one ingest did; its JSON is what ``ingest --json`` prints."""

    tenant: str
    root: str | None = None
    """The folder (or file) the tenant is now ingested from."""
    documents: DocumentCounts = Field(default_factory=DocumentCounts)
    passages: int = 0
    embedded: int = 0
    seconds: float = 0.0
    generation: str | None = None
    """The published generation; None when nothing was ever published for the tenant."""
    index: str = ""
    """The index directory written to (absolute; the tenant is a folder in it): ``--index`` of later commands."""
    skipped: dict[str, int] = Field(default_factory=dict)
    """Files of types ragcli does not read, by suffix: ``{".xlsx": 3}``."""
    empty: list[str] = Field(default_factory=list)
    """Documents with no text of their own once site markup is read (a page that only includes another file,
    ``--8<-- "CONTRIBUTING.md"``): nothing to index, so skipped rather than rejected."""
    warnings: list[IngestWarning] = Field(default_factory=list)
    rebuilt: str | None = Field(default=None, exclude_if=lambda v: v is None)
    """Why every document was read and cut again: the published index was built by another chunker or model."""
    pdf: PdfReport | None = Field(default=None, exclude_if=lambda v: v is None)
    """Only when a PDF page had no text layer: OCR's work and limits, and the pages left unread."""
    left_out: dict[str, int] = Field(default_factory=dict)
    """Text left out on purpose, by kind, over the documents parsed: ``{"runs of hidden text (w:vanish)": 2}``."""
    limits: ParsingLimits | None = None
    """The limits each file was parsed under."""
    published: bool = Field(default=False, exclude=True)
    """Whether a new generation was published (False when nothing changed)."""
    files: int = Field(default=0, exclude=True)
    """Files seen under the path (ingestable or refused on sight): the "of N" in a summary."""

    @field_serializer("seconds")
    def _round_seconds(self, value: float) -> float:
        return round(value, 3)

    def reject(self, path: str, reason: str) -> None:
        self.documents.rejected.append(Rejection(path=path, reason=reason))

    def warn(self, path: str, message: str) -> None:
        self.warnings.append(IngestWarning(path=path, message=message))
