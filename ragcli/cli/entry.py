"""The ``ragcli`` command's entry point: import the CLI, then run it.

A Ctrl-C while Python is still importing the CLI (Typer, Rich, the command's
modules: a few tenths of a second at every start) is answered as one during a
command: one ``error:`` line and exit code 130, not Python's traceback. This
module imports only the standard library and ``errors`` until the CLI is in,
so that window is as short as it can be.
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
