"""Where output goes: Rich consoles for people, one JSON path for scripts.

Every ``--json`` shape is a pydantic model produced by the library; this
module prints it. Nothing here knows what a search or an answer is.
"""

from __future__ import annotations

import functools
import sys
from typing import TYPE_CHECKING, NoReturn

import typer

if TYPE_CHECKING:
    from pydantic import BaseModel
    from rich.console import Console


@functools.cache
def console() -> Console:
    """Rich output on stdout (imported on first use: ``--help`` and ``--json`` runs never need it)."""
    from rich.console import Console

    return Console(soft_wrap=False)


@functools.cache
def err_console() -> Console:
    """Rich output on stderr: progress bars and notes."""
    from rich.console import Console

    return Console(stderr=True)


def emit_json(data: BaseModel) -> None:
    """The one way a command prints JSON: the model's own serialisation, indented."""
    sys.stdout.write(data.model_dump_json(indent=2) + "\n")


def printable(text: str) -> str:
    """One line, no terminal control sequences: a file name may hold a newline or an ESC."""
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)


def fail(message: str, code: int = 2) -> NoReturn:
    """Print one ``error:`` line and exit with ``code``."""
    sys.stderr.write(f"error: {message}\n")
    raise typer.Exit(code)
