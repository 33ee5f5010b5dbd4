"""``cli.coercion``: option values converted without Typer's pydantic validators, exactly as Typer converts them.

Every parameter of every command (the real click commands the CLI runs) gets a
battery of raw values; the converted value, or the error, must be what Typer's
own conversion gives for the same value. The help text is held by the CLI
reference pages (tests/test_docs.py), which the app must match.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import typer
from support.cli import assert_one_error_line, invoke

from ragcli.cli.app import COMMANDS, command
from ragcli.cli.coercion import _SLOW, Coercion, _fast

RAW = {
    "str": ["acme", "", "ünïcode", "-dash"],
    "int": [
        "0",
        "1",
        "5",
        "-1",
        "11",
        "21",
        "1001",
        "100000",
        "007",
        "+5",
        " 5",
        "1.0",
        "1e3",
        "abc",
        "",
        "99999999999999999999",
        3,
        10,
    ],
    "float": ["0", "0.5", "1.50", "-0.1", "2", ".5", "1.", "1e-3", "nan", "inf", "x", "", 0.3, 120.0, 2.0],
    "path": ["some/file.json", "", "-", "/", "/etc/shadow-not-there"],
}
"""Raw values per kind of annotation: what a command line gives (strings) and what the defaults are."""


def _params() -> list[tuple[str, Any, Any]]:
    found = []
    for name in COMMANDS:
        cmd = command(name).commands[name]
        for sub in [cmd, *getattr(cmd, "commands", {}).values()]:
            found += [(f"{name}:{p.name}", sub, p) for p in sub.params]
    return found


def _kind(annotation: Any) -> str | None:
    args = getattr(annotation, "__args__", None)
    item = args[0] if args else annotation
    return {str: "str", int: "int", float: "float", Path: "path"}.get(item)


def _outcome(coercion: Any, value: Any, param: Any, ctx: Any) -> tuple[str, Any]:
    try:
        return "value", repr(coercion.coerce(value, param=param, ctx=ctx))  # repr: nan is nan
    except Exception as exc:  # the error's kind and words are what must match
        return type(exc).__name__, getattr(exc, "message", str(exc))


def _shaped(value: Any, param: Any) -> Any:
    """``value`` as click hands it over: a tuple for a repeatable option or a two-value one."""
    if param.multiple:
        return (value, value)
    if param.nargs == 2:
        return (value, value)
    return value


PARAMS = _params()


def test_every_command_parameter_gets_the_plain_coercion() -> None:
    assert len(PARAMS) > 60
    assert all(isinstance(p._runtime_param, Coercion) for _, _, p in PARAMS)


@pytest.mark.parametrize("cmd, param", [(c, p) for _, c, p in PARAMS], ids=[n for n, _, _ in PARAMS])
def test_each_value_converts_as_typer_converts_it(cmd: Any, param: Any, tmp_path: Path) -> None:
    from typer._coercion import build_runtime_param

    unreadable = tmp_path / "unreadable.json"
    unreadable.write_text("{}", encoding="utf-8")
    unreadable.chmod(0)
    kind = _kind(param.type_descriptor.annotation)
    raw = [*RAW.get(kind or "", []), str(tmp_path), str(unreadable), None, True, False]
    ctx = typer.Context(cmd)
    typers = build_runtime_param(param.type_descriptor)
    for value in raw:
        given = _shaped(value, param)
        if param.type_descriptor.annotation is bool and isinstance(value, bool):
            continue  # Typer never converts a flag's bool
        assert _outcome(param._runtime_param, given, param, ctx) == _outcome(typers, given, param, ctx), given


def test_the_fast_path_takes_the_usual_values() -> None:
    """Not everything falls through to Typer: an int, a float in bounds, a path, a list of strings are converted."""
    by_name = {n: p for n, _, p in PARAMS}
    k, floor = by_name["search:k"].type_descriptor, by_name["search:dense_floor"].type_descriptor
    as_file, acl = by_name["search:as_file"].type_descriptor, by_name["ingest:acl"].type_descriptor
    assert _fast("5", k.annotation, k.parameter_info) == 5
    assert _fast("0", k.annotation, k.parameter_info) is _SLOW  # below -k's minimum: Typer words the error
    assert _fast("0.25", floor.annotation, floor.parameter_info) == 0.25
    assert _fast("users/bob.json", as_file.annotation, as_file.parameter_info) == Path("users/bob.json")
    assert _fast(("hr", "everyone"), acl.annotation, acl.parameter_info) == ["hr", "everyone"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_user_file_is_typers_error(capsys, tmp_path: Path) -> None:
    unreadable = tmp_path / "bob.json"
    unreadable.write_text("{}", encoding="utf-8")
    unreadable.chmod(0)
    proc = invoke(capsys, "search", "q", "--as", unreadable)
    assert_one_error_line(proc, "is not readable")


@pytest.mark.parametrize(
    "args, line",
    [
        (["-k", "0"], "error: Invalid value for '-k': Input should be greater than or equal to 1"),
        (["-k", "abc"], "error: Invalid value for '-k': Input should be a valid integer, unable to parse string as an"),
        (["--dense-floor", "x"], "error: Invalid value for '--dense-floor': Input should be a valid number"),
    ],
)
def test_error_lines_stay_typers(capsys, args: list[str], line: str) -> None:
    proc = invoke(capsys, "search", "q", "--as", "u.json", *args)
    assert proc.returncode == 2 and proc.stderr.startswith(line) and proc.stderr.count("\n") == 1, proc.stderr
