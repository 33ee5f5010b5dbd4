"""What both SDK mocks share: scripted replies played in order, every request recorded."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any


class ScriptedReplies:
    """The script of one mock API. An item that is a callable (and not one of the mock's reply types) is
    called with the request body, so a reply can depend on what was sent; a request after the last item
    is an overrun, answered with the mock's own error and noted for the test to assert on."""

    def __init__(self, script: Iterable[Any]) -> None:
        self.script: list[Any] = list(script)
        self.recorded: list[Any] = []
        self.overrun = False
        self._lock = threading.Lock()  # the CLI tests serve the mock from a real HTTP server's threads

    @property
    def bodies(self) -> list[dict[str, Any]]:
        return [r.body for r in self.recorded]

    @property
    def calls(self) -> int:
        return len(self.recorded)

    @property
    def remaining(self) -> int:
        return len(self.script)

    def next_reply(self, record: Any, *, overrun: Callable[[int], Any], literal: tuple[type, ...]) -> Any:
        """Record ``record`` (it has a ``body``) and return the next scripted item, or ``overrun(request number)``."""
        with self._lock:
            self.recorded.append(record)
            if not self.script:
                self.overrun = True
                return overrun(len(self.recorded))
            item = self.script.pop(0)
            if callable(item) and not isinstance(item, literal):
                item = item(record.body)
            return item
