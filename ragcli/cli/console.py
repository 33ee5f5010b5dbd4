"""Where output goes: Rich consoles for people, one JSON path for scripts.

Every ``--json`` shape is a pydantic model produced by the library; this
module prints it. Nothing here knows what a search or an answer is.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Iterable, Sequence
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


def plain_output() -> bool:
    """Whether stdout is a pipe or file: tables are then printed as tab-separated rows, never cut to a width."""
    return not console().is_terminal


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 case``, ``2 cases``."""
    return f"{n} {word if n == 1 else (many or word + 's')}"


def tsv(header: Sequence[str], rows: Iterable[Sequence[object]]) -> None:
    """A table for scripts: a header line, then one tab-separated line per row, every cell whole and on one line."""
    lines = ["\t".join(_cell(c) for c in header)]
    lines += ["\t".join(_cell(c) for c in row) for row in rows]
    sys.stdout.write("\n".join(lines) + "\n")


def _cell(value: object) -> str:
    text = getattr(value, "plain", None)
    if text is None:
        text = "-" if value is None else str(value)
    return printable(" ".join(str(text).split()))


def error(message: str) -> None:
    """The one writer of ``error:`` lines: ``message`` on stderr, as ``errors.error_line`` words it."""
    from ..errors import error_line

    sys.stderr.write(error_line(message) + "\n")
    sys.stderr.flush()


def fail(message: str, code: int = 2) -> NoReturn:
    """Print one ``error:`` line and exit with ``code``."""
    error(message)
    raise typer.Exit(code)
