"""Crash safety, interruption and disk failures of a real ``ragcli ingest``.

The guarantee under test: a new generation is published atomically, so
whatever happens to a writer (SIGKILL at any moment, Ctrl-C, a disk that
refuses a write) readers see exactly the previous complete generation or
exactly the new one, never a mix, the index verifies, the write lock is free
again and the next ingest repairs everything.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.cli import (
    assert_one_error_line,
    clean_env,
    cli,
    cli_args,
    cli_many,
    cli_popen,
    default_sigint,
    install_pydantic_plugin,
    result_ids,
    stderr_lines,
    wait_for,
)
from support.corpus import audit_counts, build_dirs, current_name, generation_dirs, passage_ids, write_round, write_user
from support.fixtures import shared_embedder
from support.paths import REPO, SAMPLE

from ragcli.principal import Scope

TENANT = "crashco"
ROUND_DOCS = 20


def _principal():
    from ragcli.principal import Principal

    return Principal(user="kim", tenant=TENANT, groups=())


def _search_ids(root: Path) -> list[str]:
    """A fresh reader's hybrid search (BM25 + dense) over the published generation."""
    from ragcli.search import Retriever

    retriever = Retriever(root, embedder=shared_embedder())
    try:
        return retriever.search(
            Scope.of(_principal(), dt.date(2026, 6, 1)), "refund invoice policy backup audit", k=40
        ).ids
    finally:
        retriever.close()


def _ingest_cmd(folder: Path, root: Path) -> list[object]:
    return ["ingest", folder, "--tenant", TENANT, "--acl", "everyone", "--index", root, "--json"]


def _assert_whole(root: Path, old: set[str], new: set[str], what: str) -> str:
    """The published generation is exactly ``old`` or exactly ``new``; it verifies and has no orphans."""
    ids = passage_ids(root, TENANT)
    assert ids == old or ids == new, (
        f"{what}: published generation is a mix or neither: "
        f"{len(ids & old)} old, {len(ids & new)} new, {len(ids - old - new)} foreign of {len(ids)}"
    )
    assert audit_counts(root, TENANT) == (0, 0), what
    found = _search_ids(root)
    assert found, what
    assert set(found) <= ids, (what, sorted(set(found) - ids)[:5])
    return "old" if ids == old else "new"


def _lock_is_free(root: Path) -> None:
    from ragcli.errors import IndexLockedError
    from ragcli.index.writer import write_lock

    try:
        with write_lock(root, TENANT):
            pass
    except IndexLockedError as exc:  # pragma: no cover - the failure being tested for
        pytest.fail(f"the lock of a killed ingest was not released: {exc}")


def _run_and_kill(folder: Path, root: Path, trigger: str, delay: float, sig: int = signal.SIGKILL):
    """Start a real ingest, send ``sig`` at the chosen moment; return (signalled, returncode, stderr).

    Triggers: ``start`` (``delay`` seconds after the process started),
    ``build`` (``delay`` seconds after its half-built generation directory
    appears), ``gen`` (the moment the finished generation is renamed into
    place, before or just after CURRENT is replaced) and ``current`` (the
    moment CURRENT names the new generation: the kill lands after publish).
    """
    gens_before = set(generation_dirs(root, TENANT))
    current_before = current_name(root, TENANT)
    proc = cli_popen(*_ingest_cmd(folder, root), env=None, cwd=root.parent, interruptible=True)
    started = time.monotonic()
    if trigger == "start":
        wait_for(lambda: time.monotonic() - started >= delay, proc, poll=0.005)
    elif trigger == "build":
        if wait_for(lambda: bool(build_dirs(root, TENANT)), proc, poll=0.001) and delay:
            time.sleep(delay)
    elif trigger == "gen":
        wait_for(lambda: bool(set(generation_dirs(root, TENANT)) - gens_before), proc, poll=0.0005)
    elif trigger == "current":
        wait_for(lambda: current_name(root, TENANT) != current_before, proc, poll=0.0005)
    else:  # pragma: no cover
        raise ValueError(trigger)
    signalled = False
    if proc.poll() is None:
        os.kill(proc.pid, sig)
        signalled = True
    _, err = proc.communicate(timeout=300)
    return signalled and proc.returncode in (-sig, 130), proc.returncode, err


