"""``ragcli ask``: an answer with checked citations, or the one generic abstention."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ..answer.setup import AnswerSetup
from ..readable import readable, readable_quote
from .answer_options import ANSWER_DEFAULTS, answer_options
from .console import emit_json, footer, line, workflow_commands_stopped
from .options import (
    DEFAULT_INDEX,
    AsOfOpt,
    AsOpt,
    IndexOpt,
    JsonOpt,
)

if TYPE_CHECKING:
    from ..answer import Answered, Outcome

EPILOG = "Example: ragcli ask 'how long do we have to refund an annual plan?' --as user.json --trace ask.jsonl"


@answer_options
def ask(
    question: Annotated[
        str, typer.Argument(metavar="QUESTION", help="The question, in plain words.", show_default=False)
    ],
    as_file: AsOpt,
    as_of: AsOfOpt = None,
    answer: AnswerSetup = ANSWER_DEFAULTS,
    trace: Annotated[
        Path | None,
        typer.Option(
            "--trace",
            metavar="FILE",
            help="Append one JSON line about this run (passage IDs only, never text).",
            show_default=False,
        ),
    ] = None,
    index: IndexOpt = DEFAULT_INDEX,
    as_json: JsonOpt = False,
) -> None:
    """Answer a question from the documents the user may see, with checked citations.

    The model may search again (up to --max-searches) and must finish with
    claims whose quotes code checks against the cited passages, or abstain.
    Exit 0 answered, 1 abstained, 2 error.
    """
    from ..answer import Answered
    from ..answer import ask as run_ask
    from ..answer.trace import append_trace
    from ..backends import open_answerer
    from ..search import Retriever
    from .options import resolve_scope

    _check_question(question)
    scope = resolve_scope(as_file, as_of)
    retriever = Retriever(index)
    answerer = open_answerer(answer, embedder=retriever.embedder, vectors=retriever)
    outcome = run_ask(question, scope, retriever, answerer)
    if trace is not None:
        append_trace(trace, outcome.trace)
    if as_json:
        emit_json(outcome.to_wire())  # JSON text holds no workflow command (console.json_text)
    else:
        with workflow_commands_stopped():  # the answer quotes documents: no line of it is a GitHub workflow command
            _print(outcome)
    raise typer.Exit(0 if isinstance(outcome, Answered) else 1)


def _check_question(question: str) -> None:
    """An empty question is a usage error that says "question" (search's own message speaks of words to search for)."""
    from ..errors import InputError
    from ..search.query import clean_query

    try:
        clean_query(question)
    except InputError:
        raise InputError("empty question: give the question to answer, in plain words") from None


def _print(outcome: Outcome) -> None:
    """The answer (or the abstention) on stdout; the footer (model, searches, request) on stderr."""
    from ..answer import Answered

    if isinstance(outcome, Answered):
        line(answer_text(outcome))
        for conflict in outcome.conflict_notes:
            line(conflict, style="yellow")
        line("")
        for i, p in enumerate(outcome.sources, start=1):
            line(f"[{i}] {p.id} — {p.heading_label} — {p.location}", lead=len(f"[{i}]"))
    else:
        line(outcome.message)
        line(f"reason: {outcome.reason}", style="dim")
    footer(f"model: {outcome.model} · searches: {outcome.searches} · request {outcome.request_id}")


def answer_text(outcome: Answered) -> str:
    """The claims as a person reads them: Markdown links as their text (code untouched), a quoted table row under
    its table's header, lines of code as a code block (``readable.readable_quote``, from the cited passage).

    The claims themselves are rendered by ``Answered.answer``; this only adapts them for a reader."""
    from dataclasses import replace

    claims = tuple(replace(c, statement=readable_quote(c.statement, c.passage.text)) for c in outcome.claims)
    return readable(replace(outcome, claims=claims).answer, escapes=False)  # statements are text, not Markdown
