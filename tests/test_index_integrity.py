"""The index checks itself (issue 22): a writer of the index directory, or damage, cannot widen who sees what.

- The manifest is sealed: swapping two names of its ``groups`` list (which gives acl.npy's columns their
  meaning) used to hand ``bob`` the HR-only pay bands through the dense ranker while ``status`` said healthy.
- With the seal recomputed too (integrity, not authenticity), dense hits still pass Tantivy's own permission
  filter, and ``status`` cross-checks the mask against every row and exits 2.
- Every file kind, damaged in turn without changing its size: ``status`` is one ``error:`` line and exit 2;
  ``search`` either works or is one ``error:`` line and exit 2, never a traceback (an ``offsets.npy`` flip
  used to end in ``MemoryError``).
"""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from support.cli import assert_one_error_line, cli, cli_many
from support.corpus import all_passages

from ragcli.index.manifest import Manifest, seal_of

PAY = "L3 engineer salary band pay bands"


def _generation(root: Path, tenant: str = "acme") -> Path:
    return root / tenant / (root / tenant / "CURRENT").read_text().strip()


def _copy(sample_root: Path, tmp_path: Path) -> Path:
    root = tmp_path / "index"
    shutil.copytree(sample_root, root)
    return root


def _swap_groups(root: Path, *, reseal: bool) -> None:
    """Swap 'hr' with 'everyone' in the manifest's group list (acl.npy untouched)."""
    path = _generation(root) / "manifest.json"
    data = json.loads(path.read_text())
    groups = data["groups"]
    i, j = groups.index("hr"), groups.index("everyone")
    groups[i], groups[j] = groups[j], groups[i]
    if reseal:
        data["seal"] = seal_of(Manifest.model_validate(data))
    path.write_text(json.dumps(data))


def _pay_band_ids(sample_passages) -> set[str]:  # type: ignore[no-untyped-def]
    return {p.id for p in sample_passages["acme"] if "hr" in p.acl and "everyone" not in p.acl}


def test_a_swapped_group_list_is_refused_by_search_and_status(tmp_path: Path, sample_root: Path, users) -> None:
    root = _copy(sample_root, tmp_path)
    _swap_groups(root, reseal=False)
    search, status = cli_many(
        [["search", PAY, "--as", users / "bob.json", "--index", root, "--json"], ["status", "--index", root]]
    )
    for proc in (search, status):
        assert_one_error_line(proc, "tenant 'acme'", "manifest.json does not match its seal")
        assert proc.stdout == ""


@pytest.mark.slow
def test_a_resealed_swap_cannot_widen_the_dense_ranker_and_status_finds_it(
    tmp_path: Path, sample_root: Path, sample_passages, users
) -> None:
    root = _copy(sample_root, tmp_path)
    _swap_groups(root, reseal=True)
    hidden = _pay_band_ids(sample_passages)
    assert hidden
    for mode in ("dense", "hybrid", "bm25"):
        proc = cli("search", PAY, "--as", users / "bob.json", "--index", root, "--json", "--mode", mode, "-k", "50")
        assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, proc.stderr
        assert not {r["id"] for r in json.loads(proc.stdout)["results"]} & hidden, mode
    status = cli("status", "--index", root, "--tenant", "acme")
    assert_one_error_line(status, "tenant 'acme'", "acl.npy", "differs from passages.jsonl")


def _flip(path: Path, where: float = 0.5) -> None:
    data = bytearray(path.read_bytes())
    data[min(len(data) - 1, int(len(data) * where))] ^= 0xFF
    path.write_bytes(bytes(data))


def _kinds(generation: Path) -> list[str]:
    return sorted(
        p.relative_to(generation).as_posix() for p in generation.rglob("*") if p.is_file() and p.stat().st_size
    )


def _damaged_copies(sample_root: Path, tmp_path: Path, positions: tuple[float, ...]) -> dict[tuple[str, float], Path]:
    kinds = _kinds(_generation(sample_root))
    assert {"manifest.json", "documents.json", "passages.jsonl", "offsets.npy", "embeddings.npy", "acl.npy"} <= set(
        kinds
    )
    roots = {}
    for kind in [*kinds, "CURRENT"]:
        for where in positions:
            root = tmp_path / f"{kind.replace('/', '_')}-{where}"
            shutil.copytree(sample_root, root, ignore=shutil.ignore_patterns("globex"))
            target = root / "acme" / "CURRENT" if kind == "CURRENT" else _generation(root) / kind
            _flip(target, where)
            roots[(kind, where)] = root
    return roots


@pytest.mark.slow
def test_every_file_kind_damaged_in_turn_is_refused_or_searched_never_a_crash(
    tmp_path: Path, sample_root: Path, embedder
) -> None:
    from support.corpus import user

    from ragcli import Scope
    from ragcli.errors import IndexCorruptError
    from ragcli.index import TenantIndex
    from ragcli.search import Retriever

    for root in _damaged_copies(sample_root, tmp_path, (0.05, 0.5, 0.95)).values():
        with pytest.raises(IndexCorruptError, match="re-ingest"):
            TenantIndex.open(root, "acme", verify=True)  # what status (and the next ingest) opens with
        retriever = Retriever(root, embedder=embedder)
        try:
            for mode in ("hybrid", "bm25"):
                retriever.search(Scope.of(user("hana")), PAY, config=replace(retriever.config, mode=mode))
        except IndexCorruptError:
            pass  # one error line in the CLI; anything else escaping is the bug this test looks for
        finally:
            retriever.close()


@pytest.mark.slow
def test_damaged_files_through_the_cli_are_one_error_line(tmp_path: Path, sample_root: Path, users) -> None:
    roots = {k: r for k, r in _damaged_copies(sample_root, tmp_path, (0.5,)).items() if k[0] in CLI_KINDS}
    commands = []
    for root in roots.values():
        commands.append(["status", "--index", root, "--tenant", "acme"])
        commands.append(["search", PAY, "--as", users / "hana.json", "--index", root, "--json"])
    results = cli_many(commands, parallel=4)
    for i, key in enumerate(roots):
        status, search = results[2 * i], results[2 * i + 1]
        assert_one_error_line(status, "tenant 'acme'", "re-ingest")
        assert "Traceback" not in search.stderr, (key, search.stderr[-1500:])
        if search.returncode == 2:
            assert_one_error_line(search, "tenant 'acme'")
        else:
            assert search.returncode in (0, 1), (key, search.stderr[-500:])


CLI_KINDS = ("offsets.npy", "passages.jsonl", "CURRENT")


@pytest.fixture(scope="module")
def users() -> Path:
    from support.paths import USERS

    return USERS


def test_rows_read_must_carry_what_the_mask_says(tmp_path: Path, sample_root: Path, sample_passages) -> None:
    """A mask bit set for a row whose own record says otherwise is damage, never a passage."""
    import numpy as np
    from support.corpus import user
    from support.paths import DAY

    from ragcli import Scope
    from ragcli.errors import IndexCorruptError
    from ragcli.index import TenantIndex

    root = _copy(sample_root, tmp_path)
    with TenantIndex.open(root, "acme") as index:
        rows = [r for r, p in enumerate(all_passages(root, "acme")) if "everyone" not in p.acl and "hr" in p.acl]
        everyone = index.manifest.groups.index("everyone")
        widened = np.array(index.acl)
        widened[rows[0], everyone] = True
        index.acl = widened  # what a flipped bit in acl.npy reads as
        view = index.view(Scope.of(user("bob"), DAY))
        assert view.mask[rows[0]]
        with pytest.raises(IndexCorruptError, match="does not carry the permissions"):
            view.passage(rows[0])