@pytest.mark.slow
def test_sigkill_at_many_moments_never_breaks_the_published_index(tmp_path: Path) -> None:
    root = tmp_path / "index"
    folder = tmp_path / "docs"
    user_file = write_user(tmp_path / "kim.json", "kim", TENANT)
    from ragcli import ingest

    # The very first ingest killed while writing: there is no index yet, readers are told so.
    write_round(folder, 0, 8)
    killed, code, err = _run_and_kill(folder, root, "build", 0.0)
    assert killed, (code, err)
    from ragcli.errors import InputError
    from ragcli.index import TenantIndex

    with pytest.raises(InputError, match=f"unknown tenant '{TENANT}'"):
        TenantIndex.open(root, TENANT)
    _lock_is_free(root)

    # An existing published index of a smaller corpus.
    published = write_round(folder, 0, 8)
    report = ingest(folder, TENANT, index=root, default_acl=["everyone"], embedder=shared_embedder())
    assert report.published
    assert passage_ids(root, TENANT) == published

    # One complete run, to calibrate the kill moments (and check the expected IDs).
    new = write_round(folder, 1, ROUND_DOCS)
    current_before = current_name(root, TENANT)
    started = time.monotonic()
    proc = cli_popen(*_ingest_cmd(folder, root))
    wait_for(lambda: bool(build_dirs(root, TENANT)), proc, poll=0.001)
    build_seen = time.monotonic()
    wait_for(lambda: current_name(root, TENANT) != current_before, proc, poll=0.001)
    build = max(0.005, time.monotonic() - build_seen)  # writing the generation, up to its publication
    proc.communicate(timeout=300)
    full = time.monotonic() - started
    assert proc.returncode == 0
    assert _assert_whole(root, published, new, "calibration run") == "new"
    published = new

    schedule = (
        [("start", full * f) for f in (0.02, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)]
        + [("build", build * f) for f in (0.0, 0.1, 0.2, 0.3, 0.45, 0.6, 0.75, 0.9)]
        + [("gen", 0.0), ("gen", 0.0), ("current", 0.0)]
    )
    # A run that happens to be quicker than the calibration run may finish before
    # its moment comes; a few extra attempts then make up the number of kills.
    extra = [("build", build * f) for f in (0.0, 0.3, 0.15, 0.45, 0.05, 0.6, 0.2, 0.1)]
    outcomes: list[tuple[str, float, str]] = []
    completed = 0
    attempt = 1
    while schedule or (len(outcomes) < 20 and extra):
        trigger, delay = (schedule or extra).pop(0)
        attempt += 1
        new = write_round(folder, attempt, ROUND_DOCS)
        killed, code, err = _run_and_kill(folder, root, trigger, delay)
        what = f"attempt {attempt} ({trigger} +{delay:.3f}s, exit {code})"
        assert "is being ingested" not in err, (what, err)  # the previous killed writer's lock was released
        if not killed:
            assert code == 0, (what, err[-2000:])
            completed += 1
        seen = _assert_whole(root, published, new, what)
        if not killed:
            assert seen == "new", what
        else:
            outcomes.append((trigger, delay, seen))
        _lock_is_free(root)
        if seen == "new":
            published = new
        if killed and len(outcomes) in (1, 11, 20):
            # The same through the CLI: status is clean, search answers from that generation.
            status, search = cli_many(
                [
                    ["status", "--tenant", TENANT, "--index", root, "--json"],
                    [
                        "search",
                        "refund invoice policy backup",
                        "--as",
                        user_file,
                        "--index",
                        root,
                        "--json",
                        "-k",
                        "40",
                    ],
                ],
                parallel=2,
            )
            assert status.returncode == 0, (what, status.stderr)
            (tenant_status,) = json.loads(status.stdout)["tenants"]
            assert (tenant_status["orphan_vectors"], tenant_status["stale_entries"]) == (0, 0), what
            found = result_ids(search)
            assert found and set(found) <= published, (what, found[:5])

    kills = len(outcomes)
    before_publish = sum(1 for _, _, seen in outcomes if seen == "old")
    print(f"{kills} kills ({before_publish} before publish), {completed} runs finished first: {outcomes}")
    assert kills >= 20, f"only {kills} kills landed ({completed} runs finished first): {outcomes}"
    assert before_publish >= 10, f"only {before_publish} kills landed before publish: {outcomes}"
    assert any(seen == "old" for trigger, _, seen in outcomes if trigger == "build"), outcomes

    # Finally an ingest runs to the end and cleans up after every killed writer.
    final = write_round(folder, 99, ROUND_DOCS)
    done = cli(*_ingest_cmd(folder, root))
    assert done.returncode == 0, done.stderr
    assert passage_ids(root, TENANT) == final
    assert build_dirs(root, TENANT) == []
    assert not [p for p in (root / TENANT).iterdir() if p.name.startswith(".CURRENT.")]
    gens = generation_dirs(root, TENANT)
    assert current_name(root, TENANT) in gens and len(gens) <= 2, gens
    status = cli("status", "--index", root, "--json")
    assert status.returncode == 0, status.stderr


