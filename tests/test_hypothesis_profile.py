"""The Hypothesis profile tests/conftest.py loads: the same examples on every CI run, new ones locally.

Checked the way it matters: two real pytest runs of one property test, whose examples are compared.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.cli import clean_env

PROBE_ENV = "RAGCLI_TEST_HYPOTHESIS_PROBE"
"""Where ``test_probe`` writes the examples it was given (set only by the runs below)."""


@pytest.mark.skipif(not os.environ.get(PROBE_ENV), reason="run by test_ci_examples_repeat_and_dev_ones_do_not")
@settings(max_examples=20)  # a test's own settings, as most property tests here have: the profile fills the rest
@given(st.text(min_size=1, max_size=40), st.integers())
def test_probe(text: str, number: int) -> None:
    with open(os.environ[PROBE_ENV], "a", encoding="utf-8") as out:
        out.write(f"{text!r} {number}\n")


def _examples(tmp_path: Path, name: str, env: dict[str, str], unset: tuple[str, ...] = ()) -> str:
    out = tmp_path / name
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0", f"{__file__}::test_probe"],
        capture_output=True,
        text=True,
        cwd=tmp_path,  # a dev run's example database (.hypothesis/) lands here, not in the checkout
        env=clean_env({PROBE_ENV: str(out), **env}, unset=unset),
        timeout=300,
    )
    assert proc.returncode == 0 and "1 passed" in proc.stdout, proc.stdout[-2000:] + proc.stderr[-2000:]
    return out.read_text(encoding="utf-8")


@pytest.mark.slow
def test_ci_examples_repeat_and_dev_ones_do_not(tmp_path: Path) -> None:
    ci = [_examples(tmp_path, f"ci{i}", {"CI": "true"}, unset=("HYPOTHESIS_PROFILE",)) for i in range(2)]
    assert ci[0] == ci[1] and len(ci[0].splitlines()) >= 10
    dev = [_examples(tmp_path, f"dev{i}", {}, unset=("CI", "HYPOTHESIS_PROFILE")) for i in range(2)]
    assert dev[0] != dev[1]  # 20 random texts and integers: the same twice would be one chance in far too many
    assert _examples(tmp_path, "named", {"HYPOTHESIS_PROFILE": "ci"}, unset=("CI",)) == ci[0]


def test_the_profiles_are_registered_as_documented() -> None:
    ci = settings.get_profile("ci")
    assert ci.derandomize and ci.database is None and ci.print_blob
    assert not settings.get_profile("dev").derandomize
    expected = os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev")
    assert settings.default.derandomize == settings.get_profile(expected).derandomize
