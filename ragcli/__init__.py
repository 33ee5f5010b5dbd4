"""ragcli: answers from a team's own documents, with checked citations and per-tenant permissions.

The library under the ``ragcli`` command. Imports are lazy so that ``import
ragcli`` (and every CLI start) stays cheap: numpy, tantivy and onnxruntime load
only when a name that needs them is first used.

    from ragcli import Retriever, load_principal, ask, resolve_model
    retriever = Retriever(".ragcli")
    alice = load_principal("users/alice.json")
    for result in retriever.search(alice, "refund window").results:
        print(result.rank, result.id)
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    "AnswerModel": "answer",
    "BackendError": "errors",
    "Document": "documents",
    "DocumentRejected": "documents",
    "Embedder": "embedder",
    "EvalReport": "evaluation",
    "Gates": "evaluation",
    "IndexCorruptError": "errors",
    "IndexLockedError": "errors",
    "IngestReport": "ingest",
    "InputError": "errors",
    "Limits": "answer",
    "ModelError": "errors",
    "Outcome": "answer",
    "Passage": "chunking",
    "Principal": "principal",
    "PrincipalError": "errors",
    "RagcliError": "errors",
    "Retriever": "retriever",
    "SearchConfig": "retriever",
    "SearchResponse": "retriever",
    "SearchResult": "retriever",
    "TenantIndex": "store",
    "ask": "answer",
    "chunk_document": "chunking",
    "evaluate": "evaluation",
    "ingest": "ingest",
    "load_cases": "evaluation",
    "load_principal": "principal",
    "parse_principal": "principal",
    "resolve_model": "models",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'ragcli' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
