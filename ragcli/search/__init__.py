"""The search layer: a scope and a query in, ranked passages out.

config     modes, floors, fusion constant (measured defaults)
query      normalising the query text
gate       floors per ranker and the topic gate, with a reason per dropped candidate
fusion     Reciprocal Rank Fusion
response   ``SearchResponse`` and its ``--json`` shape
pointers   the pointer rule: a passage that says "the table above" brings that section along
retriever  ``Retriever``: view -> rankers -> gate -> fusion
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_exports

if TYPE_CHECKING:  # "X as X": an explicit re-export, so type checkers see the lazy names
    from .config import SearchConfig as SearchConfig
    from .response import SearchResponse as SearchResponse
    from .response import SearchResult as SearchResult
    from .retriever import Retriever as Retriever

# Loaded on first use: ``ragcli --help`` reads the defaults in ``config`` and must not pay for
# pydantic (``response``) or numpy and Tantivy (``retriever``).
_EXPORTS = {
    "SearchConfig": "config",
    "SearchResponse": "response",
    "SearchResult": "response",
    "Retriever": "retriever",
}

__all__ = sorted(_EXPORTS)


__getattr__ = lazy_exports(__name__, _EXPORTS)
