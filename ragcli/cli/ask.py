"""``ragcli ask``: an answer with checked citations, or the one generic abstention."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from .console import console, emit_json
from .options import (
    DEFAULT_INDEX,
    LIMITS,
    AsOfOpt,
    AsOpt,
    IndexOpt,
    JsonOpt,
    MaxSearchesOpt,
    MaxTokensOpt,
    MaxTurnsOpt,
    ModelOpt,
    PlanOpt,
    RetryOnEmptyOpt,
    TimeoutOpt,
    VerifyModelOpt,
    VerifyOpt,
    answer_setup,
)

if TYPE_CHECKING:
    from ..answer import Outcome

EPILOG = "Example: ragcli ask 'how long do we have to refund an annual plan?' --as user.json --trace ask.jsonl"


def ask(
    question: Annotated[
        str, typer.Argument(metavar="QUESTION", help="The question, in plain words.", show_default=False)
    ],
    as_file: AsOpt,
    as_of: AsOfOpt = None,
    model: ModelOpt = None,
    max_searches: MaxSearchesOpt = LIMITS.max_searches,
    max_turns: MaxTurnsOpt = LIMITS.max_turns,
    max_tokens: MaxTokensOpt = LIMITS.max_tokens,
    timeout: TimeoutOpt = LIMITS.timeout_s,
    retry_on_empty: RetryOnEmptyOpt = LIMITS.retry_on_empty,
    plan: PlanOpt = LIMITS.plan,
    verify: VerifyOpt = False,
    verify_model: VerifyModelOpt = None,
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
    from ..models import open_answerer
    from ..search import Retriever
    from .options import resolve_scope

    setup = answer_setup(
        model,
        max_searches=max_searches,
        max_turns=max_turns,
        max_tokens=max_tokens,
        timeout=timeout,
        retry_on_empty=retry_on_empty,
        plan=plan,
        verify=verify,
        verify_model=verify_model,
    )
    scope = resolve_scope(as_file, as_of)
    retriever = Retriever(Path(index))
    answerer = open_answerer(setup, embedder=retriever.embedder)
    outcome = run_ask(question, scope, retriever, answerer.model, limits=answerer.limits, verifier=answerer.verifier)
    if trace is not None:
        append_trace(trace, outcome.trace)
    if as_json:
        emit_json(outcome.to_wire())
    else:
        _print(outcome)
    raise typer.Exit(0 if isinstance(outcome, Answered) else 1)


def _print(outcome: Outcome) -> None:
    """An answer as prose with numbered markers and a source list; an abstention as one sentence."""
    from rich.markup import escape

    from ..answer import Answered

    if isinstance(outcome, Answered):
        console().print(escape(outcome.answer))
        for note in outcome.conflict_notes:
            console().print(f"[yellow]{escape(note)}[/yellow]")
        console().print()
        for i, p in enumerate(outcome.sources, start=1):
            console().print(f"[bold][{i}][/bold] {escape(p.id)} — {escape(p.heading_label)} — {escape(p.shown_source)}")
    else:
        console().print(escape(outcome.message))
        console().print(f"[dim]reason: {outcome.reason}[/dim]")
    console().print(
        f"[dim]model: {escape(outcome.model)} · searches: {outcome.searches} · request {outcome.request_id}[/dim]"
    )
