"""Passage records by row: ``passages.jsonl`` plus ``offsets.npy``.

Row ``r`` is the bytes ``offsets[r]:offsets[r+1]`` of passages.jsonl, one
JSON object: the passage's fields plus ``text_hash`` (what vector reuse keys
on). Reading a row is one seek and one read.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from ..errors import IndexCorruptError
from ..passage import Passage
from .layout import OFFSETS, PASSAGES

if TYPE_CHECKING:
    import numpy as np


_ID_PREFIX = '{"id": '
"""Every record is written with ``id`` first (see ``_record``), so an ID can be read without the rest."""
_DECODER = json.JSONDecoder()


def _record(p: Passage, text_hash: str) -> dict[str, Any]:
    return {
        "id": p.id,
        "doc_id": p.doc_id,
        "version": p.version,
        "section": p.section,
        "tenant": p.tenant,
        "acl": list(p.acl),
        "effective_from": p.effective_from.isoformat() if p.effective_from else None,
        "superseded_on": p.superseded_on.isoformat() if p.superseded_on else None,
        "title": p.title,
        "heading_path": list(p.heading_path),
        "source": p.source,
        "source_url": p.source_url,
        "text": p.text,
        "path": p.path,
        "carried": p.carried,
        "pages": list(p.pages),
        "ocr": p.ocr,
        "text_hash": text_hash,
    }


def _passage(d: dict[str, Any]) -> Passage:
    return Passage(
        id=d["id"],
        doc_id=d["doc_id"],
        version=d["version"],
        section=d["section"],
        tenant=d["tenant"],
        acl=tuple(d["acl"]),
        effective_from=dt.date.fromisoformat(d["effective_from"]) if d["effective_from"] else None,
        superseded_on=dt.date.fromisoformat(d["superseded_on"]) if d["superseded_on"] else None,
        title=d["title"],
        heading_path=tuple(d["heading_path"]),
        source=d["source"],
        source_url=d["source_url"],
        text=d["text"],
        path=d.get("path", ""),  # absent in indexes written before paths and carried leads were recorded
        carried=d.get("carried", 0),
        pages=tuple(d.get("pages", ())),  # absent before PDF pages were recorded (chunker 7)
        ocr=d.get("ocr", False),
    )


def write_rows(directory: Path, passages: Sequence[Passage], text_hashes: Sequence[str]) -> None:
    """Write passages.jsonl and its offsets, in row order."""
    import numpy as np

    offsets = np.zeros(len(passages) + 1, dtype=np.int64)
    with (directory / PASSAGES).open("wb") as fh:
        for row, (p, h) in enumerate(zip(passages, text_hashes, strict=True)):
            data = (json.dumps(_record(p, h), ensure_ascii=False) + "\n").encode("utf-8")
            fh.write(data)
            offsets[row + 1] = offsets[row] + len(data)
    np.save(directory / OFFSETS, offsets)


class RowFile:
    """Random access to the passage records of one generation."""

    def __init__(self, directory: Path, tenant: str, offsets: Sequence[int] | np.ndarray) -> None:
        """``offsets``: row ``r`` is bytes ``offsets[r]:offsets[r+1]`` of passages.jsonl (``offsets.npy``'s values,
        as a numpy array or a ``memoryview``)."""
        self.tenant = tenant
        self.offsets = offsets
        self._file: BinaryIO = (directory / PASSAGES).open("rb")
        self._size = os.fstat(self._file.fileno()).st_size

    def _span(self, row: int) -> tuple[int, int]:
        """Row ``row``'s bytes; offsets that do not rise inside the file are damage (a flipped byte of
        offsets.npy must never ask for a read of exabytes)."""
        start, end = int(self.offsets[row]), int(self.offsets[row + 1])
        if not 0 <= start < end <= self._size:
            raise IndexCorruptError.damaged(self.tenant, f"{OFFSETS} does not index {PASSAGES}")
        return start, end

    def record(self, row: int) -> dict[str, Any]:
        start, end = self._span(row)
        self._file.seek(start)
        try:
            data = json.loads(self._file.read(end - start))
            if not isinstance(data, dict):
                raise TypeError
            return data
        except (ValueError, TypeError):
            raise IndexCorruptError.damaged(self.tenant, f"passage row {row} is unreadable") from None

    def passage_id(self, row: int) -> str:
        """Only the ID of row ``row``: the record's first field, decoded without parsing the rest."""
        start, end = self._span(row)
        self._file.seek(start)
        try:
            line = self._file.read(end - start).decode("utf-8")
            if not line.startswith(_ID_PREFIX):
                raise ValueError
            value, _ = _DECODER.raw_decode(line, len(_ID_PREFIX))
            if not isinstance(value, str):
                raise ValueError
            return value
        except ValueError:
            raise IndexCorruptError.damaged(self.tenant, f"passage row {row} is unreadable") from None

    def passage(self, row: int) -> Passage:
        try:
            return _passage(self.record(row))
        except (ValueError, KeyError, TypeError):
            raise IndexCorruptError.damaged(self.tenant, f"passage row {row} is unreadable") from None

    def close(self) -> None:
        self._file.close()
