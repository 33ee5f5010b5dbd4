"""The local answerer's own lookup of the vectors the index and the search already computed.

The answerer scores every unit (sentence, list item, row) of the passages it
reads by its cosine with the question. Ingest stores those unit vectors beside
the passage vectors (``units.embed_passages``), and the question's search
embedded the question: reading both back saves a model run per ask. Only this
backend needs them, so it looks them up itself (``Source``: the ``Retriever``
it is opened with) instead of the answer loop copying arrays into every turn.

A passage's units are read by the row and generation its search found it at
(``protocol.Found``): a generation published since leaves the lookup empty, and
the answerer embeds those units itself, the same way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

from ...answer.protocol import Found
from ...errors import InputError
from ...passage import Passage

if TYPE_CHECKING:
    import numpy as np


class StoredUnits(Protocol):
    """What the lookup reads of a tenant's open generation (``index.reader.TenantIndex`` is one)."""

    @property
    def generation(self) -> str: ...

    def units_of(self, row: int) -> np.ndarray | None: ...


class Source(Protocol):
    """Where the vectors come from: ``search.Retriever`` is one."""

    def index_for(self, tenant: str) -> StoredUnits: ...

    def query_vector(self, query: str) -> np.ndarray | None: ...


def stored_units(
    source: Source | None, passages: Sequence[Passage], found: Mapping[str, Found]
) -> dict[str, np.ndarray]:
    """Per passage of ``passages`` the index stores them for: its units' vectors (passage ID -> one row per unit).

    Only passages already given to the answerer are read (each was found by a search in the run's scope), at the
    row its search found it in, and only while that generation is still the published one.
    """
    if source is None:
        return {}
    out: dict[str, np.ndarray] = {}
    for passage in passages:
        hit = found.get(passage.id)
        if hit is None or hit.row < 0 or not hit.generation:
            continue  # not ranked by a search (a neighbouring section): no row to read
        try:
            index = source.index_for(passage.tenant)
        except InputError:
            continue  # a source without this tenant (the model answers from another index): embed here
        if index.generation != hit.generation:
            continue  # published again since the search: its rows may hold other passages now
        vectors = index.units_of(hit.row)
        if vectors is not None:
            out[passage.id] = vectors
    return out


def question_vector(source: Source | None, question: str) -> np.ndarray | None:
    """The question's vector as its search embedded it (None when no search did, or without a source)."""
    return source.query_vector(question) if source is not None else None
