"""``ragcli ask``: an answer with checked citations, or the one generic abstention."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from .console import console, emit_json
from .options import DEFAULT_INDEX, AsOfOpt, AsOpt, IndexOpt, JsonOpt, ModelOpt, PlanOpt, VerifyModelOpt, VerifyOpt

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
    max_searches: Annotated[
        int,
        typer.Option(
            "--max-searches", metavar="N", help="Searches the model may run, the first included.", min=1, max=10
        ),
    ] = 3,
    max_turns: Annotated[int, typer.Option("--max-turns", metavar="N", help="Model calls at most.", min=1, max=20)] = 6,
    max_tokens: Annotated[
        int,
        typer.Option(
            "--max-tokens", metavar="N", help="Total model tokens at most (input + output + cache).", min=1000
        ),
    ] = 200_000,
    timeout: Annotated[
        float,
        typer.Option("--timeout", metavar="SECONDS", help="Wall-clock seconds at most for the whole answer.", min=1),
    ] = 120.0,
    retry_on_empty: Annotated[
        bool,
        typer.Option(
            "--retry-on-empty/--no-retry-on-empty",
            help="Let an LLM model (anthropic, openai) rewrite a query whose first search found nothing "
            "(one extra call).",
        ),
    ] = True,
    plan: PlanOpt = False,
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
    from ..answer import Answered, Limits
    from ..answer import ask as run_ask
    from ..answer.trace import append_trace
    from ..models import resolve_model, verifier_for
    from ..search import Retriever
    from .options import resolve_scope

    scope = resolve_scope(as_file, as_of)
    retriever = Retriever(Path(index))
    backend = resolve_model(model, embedder=retriever.embedder)
    limits = Limits(
        max_searches=max_searches,
        max_turns=max_turns,
        max_tokens=max_tokens,
        timeout_s=timeout,
        retry_on_empty=retry_on_empty,
        plan=plan,
    )
    verifier = verifier_for(backend, verify=verify, verify_model=verify_model, model=model)
    outcome = run_ask(question, scope, retriever, backend, limits=limits, verifier=verifier)
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
