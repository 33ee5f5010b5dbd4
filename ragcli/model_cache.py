"""What the embedder keeps between runs, under ``settings.cache_dir()``: a start-up cost paid once.

- **The model file's sha256**, keyed by its path, size, mtime (ns), inode and
  device: hashing the 23 MB model cost ~80 ms on every start. Any change to
  the file (a reinstall, a damaged copy, a swap) changes the key, and the file
  is hashed again before it is trusted.
- **The optimised ONNX graph**, with its weights in a side file that
  onnxruntime memory-maps. The bundled model stores int8 weights that every
  run turns into float32 (Cast, Mul): graph optimisation folds that once per
  session (~0.3-0.4 s per start), skipping it costs ~75 ms per query instead.
  Loaded from the cache, a session opens in ~0.1 s and embeds as fast as a
  freshly optimised one. The entry is keyed by the model's sha256 and the
  onnxruntime version, and carries a probe vector computed from the original
  model: a cached graph that no longer reproduces it is discarded. The probe
  is run when the graph is first loaded and again whenever one of its files
  changed since (size, mtime, inode or device, as for the sha256 verdict):
  an unchanged graph that reproduced it once is trusted, which spares each
  start one model run (~14 ms).

Nothing here is an error: an unwritable or damaged cache means the slow path.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .settings import cache_dir

HASHES = "model-sha256.json"
GRAPHS = "onnx"
MAX_HASH_ENTRIES = 32
GRAPH_MODEL = "model.onnx"
GRAPH_DATA = "model.data"
GRAPH_META = "meta.json"
PROBE_TOLERANCE = 1e-4
"""Largest difference allowed between the cached graph's probe vector and the original model's (they agree to ~2e-7)."""


# --------------------------------------------------------------------------- sha256 verdicts


def _stat_key(path: Path) -> dict[str, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "inode": st.st_ino, "device": st.st_dev}


def cached_sha256(path: Path) -> str | None:
    """The sha256 recorded for ``path`` if the file is unchanged since (same size, mtime, inode, device)."""
    key = _stat_key(path)
    entry = _read_json(cache_dir() / HASHES).get(str(path.resolve()))
    if key is None or not isinstance(entry, dict) or {k: entry.get(k) for k in key} != key:
        return None
    sha = entry.get("sha256")
    return sha if isinstance(sha, str) and len(sha) == 64 else None


def remember_sha256(path: Path, sha256: str) -> None:
    """Record ``sha256`` for the file as it is now (only a hash that was just computed is recorded)."""
    key = _stat_key(path)
    if key is None:
        return
    file = cache_dir() / HASHES
    entries = {k: v for k, v in _read_json(file).items() if isinstance(v, dict)}
    entries.pop(str(path.resolve()), None)
    entries[str(path.resolve())] = {**key, "sha256": sha256}
    _write_json(file, dict(list(entries.items())[-MAX_HASH_ENTRIES:]))


# --------------------------------------------------------------------------- optimised graphs


@dataclass(frozen=True)
class CachedGraph:
    """An optimised graph in the cache: load ``model`` with graph optimisation off, then check the probe
    unless its files are as they were when a load last reproduced it (``checked``)."""

    directory: Path
    probe: list[float]
    checked: dict[str, Any] | None = None
    """The files' stat keys when a load last reproduced the probe (None: never, or not recorded)."""

    @property
    def model(self) -> Path:
        return self.directory / GRAPH_MODEL

    def file_keys(self) -> dict[str, Any]:
        """The stat key of each file of the graph (None for a file that cannot be read)."""
        return {name: _stat_key(self.directory / name) for name in (GRAPH_MODEL, GRAPH_DATA)}

    def reproduces(self, keys: dict[str, Any], probe: Callable[[], list[float]]) -> bool:
        """Whether the graph, its files as in ``keys``, embeds like the original model: it reproduced the probe
        before and its files are unchanged since, or ``probe()`` (the cached graph's vector) reproduces it now."""
        if self.checked is not None and None not in keys.values() and keys == self.checked:
            return True
        if not probe_matches(self.probe, probe()):
            return False
        meta = _read_json(self.directory / GRAPH_META)
        if None not in keys.values() and meta.get("probe") == self.probe:  # still the entry this process read
            _write_json(self.directory / GRAPH_META, {**meta, "checked": keys})
        return True

    def discard(self) -> None:
        shutil.rmtree(self.directory, ignore_errors=True)


def _graph_dir(model_sha256: str, runtime_version: str) -> Path:
    return cache_dir() / GRAPHS / f"{model_sha256[:32]}-ort{runtime_version}"


def cached_graph(model_sha256: str, runtime_version: str) -> CachedGraph | None:
    """The cached optimised graph of this model for this onnxruntime, if one is complete."""
    directory = _graph_dir(model_sha256, runtime_version)
    meta = _read_json(directory / GRAPH_META)
    probe, sizes = meta.get("probe"), meta.get("sizes")
    if not isinstance(probe, list) or not isinstance(sizes, dict):
        return None
    for name, size in sizes.items():
        try:
            if (directory / name).stat().st_size != size:
                return None
        except OSError:
            return None
    checked = meta.get("checked")
    return CachedGraph(directory, [float(x) for x in probe], checked if isinstance(checked, dict) else None)


@dataclass(frozen=True)
class GraphBuild:
    """Where a session being optimised writes its graph; ``commit`` moves it into the cache."""

    directory: Path
    final: Path

    @property
    def model(self) -> Path:
        return self.directory / GRAPH_MODEL

    def commit(self, probe: list[float]) -> None:
        """Record the probe and move the graph into place (a concurrent builder's finished copy wins)."""
        try:
            sizes = {p.name: p.stat().st_size for p in self.directory.iterdir()}
            if set(sizes) != {GRAPH_MODEL, GRAPH_DATA}:
                raise OSError("incomplete optimised graph")
            _write_json(self.directory / GRAPH_META, {"probe": probe, "sizes": sizes})
            if not (self.final / GRAPH_META).exists():  # else another process just cached the same graph
                shutil.rmtree(self.final, ignore_errors=True)  # half-written leftovers
                os.rename(self.directory, self.final)
        except OSError:
            pass
        finally:
            shutil.rmtree(self.directory, ignore_errors=True)


def new_graph_build(model_sha256: str, runtime_version: str) -> GraphBuild | None:
    """A private directory to write the optimised graph to, or None when the cache is not writable."""
    final = _graph_dir(model_sha256, runtime_version)
    try:
        import secrets  # only a start that writes the cache needs it

        final.parent.mkdir(parents=True, exist_ok=True)
        directory = final.parent / f".build-{secrets.token_hex(6)}"
        directory.mkdir()
    except OSError:
        return None
    return GraphBuild(directory, final)


def probe_matches(cached: list[float], actual: list[float]) -> bool:
    return len(cached) == len(actual) and all(
        abs(a - b) <= PROBE_TOLERANCE for a, b in zip(cached, actual, strict=True)
    )


# --------------------------------------------------------------------------- small JSON files


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_json(path: Path, data: dict[str, Any]) -> None:
    """Write through a temporary file and a rename, so a reader never sees half a file."""
    import secrets

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}")
        tmp.write_text(json.dumps(data), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass
