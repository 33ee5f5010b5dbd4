"""The layers are contracts: lint-imports holds them, and an upward import breaks them."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from support.paths import REPO


def _lint(tree: Path) -> subprocess.CompletedProcess[str]:
    """lint-imports over the ``ragcli`` package found under ``tree``, with the repository's contracts."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run(
        ["lint-imports", "--config", str(REPO / "pyproject.toml"), "--no-cache"],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _copy(tmp_path: Path) -> Path:
    shutil.copytree(REPO / "ragcli", tmp_path / "ragcli", ignore=shutil.ignore_patterns("__pycache__", "data"))
    return tmp_path


def test_the_package_keeps_every_contract(tmp_path):
    proc = _lint(_copy(tmp_path))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "0 broken" in proc.stdout


def test_an_upward_import_breaks_the_layers(tmp_path):
    tree = _copy(tmp_path)
    layout = tree / "ragcli" / "index" / "layout.py"
    # The index layer reaching up into the search layer.
    layout.write_text(
        layout.read_text(encoding="utf-8") + "\nfrom ..search import retriever  # noqa: E402,F401\n", encoding="utf-8"
    )
    proc = _lint(tree)
    assert proc.returncode != 0
    assert "BROKEN" in proc.stdout and "ragcli.index.layout -> ragcli.search.retriever" in proc.stdout, proc.stdout[
        -3000:
    ]


def test_a_backend_reaching_for_the_index_breaks_its_contract(tmp_path):
    tree = _copy(tmp_path)
    local = tree / "ragcli" / "models" / "local.py"
    local.write_text(
        local.read_text(encoding="utf-8") + "\nfrom ..index import reader  # noqa: E402,F401\n", encoding="utf-8"
    )
    proc = _lint(tree)
    assert proc.returncode != 0
    assert "Answer backends implement the protocol" in proc.stdout and "BROKEN" in proc.stdout, proc.stdout[-3000:]
