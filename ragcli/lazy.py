"""Package exports imported on first use: a CLI is started many times and must not import what it does not run.

A package face names each export once, as the type checker reads it: an
explicit re-export in its ``if TYPE_CHECKING:`` block,

    if TYPE_CHECKING:
        from .loop import ask as ask

and ``lazy_exports`` reads those same lines of the package's source (a
regular expression, not ``ast``: it runs in every CLI start) to import
``ask`` from ``.loop`` when it is first asked for. ``export_names`` is the
package's ``__all__``. tests/test_package.py checks, with ``ast``, that what is
read here is exactly what the type checker sees, and that every export
resolves.
"""

from __future__ import annotations

import functools
import importlib
import re
import sys
from collections.abc import Callable
from typing import Any

_REEXPORT = re.compile(r"^    from (\.[\w.]*) import (\w+) as \2\s*$", re.MULTILINE)
"""One explicit re-export of the ``if TYPE_CHECKING:`` block (indented once, one name a line)."""


@functools.cache
def _table(path: str) -> dict[str, str]:
    """``{name: relative module}`` of the re-exports in the package source at ``path``."""
    with open(path, encoding="utf-8") as fh:
        return {name: module for module, name in _REEXPORT.findall(fh.read())}


def export_names(path: str) -> list[str]:
    """The package's exports, sorted (its ``__all__``); ``path`` is its ``__init__.py`` (``__file__``)."""
    return sorted(_table(path))


def lazy_exports(package: str, path: str) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package`` (its ``__init__.py`` at ``path``) that imports ``name`` from the
    module its re-export names when first asked.

    The value is then set on the package, so the second access is a plain attribute.
    """

    def __getattr__(name: str) -> Any:
        module = _table(path).get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
