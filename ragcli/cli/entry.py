"""The ``ragcli`` command's entry point (the script, ``python -m ragcli`` and ``python -m ragcli.cli``): import
the CLI, then run it.

A Ctrl-C while Python is still importing the CLI (Typer, Click and Rich: about 50 ms of every start) ends with the
same one ``error:`` line and exit code 130 as one during a command, not Python's traceback. Before that import
only ``ragcli``'s lazy package faces, ``errors`` and ``interrupts`` are loaded (no third-party module), so the
window left to Python's own handling is a few milliseconds. Unlike ``interrupts.Watch`` during a command, this
catches only a KeyboardInterrupt: a library that turned one into another exception while it was being imported
would still show its traceback.
"""

from __future__ import annotations

import sys

from ..errors import error_line
from .interrupts import EXIT_INTERRUPTED, INTERRUPTED, forget_handled_interrupts


def run() -> None:
    """``ragcli``: the CLI run to its exit code (``app.run``)."""
    try:
        from .app import run as run_cli
    except KeyboardInterrupt:
        sys.stderr.write(error_line(INTERRUPTED) + "\n")
        forget_handled_interrupts()
        sys.exit(EXIT_INTERRUPTED)
    run_cli()
