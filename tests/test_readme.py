"""The README's first section is the contract for a newcomer and for CI."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _first_section_commands() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    first = text.split("\n## ", 2)[1]
    return re.findall(r"```bash\n(.+?)\n```", first, flags=re.DOTALL)


def test_first_section_has_exactly_two_commands():
    commands = _first_section_commands()
    assert len(commands) == 2, commands
    main_job, tests = commands
    assert "pip install ." in main_job and "ragcli ingest sample_corpus/acme --tenant acme" in main_job
    assert "ragcli search" in main_job and "ragcli ask" in main_job
    # Two different users, so the newcomer sees permissions at work.
    assert len(set(re.findall(r"users/(\w+)\.json", main_job))) == 2
    assert "pytest" in tests


def test_ci_runs_the_readme_test_command_verbatim():
    tests_command = _first_section_commands()[1]
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert tests_command in ci
