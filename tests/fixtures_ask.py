"""Fixtures and helpers for the ask / citations / trace / eval tests.

Everything here is real: one ONNX Embedder, one Tantivy index of
sample_corpus (acme + globex) built once per session, real CLI subprocesses.
Fixture names are prefixed (``ask_``) so they never collide with conftest.py.

Test modules import the fixtures by name (``from fixtures_ask import ...``).
pytest makes one fixture definition per importing module, so the expensive
values are cached in this module: the index is built once per session even
when several test modules use it.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_checks import assert_one_error_line

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "sample_corpus"
USERS = SAMPLE / "users"
QUESTIONS = SAMPLE / "questions.jsonl"
DAY = dt.date(2026, 11, 29)

_CACHE: dict[str, Any] = {}

# Variables that would change which model or index a CLI subprocess uses.
_DROP_ENV = ("ANTHROPIC_API_KEY", "RAGCLI_MODEL", "RAGCLI_EMBED_MODEL", "RAGCLI_EMBED_TOKENIZER", "RAGCLI_EMBED_POOLING", "RAGCLI_INDEX")


# --------------------------------------------------------------------------- session values


@pytest.fixture(scope="session")
def ask_embedder(embedder):
    """The session's one real Embedder (conftest.py), shared by every ingest and local model."""
    return embedder


@pytest.fixture(scope="session")
def ask_index(sample_index) -> Path:
    """The session's sample_corpus index (acme + globex, conftest.py). Read-only."""
    return sample_index.root


@pytest.fixture(scope="session")
def ask_index_without_pay_bands(tmp_path_factory: pytest.TempPathFactory, ask_embedder) -> Path:
    """acme only, from a copy of sample_corpus/acme without hr-pay-bands.md."""
    if "nopay" not in _CACHE:
        from ragcli.ingest import ingest

        base = tmp_path_factory.mktemp("acme-without-pay-bands")
        corpus = base / "acme"
        shutil.copytree(SAMPLE / "acme", corpus)
        (corpus / "hr-pay-bands.md").unlink()
        root = base / "index"
        report = ingest(str(corpus), "acme", index=root, embedder=ask_embedder)
        assert report.published and not report.rejected, report.to_json()
        _CACHE["nopay"] = root
    return _CACHE["nopay"]


@pytest.fixture(scope="session")
def ask_retriever(ask_index: Path, ask_embedder):
    if "retriever" not in _CACHE:
        from ragcli.retriever import Retriever

        _CACHE["retriever"] = Retriever(ask_index, embedder=ask_embedder)
    return _CACHE["retriever"]


@pytest.fixture(scope="session")
def ask_local_model(ask_embedder):
    from ragcli.models.local import LocalModel

    return LocalModel(embedder=ask_embedder)


@pytest.fixture(scope="session")
def ask_passages(ask_index: Path) -> dict[str, list[Any]]:
    """Every passage of the session index, per tenant (read straight from the store)."""
    if "passages" not in _CACHE:
        from ragcli.store import TenantIndex

        out = {}
        for tenant in ("acme", "globex"):
            with TenantIndex.open(ask_index, tenant) as index:
                out[tenant] = list(index.iter_passages())
        _CACHE["passages"] = out
    return _CACHE["passages"]


# --------------------------------------------------------------------------- helpers


def user(name: str):
    """A sample principal: alice, bob, carol, hana (acme), gus, gina (globex)."""
    from ragcli.principal import load_principal

    return load_principal(USERS / f"{name}.json")


def visible_to(passage: Any, principal: Any, as_of: dt.date) -> bool:
    """Independent restatement of the permission rule, from the passage's own fields."""
    return passage.tenant == principal.tenant and bool(set(passage.acl) & principal.acl_tokens()) and passage.visible_on(as_of)


def long_sentences(text: str, min_words: int = 6) -> list[str]:
    """Sentences (and lines) of a passage with at least ``min_words`` words, whitespace-collapsed."""
    out = []
    for line in text.split("\n"):
        for piece in re.split(r"(?<=[.!?])\s+", line):
            piece = " ".join(piece.strip(" |-*").split())
            if len(piece.split()) >= min_words:
                out.append(piece)
    return out


def strings_in(value: Any) -> Iterator[str]:
    """Every string (keys and values) inside a JSON-like value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield str(k)
            yield from strings_in(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from strings_in(v)


def cli_env(index: Path | None, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The caller's environment without any API key or model override, pointing at ``index``."""
    env = {k: v for k, v in os.environ.items() if k not in _DROP_ENV}
    env["PYTHONWARNINGS"] = "ignore"
    env["COLUMNS"] = "200"
    if index is not None:
        env["RAGCLI_INDEX"] = str(index)
    if extra:
        env.update(extra)
    return env


def cli_command(*args: object) -> list[str]:
    return [sys.executable, "-m", "ragcli.cli", *(str(a) for a in args)]


def run_cli(*args: object, index: Path | None, env: dict[str, str] | None = None, cwd: Path | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cli_command(*args), capture_output=True, text=True, env=cli_env(index, env), cwd=cwd or REPO, timeout=timeout)


def run_cli_many(commands: list[list[object]], *, index: Path | None, env: dict[str, str] | None = None, cwd: Path | None = None, timeout: float = 300) -> list[subprocess.CompletedProcess[str]]:
    """Independent CLI runs, two at a time; results in order."""
    results: list[subprocess.CompletedProcess[str]] = []
    for start in range(0, len(commands), 2):
        batch = [
            (cmd, subprocess.Popen(cli_command(*cmd), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=cli_env(index, env), cwd=cwd or REPO))
            for cmd in commands[start : start + 2]
        ]
        for cmd, proc in batch:
            try:
                out, err = proc.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                out, err = proc.communicate()
            results.append(subprocess.CompletedProcess(cli_command(*cmd), proc.returncode, out, err))
    return results


assert_error_exit = assert_one_error_line


def json_of(proc: subprocess.CompletedProcess[str]) -> Any:
    try:
        return json.loads(proc.stdout)
    except json.JSONDecodeError as exc:  # pragma: no cover - shown on failure only
        raise AssertionError(f"stdout is not JSON ({exc}): {proc.stdout!r} / stderr {proc.stderr!r}") from None
