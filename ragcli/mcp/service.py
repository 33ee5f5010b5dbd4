"""``Service``: what the MCP server does, without the protocol.

One principal, fixed when the server starts (from the user file, resolved by
the same code as the CLI), and one ``Retriever`` and ``Answerer`` (the model,
its limits and verifier, from the same options as ``ragcli ask``) kept open
between calls. Every call runs as that principal on the as-of day (the
``--as-of`` date, else the day of the call), so no argument can widen what
is seen. The retriever notices a newly published generation (``CURRENT``
changed) at the next call and switches to it; a generation is only ever read
once it is published whole.

Results are the CLI's ``--json`` objects (``SearchJson``, ``AnswerJson``),
from the same serialisation path. Logs go to the ``ragcli.mcp`` logger
(stderr) with passage IDs only, never passage text.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import RagcliError
from ..principal import Principal, Scope
from ..record import Record
from .tools import AskArgs, SearchArgs, parse_arguments

if TYPE_CHECKING:
    from ..answer import Answerer, AnswerSetup, Outcome
    from ..search import Retriever

log = logging.getLogger("ragcli.mcp")

DOCUMENTS_URI = "ragcli://documents"


class DocumentJson(Record):
    id: str
    title: str


class DocumentsJson(Record):
    """The ``ragcli://documents`` resource: the documents with
    at least one passage the principal may see on the as-of day."""

    documents: list[DocumentJson]


@dataclass(frozen=True)
class ToolReply:
    """A tool call's result: the wire object, or the one-line error a client (and its model) reads."""

    data: dict[str, Any] | None = None
    text: str | None = None
    """``data`` as JSON text (for clients that read only text content)."""
    error: str | None = None

    @property
    def is_error(self) -> bool:
        return self.error is not None


