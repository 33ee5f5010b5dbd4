"""Options every command shares, and the one place a CLI request's scope is resolved."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ..answer.setup import AnswerSetup, Limits

if TYPE_CHECKING:
    from ..principal import Scope

IndexOpt = Annotated[
    Path | None,
    typer.Option(
        "--index",
        metavar="DIR",
        help="Index directory (one subfolder per tenant). Found like git finds a repository: --index, else "
        "$RAGCLI_INDEX, else the nearest .ragcli folder here or in a parent folder, else the per-user data "
        "directory (~/.local/share/ragcli/index on Linux).",
        show_default=False,
    ),
]
JsonOpt = Annotated[
    bool, typer.Option("--json", help="Print one JSON object on stdout (for scripts).", show_default=False)
]
AsOpt = Annotated[
    Path,
    typer.Option(
        "--as",
        metavar="USER.json",
        help='User file: {"user", "tenant", "groups"}. The only source of tenant and groups.',
        show_default=False,
    ),
]
TenantOpt = Annotated[
    str,
    typer.Option(
        "--tenant", "-t", metavar="TENANT", help="Tenant to ingest into (a-z, 0-9, '_', '-').", show_default=False
    ),
]
AclOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--acl",
        metavar="GROUP",
        help="ACL group for documents that name none (repeatable). 'everyone' = all users of the tenant.",
        show_default=False,
    ),
]
MaxFileSizeOpt = Annotated[
    int, typer.Option("--max-file-size", metavar="MiB", help="Reject files larger than this many MiB.", min=1)
]
RAY_INSTALL = "pip install 'ragcli[ray]'"  # as ingestion.ray_embed says it (importing that would slow --help)
RayOpt = Annotated[
    bool,
    typer.Option(
        "--ray",
        help=f"Embed new passages on Ray: a local Ray instance with this machine's CPUs, or the cluster of "
        f"--ray-address. Needs {RAY_INSTALL}.",
        show_default=False,
    ),
]
RayAddressOpt = Annotated[
    str | None,
    typer.Option(
        "--ray-address",
        metavar="ADDRESS",
        help="Embed on a running Ray cluster: auto (the one this machine joined with ray start) or HEAD:6379; "
        "implies --ray.",
        show_default=False,
    ),
]
KeepOnErrorOpt = Annotated[
    bool,
    typer.Option(
        "--keep-on-error",
        help="Keep the indexed version of a document whose file is rejected now (a warning each), instead of "
        "withdrawing it: the rejected version may have narrowed who may read it.",
    ),
]
SharedIndexOpt = Annotated[
    bool,
    typer.Option(
        "--allow-shared-index",
        help="Allow an index directory others may write (a team's group-owned folder); files are then created "
        "with your umask (use umask 007) instead of owner-only.",
    ),
]
AsOfOpt = Annotated[
    str | None,
    typer.Option(
        "--as-of", metavar="YYYY-MM-DD", help="Date for document validity. Default: today.", show_default=False
    ),
]

# How answers are made: ask, eval --ask and the MCP server's ask tool take the same options, and each builds
# the one AnswerSetup from them (``answer_setup``).
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

DEFAULT_INDEX = None
"""No --index: the index is located (see ``settings.locate_index``)."""
LIMITS = Limits()
"""The answer options' defaults (``--max-searches`` ... ``--plan``): the library's own."""


def answer_setup(
    model: str | None,
    *,
    max_searches: int,
    max_turns: int,
    max_tokens: int,
    timeout: float,
    retry_on_empty: bool,
    plan: bool,
    verify: bool,
    verify_model: str | None,
) -> AnswerSetup:
    """The answer options of ``ask``, ``eval`` and ``mcp`` as the one ``AnswerSetup`` (nothing opened yet)."""
    limits = Limits(
        max_searches=max_searches,
        max_turns=max_turns,
        max_tokens=max_tokens,
        timeout_s=timeout,
        retry_on_empty=retry_on_empty,
        plan=plan,
    )
    return AnswerSetup(model=model, limits=limits, verify=verify, verify_model=verify_model)


def answer_options_given(setup: AnswerSetup) -> list[str]:
    """The answer options ``setup`` sets to other than their defaults (``--model`` aside), as flags."""
    given = [
        flag
        for flag, name in (
            ("--max-searches", "max_searches"),
            ("--max-turns", "max_turns"),
            ("--max-tokens", "max_tokens"),
            ("--timeout", "timeout_s"),
            ("--no-retry-on-empty", "retry_on_empty"),
            ("--plan", "plan"),
        )
        if getattr(setup.limits, name) != getattr(LIMITS, name)
    ]
    given += ["--verify"] * setup.verify + ["--verify-model"] * (setup.verify_model is not None)
    return given


def resolve_scope(as_file: Path, as_of: str | None) -> Scope:
    """The principal from the user file, on the ``--as-of`` day (today by default)."""
    from ..dates import parse_iso_date
    from ..errors import InputError
    from ..principal import Scope, load_principal

    principal = load_principal(as_file)
    try:
        day = parse_iso_date(as_of) if as_of is not None else None
    except ValueError:
        raise InputError(f"--as-of {as_of!r} is not a date: use YYYY-MM-DD") from None
    return Scope.of(principal, day)
