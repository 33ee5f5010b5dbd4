"""The CLI layer: Typer commands over the library (thin: parse, call, print).

entry     the ``ragcli`` command: imports the CLI, then runs it (a Ctrl-C during the import is one line too)
app       the Typer app (each run builds only the command it runs), exit codes, errors as one ``error:`` line
interrupts  Ctrl-C as one line and exit code 130, whatever exception a library made of it
options   options every command shares; the CLI's scope resolution
answer_options  the answer options of ask, eval and mcp, declared once (the ``AnswerSetup`` they build)
plugins   pydantic's search for plugins skipped in an environment found to have none
coercion  option values converted as Typer converts them, without a pydantic validator per option
console   where output goes (results on stdout, the rest on stderr), untrusted text made inert, the JSON printer
results   search results in every ``--format``, snippets, ``--explain``
eval_tables  ``ragcli eval``'s tables for people: one run (with its breakdowns), or a comparison
eval_reports  the files ``ragcli eval`` writes: ``--output``, ``--junit``, ``--summary``, ``--report``
ingest, status, search, ask, evaluate   one module per command, with its tables
watch     ``ragcli watch``: ingest again whenever the folder changes
trace     ``ragcli trace replay``: re-run a traced run's searches and compare the rankings
mcp       ``ragcli mcp``: start the MCP server (``ragcli.mcp``) for one user
serve     ``ragcli serve``: the HTTP server for a team (``ragcli.serve``); ``ragcli keys add``: an API key for it
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import export_names, lazy_exports

if TYPE_CHECKING:  # imported when first used: ``ragcli.cli.interrupts`` must not import Typer (``entry``)
    from .app import main as main
    from .entry import run as run

# The Typer app itself is ``ragcli.cli.app.app`` (built when first asked: a run builds only its own command).
__all__ = export_names(__file__)
__getattr__ = lazy_exports(__name__, __file__)
