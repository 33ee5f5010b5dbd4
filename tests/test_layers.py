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
    local = tree / "ragcli" / "backends" / "local" / "answerer.py"
    local.write_text(
        local.read_text(encoding="utf-8") + "\nfrom ...index import reader  # noqa: E402,F401\n", encoding="utf-8"
    )
    proc = _lint(tree)
    assert proc.returncode != 0
    assert "Answer backends implement the protocol" in proc.stdout and "BROKEN" in proc.stdout, proc.stdout[-3000:]


def _module_imports(package: Path) -> dict[str, set[str]]:
    """Each module of ``package`` (``__init__`` files aside) -> the modules of it that it imports anywhere:
    at the top, inside functions, and under ``if TYPE_CHECKING:`` (which lint-imports is told to ignore)."""
    import ast

    def name_of(path: Path) -> str:
        return ".".join(path.relative_to(package.parent).with_suffix("").parts)

    modules = {name_of(p): p for p in package.rglob("*.py") if p.name != "__init__.py"}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = name.split(".")[: -node.level] if node.level else []
                stem = ".".join([*base, *(node.module.split(".") if node.module else [])])
                targets |= {stem} | {f"{stem}.{alias.name}" for alias in node.names}
            elif isinstance(node, ast.Import):
                targets |= {alias.name for alias in node.names}
        graph[name] = {t for t in targets if t in modules and t != name}
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles of ``graph``: its strongly connected components of more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_module_imports_itself_round_a_circle_even_for_types() -> None:
    assert _circles(_module_imports(REPO / "ragcli")) == []
