"""Where output goes, and how untrusted text is made safe to print.

The rule for every command: results on stdout; counts, footers, notes and
progress on stderr. On a terminal, results are Rich output; in a pipe or a
file, they are whole lines, never wrapped to a width and never padded, so a
long passage ID or shell command survives ``| cat`` and ``| grep``.

Titles, headings, passage text, answers and file names come from documents
that anyone who may write the ingested folder controls. Every control
character but newline and tab is written out (``\\x1b``) before it reaches a
terminal: at the source, where text becomes a cell or a line, and once more in
a render hook on both Rich consoles, so nothing a command forgets goes out raw.

Every ``--json`` shape is a pydantic model produced by the library; this
module prints it. Nothing here knows what a search or an answer is.
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NoReturn, Protocol

import typer

from ..text import visible_controls

if TYPE_CHECKING:
    from rich.console import Console


@functools.cache
def console() -> Console:
    """Rich output on stdout (imported on first use: ``--help`` and ``--json`` runs never need it)."""
    from rich.console import Console

    return _guarded(Console(soft_wrap=False))


@functools.cache
def err_console() -> Console:
    """Rich output on stderr: counts, footers, notes and progress bars."""
    from rich.console import Console

    return _guarded(Console(stderr=True))


def _guarded(rich_console: Console) -> Console:
    """A console that never wraps in a pipe and never prints a control character it did not make itself."""
    from rich.console import RenderHook

    if not rich_console.is_terminal:
        rich_console.soft_wrap = True  # whole lines: no wrapping at 80 columns, no trailing spaces

    class _Inert(RenderHook):
        def process_renderables(self, renderables: list[Any]) -> list[Any]:
            return [_InertRenderable(r) for r in renderables]

    rich_console.push_render_hook(_Inert())
    return rich_console


class _InertRenderable:
    """Renders what it wraps with control characters in its text written out; Rich's own control segments pass."""

    def __init__(self, renderable: Any) -> None:
        self.renderable = renderable

    def __rich_console__(self, rich_console: Console, options: Any) -> Iterable[Any]:
        from rich.segment import Segment

        for segment in rich_console.render(self.renderable, options):
            text = segment.text if segment.control else visible_controls(segment.text)
            yield segment if text == segment.text else Segment(text, segment.style)


_C1_OR_DEL = re.compile(r"[\x7f-\x9f]")


def safe(text: str) -> str:
    """Untrusted text as it may reach a terminal: control characters written out, newlines and tabs kept."""
    return visible_controls(text)


def printable(text: str) -> str:
    """One line, no terminal control sequences: a file name may hold a newline or an ESC."""
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)


class JsonRecord(Protocol):
    """A ``--json`` shape: a pydantic model or a ``checked`` record."""

    def model_dump_json(self, *, indent: int | None = None) -> str: ...


def emit_json(data: JsonRecord) -> None:
    """The one way a command prints JSON: the record's own serialisation, indented, every control character escaped.

    JSON escapes C0 controls itself; DEL and the C1 controls (``\\x9b`` is a
    CSI to some terminals) are escaped here too, so ``cat`` of the output is safe.
    """
    write_out(json_text(data.model_dump_json(indent=2)))


def json_text(text: str) -> str:
    """JSON text with DEL and C1 characters as ``\\u00XX`` escapes (they can only occur inside strings), and ``##[``
    as ``\\u0023#[``.

    ``##[`` is the GitHub runner's legacy workflow command prefix, read anywhere in a line; the ``::`` form is read
    only at the start of one, where JSON never has it. So JSON text carries no workflow command and needs no
    ``workflow_commands_stopped`` markers: stdout stays one JSON document for ``jq`` or a file.
    """
    return _C1_OR_DEL.sub(lambda m: f"\\u{ord(m.group()):04x}", text).replace("##[", "\\u0023#[")


@contextmanager
def workflow_commands_stopped() -> Iterator[None]:
    """Under GitHub Actions, what the block prints is not read as workflow commands (``::error::``, ``::add-mask::``).

    A document line such as ``::add-mask::...`` would otherwise be run by the runner. The block's output goes
    between ``::stop-commands::TOKEN`` and ``::TOKEN::`` with a random token a document cannot guess. Both marker
    lines go to stdout, the stream of the text they protect: the runner reads stdout and stderr apart, so a marker
    on the other stream has no order with that text in its log. (JSON output needs no block: see ``json_text``.)
    """
    from ..settings import github_actions

    if not github_actions():
        yield
        return
    import secrets

    token = secrets.token_hex(16)
    _marker(f"::stop-commands::{token}")
    try:
        yield
    finally:
        _marker(f"::{token}::")


def _marker(text: str) -> None:
    """One workflow command line on stdout, after whatever the block wrote before it (stderr flushed too)."""
    sys.stderr.flush()
    sys.stdout.flush()
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def write_out(text: str) -> None:
    """Lines of results on stdout, as they are (the caller made them safe)."""
    sys.stdout.write(text if text.endswith("\n") else text + "\n")


def line(text: str, *, style: str | None = None, lead: int = 0) -> None:
    """One line of results on stdout: whole and unstyled in a pipe, Rich on a terminal (``lead`` characters bold).

    ``text`` is untrusted and plain (no Rich markup); its control characters are written out.
    """
    if plain_output():
        write_out(safe(text))
        return
    from rich.text import Text

    shown = Text(safe(text), style=style or "")
    if lead:
        shown.stylize("bold", 0, lead)
    console().print(shown)


def footer(text: str) -> None:
    """A footer or count on stderr: dim on a terminal, one plain line in a pipe."""
    if not err_console().is_terminal:
        note(text)
        return
    from rich.text import Text

    err_console().print(Text(safe(text), style="dim"))


def note(text: str) -> None:
    """One line for a person on stderr (a count, a footer, a note), with its control characters written out."""
    sys.stderr.write(printable(text) + "\n")


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
    write_out("\n".join(lines))


def _cell(value: object) -> str:
    return printable(" ".join(plain_text(value).split()))


def plain_text(value: object) -> str:
    """A cell's text: a Rich ``Text`` without its styles, ``-`` for None."""
    text = getattr(value, "plain", None)
    if text is None:
        text = "-" if value is None else str(value)
    return str(text)


def error(message: str) -> None:
    """The one writer of ``error:`` lines: ``message`` on stderr, as ``errors.error_line`` words it."""
    from ..errors import error_line

    sys.stderr.write(error_line(message) + "\n")
    sys.stderr.flush()


def fail(message: str, code: int = 2) -> NoReturn:
    """Print one ``error:`` line and exit with ``code``."""
    error(message)
    raise typer.Exit(code)
