"""A generation's own description (manifest.json), and the checksums of its files.

The manifest is validated on every open, seal included: a sha256 over all its
other fields (the group list that gives acl.npy's columns their meaning, the
checksums, the counts), so swapping two group names is found by a search as
well as by ``ragcli status``. Checksums (size and CRC32 of every other file)
are computed when a generation is written and verified in full where it
matters: by ``ragcli status`` and by an ingest before it reuses anything of
the generation it replaces. A search only checks what is cheap: the seal and
that every file has the size it lists.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ..checked import Checked, exclude_if
from ..errors import IndexCorruptError
from .layout import DOCUMENTS, MANIFEST

FORMAT_VERSION = 4
"""4: a PDF's documents.json entry records its pages (``PdfEntry``) and its passages their pages and OCR.
3: the manifest is sealed (sha256 of its fields) and records the folder the tenant is ingested from; a
version carries the hash of its document's text.
2: the documents moved from manifest.json to documents.json, so opening an index for a search parses a
few hundred bytes instead of every passage ID (1.8 MB for SciFact)."""
READABLE_FORMATS = (1, 2, 3, 4)


@dataclass(kw_only=True)
class PdfEntry(Checked):
    """What a PDF's pages gave (format 4): ``ragcli status`` counts the pages no text was read from."""

    extra = "forbid"

    pages: int
    ocr: list[int] = field(default_factory=list)
    """Pages (1-based) read by OCR."""
    unread: list[int] = field(default_factory=list)
    """Pages (1-based) without a usable text layer that OCR did not read (not available, or over a limit)."""
    unread_because: Literal["no_ocr", "pages", "seconds"] | None = None
    """``no_ocr``: the next ingest with OCR available reads the document again, unchanged or not."""


@dataclass(kw_only=True)
class DocumentEntry(Checked):
    """What the manifest remembers of one source document."""

    extra = "forbid"

    key: str
    """Where it came from: a file path, or ``path::id`` for a JSONL line."""
    doc_id: str
    version: str
    declared_version: str | None = None
    """The version its metadata declares, without the text's hash (format 3); one per document ID."""
    source: str
    fingerprint: str
    """Hash of everything its passages depend on; unchanged means no re-parse."""
    passage_ids: list[str]
    pdf: PdfEntry | None = field(default=None, metadata=exclude_if(lambda v: v is None))
    """A PDF's pages (format 4); absent for every other format."""


@dataclass(kw_only=True)
class ModelEntry(Checked):
    """The embedding model every vector of the generation came from."""

    extra = "forbid"

    id: str
    sha256: str
    dim: int
    pooling: str


@dataclass(kw_only=True)
class Manifest(Checked):
    """The index's own description; validated on every open."""

    extra = "forbid"

    format: int
    tenant: str
    generation: str
    created: str
    chunker_version: int
    model: ModelEntry
    passages: int
    groups: list[str]
    """ACL entries in column order of acl.npy."""
    documents: int
    """How many source documents documents.json lists."""
    checksums: dict[str, list[int]]
    """File name (relative) -> [size, crc32]; a mismatch means corruption."""
    units_version: int | None = None
    """``units.UNITS_VERSION`` the unit vectors were cut with; None when the generation has none."""
    units: int | None = None
    """How many unit vectors unit_vectors.npy holds."""
    root: str | None = None
    """The folder (or file) the tenant was ingested from (format 3); another one needs ``ingest --replace``."""
    seal: str | None = None
    """sha256 of every other field (format 3): a manifest edited by hand or damaged is refused on open."""
    _legacy_documents: list[DocumentEntry] | None = field(default=None, init=False, repr=False, compare=False)
    """Format 1 kept the documents in the manifest itself: read once, held here."""


@dataclass(kw_only=True)
class _LegacyDocuments(Checked):
    """Format 1: the manifest's fields with the documents inline; ``Manifest`` checks the other fields."""

    documents: list[DocumentEntry]