@pytest.mark.slow
def test_ctrl_c_while_writing_exits_130_and_keeps_the_index(tmp_path: Path) -> None:
    root = tmp_path / "index"
    folder = tmp_path / "docs"
    from ragcli import ingest

    old = write_round(folder, 0, 8)
    ingest(folder, TENANT, index=root, default_acl=["everyone"], embedder=shared_embedder())
    new = write_round(folder, 1, ROUND_DOCS)
    interrupted, code, err = _run_and_kill(folder, root, "build", 0.0, sig=signal.SIGINT)
    assert interrupted, (code, err)
    assert code == 130, err  # not -2: see the test below for the Ctrl-C that lands in exec'd code
    assert "Traceback" not in err, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert lines == ["error: interrupted; the published index is unchanged"], err
    assert _assert_whole(root, old, new, "SIGINT") == "old"
    _lock_is_free(root)
    assert build_dirs(root, TENANT) == []  # cleaned by the interrupted writer itself or the lock above


IN_EXEC = """
# What a Ctrl-C during a lazy import does when it lands in code run by exec() of a string, as dataclasses and
# namedtuple run to build their methods: the KeyboardInterrupt ends that code and travels up to the CLI.
exec("raise KeyboardInterrupt")
"""

DRESSED = """
# What numpy's ndarray.tofile did with a Ctrl-C that arrived during np.save (seen in an interrupted ingest): the
# KeyboardInterrupt is lost and a TypeError takes its place.
import os, signal
try:
    os.kill(os.getpid(), signal.SIGINT)
    for _ in range(1_000_000):
        pass
except KeyboardInterrupt:
    raise TypeError("expected str, bytes or os.PathLike object, not BufferedWriter") from None
"""


@pytest.mark.parametrize("plugin", [IN_EXEC, DRESSED], ids=["in_exec", "dressed_as_a_type_error"])
def test_a_ctrl_c_that_a_library_mishandles_still_exits_130_with_one_line(tmp_path: Path, plugin: str) -> None:
    # Two ways a Ctrl-C went wrong in about one in 40 interrupted ingests (the test above) on a loaded machine:
    # - in code run by exec() of a string, CPython marks the interrupt unhandled though the CLI catches it, and a
    #   ``python -m`` run ended by SIGINT (-2) after its one line;
    # - dressed by numpy as a TypeError, it printed a traceback and exit code 1.
    # Made certain here: a real pydantic plugin, installed as a distribution on the path, does either while
    # pydantic loads it (at the first model the command builds).
    site = tmp_path / "site"
    site.mkdir()
    install_pydantic_plugin(site, plugin)
    # Without PYDANTIC_DISABLE_PLUGINS: an in-process CLI run of another test may have set it here.
    env = clean_env(
        {"PYTHONPATH": str(site), "RAGCLI_CACHE": str(tmp_path / "cache")}, unset=("PYDANTIC_DISABLE_PLUGINS",)
    )
    proc = subprocess.run(
        cli_args("eval", SAMPLE / "questions.jsonl", "--index", tmp_path / "index"),
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        preexec_fn=default_sigint,  # the plugin's SIGINT must reach the CLI, as in cli_popen(interruptible=True)
    )
    assert proc.returncode == 130, (proc.returncode, proc.stderr)
    assert proc.stderr.strip() == "error: interrupted; the published index is unchanged"


AT_IMPORT = """
# A Ctrl-C that arrives while Python is still importing the CLI (Typer is its first heavy import) or the first
# module ``main`` imports.
import os, signal, sys

SEND = "os.kill(os.getpid(), signal.SIGINT)\\nfor _ in range(1_000_000): pass"


class CtrlCAt:
    def find_spec(self, name, path=None, target=None):
        if name == AT:
            if IN_EXEC:  # lands in code run by exec of a string, as when dataclasses build their methods
                exec(SEND, {"os": os, "signal": signal})
            else:
                exec(compile(SEND, "<hook>", "exec"), {"os": os, "signal": signal})
        return None


sys.meta_path.insert(0, CtrlCAt())
"""


