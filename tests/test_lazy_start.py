"""What a cold start loads: a run imports the command it runs and builds the records it uses, no more.

Behaviour, not timing (the timings are in bench/ and docs/defaults.md): each check runs the real CLI
entry point in a fresh interpreter and reads ``sys.modules`` and which records' validators it built (pydantic
models and ``checked`` records) after it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support.cli import clean_env
from support.paths import USERS

HEAVY = ("numpy", "onnxruntime", "tantivy", "tokenizers", "markdown_it")
OTHER_COMMANDS = ("ingest", "status", "search", "evaluate", "watch", "trace", "mcp", "results", "eval_tables")

_PROBE = """
import contextlib, io, json, sys
from ragcli.cli.app import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main(sys.argv[1:])
modules = sorted(sys.modules)
from pydantic import BaseModel
from ragcli import checked
def models(k):
    for s in k.__subclasses__():
        yield s
        yield from models(s)
built = sorted(f"{m.__module__}.{m.__qualname__}" for m in models(BaseModel)
               if m.__module__.startswith("ragcli") and m.__pydantic_complete__)
built += sorted(f"{m.__module__}.{m.__qualname__}" for m in checked._VALIDATORS)
print(json.dumps({"code": code, "modules": modules, "built": built}))
"""


def _run(*args: object) -> dict[str, Any]:
    """Run ``ragcli ARGS`` in a fresh interpreter: its exit code, the modules it loaded and the models it built."""
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, *map(str, args)], capture_output=True, text=True, env=clean_env(), timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    found: dict[str, Any] = json.loads(proc.stdout.splitlines()[-1])
    return found


def _commands_loaded(modules: list[str]) -> set[str]:
    return {name for name in OTHER_COMMANDS if f"ragcli.cli.{name}" in modules}


def test_help_loads_no_heavy_library() -> None:
    run = _run("--help")
    assert run["code"] == 0
    assert [m for m in (*HEAVY, "pydantic", "ragcli.answer.protocol") if m in run["modules"]] == []


def test_the_entry_point_imports_no_third_party_module_before_it_guards_the_cli_import() -> None:
    # ``ragcli.cli.entry`` answers a Ctrl-C during the CLI's import; what loads before its guard is left to Python.
    probe = "import sys; import ragcli.cli.entry; print(' '.join(sorted(sys.modules)))"
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=clean_env(), timeout=60)
    assert proc.returncode == 0, proc.stderr
    loaded = proc.stdout.split()
    assert [m for m in loaded if m.split(".")[0] in ("typer", "click", "rich", "pydantic", *HEAVY)] == []
    assert "ragcli.cli.app" not in loaded


def test_a_command_loads_its_own_module_and_no_other() -> None:
    run = _run("ask", "--help")
    assert run["code"] == 0
    assert "ragcli.cli.ask" in run["modules"]
    assert _commands_loaded(run["modules"]) == set()
    assert [m for m in HEAVY if m in run["modules"]] == []


@pytest.mark.slow
def test_an_ask_loads_and_builds_only_what_it_uses(sample_root: Path) -> None:
    run = _run(
        "ask", "What does ERR_4021 mean?", "--as", USERS / "alice.json", "--index", sample_root, "--json", "-m", "local"
    )
    assert run["code"] in (0, 1)
    assert _commands_loaded(run["modules"]) == set()
    assert "ragcli.answer.drift" not in run["modules"]  # the local answerer writes no query to check
    # No pydantic: the user file, the manifest, the answer's JSON and the trace are ``checked`` records.
    assert [m for m in run["modules"] if m.split(".")[0] == "pydantic"] == []
    # The principal, the manifest and the answer's JSON are built; search's JSON (another command's output), the
    # index's document list (ingest and status read it) and, without --trace, the trace line are not.
    built = set(run["built"])
    assert {"ragcli.principal.Principal", "ragcli.index.manifest.Manifest", "ragcli.answer.outcome.AnswerJson"} <= built
    assert not built & {
        "ragcli.search.response.SearchJson",
        "ragcli.index.manifest.Documents",
        "ragcli.answer.trace.Trace",
    }


def test_a_bm25_search_loads_no_numpy_and_no_model_runtime(sample_root: Path) -> None:
    """A BM25 search needs Tantivy and the permission columns of its hits' rows: no numpy (the reader checks the
    array headers without it, ``index.npyfile``), no onnxruntime, no tokenizer, no Markdown parser."""
    args = ("search", "refund policy", "--mode", "bm25", "--as", USERS / "alice.json", "--index", sample_root)
    for output in ("--json", "--format=jsonl"):
        run = _run(*args, output)
        assert run["code"] == 0
        assert "tantivy" in run["modules"]
        assert [m for m in HEAVY if m in run["modules"] and m != "tantivy"] == []
        assert [m for m in run["modules"] if m.split(".")[0] == "pydantic"] == []  # ``checked`` records only


def test_a_hybrid_search_imports_no_pydantic(sample_root: Path) -> None:
    run = _run("search", "refund policy", "--as", USERS / "alice.json", "--index", sample_root, "--json")
    assert run["code"] == 0
    assert [m for m in run["modules"] if m.split(".")[0] == "pydantic"] == []
    assert {"ragcli.principal.Principal", "ragcli.index.manifest.Manifest", "ragcli.search.response.SearchJson"} <= set(
        run["built"]
    )


_FIRST_USE = """
import dataclasses, json, sys
from pydantic_core import ValidationError
from ragcli import checked
from ragcli.errors import PrincipalError
from ragcli.principal import Principal, load_principal
assert Principal not in checked._VALIDATORS
out = {}
try:
    load_principal(sys.argv[1])
