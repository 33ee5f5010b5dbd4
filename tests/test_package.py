"""The package as a whole: every module is named where a reader looks first, one version, typed."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from support.cli import clean_env

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "ragcli"
PACKAGES = sorted(p.parent for p in PACKAGE.rglob("__init__.py"))


def _members(package: Path) -> list[str]:
    """The modules and subpackages of ``package`` (``__main__`` is an entry point, not a concept)."""
    modules = [p.stem for p in package.glob("*.py") if p.stem not in ("__init__", "__main__")]
    subpackages = [p.name for p in package.iterdir() if (p / "__init__.py").is_file()]
    return sorted(modules + subpackages)


def _names(docstring: str, name: str) -> bool:
    """``name`` in double backquotes, or at the head of a listing line (``name   what it is``, ``a, name   ...``)."""
    quoted = f"``{name}``" in docstring
    listed = re.search(rf"^\s*(?:\w+,\s*)*{name}(?:,|\s{{2,}})", docstring, flags=re.MULTILINE)
    return quoted or listed is not None


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: ".".join(p.relative_to(REPO).parts))
def test_each_package_docstring_names_every_module(package: Path) -> None:
    docstring = ast.get_docstring(ast.parse((package / "__init__.py").read_text(encoding="utf-8"))) or ""
    missing = [name for name in _members(package) if not _names(docstring, name)]
    assert not missing, f"{package.relative_to(REPO)}/__init__.py does not say what these are: {missing}"


def _pyproject() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_version_is_written_once_in_pyproject() -> None:
    # The installed metadata is what ragcli reports; pyproject.toml is where it is written.
    proc = subprocess.run(
        [sys.executable, "-m", "ragcli", "--version"], capture_output=True, text=True, env=clean_env(), timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"ragcli {_pyproject()['project']['version']}\n"
    assert "__version__ =" not in (PACKAGE / "__init__.py").read_text(encoding="utf-8")


def test_the_package_ships_its_types() -> None:
    assert (PACKAGE / "py.typed").is_file()
    assert "py.typed" in _pyproject()["tool"]["setuptools"]["package-data"]["ragcli"]


def _error_literals(path: Path) -> list[int]:
    """Lines of ``path`` where a string (or f-string) starts with ``error: ``: a hand-written error line."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        head = node.values[0] if isinstance(node, ast.JoinedStr) and node.values else node
        if isinstance(head, ast.Constant) and isinstance(head.value, str) and head.value.startswith("error: "):
            lines.append(node.lineno)
    return lines


def test_one_place_words_an_error_line() -> None:
    """``errors.error_line`` words every ``error:`` line (the CLI's stderr, MCP tool errors); nothing else does."""
    written = {str(p.relative_to(REPO)): lines for p in sorted(PACKAGE.rglob("*.py")) if (lines := _error_literals(p))}
    assert written == {"ragcli/errors.py": written.get("ragcli/errors.py", [])} and written["ragcli/errors.py"]


def _type_checked_exports(init: Path) -> dict[str, str]:
    """What a type checker reads as the package's re-exports: ``from .m import X as X`` under ``if TYPE_CHECKING:``."""
    exports = {}
    for node in ast.parse(init.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for statement in node.body:
                if isinstance(statement, ast.ImportFrom) and statement.level == 1:
                    for alias in statement.names:
                        if alias.asname == alias.name:
                            exports[alias.name] = "." + (statement.module or "")
    return exports


LAZY_FACES = [p for p in PACKAGES if "lazy_exports(__name__, __file__)" in (p / "__init__.py").read_text("utf-8")]


def test_the_lazy_faces_are_found() -> None:
    """Every package face that loads lazily is found (so the test below checks them): these, and any new one."""
    assert {".".join(p.relative_to(REPO).parts) for p in LAZY_FACES} >= {
        "ragcli",
        "ragcli.answer",
        "ragcli.cli",
        "ragcli.index",
        "ragcli.mcp",
        "ragcli.search",
    }


@pytest.mark.parametrize("package", LAZY_FACES, ids=lambda p: ".".join(p.relative_to(REPO).parts))
def test_every_lazy_export_is_the_one_the_type_checker_sees_and_resolves(package: Path) -> None:
    """A face declares each export once (its TYPE_CHECKING re-export): the runtime reads the same table, every
    name of ``__all__`` imports, and is the object of the module the re-export names."""
    import importlib

    from ragcli.lazy import _table

    init = package / "__init__.py"
    declared = _type_checked_exports(init)
    assert declared and _table(str(init)) == declared
    name = ".".join(package.relative_to(REPO).parts)
    face = importlib.import_module(name)
    assert face.__all__ == sorted(declared)
    for export, module in declared.items():
        assert getattr(face, export) is getattr(importlib.import_module(module, name), export), export
    with pytest.raises(AttributeError, match="no attribute 'not_an_export'"):
        face.not_an_export  # noqa: B018


def test_no_face_keeps_a_second_table() -> None:
    """A face calls ``lazy_exports(__name__, __file__)``: the exports are its re-exports, not a dict beside them."""
    others = [
        str(p.relative_to(REPO))
        for p in PACKAGES
        if "lazy_exports(" in (text := (p / "__init__.py").read_text("utf-8"))
        and "lazy_exports(__name__, __file__)" not in text
    ]
    assert others == []
