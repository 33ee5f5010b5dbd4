"""``--help`` that reads like a well-kept CLI: metavars,
defaults, ``-h``, ``--version``, bare ``ragcli``, completion."""

from __future__ import annotations

import re
import shlex
import subprocess

import pytest
from support.cli import assert_one_error_line, clean_env, cli, cli_args, invoke

import ragcli
from ragcli.search.config import BM25_FLOOR, DENSE_FLOOR

COMMANDS = ("ingest", "status", "search", "ask", "eval", "watch", "trace replay")
# Click's own type names as metavars: what a user should never read in a help page.
TYPE_METAVAR = re.compile(r"<(?:bool|str|int|float|path|list\[[^\]]*\]|int range|float range)>|\{[a-z_]+\}")


def _help(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    proc = invoke(capsys, *args)
    assert proc.returncode == 0, (args, proc.stderr)
    assert proc.stderr == "", proc.stderr
    return proc.stdout


@pytest.mark.parametrize("command", ["", *COMMANDS])
def test_help_shows_no_type_names_as_metavars(capsys, command: str) -> None:
    text = _help(capsys, *command.split(), "--help")
    assert not TYPE_METAVAR.findall(text), (command, TYPE_METAVAR.findall(text))


@pytest.mark.parametrize("command", ["", *COMMANDS])
def test_dash_h_is_help(capsys, command: str) -> None:
    assert _help(capsys, *command.split(), "-h") == _help(capsys, *command.split(), "--help")


def _option_line(text: str, option: str) -> str:
    """The help line (and its continuation) of ``option``, whitespace and box drawing collapsed."""
    flat = " ".join(text.replace("│", " ").split())
    start = flat.index(option)
    return flat[start : start + 400]


def test_search_help_shows_choices_formats_and_measured_defaults(capsys, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "160")  # at 80 columns typer wraps the metavar column mid-word
    text = _help(capsys, "search", "--help")
    assert "[hybrid|bm25|dense]" in text
    assert "YYYY-MM-DD" in text
    flat = " ".join(text.replace("│", " ").split())
    assert f"[default: {DENSE_FLOOR}]" in _option_line(text, "--dense-floor"), flat
    assert f"[default: {BM25_FLOOR}]" in _option_line(text, "--bm25-floor"), flat
    assert "QUERY" in text and "USER.json" in text


def test_ingest_help_names_the_acl_value(capsys) -> None:
    text = _help(capsys, "ingest", "--help")
    assert "GROUP" in _option_line(text, "--acl")
    assert "TENANT" in _option_line(text, "--tenant")


def test_ask_json_help_matches_what_ask_prints(capsys) -> None:
    text = _help(capsys, "ask", "--help")
    assert "table" not in _option_line(text, "--json").split("--index")[0].lower()


def test_version(capsys) -> None:
    proc = invoke(capsys, "--version")
    assert proc.returncode == 0 and proc.stdout.strip() == f"ragcli {ragcli.__version__}"


def test_bare_ragcli_prints_help_and_exits_0() -> None:
    proc = cli()
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert "Usage:" in proc.stdout and "search" in proc.stdout and "ingest" in proc.stdout


def test_usage_errors_stay_one_line(capsys) -> None:
    assert_one_error_line(invoke(capsys, "search"), "QUERY")
    assert_one_error_line(invoke(capsys, "search", "x", "--as", "u.json", "--mode", "fuzzy"))
    assert_one_error_line(invoke(capsys, "nosuchcommand"))
    assert_one_error_line(invoke(capsys, "--nosuchoption"))


def test_show_completion_prints_a_script() -> None:
    # The script is for the shell ragcli runs under, found from its parent processes (Typer's shellingham), not
    # from an argument: run it from bash, whatever started the tests (a CI runner, a detached job). The trailing
    # ``exit`` keeps bash from replacing itself with the command, so bash stays the parent.
    command = shlex.join(str(a) for a in cli_args("--show-completion"))
    proc = subprocess.run(
        ["bash", "-c", f"{command}; exit $?"], capture_output=True, text=True, env=clean_env(), timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert "_RAGCLI_COMPLETE" in proc.stdout and "complete -o" in proc.stdout, proc.stdout[:300]


def test_completion_completes_commands_and_options() -> None:
    proc = cli(env={"_RAGCLI_COMPLETE": "complete_bash", "COMP_WORDS": "ragcli sea", "COMP_CWORD": "1"})
    assert proc.returncode == 0, proc.stderr
    assert "search" in proc.stdout.split()
    proc = cli(env={"_RAGCLI_COMPLETE": "complete_bash", "COMP_WORDS": "ragcli search x --mo", "COMP_CWORD": "3"})
    assert "--mode" in proc.stdout.split(), proc.stdout


def test_install_completion_is_offered(capsys) -> None:
    text = _help(capsys, "--help")
    assert "--install-completion" in text and "--show-completion" in text
