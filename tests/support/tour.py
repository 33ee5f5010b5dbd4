"""The console examples of the tour (README.md and docs/getting-started.md), run for real.

Each example is a ```` ```console ```` block: ``$ COMMAND`` and what the terminal showed. ``run_tour``
runs the commands in order, the way the pages say (a folder holding ``sample_corpus`` and an empty
``.ragcli``, a terminal 100 columns wide), and returns what each printed; ``normalise`` blanks what
differs between two runs (request IDs, today's date, seconds, the folder's path); ``rewrite`` puts a
real run into a page. ``docs/gen_tour.py`` writes both pages; ``tests/test_readme.py`` holds them.

What the terminal showed: a command runs with stdout and stderr on one pseudo-terminal, so the two
interleave as a reader sees them, and ``_screen`` replays carriage returns, cursor moves and erases
the way a terminal does (a transient progress bar leaves nothing). An example that pipes stdout into
``cat`` gets a pipe for stdout and for stderr (no progress bar draws; stderr follows stdout). The
shell's ``exit N`` line ends the output when the example echoes ``$?``.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .cli import cli, cli_tty
from .paths import REPO, SAMPLE

PAGES = (REPO / "README.md", REPO / "docs" / "getting-started.md")
HEADING = "## A quick tour\n"
COLUMNS = 100
REGENERATE = "run `python docs/gen_tour.py` and commit README.md and docs/getting-started.md"

_BLOCK = re.compile(r"```console\n(?P<body>\$ .*?)```", re.DOTALL)
_PROMPT = re.compile(r"^\$ (?P<command>[^\n]+)\n", re.MULTILINE)
_PIPED = " | cat"
_ECHO_EXIT = '; echo "exit $?"'


@dataclass(frozen=True)
class Example:
    """One console block: the command as typed after ``$ `` and the output the page shows."""

    command: str
    output: str


@dataclass(frozen=True)
class Command:
    """How to run an example: the ragcli arguments, whether stdout is piped, whether ``exit N`` is shown."""

    args: list[str]
    piped: bool
    shows_exit: bool

    @classmethod
    def parse(cls, typed: str) -> Command:
        shows_exit = typed.endswith(_ECHO_EXIT)
        typed = typed.removesuffix(_ECHO_EXIT)
        piped = typed.endswith(_PIPED)
        words = shlex.split(typed.removesuffix(_PIPED))
        if not words or words[0] != "ragcli":
            raise ValueError(f"a tour example runs one ragcli command, `| cat` or an exit echo after it: {typed!r}")
        return cls(words[1:], piped, shows_exit)


def _section(text: str) -> tuple[int, int]:
    """Where the tour is in a page: from its heading to the next ``## `` heading."""
    start = text.index(HEADING)
    end = text.find("\n## ", start + len(HEADING))
    return start, len(text) if end < 0 else end


def _block_examples(body: str) -> list[Example]:
    """The examples of one console block: each ``$ `` line with the lines up to the next one."""
    prompts = list(_PROMPT.finditer(body))
    ends = [p.start() for p in prompts[1:]] + [len(body)]
    return [Example(p["command"], body[p.end() : end]) for p, end in zip(prompts, ends, strict=True)]


def examples(text: str) -> list[Example]:
    start, end = _section(text)
    return [e for block in _BLOCK.finditer(text, start, end) for e in _block_examples(block["body"])]


def rewrite(text: str, outputs: list[str]) -> str:
    """``text`` with the tour's example outputs replaced, in order, by ``outputs``."""
    start, end = _section(text)
    blocks = list(_BLOCK.finditer(text, start, end))
    commands = [[e.command for e in _block_examples(b["body"])] for b in blocks]
    if sum(map(len, commands)) != len(outputs):
        raise ValueError(f"the tour has {sum(map(len, commands))} examples, {len(outputs)} outputs given")
    pieces, at, left = [], 0, iter(outputs)
    for block, typed in zip(blocks, commands, strict=True):
        pieces += [text[at : block.start("body")], *(f"$ {line}\n{next(left)}" for line in typed)]
        at = block.end("body")
    return "".join([*pieces, text[at:]])


