"""The answer options of ``ask``, ``eval`` and ``mcp``, declared once.

``answer_setup`` is the declaration: its parameters are the options (their
flags, help and defaults, the library's own ``Limits``) and its body turns
them into the one ``AnswerSetup``. ``answer_options`` puts those parameters in
a command's signature where it names ``answer: AnswerSetup``, so Typer builds
the same nine options for every command and the command receives the setup.
``answer_flags_given`` reads back, from click's own parameter sources, which
of them the command line gave (``eval`` refuses them without ``--ask``).
"""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable
from typing import Annotated, Any

import typer

from ..answer.setup import AnswerSetup, Limits

ModelOpt = Annotated[
    str | None,
    typer.Option(
        "--model",
        "-m",
        metavar="MODEL",
        help="local, anthropic[:MODEL_NAME] or openai:MODEL[@URL] "
        "(OpenAI, or any Chat Completions server such as Ollama: openai:qwen2.5:7b@http://localhost:11434/v1). "
        "Default: $RAGCLI_MODEL, else anthropic if ANTHROPIC_API_KEY is set, else local.",
        show_default=False,
    ),
]
PlanOpt = Annotated[
    bool,
    typer.Option(
        "--plan",
        help="Let an LLM model (anthropic, openai) split a question with several parts into 2-4 searches "
        "and grade the evidence once, a missing part driving one gap-filling search "
        "(all within --max-searches; one or two more calls).",
    ),
]
VerifyOpt = Annotated[
    bool,
    typer.Option(
        "--verify",
        help="A second model call judges whether each quote supports its claim and answers the question; "
        "an unsupported claim is dropped, and with none left (or a verifier that fails) "
        "the answer abstains with citation_check_failed.",
    ),
]
VerifyModelOpt = Annotated[
    str | None,
    typer.Option(
        "--verify-model",
        metavar="MODEL",
        help="The verifier's model (implies --verify), for example a cheaper anthropic:claude-haiku-4-5. "
        "Default: --model.",
        show_default=False,
    ),
]

MaxSearchesOpt = Annotated[
    int,
    typer.Option("--max-searches", metavar="N", help="Searches the model may run, the first included.", min=1, max=10),
]
MaxTurnsOpt = Annotated[int, typer.Option("--max-turns", metavar="N", help="Model calls at most.", min=1, max=20)]
MaxTokensOpt = Annotated[
    int,
    typer.Option("--max-tokens", metavar="N", help="Total model tokens at most (input + output + cache).", min=1000),
]
TimeoutOpt = Annotated[
    float,
    typer.Option("--timeout", metavar="SECONDS", help="Wall-clock seconds at most for the whole answer.", min=1),
]
RetryOnEmptyOpt = Annotated[
    bool,
    typer.Option(
        "--retry-on-empty/--no-retry-on-empty",
        help="Let an LLM model (anthropic, openai) rewrite a query whose first search found nothing (one extra call).",
    ),
]

ANSWER_DEFAULTS = AnswerSetup()
"""The answer options' defaults: the library's own. Also the ``answer`` parameter's default in a command's own
signature (Typer never sees it: the options replace it)."""
LIMITS = ANSWER_DEFAULTS.limits


def answer_setup(
    model: ModelOpt = ANSWER_DEFAULTS.model,
    max_searches: MaxSearchesOpt = LIMITS.max_searches,
    max_turns: MaxTurnsOpt = LIMITS.max_turns,
    max_tokens: MaxTokensOpt = LIMITS.max_tokens,
    timeout: TimeoutOpt = LIMITS.timeout_s,
    retry_on_empty: RetryOnEmptyOpt = ANSWER_DEFAULTS.retry_on_empty,
    plan: PlanOpt = ANSWER_DEFAULTS.plan,
    verify: VerifyOpt = ANSWER_DEFAULTS.verify,
    verify_model: VerifyModelOpt = ANSWER_DEFAULTS.verify_model,
) -> AnswerSetup:
    """The answer options as the one ``AnswerSetup`` (nothing opened yet); the parameters are the options."""
    limits = Limits(max_searches=max_searches, max_turns=max_turns, max_tokens=max_tokens, timeout_s=timeout)
    return AnswerSetup(
        model=model, limits=limits, plan=plan, retry_on_empty=retry_on_empty, verify=verify, verify_model=verify_model
    )


ANSWER_PARAMETER = "answer"
"""The parameter of a command (typed ``AnswerSetup``) that ``answer_options`` replaces with the options."""
_OPTIONS = tuple(inspect.signature(answer_setup).parameters)
"""The options' parameter names, in --help order."""
_UNGATED = frozenset({"model"})
"""Options ``eval`` accepts without ``--ask``, as it always has (``--model`` then changes nothing)."""


def answer_options(command: Callable[..., None]) -> Callable[..., None]:
    """``command`` with ``answer_setup``'s parameters (the options) in place of its ``answer`` parameter.

    Typer reads the returned function's signature, so the options appear where ``answer`` stood (--help keeps
    its order); a call gathers them into the ``AnswerSetup`` that ``command`` receives as ``answer``.
    """
    own = inspect.signature(command)
    if ANSWER_PARAMETER not in own.parameters:
        raise TypeError(f"{command.__name__} has no {ANSWER_PARAMETER!r} parameter for the answer options")
    hints = typing.get_type_hints(command, include_extras=True)
    options = _resolved(answer_setup)
    parameters: list[inspect.Parameter] = []
    for p in own.parameters.values():
        if p.name == ANSWER_PARAMETER:
            parameters += options
        else:
            parameters.append(p.replace(annotation=hints.get(p.name, p.annotation)))

    @functools.wraps(command)
    def with_options(*args: Any, **kwargs: Any) -> None:
        given = {name: kwargs.pop(name) for name in _OPTIONS}
        command(*args, **kwargs, **{ANSWER_PARAMETER: answer_setup(**given)})

    # Typer reads both; annotations already resolved, since they come from two modules' namespaces.
    with_options.__signature__ = own.replace(parameters=parameters)  # type: ignore[attr-defined]
    with_options.__annotations__ = {p.name: p.annotation for p in parameters} | {"return": own.return_annotation}
    return with_options


def _resolved(function: Callable[..., Any]) -> list[inspect.Parameter]:
    """``function``'s parameters with their annotations evaluated (this module is ``from __future__ annotations``)."""
    hints = typing.get_type_hints(function, include_extras=True)
    return [p.replace(annotation=hints[p.name]) for p in inspect.signature(function).parameters.values()]


def answer_flags_given(ctx: typer.Context) -> list[str]:
    """The answer options the command line gave (``--model`` aside), as the flags that gave them, in --help order.

    Read from click's parameter sources: an option typed with its default value was still given."""
    given = []
    for param in ctx.command.params:
        if param.name not in _OPTIONS or param.name in _UNGATED:
            continue
        source = ctx.get_parameter_source(param.name)
        if source is None or source.name in ("DEFAULT", "DEFAULT_MAP"):
            continue
        negated = param.secondary_opts and ctx.params.get(param.name) is False
        given.append(param.secondary_opts[0] if negated else param.opts[0])
    return given
