"""Parsing untrusted files where a failure costs one file: worker processes with CPU, wall and memory limits.

Every file an ingest parses goes through ``parsing.parse``, the one boundary
where any parser failure becomes that file's one rejection.

``ParsePool`` runs ``parse`` in worker processes, each a fresh interpreter
(nothing of the ingest is forked: not its ONNX threads, not a library user's
``__main__``), fed tasks and giving results over two pipes. Each worker sets
its own ``resource`` limits: ``RLIMIT_AS`` (memory) once, ``RLIMIT_CPU``
before each file; the pool kills a worker that runs past the wall-time limit.
A worker that died, crashed or ran over is replaced, and its file gets one
rejection line saying which limit it hit. Results come back in the order the
files were given, so a report reads the same however the work was spread.

Not ``concurrent.futures.ProcessPoolExecutor`` (``max_tasks_per_child``): when
one worker dies it breaks the whole executor and fails every queued file, and
it cannot stop one task that runs too long; ``pebble`` could, but is not a
dependency. The pool here is one loop over ``multiprocessing.connection.wait``.

Out of descriptors (``EMFILE``, a low ``ulimit -n``) a worker cannot start: with one running, the pool
goes on with those it has (slower, the same limits); with none, the ingest stops with one ``IndexWriteError``
before anything is written. No fallback to parsing in process: it would drop the limits on untrusted files
unasked, and a process out of descriptors fails again when the index writer opens its segment files.

``InProcess`` (``RAGCLI_PARSE_WORKERS=0``) calls ``parse`` in the ingesting
process: the same boundary for exceptions, no limits.
"""

from __future__ import annotations

import sys
import time
from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any, TypeVar

from ..errors import IndexWriteError, os_reason
from ..settings import ParseLimits
from .parsing import Parsed, ParseTask, Refused, parse

TASKS_PER_WORKER = 200
"""Files one worker parses before it is replaced: memory a parser library keeps is given back."""

T = TypeVar("T")


class InProcess:
    """``parse`` in this process (``RAGCLI_PARSE_WORKERS=0``): exceptions bounded, time and memory not."""

    def __init__(self, limits: ParseLimits) -> None:
        self.limits = limits

    def run(self, jobs: Iterable[T | ParseTask]) -> Iterator[T | tuple[ParseTask, Parsed]]:
        for job in jobs:
            yield (job, parse(job, self.limits)) if isinstance(job, ParseTask) else job

    def close(self) -> None:
        pass


