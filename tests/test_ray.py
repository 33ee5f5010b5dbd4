"""``ingest --ray``: the same index as a local ingest, built with the embedding on a real Ray cluster.

One local Ray instance (2 CPUs) for the module; real ONNX model, real Tantivy,
real CLI subprocesses. Skipped when Ray is not installed (``pip install 'ragcli[ray]'``),
except the test of the message a user without Ray gets.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from support.cli import clean_env, cli
from support.corpus import current_name
from support.paths import SAMPLE

pytestmark = pytest.mark.ray

TENANT = "acme"
CORPUS = SAMPLE / "acme"
TIMING_FIELDS = {"generation", "created", "checksums", "seal"}
"""Manifest fields that differ between any two ingests (checksums are compared file by file below; the seal
covers the others)."""


@pytest.fixture(scope="module")
def ray_address():  # type: ignore[no-untyped-def]
    ray = pytest.importorskip("ray")
    import logging

    context = ray.init(
        address="local", num_cpus=2, include_dashboard=False, logging_level=logging.ERROR, log_to_driver=False
    )
    yield context.address_info["address"]
    ray.shutdown()


@pytest.fixture(scope="module")
def local_index(tmp_path_factory: pytest.TempPathFactory, embedder) -> Path:  # type: ignore[no-untyped-def]
    from ragcli import ingest

    root = tmp_path_factory.mktemp("local-ingest")
    report = ingest(CORPUS, TENANT, index=root, embedder=embedder)
    assert report.published and not report.documents.rejected
    return root


def _generation(root: Path) -> Path:
    return root / TENANT / str(current_name(root, TENANT))


def assert_same_index(ray_root: Path, local_root: Path) -> None:
    """Identical passages, documents and manifests (timing fields aside); vectors equal within 1e-5."""
    import numpy as np

    ray_gen, local_gen = _generation(ray_root), _generation(local_root)
    for name in ("passages.jsonl", "documents.json", "acl.npy", "valid_from.npy", "valid_until.npy", "offsets.npy"):
        if (local_gen / name).exists():
            assert (ray_gen / name).read_bytes() == (local_gen / name).read_bytes(), name
    ray_manifest = json.loads((ray_gen / "manifest.json").read_text(encoding="utf-8"))
    local_manifest = json.loads((local_gen / "manifest.json").read_text(encoding="utf-8"))
    assert {k: v for k, v in ray_manifest.items() if k not in TIMING_FIELDS} == {
        k: v for k, v in local_manifest.items() if k not in TIMING_FIELDS
    }
    # Tantivy names its segment files at random; every other file but the vectors is byte-identical.
    ours = {k: v for k, v in ray_manifest["checksums"].items() if not k.startswith(("tantivy/", "embeddings"))}
    theirs = {k: v for k, v in local_manifest["checksums"].items() if not k.startswith(("tantivy/", "embeddings"))}
    assert ours == theirs
    ray_vectors = np.load(ray_gen / "embeddings.npy")
    local_vectors = np.load(local_gen / "embeddings.npy")
    assert ray_vectors.shape == local_vectors.shape and ray_vectors.shape[0] == ray_manifest["passages"] > 0
    assert float(np.abs(ray_vectors - local_vectors).max()) <= 1e-5
    assert np.all(np.abs(np.linalg.norm(ray_vectors, axis=1) - 1) < 1e-4), "a row was left unembedded"


@pytest.mark.parametrize("command", ["ingest", "watch"])
def test_without_ray_the_cli_names_the_install_command(tmp_path, command):
    # Ray made unimportable in a real CLI process: what a user without the extra sees.
    code = "import sys; sys.modules['ray'] = None; from ragcli.cli.app import main; sys.exit(main(sys.argv[1:]))"
    proc = subprocess.run(
        [sys.executable, "-c", code, command, str(CORPUS), "--tenant", TENANT, "--ray", "--index", str(tmp_path)],
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=120,
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().splitlines() == [
        "error: --ray needs Ray, which is not installed: pip install 'ragcli[ray]'"
    ]
    assert not (tmp_path / TENANT / "CURRENT").exists()


@pytest.mark.slow
def test_an_unreachable_cluster_is_one_error_line(tmp_path):
    pytest.importorskip("ray")
    proc = cli("ingest", CORPUS, "--tenant", TENANT, "--ray-address", "127.0.0.1:1", index=tmp_path, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert (
        proc.stderr.startswith("error: cannot reach the Ray cluster at 127.0.0.1:1: ") and proc.stderr.count("\n") == 1
    ), proc.stderr
    assert not (tmp_path / TENANT / "CURRENT").exists()


@pytest.mark.slow
def test_a_ray_ingest_builds_the_same_index_as_a_local_one(ray_address, local_index, tmp_path, embedder):  # type: ignore[no-untyped-def]
    from ragcli import ingest
    from ragcli.ingestion import Progress
    from ragcli.ingestion.ray_embed import RayEmbedding

    class Count(Progress):
        total = done = 0

        def embedding(self, passages: int, work: float) -> None:
            self.total = work

        def embedded(self, work: float) -> None:
            self.done += work

    progress = Count()
    with RayEmbedding() as backend:
        report = ingest(CORPUS, TENANT, index=tmp_path, embedder=embedder, embedding=backend, progress=progress)
        assert len(backend.pids) == 2 and os.getpid() not in backend.pids  # one actor per CPU, in other processes
    assert report.published and report.embedded == report.passages > 0
    assert progress.done == pytest.approx(progress.total) and progress.total > 0  # model work, as locally
    assert_same_index(tmp_path, local_index)

    # Nothing changed: nothing is embedded, so Ray is never asked (and the index is kept).
    with RayEmbedding() as backend:
        again = ingest(CORPUS, TENANT, index=tmp_path, embedder=embedder, embedding=backend)
        assert backend.pids == []
    assert not again.published and again.embedded == 0


@pytest.mark.slow
def test_a_worker_killed_mid_ingest_is_retried_and_the_index_is_complete(ray_address, local_index, tmp_path, embedder):  # type: ignore[no-untyped-def]
    from ragcli import ingest
    from ragcli.ingestion import Progress
    from ragcli.ingestion.ray_embed import RayEmbedding

    backend = RayEmbedding(steps_per_task=1)  # one ingest step per task: several batches still queued at the kill

    class KillOnFirstBatch(Progress):
        killed: int | None = None

        def embedded(self, work: float) -> None:
            if self.killed is None:
                self.killed = backend.pids[0]
                os.kill(self.killed, signal.SIGKILL)  # the actor's worker process, while both actors hold work

    progress = KillOnFirstBatch()
    with backend:
        report = ingest(CORPUS, TENANT, index=tmp_path, embedder=embedder, embedding=backend, progress=progress)
        assert progress.killed is not None
        assert progress.killed not in backend.actor_pids()  # the actor was restarted in a new process
    assert report.published and report.embedded == report.passages
    assert_same_index(tmp_path, local_index)


@pytest.mark.slow
def test_watch_embeds_every_round_on_ray(ray_address, local_index, tmp_path, embedder):  # type: ignore[no-untyped-def]
    """``watch`` runs the same job as ``ingest``: with a Ray backend, its rounds embed on the cluster."""
    import threading

    from ragcli.ingestion import IngestJob
    from ragcli.ingestion.ray_embed import RayEmbedding
    from ragcli.ingestion.watch import watch

    stop = threading.Event()
    reports: list = []
    with RayEmbedding(ray_address) as backend:
        job = IngestJob(CORPUS, TENANT, index=tmp_path, embedding=backend)
        watch(job, embedder=embedder, on_ready=stop.set, on_report=reports.append, stop=stop)
    (report,) = reports
    assert report.published and report.embedded == report.passages > 0
    assert_same_index(tmp_path, local_index)


@pytest.mark.slow
def test_cli_joins_a_running_cluster_with_ray_address(ray_address, local_index, tmp_path):  # type: ignore[no-untyped-def]
    proc = cli(
        "ingest", CORPUS, "--tenant", TENANT, "--ray-address", ray_address, "--json", index=tmp_path, timeout=180
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads(proc.stdout)
    assert report["embedded"] == report["passages"] > 0
    assert_same_index(tmp_path, local_index)
    # The published index answers a search like any other.
    user = tmp_path / "hana.json"
    user.write_text(json.dumps({"user": "hana", "tenant": TENANT, "groups": ["hr"]}), encoding="utf-8")
    found = cli("search", "L3 engineer salary band", "--as", user, "-k", "3", "--json", index=tmp_path)
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)["results"]


@pytest.mark.slow
def test_cli_ray_flag_starts_its_own_local_instance(ray_address, tmp_path):  # type: ignore[no-untyped-def]
    corpus = tmp_path / "docs"
    corpus.mkdir()
    (corpus / "refunds.md").write_text(
        "---\nacl: [everyone]\n---\n# Refunds\n\nAnnual plans are refunded pro rata within 30 days.\n", encoding="utf-8"
    )
    index = tmp_path / "index"
    proc = cli("ingest", corpus, "--tenant", "solo", "--ray", "--json", index=index, timeout=180)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout)["embedded"] == 1
    assert proc.stderr.strip() == "", proc.stderr[-2000:]  # Ray kept quiet


@pytest.mark.slow
def test_ctrl_c_during_a_ray_ingest_keeps_the_published_index(ray_address, tmp_path, embedder):  # type: ignore[no-untyped-def]
    import shutil

    from ragcli import ingest
    from ragcli.ingestion import Progress
    from ragcli.ingestion.ray_embed import RayEmbedding

    corpus, index = tmp_path / "acme", tmp_path / "index"
    shutil.copytree(CORPUS, corpus)
    first = ingest(corpus, TENANT, index=index, embedder=embedder)
    before = current_name(index, TENANT)
    files_before = sorted(p.name for p in (index / TENANT).iterdir())
    for path in sorted(corpus.glob("*.md"))[:3]:  # three changed files: their passages need new vectors
        path.write_text(
            path.read_text(encoding="utf-8") + "\n\nOne more paragraph about parking permits and visitor badges.\n",
            encoding="utf-8",
        )

    class CtrlC(Progress):
        def embedded(self, work: float) -> None:
            raise KeyboardInterrupt  # what Ctrl-C raises in the main thread while batches are on the cluster

    backend = RayEmbedding(steps_per_task=1)
    with pytest.raises(KeyboardInterrupt), backend:
        ingest(corpus, TENANT, index=index, embedder=embedder, embedding=backend, progress=CtrlC())
    assert backend._handles == []  # the actors were stopped on the way out
    assert current_name(index, TENANT) == before  # nothing was published, nothing left half-built
    assert sorted(p.name for p in (index / TENANT).iterdir()) == files_before
    again = ingest(corpus, TENANT, index=index, embedder=embedder)  # and the next ingest runs as usual
    assert again.published and again.passages >= first.passages