def read_manifest(generation: Path, tenant: str) -> Manifest:
    """Parse and check the manifest of ``generation`` (FileNotFoundError passes through).

    Format 1 (documents inline, written before 0.2) is still read, so a search
    works and the next ingest reuses its vectors instead of embedding again.
    """
    from pydantic_core import ValidationError

    raw = (generation / MANIFEST).read_bytes()
    try:
        manifest = Manifest.model_validate_json(raw)
    except ValidationError:
        try:
            manifest = _from_legacy(raw)
        except ValidationError:
            raise IndexCorruptError.damaged(tenant, f"{MANIFEST} is not a valid manifest") from None
    if manifest.format not in READABLE_FORMATS:
        raise IndexCorruptError(
            f"index of tenant '{tenant}' has format {manifest.format}, this ragcli reads {FORMAT_VERSION}; re-ingest"
        )
    if manifest.tenant != tenant:
        raise IndexCorruptError.damaged(tenant, f"manifest names tenant '{manifest.tenant}'")
    if manifest.format >= 3 and manifest.seal != seal_of(manifest):
        raise IndexCorruptError.damaged(tenant, f"{MANIFEST} does not match its seal")
    return manifest


def seal_of(manifest: Manifest) -> str:
    """sha256 of the manifest's fields other than the seal, in a canonical JSON form."""
    fields = manifest.model_dump(mode="json", exclude={"seal"})
    canonical = json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _from_legacy(raw: bytes) -> Manifest:
    from pydantic_core import from_json

    documents = _LegacyDocuments.model_validate_json(raw).documents  # an object with a valid list of documents
    fields = {key: value for key, value in from_json(raw).items() if key != "documents"}
    manifest = Manifest.model_validate({**fields, "documents": len(documents)})
    manifest._legacy_documents = documents
    return manifest


@dataclass(kw_only=True)
class Documents(Checked):
    """documents.json: the source documents of a generation and the passage IDs each contributed."""

    extra = "forbid"

    documents: list[DocumentEntry]


def write_documents(directory: Path, documents: list[DocumentEntry]) -> None:
    (directory / DOCUMENTS).write_text(Documents(documents=documents).model_dump_json(), encoding="utf-8")


def read_documents(generation: Path, manifest: Manifest) -> list[DocumentEntry]:
    """The documents of a generation (ingest and the audit need them; a search never does)."""
    from pydantic_core import ValidationError

    if manifest._legacy_documents is not None:
        return manifest._legacy_documents
    try:
        documents = Documents.model_validate_json((generation / DOCUMENTS).read_bytes()).documents
    except FileNotFoundError:
        raise IndexCorruptError.damaged(manifest.tenant, f"{DOCUMENTS} is missing") from None
    except ValidationError:
        raise IndexCorruptError.damaged(manifest.tenant, f"{DOCUMENTS} is not valid") from None
    if len(documents) != manifest.documents:
        raise IndexCorruptError.damaged(
            manifest.tenant, f"{DOCUMENTS} lists {len(documents)} documents, the manifest says {manifest.documents}"
        )
    return documents


def checksum(path: Path) -> list[int]:
    """[size, crc32] of a file, read in 1 MiB blocks."""
    crc = 0
    size = 0
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            crc = zlib.crc32(block, crc)
            size += len(block)
    return [size, crc]


def checksums_of(directory: Path) -> dict[str, list[int]]:
    """Checksums of every file under ``directory`` (the manifest is written after, so it is not among them)."""
    return {p.relative_to(directory).as_posix(): checksum(p) for p in sorted(directory.rglob("*")) if p.is_file()}


def check_sizes(generation: Path, manifest: Manifest) -> None:
    """The cheap check on open: every listed file exists with its listed size (one stat each)."""
    for name, (size, _crc) in manifest.checksums.items():
        try:
            actual = (generation / name).stat().st_size
        except FileNotFoundError:
            raise IndexCorruptError.damaged(manifest.tenant, f"{name} is missing") from None
        if actual != size:
            raise IndexCorruptError.damaged(manifest.tenant, f"{name} has {actual} bytes, the manifest says {size}")


def verify_checksums(generation: Path, manifest: Manifest) -> None:
    """The full check: every listed file's size and CRC32 (reads every byte)."""
    check_sizes(generation, manifest)
    for name, expected in manifest.checksums.items():
        if checksum(generation / name) != expected:
            raise IndexCorruptError.damaged(manifest.tenant, f"{name} does not match its checksum")
