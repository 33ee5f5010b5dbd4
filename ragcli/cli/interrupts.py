"""Ctrl-C while a command runs, whatever a library made of it: one line and exit code 130, not a traceback.

Python turns SIGINT into a KeyboardInterrupt wherever the main thread is, and
a library's C code can turn that into another exception. numpy's
``ndarray.tofile`` is one: a Ctrl-C during ``np.save`` was seen to end as
"TypeError: expected str, bytes or os.PathLike object, not BufferedWriter",
which printed a traceback and exit code 1 (about once in 60 interrupted
ingests on a loaded machine). So the CLI notes each SIGINT as it arrives
(``Watch``): an exception that follows one is taken to be the interruption,
however it is dressed. A KeyboardInterrupt while Python still imports the
CLI gets the same line and code from the entry point (``entry``).

CPython also marks a KeyboardInterrupt that ends code run by ``exec`` or
``eval`` of a string as unhandled even when a caller catches it
(``dataclasses`` build their methods so and ``namedtuple`` its ``__new__``,
so a Ctrl-C during a lazy import can land there), and ``python -m ragcli``
then ends by SIGINT after its line: -2 to a Python parent where 130 was
promised (the installed ``ragcli`` script runs as a file, which exits with the
code). ``forget_handled_interrupts`` clears that mark once everything was
handled.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType, TracebackType

EXIT_INTERRUPTED = 130
"""The exit code of a run stopped by Ctrl-C (128 + SIGINT, what a shell reports)."""
INTERRUPTED = "interrupted; the published index is unchanged"
"""The one line a Ctrl-C prints: a build in progress is discarded, so what readers see is what they saw."""


class Watch:
    """Within ``with Watch() as ctrl_c:``, ``ctrl_c.seen`` says whether a SIGINT arrived. Each still raises
    KeyboardInterrupt where it lands, as Python's own handler does.

    It watches only where Python's own handler is in place and only on the main thread (the one a handler can be
    set from, and the one a SIGINT interrupts): a SIGINT that is ignored (a job started in the background) stays
    ignored, and a host's own handler (a program calling ``main``) stays its own. ``enabled=False`` watches
    nothing: an event loop (asyncio's, anyio's) installs its own handler only over Python's.
    """

    def __init__(self, *, enabled: bool = True) -> None:
        self.seen = False
        self._enabled = enabled
        self._installed: object = None

    def __enter__(self) -> Watch:
        main_thread = threading.current_thread() is threading.main_thread()
        if self._enabled and main_thread and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            handler = self._interrupt  # one bound method: what __exit__ finds in place if nobody changed it
            self._installed = handler
            signal.signal(signal.SIGINT, handler)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        if self._installed is not None and signal.getsignal(signal.SIGINT) is self._installed:
            signal.signal(signal.SIGINT, signal.default_int_handler)

    def _interrupt(self, signum: int, frame: FrameType | None) -> None:
        self.seen = True
        raise KeyboardInterrupt


def forget_handled_interrupts() -> None:
    """Clear CPython's mark of an unhandled KeyboardInterrupt (see the module docstring): each ``exec`` of a
    string clears it as it starts (CPython 3.11 to 3.13, checked). Of a string: ``exec`` of a compiled code object
    neither sets nor clears it. Call it only once every interrupt was handled."""
    exec("pass")
