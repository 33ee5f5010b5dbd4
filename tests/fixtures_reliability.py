"""Helpers shared by the reliability and security tests.

Everything here drives the real thing: the real ONNX model (one Embedder per
test session, shared by the in-process parts), real Tantivy indexes on disk,
real files and real ``python -m ragcli.cli`` subprocesses. Nothing of ragcli
is mocked. Kept apart from conftest.py on purpose: these helpers do not depend
on (or change) the fixtures other test files use.
"""

from __future__ import annotations

import functools
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import yaml
from cli_checks import assert_one_error_line

REPO = Path(__file__).resolve().parents[1]
VOCAB_PATH = REPO / "ragcli" / "data" / "minilm-vocab.txt"

# A small vocabulary: every generated text shares words with many others, so
# any query built from it matches a good share of the corpus in every ranker.
WORDS = (
    "refund invoice billing account policy support ticket escalation server deploy backup restore "
    "password token rotate webhook retry latency quota region cluster storage archive audit report "
    "budget salary contract vendor laptop office travel expense approval manager review release"
).split()

_MODEL_VARS = ("RAGCLI_EMBED_MODEL", "RAGCLI_EMBED_TOKENIZER", "RAGCLI_EMBED_POOLING")


@functools.lru_cache(maxsize=1)
def shared_embedder():  # type: ignore[no-untyped-def]
    """One real Embedder (the bundled model) for all in-process work of the session."""
    from ragcli.embedder import Embedder

    embedder = Embedder()
    embedder.embed(["warm up the model once"])
    return embedder


# --------------------------------------------------------------------------- text and files


def sentence(rng: random.Random, n: int = 14) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def write_markdown(path: Path, meta: dict[str, Any] | None, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = body if meta is None else "---\n" + yaml.safe_dump(meta, sort_keys=False) + "---\n\n" + body
    path.write_text(text, encoding="utf-8")
    return path


def write_user(path: Path, user: str, tenant: str, groups: Sequence[str] = ()) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"user": user, "tenant": tenant, "groups": list(groups)}), encoding="utf-8")
    return path


def write_round(folder: Path, round_no: int, n: int, *, seed: int | None = None, prefix: str = "r") -> set[str]:
    """Replace the Markdown files of ``folder`` with ``n`` one-passage docs of one "round".

    Every doc id carries the round (``r07-doc-012``) and so does the title, so
    a round's passages are told apart from any other round's by ID, and every
    round's text is new (it must be embedded). File names stay the same from
    round to round, as when a team edits its documents. Returns the passage IDs
    a complete ingest of the folder produces.
    """
    rng = random.Random(seed if seed is not None else round_no)
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.md"):
        old.unlink()
    ids = set()
    for i in range(n):
        doc_id = f"{prefix}{round_no:02d}-doc-{i:03d}"
        meta = {"id": doc_id, "version": "1", "title": f"Round {round_no} note {i}"}
        write_markdown(folder / f"doc{i:03d}.md", meta, sentence(rng, 12) + "\n")
        ids.add(f"{doc_id}@1#top")
    return ids


# --------------------------------------------------------------------------- the index


def passage_ids(root: Path, tenant: str) -> set[str]:
    """IDs of every passage of the published generation (opened and checksum-verified)."""
    from ragcli.store import TenantIndex

    with TenantIndex.open(root, tenant) as index:
        return {p.id for p in index.iter_passages()}


def audit_counts(root: Path, tenant: str) -> tuple[int, int]:
    from ragcli.store import TenantIndex, audit

    with TenantIndex.open(root, tenant) as index:
        a = audit(index)
    return a.orphan_vectors, a.stale_entries


def build_dirs(root: Path, tenant: str) -> list[str]:
    tenant_dir = root / tenant
    return sorted(p.name for p in tenant_dir.iterdir() if p.name.startswith(".build-")) if tenant_dir.is_dir() else []


def generation_dirs(root: Path, tenant: str) -> list[str]:
    tenant_dir = root / tenant
    return sorted(p.name for p in tenant_dir.iterdir() if p.name.startswith("gen-")) if tenant_dir.is_dir() else []


def current_name(root: Path, tenant: str) -> str | None:
    try:
        return (root / tenant / "CURRENT").read_text(encoding="utf-8").strip()
    except OSError:
        return None


# --------------------------------------------------------------------------- the CLI


def cli_args(*args: object) -> list[str | bytes]:
    """The command line; a bytes argument is passed as raw bytes (for undecodable argv)."""
    return [sys.executable, "-m", "ragcli.cli", *(a if isinstance(a, bytes) else str(a) for a in args)]


def cli_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _MODEL_VARS}
    env["COLUMNS"] = "200"
    env.pop("ANTHROPIC_API_KEY", None)
    env.pop("RAGCLI_MODEL", None)
    if extra:
        env.update(extra)
    return env


def cli(
    *args: object,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    timeout: float = 300,
    preexec_fn: Callable[[], None] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m ragcli.cli ARGS`` to completion."""
    return subprocess.run(
        cli_args(*args),
        capture_output=True,
        text=True,
        env=cli_env(env),
        cwd=str(cwd) if cwd else None,
        timeout=timeout,
        preexec_fn=preexec_fn,
    )


def cli_popen(*args: object, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        cli_args(*args),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(env),
        cwd=str(cwd) if cwd else None,
    )


def cli_many(
    commands: Iterable[Sequence[object]],
    *,
    env: dict[str, str] | None = None,
    envs: Sequence[dict[str, str] | None] | None = None,
    parallel: int = 4,
    timeout: float = 300,
) -> list[subprocess.CompletedProcess[str]]:
    """Run independent CLI commands, ``parallel`` at a time; results in order."""
    commands = [list(c) for c in commands]
    results: list[subprocess.CompletedProcess[str] | None] = [None] * len(commands)
    running: list[tuple[int, subprocess.Popen[str]]] = []
    pending = list(range(len(commands)))
    deadline = time.monotonic() + timeout
    while pending or running:
        while pending and len(running) < parallel:
            i = pending.pop(0)
            e = envs[i] if envs is not None else env
            running.append((i, cli_popen(*commands[i], env=e)))
        i, proc = running.pop(0)
        out, err = proc.communicate(timeout=max(1.0, deadline - time.monotonic()))
        results[i] = subprocess.CompletedProcess(cli_args(*commands[i]), proc.returncode, out, err)
    return [r for r in results if r is not None]


def stderr_lines(proc: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in proc.stderr.splitlines() if line.strip()]


assert_one_error = assert_one_error_line


def search_json(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert proc.returncode in (0, 1), (proc.args[3:], proc.returncode, proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr
    return json.loads(proc.stdout)


def result_ids(proc: subprocess.CompletedProcess[str]) -> list[str]:
    return [r["id"] for r in search_json(proc)["results"]]


def wait_for(predicate: Callable[[], bool], proc: subprocess.Popen[str] | None = None, poll: float = 0.001, limit: float = 300) -> bool:
    """Poll until ``predicate()`` holds; False if ``proc`` exits first (or after ``limit`` seconds)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if predicate():
            return True
        if proc is not None and proc.poll() is not None:
            return predicate()
        time.sleep(poll)
    return False
