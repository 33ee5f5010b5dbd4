"""One way to run the CLI: a real subprocess (``cli``, ``cli_popen``, ``cli_many``) or the
real entry point in this process (``invoke``), always with a clean environment."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import pytest

# Variables that would change which model, key or index a CLI run uses.
_DROP_ENV = (
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "RAGCLI_OPENAI_BASE_URL",
    "OPENAI_BASE_URL",
    "RAGCLI_MODEL",
    "RAGCLI_EMBED_MODEL",
    "RAGCLI_EMBED_TOKENIZER",
    "RAGCLI_EMBED_POOLING",
)


def clean_env(
    extra: dict[str, str] | None = None, *, index: Path | None = None, unset: Sequence[str] = ()
) -> dict[str, str]:
    """The environment of a CLI run: no API key or model override, wide columns, ``index`` as RAGCLI_INDEX if given.

    ``unset`` drops more variables (e.g. ``RAGCLI_INDEX``, for a run that finds its index the way a user's does).
    """
    env = {k: v for k, v in os.environ.items() if k not in _DROP_ENV and k not in unset}
    # Some machines set PYTHONDONTWRITEBYTECODE: on a fresh clone every CLI run would then compile each ragcli
    # module it imports again (~0.15 s of an `ask`). The first run writes them (into the ignored __pycache__).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONWARNINGS"] = "ignore"
    env["COLUMNS"] = "200"
    if index is not None:
        env["RAGCLI_INDEX"] = str(index)
    if extra:
        env.update(extra)
    return env


def cli_args(*args: object) -> list[str | bytes]:
    """The command line; a bytes argument is passed as raw bytes (for undecodable argv)."""
    return [sys.executable, "-m", "ragcli.cli", *(a if isinstance(a, bytes) else str(a) for a in args)]


def install_pydantic_plugin(site: Path, source: str) -> None:
    """A real distribution in ``site`` (a folder to put on PYTHONPATH) whose ``pydantic`` entry point is the module
    ``source``'s ``plugin``, as pip leaves one: pydantic loads it when a run builds its first model."""
    (site / "ragcli_test_plugin.py").write_text(source, encoding="utf-8")
    info = site / "ragcli_test_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: ragcli-test-plugin\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[pydantic]\ntest = ragcli_test_plugin:plugin\n", encoding="utf-8")


def _cwd(cwd: Path | None) -> str:
    # The test's private index directory: a relative path never lands in the repository.
    return str(cwd) if cwd is not None else os.environ.get("RAGCLI_INDEX") or tempfile.gettempdir()