class ParsePool:
    """Worker processes that parse ``ParseTask``s under ``limits``; started on the first task, stopped by close."""

    def __init__(self, limits: ParseLimits) -> None:
        self.limits = limits
        self._idle: list[_Worker] = []
        self._all: list[_Worker] = []
        self._most = limits.workers  # lowered when the system refuses another process (see _worker)

    def run(self, jobs: Iterable[T | ParseTask]) -> Iterator[T | tuple[ParseTask, Parsed]]:
        """Each job as it is, or a task with its result, in the order given; at most two tasks per worker read ahead."""
        source = iter(jobs)
        window: deque[_Slot] = deque()
        ahead = 2 * self.limits.workers
        exhausted = False
        while window or not exhausted:
            while not exhausted and sum(1 for s in window if s.task is not None) < ahead:
                job = next(source, _END)
                if job is _END:
                    exhausted = True
                    break
                window.append(_Slot(job) if isinstance(job, ParseTask) else _Slot(None, done=job))
            self._dispatch(window)
            if window and window[0].finished:
                slot = window.popleft()
                yield slot.done if slot.task is None else (slot.task, slot.done)
                continue
            if window:
                self._wait(window)

    def _dispatch(self, window: deque[_Slot]) -> None:
        for slot in window:
            if slot.task is None or slot.worker is not None or slot.finished:
                continue
            worker = self._worker()
            if worker is None:
                return
            worker.start(slot.task)
            slot.worker = worker

    def _worker(self) -> _Worker | None:
        if self._idle:
            return self._idle.pop()
        busy = len(self._all)
        if busy >= self._most:
            return None
        try:
            worker = _Worker(self.limits)
        except OSError as exc:
            if not busy:
                raise _cannot_start(exc) from None
            self._most = busy  # the workers already running parse the rest: slower, the same limits
            return None
        self._all.append(worker)
        return worker

    def _wait(self, window: deque[_Slot]) -> None:
        from multiprocessing.connection import wait

        running = [s for s in window if s.worker is not None and not s.finished]
        now = time.monotonic()
        timeout = max(0.0, min(s.worker.deadline for s in running if s.worker) - now) if running else None
        # A worker that dies closes its end of the pipe, so the pipe alone says "result or death".
        ready = set(wait([s.worker.conn for s in running if s.worker], timeout))
        for slot in running:
            worker = slot.worker
            assert worker is not None and slot.task is not None
            if worker.conn in ready:
                result = worker.receive()
                if result == _READY:
                    continue
                if result is None:
                    self._retire(worker)
                    slot.done = [Refused(str(slot.task.src.path), worker.death(self.limits))]
                else:
                    slot.done = result
                    self._release(worker)
            elif time.monotonic() >= worker.deadline:
                worker.kill()
                self._retire(worker)
                slot.done = [
                    Refused(
                        str(slot.task.src.path),
                        f"parsing it took over {self.limits.wall_seconds:,} s of wall time "
                        "(RAGCLI_PARSE_WALL_SECONDS); stopped",
                    )
                ]
            else:
                continue
            slot.finished = True
            slot.worker = None

    def _release(self, worker: _Worker) -> None:
        if worker.tasks >= TASKS_PER_WORKER:
            worker.stop()
            self._retire(worker)
        else:
            self._idle.append(worker)

    def _retire(self, worker: _Worker) -> None:
        if worker in self._all:
            self._all.remove(worker)

    def close(self) -> None:
        """Stop every worker (a running one is killed: close is also the way out of an interrupted ingest)."""
        for worker in self._all:
            worker.stop()
        self._all.clear()
        self._idle.clear()


_END: Any = object()


def _cannot_start(exc: OSError) -> IndexWriteError:
    """The one line for a pool that cannot start its first worker, with the way out for a low descriptor limit."""
    reason = os_reason(exc)
    return IndexWriteError(
        f"cannot start a process to parse the files: {reason}; "
        "RAGCLI_PARSE_WORKERS=0 parses in this process, without its CPU and memory limits; "
        "the previous index is unchanged"
    )


class _Slot:
    """One job in the read-ahead window: a task being parsed, or a result ready to hand on."""

    def __init__(self, task: ParseTask | None, done: Any = None) -> None:
        self.task = task
        self.done = done
        self.finished = task is None
        self.worker: _Worker | None = None