class Service:
    """Search, ask and the document list for one principal, over one index kept open."""

    def __init__(
        self,
        principal: Principal,
        retriever: Retriever,
        *,
        answerer: Answerer,
        as_of: dt.date | None = None,
        trace: str | os.PathLike[str] | None = None,
    ) -> None:
        """``answerer`` answers every ask (``backends.open_answerer``); ``as_of`` fixes the day (None: the day of
        each call)."""
        self.principal = principal
        self.retriever = retriever
        self.answerer = answerer
        self.fixed_as_of = as_of
        self.trace_path = trace
        self._lock = threading.Lock()
        """The retriever and the model are used by one call at a time (calls run on worker threads)."""
        self._scope: Scope | None = None
        self._documents: tuple[tuple[str, Scope], DocumentsJson] | None = None
        self._generation: str | None = None

    @classmethod
    def open(
        cls,
        principal: Principal,
        index: str | os.PathLike[str] | None = None,
        *,
        as_of: dt.date | None = None,
        setup: AnswerSetup | None = None,
        trace: str | os.PathLike[str] | None = None,
        warm: bool = True,
    ) -> Service:
        """Open the principal's tenant index and the models ``setup`` names (``ask``'s options) now, so a missing
        index or a wrong model fails at start, not at the first call."""
        from ..answer import AnswerSetup
        from ..backends import open_answerer
        from ..search import Retriever

        retriever = Retriever(index)
        answerer = open_answerer(setup or AnswerSetup(), embedder=retriever.embedder, vectors=retriever)
        service = cls(principal, retriever, answerer=answerer, as_of=as_of, trace=trace)
        tenant_index = retriever.index_for(principal.tenant)
        service._generation = tenant_index.generation
        if warm:
            embedder = retriever.embedder
            tenant_index.check_model(embedder.model_id, embedder.sha256)
            embedder.embed(["warm up"])
        log.info(
            _line(
                "start",
                user=principal.user,
                tenant=principal.tenant,
                as_of=as_of.isoformat() if as_of else "today",
                index=str(retriever.root),
                generation=service._generation,
                model=service.answerer.model.name,
            )
        )
        return service

    # -- scope --------------------------------------------------------------------

    def scope(self) -> Scope:
        """The principal on the fixed day, or on today (a server left running past midnight moves with the date)."""
        from ..dates import today

        day = self.fixed_as_of or today()
        if self._scope is None or self._scope.as_of != day:
            self._scope = Scope.of(self.principal, day)
        return self._scope

    # -- tools --------------------------------------------------------------------

    def call(self, name: str, arguments: object) -> ToolReply:
        """Run one tool call; bad arguments and ragcli's own errors become an error reply, never an exception."""
        started = time.perf_counter()
        try:
            args = parse_arguments(name, arguments)
            with self._lock:
                if isinstance(args, SearchArgs):
                    text, facts = self._search(args)
                else:
                    text, facts = self._ask(args)
        except RagcliError as exc:
            log.info(_line("call", tool=_shown_name(name), ok=False, error=exc.message, ms=_ms(started)))
            return ToolReply(error=exc.message)
        except Exception:
            log.exception(_line("call", tool=_shown_name(name), ok=False, error="internal error", ms=_ms(started)))
            return ToolReply(error=f"{_shown_name(name)}: internal error; the server log (stderr) has the details")
        log.info(_line("call", tool=name, ok=True, ms=_ms(started), **facts))
        return ToolReply(data=json.loads(text), text=text)

    def _search(self, args: SearchArgs) -> tuple[str, dict[str, Any]]:
        response = self.retriever.search(self.scope(), args.query, k=args.k)
        self._note_generation(response.generation)
        # The client is a model: it gets each source relative to the ingested folder, never a local absolute path.
        text = response.to_wire().model_dump_json(exclude={"results": {"__all__": {"source_path"}}})
        return text, {"generation": response.generation, "results": response.ids}

    def _ask(self, args: AskArgs) -> tuple[str, dict[str, Any]]:
        from ..answer import Answered
        from ..answer import ask as run_ask

        outcome: Outcome = run_ask(args.question, self.scope(), self.retriever, self.answerer)
        generation = outcome.trace.generation
        if generation:
            self._note_generation(generation)
        if self.trace_path is not None:
            from ..answer.trace import append_trace

            append_trace(self.trace_path, outcome.trace)
        facts: dict[str, Any] = {
            "request_id": outcome.request_id,
            "generation": generation,
            "disposition": outcome.disposition,
            "searches": outcome.searches,
            "evidence": list(outcome.evidence_ids),
        }
        if isinstance(outcome, Answered):
            facts["cited"] = [p.id for p in outcome.sources]
        else:
            facts["reason"] = outcome.reason
        return outcome.to_wire().model_dump_json(), facts

    def _note_generation(self, generation: str) -> None:
        if generation != self._generation:
            log.info(_line("generation", tenant=self.principal.tenant, previous=self._generation, current=generation))
            self._generation = generation

    # -- the document list --------------------------------------------------------

    def documents(self) -> DocumentsJson:
        """Each document with at least one passage this principal may see on the as-of day: ID and title, by ID.

        Read through the scope's ``View`` (the only way to a passage), once per generation and scope.
        """
        with self._lock:
            scope = self.scope()
            view = self.retriever.view(scope)
            key = (view.generation, scope)
            if self._documents is not None and self._documents[0] == key:
                return self._documents[1]
            titles: dict[str, str] = {}
            for row in view.allowed_rows:
                passage = view.passage(int(row))
                titles.setdefault(passage.doc_id, passage.title)
            listing = DocumentsJson(documents=[DocumentJson(id=d, title=titles[d]) for d in sorted(titles)])
            self._documents = (key, listing)
            self._note_generation(view.generation)
            log.info(_line("documents", generation=view.generation, documents=len(listing.documents)))
            return listing

    def close(self) -> None:
        with self._lock:
            self.retriever.close()


def configure_logging() -> None:
    """ragcli's log lines on stderr (the protocol owns stdout); the SDK's own only when they are warnings."""
    import sys

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("ragcli mcp: %(message)s"))
    log.handlers[:] = [handler]
    log.setLevel(logging.INFO)
    log.propagate = False
    logging.getLogger("mcp").setLevel(logging.WARNING)


def _shown_name(name: object) -> str:
    return name[:60] if isinstance(name, str) else "?"


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 2)


def _line(event: str, **fields: Any) -> str:
    """One log line: a JSON object (IDs, counts, codes; never passage text)."""
    return json.dumps({"event": event, **fields}, ensure_ascii=False, default=str)


__all__ = ["DOCUMENTS_URI", "DocumentJson", "DocumentsJson", "Service", "ToolReply", "configure_logging"]
