"""``ragcli mcp``: a Model Context Protocol server over stdio (tools ``search`` and ``ask``, the document list)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..answer.setup import AnswerSetup
from .answer_options import ANSWER_DEFAULTS, answer_options
from .options import (
    DEFAULT_INDEX,
    AsOpt,
    IndexOpt,
)

EPILOG = "Example: claude mcp add ragcli -- ragcli mcp --as /path/to/user.json --index /path/to/.ragcli"

SessionAsOfOpt = Annotated[
    str | None,
    typer.Option(
        "--as-of",
        metavar="YYYY-MM-DD",
        help="Date for document validity, fixed for the session. Default: the day of each call.",
        show_default=False,
    ),
]


@answer_options
def mcp(
    as_file: AsOpt,
    as_of: SessionAsOfOpt = None,
    answer: AnswerSetup = ANSWER_DEFAULTS,
    trace: Annotated[
        Path | None,
        typer.Option(
            "--trace",
            metavar="FILE",
            help="Append one JSON line per ask (passage IDs only, never text).",
            show_default=False,
        ),
    ] = None,
    index: IndexOpt = DEFAULT_INDEX,
) -> None:
    """Serve search and ask to an MCP client over stdio, as the user of --as.

    The user, tenant and groups (and the date, with --as-of) are fixed here for
    the whole session: no tool argument can change them. Tools: search(query, k), ask(question);
    resource ragcli://documents. The ask tool answers as ragcli ask does, with --model, the limits, --plan and
    --verify given here. stdout is the protocol; logs go to stderr.
    Exit 0 when the client closes the connection, 2 on bad input or a broken index.
    """
    from ..mcp.service import Service, configure_logging
    from .options import resolve_scope

    scope = resolve_scope(as_file, as_of)
    configure_logging()
    # The index and the models are opened before the SDK loads, so a bad index or model fails at once (exit 2).
    service = Service.open(
        scope.principal, index, as_of=scope.as_of if as_of is not None else None, setup=answer, trace=trace
    )
    from ..mcp.server import serve  # the SDK takes a second or two to import; only this command needs it

    serve(service)
