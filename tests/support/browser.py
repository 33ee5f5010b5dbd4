"""Headless Chromium driven over the DevTools protocol: open a page, collect its console errors, run a script.

Chromium is Debian's ``chromium`` package (``.ci/run`` installs it); a test that
needs it and finds none skips with a reason naming the package. The browser
gets a fresh profile, no network services, and is stopped when the page is done.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--no-first-run",
    "--disable-component-update",
    "--disable-sync",
)


def chromium_path() -> str:
    """The Chromium binary, or a skip that says how to get it."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.skip("needs headless Chromium: apt-get install -y chromium (Debian's chromium package)")
    return found


@dataclass
class Page:
    """One page loaded in the browser: what it logged, and a way to evaluate JavaScript in it."""

    socket: Any
    errors: list[str] = field(default_factory=list)
    _next: int = 0

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        self._next += 1
        self.socket.send(json.dumps({"id": self._next, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv())
            if message.get("id") == self._next:
                if "error" in message:
                    raise AssertionError(f"{method}: {message['error']}")
                return message.get("result", {})
            self._event(message)

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise AssertionError(f"{expression!r} threw: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, event: str, limit: float = 30) -> dict[str, Any]:
        deadline = time.monotonic() + limit
        self.socket.settimeout(limit)
        while time.monotonic() < deadline:
            message = json.loads(self.socket.recv())
            if message.get("method") == event:
                return message.get("params", {})
            self._event(message)
        raise AssertionError(f"no {event} within {limit} s")

    def _event(self, message: dict[str, Any]) -> None:
        """Keep what counts as an error: an exception, console.error, or a browser log entry at level error."""
        method, params = message.get("method"), message.get("params", {})
        if method == "Runtime.exceptionThrown":
            self.errors.append(f"exception: {params['exceptionDetails']}")
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            self.errors.append(f"console.{params['type']}: {params.get('args')}")
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            entry = params["entry"]
            self.errors.append(f"log ({entry.get('source')}): {entry.get('text')} {entry.get('url', '')}")


@contextmanager
def open_page(path: Path, *, settle: float = 0.5) -> Iterator[Page]:
    """Load ``path`` in headless Chromium; the page (with every error seen while loading) until the block ends."""
    import websocket

    binary = chromium_path()
    profile = Path(tempfile.mkdtemp(prefix="ragcli-chromium-"))
    proc = subprocess.Popen(
        [binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--remote-debugging-port=0", "about:blank"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        port = _devtools_port(profile, proc)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as reply:
            targets = json.loads(reply.read())
        url = next(t["webSocketDebuggerUrl"] for t in targets if t.get("type") == "page")
        socket = websocket.create_connection(url, timeout=30, suppress_origin=True)
        try:
            page = Page(socket)
            for domain in ("Runtime", "Log", "Page"):
                page.call(f"{domain}.enable")
            page.call("Page.navigate", url=path.resolve().as_uri())
            page.wait_for("Page.loadEventFired")
            deadline = time.monotonic() + settle  # late errors (a timer, a deferred script) count too
            while time.monotonic() < deadline:
                page.evaluate("1")
                time.sleep(0.05)
            yield page
        finally:
            socket.close()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        shutil.rmtree(profile, ignore_errors=True)


def _devtools_port(profile: Path, proc: subprocess.Popen[bytes], limit: float = 60) -> int:
    """The port Chromium chose, from the DevToolsActivePort file it writes into its profile."""
    marker = profile / "DevToolsActivePort"
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if marker.exists():
            lines = marker.read_text().split()
            if lines and lines[0].isdigit():
                return int(lines[0])
        if proc.poll() is not None:
            raise AssertionError(f"chromium exited with {proc.returncode} before it listened")
        time.sleep(0.05)
    raise AssertionError("chromium did not open its DevTools port")
