"""The generation a writer replaces, read whole: the writer's own path to unscoped rows.

An ingest reuses what has not changed: documents whose fingerprint is the
same keep their passages and rows, and a passage whose text is unchanged
keeps its vector. For that it reads every row regardless of permission, which
only the writer may do: opening one requires the ``WriteLock``. The
generation's checksums are verified in full first, so damage is rebuilt from
the source files, never copied forward.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import IndexCorruptError, InputError
from ..passage import Passage
from .manifest import FORMAT_VERSION, DocumentEntry, Manifest, read_documents
from .reader import TenantIndex
from .writer import WriteLock

if TYPE_CHECKING:
    import numpy as np


class PreviousGeneration:
    """Rows, vectors and documents of the published generation, for the writer holding ``lock``."""

    def __init__(self, index: TenantIndex) -> None:
        self._index = index
        self.documents: dict[str, DocumentEntry] = {d.key: d for d in read_documents(index.path, index.manifest)}
        self.row_of_id: dict[str, int] = {}
        """Passage ID -> row."""
        self.row_of_text: dict[str, int] = {}
        """Text hash -> a row with that text (for reusing its vector)."""
        for row in range(index.size):
            record = index._rows.record(row)
            self.row_of_id[record["id"]] = row
            self.row_of_text.setdefault(record["text_hash"], row)

    @classmethod
    def open(cls, lock: WriteLock) -> PreviousGeneration | None:
        """The published generation if there is one and it is whole; None means rebuild from files."""
        try:
            index = TenantIndex.open(lock.root, lock.tenant, verify=True, words=False)
        except (InputError, IndexCorruptError):
            return None
        try:
            return cls(index)
        except IndexCorruptError:
            index.close()
            return None

    @property
    def generation(self) -> str:
        return self._index.generation

    @property
    def size(self) -> int:
        return self._index.size

    @property
    def root(self) -> str | None:
        """The folder the tenant was ingested from (None before index format 3 recorded it)."""
        return self._index.manifest.root

    @property
    def manifest(self) -> Manifest:
        return self._index.manifest

    def built_with(self, model_sha256: str, chunker_version: int) -> bool:
        """Whether its passages and vectors are what this ingest would make (same model and chunker)."""
        m = self._index.manifest
        return m.model.sha256 == model_sha256 and m.chunker_version == chunker_version

    @property
    def current_format(self) -> bool:
        """Whether it is written in this ragcli's index format (an older one is rewritten even when nothing changed)."""
        return self._index.manifest.format == FORMAT_VERSION

    @property
    def quantized(self) -> bool:
        """Whether it holds the vectors' int8 codes (``ingest --quantize``): the next generation keeps them."""
        return self._index.quantized is not None

    def passage(self, row: int) -> Passage:
        return self._index._rows.passage(row)

    def vector(self, row: int) -> np.ndarray:
        vector: np.ndarray = self._index.embeddings[row]
        return vector

    def units(self, row: int) -> np.ndarray | None:
        """The unit vectors of ``row``, None when the generation has none cut this ragcli's way."""
        return self._index.units_of(row)

    def close(self) -> None:
        self._index.close()
