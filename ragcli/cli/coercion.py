"""Command-line values turned into their Python types without building a pydantic validator for each one.

Typer converts every parameter's value through a pydantic ``TypeAdapter``
that it builds on the parameter's first use: in a cold ``ragcli search``
that is a schema build per option, the largest share of the start above
Python's own imports. ``plain_coercion`` gives each parameter a ``Coercion``
that converts the values ragcli's commands take (``str``, ``int`` and
``float`` within their bounds, a ``Path`` that needs no checks, lists and
tuples of those) as Typer does, and hands every other value, and every value
that would fail, to Typer's own conversion: so an error is Typer's, word for
word, and a value the fast path does not know is converted by Typer.

Typer's conversion is reached through ``_TyperParameter.get_runtime_param``,
which is not public API: a Typer without it keeps its own conversion
(``plain_coercion`` changes nothing), only slower.
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path
from typing import Any, get_args, get_origin

_INT = re.compile(r"-?(?:0|[1-9][0-9]{0,17})")
_FLOAT = re.compile(r"-?(?:0|[1-9][0-9]{0,17})(?:\.[0-9]{1,17})?")
"""The spellings the fast path reads (others, "+5", "1e3", "007", go to Typer, which accepts or refuses them)."""
_SLOW = object()
"""``_fast``'s answer for a value it leaves to Typer."""
_PLAIN_PATH = {
    "exists": False,
    "file_okay": True,
    "dir_okay": True,
    "writable": False,
    "resolve_path": False,
    "allow_dash": False,
    "path_type": None,
    "parser": None,
}
"""The path options under which Typer only makes a ``Path`` and checks that an existing one is readable."""


class Coercion:
    """A parameter's conversion: the fast path, else Typer's own (built when first needed)."""

    def __init__(self, param: Any) -> None:
        self.param = param
        self.descriptor = param.type_descriptor
        self._typer: Any = None

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        # As Typer's RuntimeParam.coerce: a missing value is None, or () for a repeatable option.
        multiple = param.multiple or param.nargs == -1
        if value is None:
            return () if multiple else None
        if not (multiple and isinstance(value, str)):
            fast = _fast(value, self.descriptor.annotation, self.descriptor.parameter_info)
            if fast is not _SLOW:
                return fast
        return self._typers().coerce(value, param=param, ctx=ctx)

    def _typers(self) -> Any:
        if self._typer is None:
            from typer._coercion import build_runtime_param

            self._typer = build_runtime_param(self.descriptor)
        return self._typer


def plain_coercion(cmd: Any) -> None:
    """Give every parameter of ``cmd`` (and of its subcommands), ``--help`` too, a ``Coercion``, when Typer allows
    it."""
    import typer

    help_option = cmd.get_help_option(typer.Context(cmd, help_option_names=["-h", "--help"]))
    for param in [*cmd.params, *([help_option] if help_option is not None else [])]:
        if hasattr(param, "get_runtime_param") and hasattr(param, "type_descriptor"):
            param._runtime_param = Coercion(param)
    for sub in getattr(cmd, "commands", {}).values():
        plain_coercion(sub)


def _fast(value: Any, annotation: Any, info: Any) -> Any:
    """``value`` as Typer converts it to ``annotation``, or ``_SLOW`` (Typer converts it, or words the error)."""
    if info.parser is not None or getattr(info, "click_type", None) is not None:
        return _SLOW
    origin = get_origin(annotation)
    if origin is list and isinstance(value, list | tuple):
        (item,) = get_args(annotation)
        items = [_fast(v, item, info) for v in value]
        return _SLOW if any(i is _SLOW for i in items) else items
    if origin is tuple and isinstance(value, list | tuple):
        types = get_args(annotation)
        if len(types) != len(value) or Ellipsis in types:
            return _SLOW
        items = [_fast(v, t, info) for v, t in zip(value, types, strict=True)]
        return _SLOW if any(i is _SLOW for i in items) else tuple(items)
    if annotation is str:
        return value if type(value) is str else _SLOW
    if annotation is bool:
        return value if type(value) is bool else _SLOW
    if annotation is int:
        return _number(value, int, _INT, info)
    if annotation is float:
        return _number(value, float, _FLOAT, info)
    if annotation is Path:
        return _path(value, info)
    return _SLOW


def _number(value: Any, kind: type[Any], pattern: re.Pattern[str], info: Any) -> Any:
    if info.clamp:
        return _SLOW
    if type(value) is kind:
        number = value
    elif type(value) is str and pattern.fullmatch(value):
        number = kind(value)
    else:
        return _SLOW
    if isinstance(number, float) and not math.isfinite(number):
        return _SLOW
    if (info.min is not None and number < info.min) or (info.max is not None and number > info.max):
        return _SLOW  # out of bounds: Typer words the error
    return number


def _path(value: Any, info: Any) -> Any:
    if type(value) is not str or not value or any(getattr(info, k) != v for k, v in _PLAIN_PATH.items()):
        return _SLOW
    # Typer stats the path: a missing one is fine, an existing one must be readable (else its error).
    try:
        os.stat(value)
    except OSError:
        return Path(value)
    except ValueError:  # an embedded NUL: whatever Typer does with it
        return _SLOW
    if info.readable and not os.access(value, os.R_OK):
        return _SLOW
    return Path(value)