class _Worker:
    """One parsing process (a fresh interpreter: nothing of the ingest is forked) and the pipes to it."""

    def __init__(self, limits: ParseLimits) -> None:
        import os
        import subprocess
        from multiprocessing.connection import Connection

        opened: list[int] = []
        try:
            opened += os.pipe()
            opened += os.pipe()
            task_read, task_write, result_read, result_write = opened
            command = [sys.executable, "-c", _SERVE, str(task_read), str(result_write), str(limits.cpu_seconds)]
            command.append(str(limits.memory_mb))
            # stderr is dropped: what a crashing parser prints may quote the document, and the rejection says enough.
            self.process = subprocess.Popen(
                command,
                pass_fds=(task_read, result_write),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        except OSError:
            for fd in opened:  # a worker that could not start (EMFILE, most often) leaves no descriptor open
                os.close(fd)
            raise
        os.close(task_read)
        os.close(result_write)
        self.send = Connection(task_write, readable=False)
        self.conn = Connection(result_read, writable=False)
        self.tasks = 0
        self.deadline = 0.0
        self.wall = limits.wall_seconds
        self.ready = False

    def start(self, task: ParseTask) -> None:
        self.tasks += 1
        # Until the worker says it is ready, its deadline is the start-up allowance: importing the loaders
        # on a loaded machine is not the file's time.
        self.deadline = time.monotonic() + (self.wall if self.ready else STARTUP_SECONDS)
        try:
            self.send.send(task)
        except OSError:
            pass  # it died before it could take the task: receive() sees the closed pipe

    def receive(self) -> Parsed | None:
        """The result, or None when the process died without one; ``_READY`` once, when it has started."""
        try:
            result: Parsed = self.conn.recv()
        except (EOFError, OSError):
            self._close(wait=5)
            return None
        if result == _READY and not self.ready:
            self.ready = True
            self.deadline = time.monotonic() + self.wall  # the file's own time starts now
        return result

    def death(self, limits: ParseLimits) -> str:
        import signal

        code = self.process.returncode
        if code == -signal.SIGXCPU:
            return f"parsing it took over {limits.cpu_seconds:,} s of CPU time (RAGCLI_PARSE_CPU_SECONDS); stopped"
        if code == -signal.SIGKILL:
            return "the parsing process was killed (SIGKILL: out of memory?); not indexed"
        if code is not None and code < 0:
            return f"the parser crashed on it ({signal.Signals(-code).name}); not indexed"
        if code == _OUT_OF_MEMORY:
            return f"parsing it ran out of memory ({limits.memory_mb:,} MiB, RAGCLI_PARSE_MEMORY_MB)"
        return f"the parsing process exited with status {code}; not indexed"

    def kill(self) -> None:
        self.process.kill()
        self._close(wait=5)

    def stop(self) -> None:
        try:
            self.send.send(None)
        except OSError:
            pass
        self._close(wait=1)

    def _close(self, wait: float) -> None:
        import subprocess

        try:
            self.process.wait(wait)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for conn in (self.send, self.conn):
            if not conn.closed:
                conn.close()


STARTUP_SECONDS = 60
"""How long a new worker may take to start (import the loaders) before its first file's time counts."""
_READY: Any = "ready"
"""What a worker sends once, when it has started."""
_OUT_OF_MEMORY = 3
"""A worker's exit status when a MemoryError escaped while it sent its result."""
_SERVE = "import sys; from ragcli.ingestion.workers import serve; serve(*map(int, sys.argv[1:]))"


def serve(task_fd: int, result_fd: int, cpu_seconds: int, memory_mb: int) -> None:
    """A worker's life: limits set once, then one file at a time until told to stop (None) or killed."""
    import resource
    from multiprocessing.connection import Connection

    limits = ParseLimits(workers=1, cpu_seconds=cpu_seconds, memory_mb=memory_mb)
    tasks, results = Connection(task_fd, writable=False), Connection(result_fd, readable=False)
    _lower(resource.RLIMIT_AS, memory_mb * 1024 * 1024)
    _lower(resource.RLIMIT_CORE, 0)  # a worker stopped by SIGXCPU must not leave a core file in the user's folder
    results.send(_READY)
    while True:
        try:
            task = tasks.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        usage = resource.getrusage(resource.RUSAGE_SELF)
        used = int(usage.ru_utime + usage.ru_stime) + 1
        # The CPU limit is cumulative for a process: each file gets its own allowance on top of what was used.
        _lower(resource.RLIMIT_CPU, used + cpu_seconds, keep_hard=True)
        try:
            results.send(parse(task, limits))
        except MemoryError:
            sys.exit(_OUT_OF_MEMORY)


def _lower(which: int, value: int, *, keep_hard: bool = False) -> None:
    """Set a soft limit (and the hard one, unless ``keep_hard``: the CPU allowance is raised per file) to ``value``,
    never above a hard limit the process was started with."""
    import resource

    _, hard = resource.getrlimit(which)
    value = value if hard == resource.RLIM_INFINITY else min(value, hard)
    resource.setrlimit(which, (value, hard if keep_hard else value))


def parser(limits: ParseLimits) -> ParsePool | InProcess:
    """Where an ingest parses its files: worker processes, or this process when ``limits.workers`` is 0."""
    return ParsePool(limits) if limits.workers > 0 else InProcess(limits)