def prepare(folder: Path) -> Path:
    """The tour's starting point: ``folder`` holding ``sample_corpus`` (a link) and an empty ``.ragcli``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sample_corpus").symlink_to(SAMPLE, target_is_directory=True)
    (folder / ".ragcli").mkdir()
    return folder


def run(command: Command, folder: Path) -> str:
    """What the terminal shows after ``command`` runs in ``folder`` (see the module docstring)."""
    # No RAGCLI_INDEX: the index is found the way a reader's is, as ./.ragcli (and were it not, the
    # per-user index would be one inside the folder, never the machine's).
    env = {"COLUMNS": str(COLUMNS), "XDG_DATA_HOME": str(folder / "xdg-data")}
    if command.piped:
        proc = cli(*command.args, cwd=folder, env=env, unset=("RAGCLI_INDEX",))
    else:
        proc = cli_tty(*command.args, columns=COLUMNS, cwd=folder, env=env, unset=("RAGCLI_INDEX",), stderr_too=True)
    return _shown(proc, command)


def _shown(proc: subprocess.CompletedProcess[str], command: Command) -> str:
    if "Traceback" in proc.stderr or proc.returncode not in (0, 1):
        raise AssertionError(f"ragcli {shlex.join(command.args)} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    text = _plain(proc.stdout) + _plain(proc.stderr)
    if command.shows_exit:
        text += f"exit {proc.returncode}\n"
    return text


_TOKEN = re.compile(r"\x1b\[(?P<params>[0-9;?]*)(?P<final>[A-Za-z])|\x1b\][^\x07]*\x07|\r|\n|[^\x1b\r\n]+")


def _plain(text: str) -> str:
    """Text as read off the screen at the end: no colour, no trailing blanks, one final newline."""
    lines = [line.rstrip() for line in _screen(text)]
    while lines and not lines[-1]:
        lines.pop()
    return "".join(f"{line}\n" for line in lines)


def _screen(text: str) -> list[str]:
    """The lines a terminal holds after printing ``text``: CR, LF, cursor up (``ESC[nA``), erase line
    (``ESC[K``, ``ESC[2K``); colours and other codes change nothing that can be read."""
    lines, row, col = [""], 0, 0
    for token in _TOKEN.finditer(text):
        piece, final = token.group(), token["final"]
        if piece == "\n":
            row, col = row + 1, 0
            lines += [""] * (row + 1 - len(lines))
        elif piece == "\r":
            col = 0
        elif final == "A":
            row = max(0, row - int(token["params"] or 1))
        elif final == "K":
            lines[row] = "" if token["params"] == "2" else lines[row][:col]
        elif not piece.startswith("\x1b"):
            line = lines[row].ljust(col)
            lines[row] = line[:col] + piece + line[col + len(piece) :]
            col += len(piece)
    return lines


def run_tour(folder: Path, typed: list[str]) -> list[str]:
    """Run the typed commands in order from a freshly prepared ``folder``; what each one showed."""
    prepare(folder)
    return [run(Command.parse(line), folder) for line in typed]


# What differs between two honest runs, each with the placeholder it becomes.
_VARYING = (
    (re.compile(r"\brequest [0-9a-f]{32}\b"), "request <id>"),
    (re.compile(r"\bas of \d{4}-\d{2}-\d{2}\b"), "as of <today>"),
    # The ingest table's row: its seconds and the index's absolute path.
    (re.compile(r"^((?:\d+\t){7})\d+(?:\.\d+)?\t\S+$", re.MULTILINE), r"\1<seconds>\t<folder>/.ragcli"),
    (re.compile(r"(latency p50 / p95 \(ms\)\t)\d+(?:\.\d+)? / \d+(?:\.\d+)?"), r"\1<ms> / <ms>"),
)


def normalise(text: str) -> str:
    for pattern, placeholder in _VARYING:
        text = pattern.sub(placeholder, text)
    return text


def write(folder: Path) -> list[Path]:
    """Run the tour in ``folder`` and write its output into every page whose tour differs; the pages written."""
    typed = [example.command for example in examples(PAGES[0].read_text(encoding="utf-8"))]
    outputs = run_tour(folder, typed)
    written = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        if [e.command for e in examples(text)] != typed:
            raise ValueError(f"{page.name}'s tour runs other commands than README.md's: make them the same first")
        new = rewrite(text, outputs)
        if new != text:
            page.write_text(new, encoding="utf-8")
            written.append(page)
    return written


def folder_for_docs() -> Path:
    """Where ``docs/gen_tour.py`` runs the tour: the path the pages show (emptied first)."""
    return Path(os.environ.get("TMPDIR", "/tmp")) / "ragcli-tour"