def _script_command() -> list[str]:
    """What the installed ``ragcli`` script runs, built from pyproject's ``[project.scripts]`` as pip builds it."""
    import tomllib

    target = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]["ragcli"]
    module, _, function = target.partition(":")
    return [sys.executable, "-c", f"import sys; from {module} import {function}; sys.exit({function}())"]


@pytest.mark.parametrize(
    ("at", "in_exec"),
    [("typer", False), ("typer", True), ("ragcli.cli.plugins", False)],
    ids=["typer", "typer_in_exec", "plugins"],
)
@pytest.mark.parametrize("start", ["script", "ragcli", "ragcli.cli"])
def test_a_ctrl_c_while_the_cli_is_imported_exits_130_with_one_line(
    tmp_path: Path, start: str, at: str, in_exec: bool
) -> None:
    # Python reads a sitecustomize on the path at start-up: this one sends the Ctrl-C as module ``at`` is imported,
    # in code run by exec of a string (which CPython marks unhandled: a ``python -m`` run would end by SIGINT) or
    # not.
    site = f"AT = {at!r}\nIN_EXEC = {in_exec}\n{AT_IMPORT}"
    (tmp_path / "sitecustomize.py").write_text(site, encoding="utf-8")
    command = _script_command() if start == "script" else [sys.executable, "-m", start]
    proc = subprocess.run(
        [*command, "status", "--index", tmp_path / "index"],
        capture_output=True,
        text=True,
        env=clean_env({"PYTHONPATH": str(tmp_path)}),
        timeout=120,
        preexec_fn=default_sigint,
    )
    assert proc.returncode == 130, (proc.returncode, proc.stderr)
    assert proc.stderr.strip() == "error: interrupted; the published index is unchanged"


@pytest.mark.parametrize("thread", ["main", "another"])
def test_main_leaves_the_sigint_handler_as_it_found_it(thread: str) -> None:
    # The CLI watches Ctrl-C while a command runs and puts Python's own handler back after; from another thread it
    # watches nothing (a handler cannot be set there: ValueError).
    import contextlib
    import io
    import threading

    from ragcli.cli import main

    before = signal.getsignal(signal.SIGINT)
    codes: list[int] = []

    def run() -> None:
        with contextlib.redirect_stdout(io.StringIO()):
            codes.append(main(["--version"]))

    if thread == "main":
        run()
    else:
        worker = threading.Thread(target=run)
        worker.start()
        worker.join()
    assert codes == [0]
    assert signal.getsignal(signal.SIGINT) is before


def _first_round(folder: Path, root: Path, docs: int) -> tuple[set[str], list[str]]:
    """``docs`` documents written and published (in this process): their passage IDs and the generations."""
    from ragcli import ingest

    old = write_round(folder, 0, docs)
    ingest(folder, TENANT, index=root, default_acl=["everyone"], embedder=shared_embedder())
    return old, generation_dirs(root, TENANT)


def _fsize_limit(limit: int):
    def preexec() -> None:
        # Writes past `limit` bytes fail with EFBIG instead of killing the process.
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return preexec


@pytest.mark.slow
def test_a_write_that_fails_part_way_leaves_the_previous_index(tmp_path: Path) -> None:
    root, folder = tmp_path / "index", tmp_path / "docs"
    old, gens = _first_round(folder, root, 8)

    new = write_round(folder, 1, 40)
    embeddings_bytes = 40 * 384 * 4
    # 4 KiB: the passages file already fails; just under the matrix: the embeddings fail.
    for limit in (4096, embeddings_bytes - 2048):
        proc = cli(*_ingest_cmd(folder, root), preexec_fn=_fsize_limit(limit))
        line = assert_one_error_line(proc, "previous index is unchanged", f"tenant '{TENANT}'")
        assert "cannot write" in line
        assert passage_ids(root, TENANT) == old
        assert audit_counts(root, TENANT) == (0, 0)
        assert generation_dirs(root, TENANT) == gens
        assert build_dirs(root, TENANT) == []
        found = _search_ids(root)
        assert found and set(found) <= old

    from ragcli import ingest

    done = ingest(folder, TENANT, index=root, default_acl=["everyone"], embedder=shared_embedder())
    assert done.published
    assert passage_ids(root, TENANT) == new
    assert build_dirs(root, TENANT) == []


