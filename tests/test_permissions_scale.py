"""The permission property at scale, checked against ground truth kept outside ragcli.

2,000 generated documents in one tenant, each with a random ACL (groups,
``user:NAME`` entries, sometimes ``everyone``) and random validity dates.
Several documents share each text, so visible and invisible passages tie on
every score: only the filter can tell them apart. For hundreds of random
principals, dates, queries and modes, every passage that comes back (as a
result, or as a ranker candidate that ``--explain`` would show) must be
visible to that principal on that date, recomputed here from the JSONL
lines, never from ragcli. Then: revoking a group, deleting a file, the
answer loop, and the Retriever's caches.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from support.cli import cli, search_json
from support.corpus import WORDS, passage_ids, write_user
from support.fixtures import shared_embedder

from ragcli.principal import Scope

pytestmark = pytest.mark.slow

TENANT = "scaleco"
GROUPS = [f"g{i}" for i in range(8)]
USERS = [f"u{i}" for i in range(12)]
DISTINCT_TEXTS = 400
COPIES = 5  # documents per text: 2,000 in all
FILES = 4
DAY0 = dt.date(2024, 1, 1)
SEARCHES = 300


def _visible(doc: dict[str, Any], user: str, groups: set[str], as_of: dt.date) -> bool:
    """The rule, written out independently: ACL entry matches, and effective_from <= as_of < superseded_on."""
    tokens = groups | {"everyone", f"user:{user}"}
    if not tokens & set(doc["acl"]):
        return False
    if doc["effective_from"] and as_of < dt.date.fromisoformat(doc["effective_from"]):
        return False
    if doc["superseded_on"] and as_of >= dt.date.fromisoformat(doc["superseded_on"]):
        return False
    return True


def _random_acl(rng: random.Random) -> list[str]:
    if rng.random() < 0.1:
        return ["everyone"]
    entries = rng.sample(GROUPS, rng.randint(1, 2))
    if rng.random() < 0.35:
        entries.append(f"user:{rng.choice(USERS)}")
    return entries


def _random_dates(rng: random.Random) -> tuple[str | None, str | None]:
    start = DAY0 + dt.timedelta(days=rng.randrange(4 * 365)) if rng.random() < 0.5 else None
    end = None
    if rng.random() < 0.4:
        end = (start or DAY0) + dt.timedelta(days=rng.randint(30, 900))
    return (start.isoformat() if start else None, end.isoformat() if end else None)


@dataclass
class Corpus:
    root: Path
    folder: Path
    docs: dict[str, dict[str, Any]]
    """doc id -> its JSONL record: the ground truth."""
    texts: list[str]
    files: dict[str, list[str]]
    """file name -> doc ids, in line order."""

    def write(self) -> None:
        for name, ids in self.files.items():
            lines = [json.dumps(self.docs[i]) for i in ids]
            (self.folder / name).write_text("\n".join(lines) + "\n", encoding="utf-8")


def _principal(user: str, groups: list[str], tenant: str = TENANT):
    from ragcli.principal import Principal

    return Principal(user=user, tenant=tenant, groups=tuple(groups))


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    from ragcli import ingest

    rng = random.Random(20261129)
    base = tmp_path_factory.mktemp("scale")
    folder = base / "docs"
    folder.mkdir()
    texts = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 14))) for _ in range(DISTINCT_TEXTS)]
    docs: dict[str, dict[str, Any]] = {}
    files: dict[str, list[str]] = {f"part{n}.jsonl": [] for n in range(1, FILES + 1)}
    for copy in range(COPIES):
        for t, text in enumerate(texts):
            doc_id = f"d{copy}-{t:04d}"
            start, end = _random_dates(rng)
            # One title for all: copies of a text have the same passage text (and vector).
            docs[doc_id] = {
                "id": doc_id,
                "title": "Note",
                "text": text,
                "acl": _random_acl(rng),
                "effective_from": start,
                "superseded_on": end,
            }
            files["part1.jsonl" if copy == 0 else f"part{min(FILES, 1 + copy)}.jsonl"].append(doc_id)
    c = Corpus(base / "index", folder, docs, texts, files)
    # First the file with one copy of every text (all embedded), then the rest
    # (whose passage texts are already in the index, so their vectors are reused).
    (folder / "part1.jsonl").write_text(
        "\n".join(json.dumps(docs[i]) for i in files["part1.jsonl"]) + "\n", encoding="utf-8"
    )
    first = ingest(folder, TENANT, index=c.root, embedder=shared_embedder())
    assert not first.documents.rejected and first.embedded == DISTINCT_TEXTS
    c.write()
    second = ingest(folder, TENANT, index=c.root, embedder=shared_embedder())
    assert not second.documents.rejected, second.documents.rejected[:3]
    assert passage_ids(c.root, TENANT) and len(passage_ids(c.root, TENANT)) == len(docs)
    return c


def _check_response(response, corpus: Corpus, user: str, groups: set[str], as_of: dt.date) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    """Every result and every ranker candidate is visible; returns (results, restricted results)."""
    restricted = 0
    for r in response.results:
        doc = corpus.docs[r.passage.doc_id]
        assert _visible(doc, user, groups, as_of), (user, sorted(groups), as_of, r.passage.id, doc)
        assert r.passage.tenant == TENANT
        restricted += "everyone" not in doc["acl"]
    for candidate in [*response.bm25_candidates, *response.dense_candidates]:
        doc = corpus.docs[candidate.id.split("@")[0]]
        assert _visible(doc, user, groups, as_of), ("candidate", user, sorted(groups), as_of, candidate.id, doc)
    return len(response.results), restricted


def test_every_result_is_visible_to_its_principal(corpus: Corpus) -> None:
    from ragcli.search import Retriever, SearchConfig

    rng = random.Random(7)
    retriever = Retriever(corpus.root, embedder=shared_embedder())
    total = restricted = hidden_matches = 0
    try:
        for n in range(SEARCHES):
            user = rng.choice(USERS)
            groups = set(rng.sample(GROUPS, rng.randint(0, 3)))
            as_of = DAY0 + dt.timedelta(days=rng.randrange(-200, 5 * 365))
            mode = ("hybrid", "bm25", "dense")[n % 3]
            if rng.random() < 0.5:
                query = " ".join(rng.sample(WORDS, rng.randint(1, 4)))
            else:
                query = rng.choice(corpus.texts)
            config = SearchConfig(mode=mode, k=rng.choice((5, 10, 25, 50)), candidates=rng.choice((20, 50, 200)))  # type: ignore[arg-type]
            response = retriever.search(Scope.of(_principal(user, sorted(groups)), as_of), query, config=config)
            found, limited = _check_response(response, corpus, user, groups, as_of)
            total += found
            restricted += limited
            # The filter had something to do: documents holding the query's words that this principal may not see.
            words = set(query.split())
            hidden_matches += any(
                words & set(d["text"].split()) and not _visible(d, user, groups, as_of) for d in corpus.docs.values()
            )
    finally:
        retriever.close()
    assert total >= SEARCHES * 5, total  # plenty came back, so a leak had every chance to show
    assert restricted >= total // 4, (restricted, total)
    assert hidden_matches >= SEARCHES * 0.9, hidden_matches


def test_cli_search_honours_the_same_rule(corpus: Corpus, tmp_path: Path) -> None:
    rng = random.Random(11)
    for n, mode in enumerate(("hybrid", "bm25", "dense")):
        user, groups = rng.choice(USERS), rng.sample(GROUPS, 2)
        as_of = DAY0 + dt.timedelta(days=rng.randrange(4 * 365))
        user_file = write_user(tmp_path / f"{user}-{n}.json", user, TENANT, groups)
        proc = cli(
            "search",
            rng.choice(corpus.texts),
            "--as",
            user_file,
            "--index",
            corpus.root,
            "--json",
            "--explain",
            "--as-of",
            as_of.isoformat(),
            "-k",
            "50",
            "--mode",
            mode,
        )
        data = search_json(proc)
        assert data["results"], proc.stderr
        shown = [r["id"] for r in data["results"]] + [
            c["id"] for c in data["explain"]["bm25"] + data["explain"]["dense"]
        ]
        for pid in shown:
            assert _visible(corpus.docs[pid.split("@")[0]], user, set(groups), as_of), (user, groups, as_of, pid)


def _retriever(corpus: Corpus):  # type: ignore[no-untyped-def]
    from ragcli.search import Retriever

    return Retriever(corpus.root, embedder=shared_embedder())


def _ids(retriever, principal, query: str, as_of: dt.date, mode: str) -> set[str]:  # type: ignore[no-untyped-def]
    from ragcli.search import SearchConfig

    config = SearchConfig(mode=mode, k=100, candidates=200)  # type: ignore[arg-type]
    return {r.passage.doc_id for r in retriever.search(Scope.of(principal, as_of), query, config=config).results}


def test_revoking_a_group_hides_the_document_in_every_mode(corpus: Corpus) -> None:
    from ragcli import ingest

    as_of = dt.date(2026, 6, 1)
    # A document group g can see on as_of, through g alone.
    doc_id, group = next(
        (d["id"], d["acl"][0])
        for d in corpus.docs.values()
        if len(d["acl"]) >= 2 and d["acl"][0].startswith("g") and _visible(d, "outsider", {d["acl"][0]}, as_of)
    )
    reader = _principal("outsider", [group])
    query = corpus.docs[doc_id]["text"]
    long_lived = _retriever(corpus)
    try:
        for mode in ("hybrid", "bm25", "dense"):
            assert doc_id in _ids(long_lived, reader, query, as_of, mode), mode  # visible before

        corpus.docs[doc_id]["acl"] = [a for a in corpus.docs[doc_id]["acl"] if a != group]
        corpus.write()
        report = ingest(corpus.folder, TENANT, index=corpus.root, embedder=shared_embedder())
        assert report.documents.updated == 1 and report.embedded == 0  # same text: same vector, new ACL

        fresh = _retriever(corpus)
        try:
            for retriever in (fresh, long_lived):  # a Retriever opened before the re-ingest too
                for mode in ("hybrid", "bm25", "dense"):
                    found = _ids(retriever, reader, query, as_of, mode)
                    assert doc_id not in found, (mode, retriever is long_lived)
                    assert all(_visible(corpus.docs[d], "outsider", {group}, as_of) for d in found)
        finally:
            fresh.close()
    finally:
        long_lived.close()


def test_deleting_a_file_removes_its_documents(corpus: Corpus) -> None:
    from ragcli import ingest

    gone = corpus.files[f"part{FILES}.jsonl"]
    everyone_can_see = next(
        d
        for d in gone
        if corpus.docs[d]["acl"] == ["everyone"] and _visible(corpus.docs[d], "x", set(), dt.date(2026, 6, 1))
    )
    reader = _principal("x", [])
    as_of = dt.date(2026, 6, 1)
    query = corpus.docs[everyone_can_see]["text"]
    retriever = _retriever(corpus)
    try:
        assert everyone_can_see in _ids(retriever, reader, query, as_of, "bm25")
        (corpus.folder / f"part{FILES}.jsonl").unlink()
        report = ingest(corpus.folder, TENANT, index=corpus.root, embedder=shared_embedder())
        assert report.documents.deleted == len(gone)
        left = {pid.split("@")[0] for pid in passage_ids(corpus.root, TENANT)}
        assert not left & set(gone)
        for mode in ("hybrid", "bm25", "dense"):
            assert not _ids(retriever, reader, query, as_of, mode) & set(gone), mode
    finally:
        retriever.close()
        for doc_id in gone:
            corpus.docs.pop(doc_id)
        corpus.files.pop(f"part{FILES}.jsonl")


def test_answers_only_use_and_cite_visible_passages(corpus: Corpus) -> None:
    from ragcli.answer import Answered, ask
    from ragcli.backends.local import LocalModel

    rng = random.Random(3)
    model = LocalModel(embedder=shared_embedder())
    retriever = _retriever(corpus)
    answered = evidence = 0
    try:
        for _ in range(16):
            user, groups = rng.choice(USERS), set(rng.sample(GROUPS, rng.randint(0, 2)))
            as_of = DAY0 + dt.timedelta(days=rng.randrange(4 * 365))
            question = rng.choice(corpus.texts) + "?"
            outcome = ask(question, Scope.of(_principal(user, sorted(groups)), as_of), retriever, model)
            cited = (
                [c.passage.id for c in outcome.claims] + [p.id for p in outcome.sources]
                if isinstance(outcome, Answered)
                else []
            )
            for pid in [*outcome.evidence_ids, *cited]:
                assert _visible(corpus.docs[pid.split("@")[0]], user, groups, as_of), (user, groups, as_of, pid)
            answered += outcome.disposition == "answered"
            evidence += len(outcome.evidence_ids)
    finally:
        retriever.close()
    assert answered >= 3 and evidence >= 16, (answered, evidence)


def test_one_retriever_serves_each_principal_only_its_own_view(tmp_path: Path) -> None:
    """The Retriever caches query vectors and the opened index: neither may carry one principal's view to another."""
    from ragcli import ingest

    folder, root = tmp_path / "docs", tmp_path / "index"
    folder.mkdir()
    text = "Quarterly salary review budget for the platform team"
    acls = {"only-a": ["ga"], "only-b": ["gb"], "both": ["ga", "gb"], "carol": ["user:carol"]}

    def write(acls: dict[str, list[str]]) -> None:
        lines = [json.dumps({"id": i, "title": "Budget", "text": text, "acl": acl}) for i, acl in acls.items()]
        (folder / "docs.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")

    write(acls)
    ingest(folder, "cacheco", index=root, embedder=shared_embedder())
    from ragcli.search import Retriever, SearchConfig

    a, b, carol = (
        _principal("ann", ["ga"], "cacheco"),
        _principal("ben", ["gb"], "cacheco"),
        _principal("carol", [], "cacheco"),
    )
    retriever = Retriever(root, embedder=shared_embedder())

    def view(principal, mode: str) -> set[str]:  # type: ignore[no-untyped-def]
        response = retriever.search(Scope.of(principal), text, config=SearchConfig(mode=mode, k=10))  # type: ignore[arg-type]
        return {r.passage.doc_id for r in response.results}

    try:
        for mode in ("dense", "hybrid", "bm25"):
            for _ in range(2):  # the second round is served from the caches
                assert view(a, mode) == {"only-a", "both"}, mode
                assert view(b, mode) == {"only-b", "both"}, mode
                assert view(carol, mode) == {"carol"}, mode
        generation = retriever.index_for(a.tenant).generation

        acls["both"] = ["ga"]  # revoke gb
        write(acls)
        ingest(folder, "cacheco", index=root, embedder=shared_embedder())
        # The same Retriever notices the new generation instead of serving the old one.
        for mode in ("dense", "hybrid", "bm25"):
            assert view(b, mode) == {"only-b"}, mode
            assert view(a, mode) == {"only-a", "both"}, mode
        assert retriever.index_for(a.tenant).generation != generation
    finally:
        retriever.close()
    shutil.rmtree(root)
