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

from ..lazy import export_names, lazy_exports

# Loaded on first use: ``ragcli --help`` reads the defaults in ``config`` and must not pay for
# pydantic (``response``) or numpy and Tantivy (``retriever``).
if TYPE_CHECKING:  # the exports, once: "X as X" for type checkers, read by ``lazy`` for the runtime
    from .config import SearchConfig as SearchConfig
    from .response import SearchResponse as SearchResponse
    from .response import SearchResult as SearchResult
    from .retriever import Retriever as Retriever

__all__ = export_names(__file__)


__getattr__ = lazy_exports(__name__, __file__)
