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
``cli`` | ``serve`` | ``mcp`` > ``eval`` > ``backends`` > ``answer`` > ``search`` | ``ingestion`` >
``index`` > foundation (``units``, ``structure``, ``readable``, ``principal``, ``passage``, ``text``, ``embedder``,
``model_spec``, ``model_cache``, ``dates``, ``settings``, ``escape``, ``errors``, ``lazy``, ``record``,
``checked``). ``cli`` is the
``ragcli`` command, ``mcp`` the same library as a Model Context Protocol server,
``serve`` the HTTP server for a team (``ragcli serve``: verified credentials, /v1 and /mcp);
``structure`` reads a passage's Markdown blocks and ``units`` cuts from them what an answer may quote;
``readable`` is the one renderer of document text for people (code never rewritten);
``model_spec`` says which embedding model runs; ``model_cache`` keeps the embedder's start-up work between
runs; ``lazy`` makes
package exports load on first use (as here); ``record`` is the base of every pydantic
model, built on first use; ``checked`` the base of the records a cold start reads and writes (the user file,
the manifest, the ``--json`` of search and ask, the trace): dataclasses that pydantic-core validates and
serialises without pydantic's import; ``escape`` writes untrusted text for where it lands (a spreadsheet, rendered
Markdown, a command line).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .lazy import export_names, lazy_exports

if TYPE_CHECKING:  # the exports, once: "X as X" for type checkers, read by ``lazy`` for the runtime
    from .answer import Abstained as Abstained
    from .answer import Answered as Answered
    from .answer import Answerer as Answerer
    from .answer import AnswerModel as AnswerModel
    from .answer import AnswerSetup as AnswerSetup
    from .answer import Limits as Limits
    from .answer import Outcome as Outcome
    from .answer import ask as ask
    from .backends import open_answerer as open_answerer
    from .backends import resolve_model as resolve_model
    from .embedder import Embedder as Embedder
    from .errors import BackendError as BackendError
    from .errors import IndexCorruptError as IndexCorruptError
    from .errors import IndexLockedError as IndexLockedError
    from .errors import InputError as InputError
    from .errors import ModelError as ModelError
    from .errors import PrincipalError as PrincipalError
    from .errors import RagcliError as RagcliError
    from .eval import Case as Case
    from .eval import EvalReport as EvalReport
    from .eval import Gates as Gates
    from .eval import evaluate as evaluate
    from .eval import load_cases as load_cases
    from .index import Audit as Audit
    from .index import TenantIndex as TenantIndex
    from .index import View as View
    from .ingestion import IngestJob as IngestJob
    from .ingestion import IngestReport as IngestReport
    from .ingestion import ingest as ingest
    from .passage import Passage as Passage
    from .principal import Principal as Principal
    from .principal import Scope as Scope
    from .principal import load_principal as load_principal
    from .principal import parse_principal as parse_principal
    from .search import Retriever as Retriever
    from .search import SearchConfig as SearchConfig
    from .search import SearchResponse as SearchResponse
    from .search import SearchResult as SearchResult

    __version__: str

__all__ = export_names(__file__)


_export = lazy_exports(__name__, __file__)


def __getattr__(name: str) -> Any:
    if name == "__version__":
        return _version()
    return _export(name)


def _version() -> str:
    """The installed distribution's version: pyproject.toml is the one place it is written.

    Read on first use: importlib.metadata costs ~20 ms of start-up, which only
    ``ragcli --version`` and the MCP handshake should pay.
    """
    from importlib.metadata import PackageNotFoundError, version

    try:
        value = version("ragcli")
    except PackageNotFoundError:  # a source tree that was never installed
        value = "0+unknown"
    globals()["__version__"] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__, "__version__"})