except PrincipalError as exc:
    out["message"] = exc.message
try:
    Principal.model_validate(json.loads(open(sys.argv[1]).read()))
except ValidationError as exc:
    out["errors"] = [(e["loc"][0], e["type"]) for e in exc.errors()]
alice = Principal(user="alice", tenant="acme")
try:
    alice.tenant = "globex"
except dataclasses.FrozenInstanceError as exc:
    out["frozen"] = type(exc).__name__
print(json.dumps(out))
"""


def test_a_deferred_model_still_refuses_bad_input_on_its_first_use(tmp_path: Path) -> None:
    """Records build their validator on first use (a ``checked`` record's, as a pydantic model's with
    ``defer_build``): that first use is as strict."""
    from ragcli.errors import PrincipalError
    from ragcli.principal import Principal, load_principal

    user = tmp_path / "user.json"
    user.write_text(json.dumps({"user": 7, "tenant": "acme", "groups": ["hr"], "admin": True}), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-c", _FIRST_USE, str(user)], capture_output=True, text=True, env=clean_env(), timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    first = json.loads(proc.stdout)
    # Strict (a number is not a user name), closed (no unknown field) and frozen, from the very first use.
    assert first["errors"] == [["user", "string_type"], ["admin", "unexpected_keyword_argument"]]
    assert first["frozen"] == "FrozenInstanceError"
    Principal.model_validate({"user": "alice", "tenant": "acme"})  # built in this process, if it was not yet
    try:
        load_principal(user)
    except PrincipalError as exc:
        assert exc.message == first["message"]  # the same words as from a model long built
    else:
        raise AssertionError("the bad user file was accepted")


@pytest.mark.slow
def test_every_model_builds_on_first_use() -> None:
    """The rule the two tests above rely on: every pydantic model of ragcli sets ``defer_build``, by being a
    ``record.Record``."""
    import importlib
    import pkgutil

    from pydantic import BaseModel

    import ragcli

    for module in pkgutil.walk_packages(ragcli.__path__, "ragcli."):
        if not module.name.endswith("__main__"):
            importlib.import_module(module.name)

    def models(k: type[BaseModel]) -> list[type[BaseModel]]:
        return [m for s in k.__subclasses__() for m in (s, *models(s))]

    ours = [m for m in models(BaseModel) if m.__module__.startswith("ragcli.")]
    assert ours
    assert [m.__qualname__ for m in ours if not m.model_config.get("defer_build")] == []
    from ragcli.record import Record

    assert [m.__qualname__ for m in ours if m is not Record and not issubclass(m, Record)] == []
