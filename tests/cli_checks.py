"""The one check of ragcli's error contract, shared by every test module."""

from __future__ import annotations

import subprocess


def assert_one_error_line(proc: subprocess.CompletedProcess[str], *needles: str) -> str:
    """Exit 2 and exactly one stderr line, ``error: ...``, no traceback; the line holds every needle."""
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    context = (proc.args, proc.returncode, proc.stdout[-500:], proc.stderr[-2000:])
    assert proc.returncode == 2, context
    assert "Traceback" not in proc.stderr, context
    assert len(lines) == 1, context
    assert lines[0].startswith("error: "), context
    for needle in needles:
        assert needle.lower() in lines[0].lower(), (needle, lines[0])
    return lines[0]
