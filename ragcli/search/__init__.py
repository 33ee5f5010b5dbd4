"""The search layer: a scope and a query in, ranked passages out.

    config     modes, floors, fusion constant (measured defaults)
    query      normalising the query text
    gate       floors per ranker and the topic gate, with a reason per dropped candidate
    fusion     Reciprocal Rank Fusion
    response   ``SearchResponse`` and its ``--json`` shape
    retriever  ``Retriever``: view -> rankers -> gate -> fusion
"""

from .config import SearchConfig
from .response import SearchResponse, SearchResult
from .retriever import Retriever

__all__ = ["Retriever", "SearchConfig", "SearchResponse", "SearchResult"]