# The CLI's own entry point (what ``python -m ragcli.cli`` runs), started after
# every module ingest needs is imported, with only a few more file descriptors
# than are open at that point: enough to open the published index (Tantivy's
# reader holds 4 or 5 of them: with fewer the ingest stops on the limit before
# it writes anything) and for each file ragcli writes itself (one at a time),
# not for Tantivy's segment writer, which holds several at once.
_FEW_DESCRIPTORS = """
import os, resource, sys
import markdown_it, numpy, onnxruntime, tantivy, tokenizers, yaml
import ragcli.cli.app, ragcli.cli.ingest, ragcli.embedder, ragcli.index.previous, ragcli.index.writer
import ragcli.ingestion.chunking, ragcli.ingestion.html, ragcli.ingestion.incremental
import ragcli.ingestion.loaders, ragcli.ingestion.pipeline
limit = len(os.listdir("/proc/self/fd")) + 6
resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))
sys.exit(ragcli.cli.app.main(sys.argv[1:]))
"""


def _script_ingest(
    script: str, before: list[str], folder: Path, root: Path, *, workers: int
) -> subprocess.CompletedProcess[str]:
    """``ragcli ingest`` of ``folder`` through ``script`` (``python -c``), its own arguments ``before`` the CLI's."""
    return subprocess.run(
        [sys.executable, "-c", script, *before, *map(str, _ingest_cmd(folder, root))],
        capture_output=True,
        text=True,
        env=clean_env({"RAGCLI_PARSE_WORKERS": str(workers)}),
        timeout=300,
    )


@pytest.mark.slow
def test_a_bm25_write_failure_is_reported_and_leaves_the_previous_index(tmp_path: Path) -> None:
    root, folder = tmp_path / "index", tmp_path / "docs"
    old, gens = _first_round(folder, root, 6)
    write_round(folder, 1, 6)
    # Parse in-process: the descriptors left are the BM25 writer's. Tantivy says so in Rust's words; the line
    # names the limit and the way out, as every other descriptor error does.
    proc = _script_ingest(_FEW_DESCRIPTORS, [], folder, root, workers=0)
    line = _limit_line(proc)
    assert f"cannot write the new index of tenant '{TENANT}'" in line and "previous index is unchanged" in line
    assert passage_ids(root, TENANT) == old
    assert audit_counts(root, TENANT) == (0, 0)
    assert generation_dirs(root, TENANT) == gens
    # (Out of descriptors, the failed writer may not even manage to delete its
    # half-built directory; the next writer to take the lock does.)
    _lock_is_free(root)
    assert build_dirs(root, TENANT) == []


# Tantivy's writer under a file size limit (as a full disk fails it): a file it writes outgrows the limit.
_SMALL_FILES = """
import resource, signal, sys
from pathlib import Path
from ragcli.index.bm25 import write_bm25
from ragcli.passage import Passage

signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead of killing us
words = " ".join(f"word{n}" for n in range(20_000))
passages = [
    Passage(f"d{n}@v#s", f"d{n}", "v", "s", "t", ("everyone",), None, None, "T", (), "/x.md", None, words)
    for n in range(4)
]
resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
try:
    write_bm25(Path(sys.argv[1]), passages)
except OSError as exc:
    print(f"OSError errno={exc.errno} {exc}")
"""


