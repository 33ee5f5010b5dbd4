"""ragcli: answers from a team's own documents, with checked citations and per-tenant permissions.

The library under the ``ragcli`` command. Imports are lazy so that ``import
ragcli`` (and every CLI start) stays cheap: numpy, tantivy and onnxruntime load
only when a name that needs them is first used.

    from ragcli import Retriever, Scope, ask, load_principal, resolve_model
    retriever = Retriever(".ragcli")
    alice = Scope.of(load_principal("users/alice.json"))
    for result in retriever.search(alice, "refund window").results:
        print(result.rank, result.id)

Layers, top to bottom (nothing imports upward; ``lint-imports`` checks it):
``cli`` > ``eval`` > ``models`` > ``answer`` > ``search`` | ``ingest`` > ``index`` >
foundation (``principal``, ``passage``, ``text``, ``embedder``, ``dates``,
``settings``, ``errors``).
"""

from __future__ import annotations

from .lazy import lazy_exports

__version__ = "0.1.0"

_EXPORTS = {
    "Abstained": "answer",
    "AnswerModel": "answer",
    "Answered": "answer",
    "Audit": "index",
    "BackendError": "errors",
    "Case": "eval",
    "Embedder": "embedder",
    "EvalReport": "eval",
    "Gates": "eval",
    "IndexCorruptError": "errors",
    "IndexLockedError": "errors",
    "IngestReport": "ingestion",
    "InputError": "errors",
    "Limits": "answer",
    "ModelError": "errors",
    "Outcome": "answer",
    "Passage": "passage",
    "Principal": "principal",
    "PrincipalError": "errors",
    "RagcliError": "errors",
    "Retriever": "search",
    "Scope": "principal",
    "SearchConfig": "search",
    "SearchResponse": "search",
    "SearchResult": "search",
    "TenantIndex": "index",
    "View": "index",
    "ask": "answer",
    "evaluate": "eval",
    "ingest": "ingestion",
    "load_cases": "eval",
    "load_principal": "principal",
    "parse_principal": "principal",
    "resolve_model": "models",
}

__all__ = sorted(_EXPORTS)


__getattr__ = lazy_exports(__name__, _EXPORTS)


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