def cli(
    *args: object,
    env: dict[str, str] | None = None,
    index: Path | None = None,
    cwd: Path | None = None,
    timeout: float = 300,
    preexec_fn: Callable[[], None] | None = None,
    unset: Sequence[str] = (),
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m ragcli.cli ARGS`` as a real subprocess to completion."""
    return subprocess.run(
        cli_args(*args),
        capture_output=True,
        text=True,
        env=clean_env(env, index=index, unset=unset),
        cwd=_cwd(cwd),
        timeout=timeout,
        preexec_fn=preexec_fn,
    )


def cli_popen(
    *args: object,
    env: dict[str, str] | None = None,
    index: Path | None = None,
    cwd: Path | None = None,
    interruptible: bool = False,
) -> subprocess.Popen[str]:
    """The CLI as a running child. ``interruptible``: it starts with SIGINT's default disposition, whatever ours is,
    for a test that sends it Ctrl-C (``default_sigint``)."""
    return subprocess.Popen(
        cli_args(*args),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=clean_env(env, index=index),
        cwd=_cwd(cwd),
        preexec_fn=default_sigint if interruptible else None,
    )


def default_sigint() -> None:
    # A suite started in the background (``nohup pytest &``, ``( .ci/run & )``) ignores SIGINT, and an ignored
    # signal stays ignored across exec: the child would never see the Ctrl-C it is sent.
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def cli_many(
    commands: Iterable[Sequence[object]],
    *,
    env: dict[str, str] | None = None,
    envs: Sequence[dict[str, str] | None] | None = None,
    index: Path | None = None,
    parallel: int = 2,
    timeout: float = 300,
) -> list[subprocess.CompletedProcess[str]]:
    """Run independent CLI commands, ``parallel`` at a time; results in order."""
    commands = [list(c) for c in commands]
    results: list[subprocess.CompletedProcess[str] | None] = [None] * len(commands)
    running: list[tuple[int, subprocess.Popen[str]]] = []
    pending = list(range(len(commands)))
    deadline = time.monotonic() + timeout
    while pending or running:
        while pending and len(running) < parallel:
            i = pending.pop(0)
            running.append((i, cli_popen(*commands[i], env=envs[i] if envs is not None else env, index=index)))
        i, proc = running.pop(0)
        try:
            out, err = proc.communicate(timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
        results[i] = subprocess.CompletedProcess(cli_args(*commands[i]), proc.returncode, out, err)
    return [r for r in results if r is not None]


def cli_tty(
    *args: object,
    columns: int = 80,
    cwd: Path | None = None,
    index: Path | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 300,
    stderr_too: bool = False,
    unset: Sequence[str] = (),
) -> subprocess.CompletedProcess[str]:
    """Run the CLI with stdout (and with ``stderr_too`` stderr) on a pseudo-terminal ``columns`` wide.

    ``stdout`` is what the terminal got, byte for byte; ``stderr`` what a pipe got (empty with ``stderr_too``).
    """
    import fcntl
    import pty
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    run_env = clean_env({"COLUMNS": str(columns), "TERM": "xterm-256color", **(env or {})}, index=index, unset=unset)
    stderr = slave if stderr_too else subprocess.PIPE
    proc = subprocess.Popen(cli_args(*args), stdout=slave, stderr=stderr, env=run_env, cwd=_cwd(cwd))
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    err = proc.stderr.read() if proc.stderr else b""
    proc.wait(timeout=timeout)
    out = b"".join(chunks).decode("utf-8", "replace").replace("\r\n", "\n")
    return subprocess.CompletedProcess(cli_args(*args), proc.returncode, out, err.decode("utf-8", "replace"))


def invoke(capsys: pytest.CaptureFixture[str], *args: object) -> subprocess.CompletedProcess[str]:
    """Run the real CLI entry point (``ragcli.cli.main``) in this process; same result shape as ``cli``.

    Quick for sweeping many error cases; each kind also runs as a real subprocess somewhere.
    """
    from ragcli.cli import main

    capsys.readouterr()
    argv = [str(a) for a in args]
    code = main(argv)
    captured = capsys.readouterr()
    return subprocess.CompletedProcess(argv, code, captured.out, captured.err)


def json_of(proc: subprocess.CompletedProcess[str]) -> Any:
    try:
        return json.loads(proc.stdout)
    except json.JSONDecodeError as exc:  # pragma: no cover - shown on failure only
        raise AssertionError(f"stdout is not JSON ({exc}): {proc.stdout!r} / stderr {proc.stderr!r}") from None


def search_json(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    """A search's JSON, after checking it exited 0 or 1 without a traceback."""
    assert proc.returncode in (0, 1), (proc.args[3:], proc.returncode, proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr
    return json.loads(proc.stdout)


def result_ids(proc: subprocess.CompletedProcess[str]) -> list[str]:
    return [r["id"] for r in search_json(proc)["results"]]


def stderr_lines(proc: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in proc.stderr.splitlines() if line.strip()]


def assert_one_error_line(proc: subprocess.CompletedProcess[str], *needles: str) -> str:
    """Exit 2 and exactly one stderr line, ``error: ...``, no traceback; the line holds every needle."""
    lines = stderr_lines(proc)
    context = (proc.args, proc.returncode, proc.stdout[-500:], proc.stderr[-2000:])
    assert proc.returncode == 2, context
    assert "Traceback" not in proc.stderr, context
    assert len(lines) == 1, context
    assert lines[0].startswith("error: "), context
    for needle in needles:
        assert needle.lower() in lines[0].lower(), (needle, lines[0])
    return lines[0]


def wait_for(
    predicate: Callable[[], bool], proc: subprocess.Popen[str] | None = None, poll: float = 0.001, limit: float = 300
) -> bool:
    """Poll until ``predicate()`` holds; False if ``proc`` exits first (or after ``limit`` seconds)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if predicate():
            return True
        if proc is not None and proc.poll() is not None:
            return predicate()
        time.sleep(poll)
    return False