def test_a_bm25_write_that_fails_for_another_reason_says_so_in_tantivys_words(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", _SMALL_FILES, str(tmp_path / "tantivy")], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert proc.stdout.startswith("OSError errno=None the BM25 index could not be written ("), proc.stdout


# The same entry point, with ``sys.argv[1]`` descriptors more than are open once
# ingest's modules are imported: swept from none (the lock, the folder, a file
# being read cannot be opened) up to enough for the parse pool's workers.
_DESCRIPTORS_LEFT = """
import os, resource, sys
import ragcli.cli.app, ragcli.cli.ingest, ragcli.ingestion.pipeline, ragcli.ingestion.workers
limit = len(os.listdir("/proc/self/fd")) + int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))
sys.exit(ragcli.cli.app.main(sys.argv[2:]))
"""


def _limit_line(proc: subprocess.CompletedProcess[str]) -> str:
    """The one error line of a run out of descriptors: it names the limit, and neither blames the index nor shows a
    traceback. Lines of onnxruntime's own C++ code (its logger writes to descriptor 2 when it cannot open files of
    its own) are not ragcli's and are skipped."""
    native = [line for line in stderr_lines(proc) if "onnxruntime" in line or "cpuinfo" in line]
    ours = subprocess.CompletedProcess(
        proc.args,
        proc.returncode,
        proc.stdout,
        "\n".join(line for line in proc.stderr.splitlines() if line not in native),
    )
    line = assert_one_error_line(ours, "too many open files", "ulimit -n")
    assert "damaged" not in line and "re-ingest" not in line, line
    return line


def test_the_reason_of_an_os_error_line_names_the_descriptor_limit_when_that_is_the_reason() -> None:
    # One reason for the "cannot read/write/open ...: <reason>" lines (``errors.os_reason``): the system's words,
    # or the limit and the way out of it, never "Too many open files" alone. A full system file table is not
    # this process's limit: raising ``ulimit -n`` would not help, so it is not offered.
    import errno

    from ragcli.errors import os_reason

    assert "ulimit -n" in os_reason(OSError(errno.EMFILE, "Too many open files"))
    assert "ulimit -n" in os_reason(ValueError("Failed to open file: Too many open files (os error 24)"))
    system = os_reason(OSError(errno.ENFILE, "Too many open files in system"))
    assert "file table is full" in system and "ulimit" not in system
    assert os_reason(OSError(errno.ENOENT, "No such file or directory")) == "No such file or directory"
    assert os_reason(OSError("no strerror")) == "no strerror"
    assert os_reason(OSError()) == "OSError"
    bad_utf8 = UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte")
    assert os_reason(bad_utf8) == "'utf-8' codec can't decode byte 0xff in position 0: invalid start byte"


@pytest.mark.slow
@pytest.mark.parametrize(("workers", "reached"), [(2, "cannot start a process to parse"), (0, "cannot write the new")])
def test_a_parse_pool_out_of_descriptors_gives_one_error_line_and_keeps_the_index(
    tmp_path: Path, workers: int, reached: str
) -> None:
    """EMFILE anywhere in an ingest (the lock, the folder, a module imported late, the pool starting a worker,
    Tantivy writing the new index) gives one error line naming the limit, nothing written; once the pool has one
    worker, a later one failing leaves it the workers it has. Never a traceback, never a file rejected for the
    process's limit. Without a pool (``workers`` 0) the limits just too low to run reach Tantivy's writer."""
    root, folder = tmp_path / "index", tmp_path / "docs"
    old, gens = _first_round(folder, root, 6)
    new = write_round(folder, 1, 8)
    stopped_there = 0
    for left in range(48):  # from none left: what the ingest opens before it parses takes 4 to 6 of them
        proc = _script_ingest(_DESCRIPTORS_LEFT, [str(left)], folder, root, workers=workers)
        if proc.returncode == 0:
            break
        line = _limit_line(proc)
        if reached in line:
            assert "previous index is unchanged" in line, line
            stopped_there += 1
        assert passage_ids(root, TENANT) == old
        assert generation_dirs(root, TENANT) == gens
        _lock_is_free(root)
    else:
        pytest.fail("no descriptor limit under 48 left the ingest enough to run")
    assert stopped_there, f"no limit stopped the ingest at '{reached}': the test no longer reaches that failure"
    # The first limit that runs it publishes every file: with a pool, that limit starts one worker and not the
    # second, and the run parsed every file with the one it has.
    assert passage_ids(root, TENANT) == new
    assert json.loads(proc.stdout)["documents"]["rejected"] == [], proc.stdout
    assert build_dirs(root, TENANT) == []


@pytest.mark.slow
@pytest.mark.parametrize("command", ["search", "status"])
def test_reading_an_index_out_of_descriptors_says_so_and_never_calls_it_damaged(tmp_path: Path, command: str) -> None:
    """A search or status that runs out of descriptors while it opens the index (Tantivy's files, the mapped
    arrays) names the limit; it does not tell the user to re-ingest a sound index."""
    root, folder = tmp_path / "index", tmp_path / "docs"
    old, _ = _first_round(folder, root, 4)
    user = write_user(tmp_path / "kim.json", "kim", TENANT, ["everyone"])
    args = ["search", "refund policy", "--as", str(user)] if command == "search" else ["status"]
    refused = 0
    for left in range(48):
        proc = subprocess.run(
            [sys.executable, "-c", _DESCRIPTORS_LEFT, str(left), *args, "--index", str(root), "--json"],
            capture_output=True,
            text=True,
            env=clean_env(),
            timeout=120,
        )
        if proc.returncode == 0:
            break
        _limit_line(proc)
        refused += 1
    else:
        pytest.fail(f"no descriptor limit under 48 left {command} enough to run")
    assert refused, "the first limit tried already ran: the test no longer reaches the failure"
    assert passage_ids(root, TENANT) == old
