"""``IngestJob``: what one ingest does, described once, for ``ingest`` and for every round of ``watch``.

Which folder goes into which tenant's index, with which default ACL, size
limit and embedding backend (this process, or a Ray cluster for ``--ray``).
``ragcli ingest`` runs a job once; ``ragcli watch`` hands the same job to
``watch()``, which runs it again after every change, so an option of one is an
option of the other and none is lost on the way.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..embedder import Embedder
from ..settings import ParseLimits
from .pipeline import EmbeddingBackend, ingest
from .progress import Progress
from .report import IngestReport
from .sources import DEFAULT_MAX_FILE_BYTES


@dataclass(frozen=True)
class IngestJob:
    """One folder (or file) into one tenant's index."""

    path: Path
    tenant: str
    index: str | os.PathLike[str] | None = None
    """The index directory (None: ``settings.index_root``'s default)."""
    default_acl: tuple[str, ...] = ()
    """ACL entries for documents that name none (``--acl``)."""
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    embedding: EmbeddingBackend | None = None
    """Where the vectors of new passages are computed: None in this process, ``RayEmbedding`` for ``--ray``."""
    keep_on_error: bool = False
    """Keep the indexed version of a document whose file is rejected now (``--keep-on-error``); else withdrawn."""
    replace: bool = False
    """``path`` may replace the folder the tenant was ingested from (``--replace``)."""
    shared_index: bool = False
    """The index directory may be writable by others (``--allow-shared-index``)."""
    quantize: bool = True
    """Also write the vectors' int8 codes, scanned first by a search (``--no-quantize``: none)."""
    limits: ParseLimits | None = None
    """What parsing one file may cost (None: ``settings.parse_limits()``, the RAGCLI_PARSE_* variables)."""

    def run(self, *, embedder: Embedder | None = None, progress: Progress | None = None) -> IngestReport:
        """Ingest now and publish atomically (``pipeline.ingest``); ``embedder`` is the model, kept between runs."""
        return ingest(
            self.path,
            self.tenant,
            index=self.index,
            default_acl=self.default_acl,
            embedder=embedder,
            max_file_bytes=self.max_file_bytes,
            progress=progress,
            embedding=self.embedding,
            keep_on_error=self.keep_on_error,
            replace=self.replace,
            shared_index=self.shared_index,
            quantize=self.quantize,
            limits=self.limits,
        )
