"""Search with the real rankers: permissions under random ACLs and dates, tenants, query safety, ranking."""

from __future__ import annotations

import datetime as dt
import random
import re
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.corpus import markdown, user, visible_to, write

from ragcli import ingest
from ragcli.embedder import Embedder
from ragcli.errors import InputError
from ragcli.principal import Principal, Scope
from ragcli.search import Retriever, SearchConfig
from ragcli.search.fusion import document_leads, fused_order, lift_ranker_firsts, rrf
from ragcli.search.query import MAX_QUERY_CHARS, clean_query

NOW = dt.date(2026, 11, 29)
HYP = dict(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
POOL = ["g1", "g2", "g3", "g4", "everyone", "user:u1"]


# --------------------------------------------------------------------------- random ACL / validity corpus


@dataclass(frozen=True)
class GenDoc:
    doc_id: str
    acl: frozenset[str]
    start: dt.date | None
    end: dt.date | None

    def visible(self, tokens: set[str], day: dt.date) -> bool:
        return (
            bool(self.acl & tokens)
            and (self.start is None or self.start <= day)
            and (self.end is None or day < self.end)
        )


@dataclass
class PropIndex:
    root: Path
    docs: dict[str, GenDoc]
    retriever: Retriever


@pytest.fixture(scope="module")
def prop_index(tmp_path_factory, embedder):
    rng = random.Random(20261129)
    base = tmp_path_factory.mktemp("props")
    docs = {}
    for i in range(60):
        acl = rng.sample(POOL, rng.choice([1, 1, 1, 2, 3]))
        start = rng.choice([None, dt.date(2025, 1, 1) + dt.timedelta(days=rng.randrange(0, 900))])
        end = rng.choice([None, None, (start or dt.date(2025, 1, 1)) + dt.timedelta(days=rng.randrange(1, 600))])
        doc_id = f"doc-{i:02d}"
        meta = {"id": doc_id, "acl": acl}
        if start:
            meta["effective_from"] = start.isoformat()
        if end:
            meta["superseded_on"] = end.isoformat()
        topic = rng.choice(["billing", "deployment", "security", "onboarding"])
        write(
            base / "docs" / f"{doc_id}.md",
            markdown(
                meta, f"# Note {i}\n\nShared marker zanzibar. This note {i} is about {topic} and the quarterly plan.\n"
            ),
        )
        docs[doc_id] = GenDoc(doc_id, frozenset(acl), start, end)
    report = ingest(base / "docs", "props", index=base / "index", embedder=embedder)
    assert report.documents.rejected == [] and report.passages == 60
    retriever = Retriever(base / "index", embedder=embedder)
    yield PropIndex(base / "index", docs, retriever)
    retriever.close()


principals = st.builds(
    lambda name, groups: Principal(user=name, tenant="props", groups=tuple(groups)),
    st.sampled_from(["u1", "u2", "u3"]),
    st.lists(st.sampled_from(["g1", "g2", "g3", "g4", "g5", "user:u1", "everyone"]), max_size=3),
)
days = st.dates(dt.date(2024, 6, 1), dt.date(2028, 6, 1))


def test_every_result_is_visible_to_the_principal_on_the_day(prop_index):
    draws = {"total": 0, "nonempty": 0}

    @settings(max_examples=50, **HYP)
    @given(
        principal=principals,
        day=days,
        mode=st.sampled_from(["hybrid", "bm25", "dense"]),
        query=st.sampled_from(["zanzibar", "quarterly plan billing", "security note"]),
    )
    def prop(principal, day, mode, query):
        tokens = set(principal.acl_tokens())
        visible = {d.doc_id for d in prop_index.docs.values() if d.visible(tokens, day)}
        # Floors off and enough candidates: what the rankers can reach is exactly the visible set.
        cfg = SearchConfig(mode=mode, k=100, candidates=100, dense_floor=-1.0)
        response = prop_index.retriever.search(Scope.of(principal, day), query, config=cfg)
        got = [r.passage for r in response.results]
        for p in got:
            assert p.tenant == "props"
            assert set(p.acl) & tokens, (p.id, p.acl, tokens)
            assert visible_to(p, principal, day), (p.id, p.effective_from, p.superseded_on, day)
            assert p.doc_id in visible
        ids = {p.doc_id for p in got}
        if mode == "dense" or query == "zanzibar":
            assert ids == visible  # every document has the marker word; dense ranks every allowed row
        for cand in response.bm25_candidates + response.dense_candidates:
            assert cand.id.split("@")[0] in visible  # --explain lists only permitted candidates too
        draws["total"] += 1
        draws["nonempty"] += bool(visible)

    prop()
    # Counted in this test, by this run: some draws had something to see, so the checks could have failed.
    assert draws["total"] >= 50 and draws["nonempty"] >= 5, draws


def test_a_broad_principal_sees_a_strict_superset_of_a_narrow_one(prop_index):
    broad = Principal(user="u1", tenant="props", groups=("g1", "g2", "g3", "g4"))
    narrow = Principal(user="u9", tenant="props", groups=())
    day = dt.date(2026, 1, 15)
    broad_ids = set(
        prop_index.retriever.search(
            Scope.of(broad, day), "zanzibar", config=SearchConfig(mode="bm25", k=100, candidates=100)
        ).ids
    )
    narrow_ids = set(
        prop_index.retriever.search(
            Scope.of(narrow, day), "zanzibar", config=SearchConfig(mode="bm25", k=100, candidates=100)
        ).ids
    )
    assert narrow_ids < broad_ids and len(broad_ids) >= 10
    tokens = lambda who: set(who.acl_tokens())  # noqa: E731
    assert {i.split("@")[0] for i in broad_ids} == {
        d.doc_id for d in prop_index.docs.values() if d.visible(tokens(broad), day)
    }
    assert {i.split("@")[0] for i in narrow_ids} == {
        d.doc_id for d in prop_index.docs.values() if d.visible(tokens(narrow), day)
    }


# --------------------------------------------------------------------------- tenants


def test_same_named_documents_stay_in_their_tenant(retriever, sample_index):
    acme_root = str((Path(__file__).parents[1] / "sample_corpus" / "acme").resolve())
    globex_root = str((Path(__file__).parents[1] / "sample_corpus" / "globex").resolve())
    for name, tenant, root, fact, other_fact in (
        ("alice", "acme", acme_root, "600", "300"),
        ("gina", "globex", globex_root, "300", "600"),
    ):
        response = retriever.search(Scope.of(user(name), NOW), "Tier 2 rate limit requests per minute")
        assert response.results
        for r in response.results:
            assert r.passage.tenant == tenant and r.passage.source.startswith(root)
        top = [r.passage for r in response.results if r.passage.doc_id == "api-rate-limits"]
        assert top, response.ids
        joined = " ".join(p.text for p in top)
        # The tenant's own Tier 2 figure, and not the other tenant's same-named page's figure.
        assert re.search(rf"Tier 2 \w+ are limited to {fact} requests per minute", joined), joined
        assert not re.search(rf"(?<![\d,]){other_fact}(?![\d,])", joined), (other_fact, joined)


def test_tenant_named_in_the_query_is_just_text(retriever):
    for query in (
        "tenant:globex refund window",
        "tenant:globex",
        "globex refunds-policy 60 days",
        "--tenant globex refund",
    ):
        response = retriever.search(Scope.of(user("alice"), NOW), query)
        assert all(r.passage.tenant == "acme" for r in response.results), query
    response = retriever.search(Scope.of(user("alice"), NOW), "tenant:globex refund window")
    assert any(
        r.passage.doc_id == "refunds-policy" and r.passage.version.startswith("2026-09.") for r in response.results[:3]
    )
    assert not any("60 days" in r.passage.text for r in response.results)


def test_restricted_documents_follow_the_sample_acls(retriever):
    def docs(name, query):
        return {
            r.passage.doc_id
            for r in retriever.search(Scope.of(user(name), NOW), query, config=SearchConfig(k=50)).results
        }

    assert "pay-bands" in docs("hana", "pay bands salary range engineer")
    for name in ("alice", "bob", "carol"):
        assert "pay-bands" not in docs(name, "pay bands salary range engineer")
    assert "board-minutes" in docs("carol", "board minutes meeting decisions")
    assert "board-minutes" not in docs("alice", "board minutes meeting decisions")
    assert "oncall-handbook" in docs("gus", "on-call handbook paging rotation")
    assert "oncall-handbook" not in docs("gina", "on-call handbook paging rotation")


# --------------------------------------------------------------------------- query text is only text

SYNTAX = [
    'AND OR NOT " ( ) [ ] { } : * - ^ ~ \\ /',
    "refund AND (annual OR monthly",
    'title:"Refund Policy',
    "[1 TO *",
    "{*}",
    "ERR_4021^10~2",
    "\\",
    "/regex.*/",
    "-",
    "NOT",
    "*:*",
    "acl:hr pay bands",
    "((((((((((",
    "a" * 5000,
    "\x00\x01 refund \x7f",
    "\u202eǝɔuɐʍollɐ",
    "🙂 refund 🙂",
]


@pytest.mark.parametrize("query", SYNTAX)
@pytest.mark.parametrize("mode", ["hybrid", "bm25"])
def test_query_syntax_characters_never_raise(retriever, query, mode):
    response = retriever.search(Scope.of(user("alice"), NOW), query, config=SearchConfig(mode=mode))
    assert all(r.passage.tenant == "acme" for r in response.results)
    assert len(response.query) <= MAX_QUERY_CHARS


@settings(max_examples=60, **HYP)
@given(query=st.text(max_size=300))
def test_any_text_query_searches_or_is_an_empty_query_error(retriever, query):
    try:
        cleaned, _ = clean_query(query)
    except InputError:
        with pytest.raises(InputError, match="empty query"):
            retriever.search(Scope.of(user("bob"), NOW), query, config=SearchConfig(mode="bm25"))
        return
    for mode in ("bm25", "hybrid"):
        response = retriever.search(Scope.of(user("bob"), NOW), query, config=SearchConfig(mode=mode))
        assert response.query == cleaned
        assert all(r.passage.tenant == "acme" and "hr" not in r.passage.acl for r in response.results)


def test_empty_and_overlong_queries():
    for blank in ("", "   ", "\n\t", "\x00\x1f"):
        with pytest.raises(InputError, match="empty query"):
            clean_query(blank)
    text, notes = clean_query("word " * 500)
    assert len(text) <= MAX_QUERY_CHARS and notes and "cut" in notes[0]


# --------------------------------------------------------------------------- ranking


@pytest.mark.parametrize(
    ("query", "ident", "expected"),
    [
        ("ERR_4021", "ERR_4021", "error-codes#err-4021"),
        ("ERR_4022", "ERR_4022", "error-codes#err-4022"),
        ("ORB-7731", "ORB-7731", "error-codes#orb-7731"),
        ("v2.3.1", "v2.3.1", "changelog#v2-3-1-2026-08-12"),
        ("retry_backoff_ms", "retry_backoff_ms", "error-codes#err-5003"),
        ("What does ERR_4021 mean?", "ERR_4021", "error-codes#err-4021"),
        ("how do I fix ORB-7731", "ORB-7731", "error-codes#orb-7731"),
    ],
)
def test_identifier_queries_rank_the_exact_passage_first(retriever, query, ident, expected):
    for mode in ("hybrid", "bm25"):
        top = retriever.search(Scope.of(user("bob"), NOW), query, config=SearchConfig(mode=mode)).results[0].passage
        assert f"{top.doc_id}#{top.section}" == expected, (mode, top.id)
        assert ident in top.text


def test_paraphrase_is_found_by_dense_where_bm25_misses(retriever):
    query = "how long until I get my money back"
    target = ("refunds-policy", "how-to-request-a-refund")
    bm25 = retriever.search(
        Scope.of(user("alice"), NOW), query, config=SearchConfig(mode="bm25", k=100, candidates=100)
    )
    assert target not in {(r.passage.doc_id, r.passage.section) for r in bm25.results}
    # No per-document limit: the target is one of several refunds-policy passages this query finds.
    hybrid = retriever.search(Scope.of(user("alice"), NOW), query, config=SearchConfig(mode="hybrid", k=5, per_doc=0))
    hits = [r for r in hybrid.results if (r.passage.doc_id, r.passage.section) == target]
    assert hits and hits[0].bm25 is None and hits[0].dense is not None


def test_what_is_left_of_a_contraction_matches_nothing(tmp_path, embedder):
    """The tokenizer cuts "don't", "it's" and "I'd" into don + t, it + s, i + d: those pieces are no words of a
    question, so a page that shares only them with it is no word match (a user's own wording is full of them)."""
    chatty = "# Chatty\n\nDon't worry, it's what I'd do and what you'll do; we've all been there.\n"
    write(tmp_path / "docs" / "chatty.md", markdown({"acl": ["everyone"]}, chatty))
    write(
        tmp_path / "docs" / "wheels.md", markdown({"acl": ["everyone"]}, "# Wheels\n\nThe cache keeps every wheel.\n")
    )
    ingest(tmp_path / "docs", "t", index=tmp_path / "index", embedder=embedder)
    principal = Principal(user="u", tenant="t", groups=("everyone",))
    retriever = Retriever(tmp_path / "index", embedder=embedder)
    try:
        found = retriever.search(
            Scope.of(principal),
            "I'd like to know: don't you cache wheels? It's slow, we've waited.",
            config=SearchConfig(mode="bm25"),
        )
    finally:
        retriever.close()
    assert [r.passage.doc_id for r in found.results] == ["wheels"]


def test_refund_policy_versions_follow_as_of(retriever):
    query = "annual plan refund window days"

    def versions(day: dt.date) -> set[str]:
        found = retriever.search(Scope.of(user("alice"), day), query, config=SearchConfig(k=30)).results
        # The declared version (the text's hash after it aside).
        return {r.passage.version.rsplit(".", 1)[0] for r in found if r.passage.doc_id == "refunds-policy"}

    assert versions(dt.date(2026, 8, 31)) == {"2025-01"}
    assert versions(dt.date(2026, 9, 1)) == {"2026-09"}  # superseded_on is exclusive, effective_from inclusive
    assert versions(dt.date(2024, 12, 31)) == set()  # before either version existed
    old = retriever.search(
        Scope.of(user("alice"), dt.date(2026, 8, 31)), "How many days do I have to refund an annual plan?"
    ).results
    assert "14 days" in old[0].passage.text
    new = retriever.search(
        Scope.of(user("alice"), dt.date(2026, 10, 1)), "How many days do I have to refund an annual plan?"
    ).results
    assert "30 days" in new[0].passage.text


@pytest.mark.parametrize("query", ["What is the capital of Mongolia?", "best sourdough bread recipe"])
def test_off_topic_queries_return_nothing(retriever, query):
    for name in ("alice", "gina"):
        assert retriever.search(Scope.of(user(name), NOW), query).results == []


def _ranking(response):
    return [(r.id, r.score, r.bm25, r.dense) for r in response.results]


def test_results_are_ranked_fused_and_deterministic(retriever, sample_root):
    a = retriever.search(Scope.of(user("bob"), NOW), "webhook retries delivery", config=SearchConfig(k=8))
    # A fresh Retriever and a fresh Embedder: nothing (query vector, view, opened index) comes from a cache.
    fresh = Retriever(sample_root, embedder=Embedder())
    try:
        b = fresh.search(Scope.of(user("bob"), NOW), "webhook retries delivery", config=SearchConfig(k=8))
    finally:
        fresh.close()
    assert _ranking(a) == _ranking(b) and len(a.results) == 8
    assert [r.rank for r in a.results] == list(range(1, 9))
    scores = [r.score for r in a.results]
    assert scores == sorted(scores, reverse=True)
    first_of_document: set[str] = set()
    for r in a.results:
        if r.passage.doc_id in first_of_document:  # a document's later result: its own ranks
            expected = _own_rrf(r)
        else:  # a document's first result: the document's ranks (where its first passage stands among documents)
            first_of_document.add(r.passage.doc_id)
            expected = sum(
                1 / (60 + _document_rank(candidates, r.passage.doc_id))
                for candidates in (a.bm25_candidates, a.dense_candidates)
                if any(_doc_of(c.id) == r.passage.doc_id for c in candidates if c.kept)
            )
            own = _own_rrf(r)
            assert r.score >= own - 1e-12  # a document ranks no lower than any of its passages
        assert r.score == pytest.approx(expected)
        assert r.dense is None or r.dense.score >= 0.30


def _own_rrf(result) -> float:  # type: ignore[no-untyped-def]
    """A result's passage-level RRF (k = 60) from its own ranks in each ranker, written out."""
    return sum(1 / (60 + h.rank) for h in (result.bm25, result.dense) if h is not None)


def _doc_of(passage_id: str) -> str:
    return passage_id.split("@", 1)[0]


def _document_rank(candidates, doc_id: str) -> int:  # type: ignore[no-untyped-def]
    """Where ``doc_id``'s first kept candidate stands among the documents of the kept candidates (from 1)."""
    documents = list(dict.fromkeys(_doc_of(c.id) for c in candidates if c.kept))
    return documents.index(doc_id) + 1


def test_a_page_both_rankers_find_through_different_passages_outranks_a_lone_passage(retriever):
    """Hybrid search scores a document's best passage by the document's ranks: a page that BM25 and the
    embedder each put near the top through different passages counts as found by both. With
    ``--per-doc 0`` (documents not limited) and in a single-ranker mode, passages are ranked on their own."""
    scope = Scope.of(user("alice"), NOW)
    checked = 0
    for query in ("webhook retries delivery", "refund window for annual plans", "SSO setup for SCIM"):
        hybrid = retriever.search(scope, query, config=SearchConfig(k=10))
        plain = retriever.search(scope, query, config=SearchConfig(k=10, per_doc=0))
        for r in plain.results:  # per_doc 0: each passage's own RRF
            assert r.score == pytest.approx(_own_rrf(r))
        for mode in ("bm25", "dense"):
            alone = retriever.search(scope, query, config=SearchConfig(k=10, mode=mode))
            for r in alone.results:
                h = r.bm25 if mode == "bm25" else r.dense
                assert h is not None and r.score == pytest.approx(1 / (60 + h.rank))
        own = {r.id: _own_rrf(r) for r in hybrid.results}
        # A page lifted by its other passages now stands above a result whose own passage scores outrank it.
        checked += sum(
            own[later.id] > own[r.id]
            for i, r in enumerate(hybrid.results)
            if r.score > own[r.id] + 1e-9
            for later in hybrid.results[i + 1 :]
        )
    assert checked >= 1  # the rule reordered results on these queries (else the checks above hold by emptiness)


def test_document_leads_scores_each_documents_first_row_by_the_documents_ranks():
    page = {1: "a", 2: "a", 3: "b", 4: "c", 5: "c"}.__getitem__
    bm25, dense = [1, 4, 3], [5, 3, 2]  # page a: 1st in BM25 (row 1) and 3rd in dense (row 2); b: 3rd and 2nd
    order = fused_order([bm25, dense], 60)
    assert [row for row, _ in order][:2] == [3, 1]  # as passages, b's row 3 (3rd + 2nd) beats a's row 1
    leads = document_leads(order, [bm25, dense], page, 60)
    # As documents: a is 1st in BM25 and 3rd in dense; c 2nd and 1st; b 3rd and 2nd.
    assert leads[:3] == [
        (5, pytest.approx(1 / 62 + 1 / 61)),  # c, led by row 5 (its first row in the fused order)
        (1, pytest.approx(1 / 61 + 1 / 63)),
        (3, pytest.approx(1 / 63 + 1 / 62)),
    ]
    # Later rows of a document keep their own fused score, behind the documents' first rows here.
    assert dict(leads)[4] == pytest.approx(1 / 62) and dict(leads)[2] == pytest.approx(1 / 63)
    assert sorted(row for row, _ in leads) == [1, 2, 3, 4, 5]


def test_each_rankers_first_page_stands_in_the_first_three_results(retriever):
    """A page that BM25 alone or the embedder alone puts first is not buried by fusion (``lift_ranker_firsts``):
    its passage stands third or higher in a person's results, where pages found by both rankers would push it
    down (the passages ranked on their own, ``per_doc=0``, show where it would have stood)."""
    scope = Scope.of(user("alice"), NOW)
    lifted = 0
    queries = (
        "another webhook",
        "share outage",
        "deadline supported",
        "webhook retries delivery",
        "SSO setup for SCIM",
    )
    for query in queries:
        hybrid = retriever.search(scope, query, config=SearchConfig(k=10))
        plain = retriever.search(scope, query, config=SearchConfig(k=10, per_doc=0))
        firsts = {
            _doc_of(next(c.id for c in cands if c.kept)) for cands in (hybrid.bm25_candidates, hybrid.dense_candidates)
        }
        shown = {_doc_of(i) for i in hybrid.ids[:3]}
        assert firsts <= shown, query
        lifted += not firsts <= {_doc_of(i) for i in plain.ids[:3]}
        scores = [r.score for r in hybrid.results]
        assert scores == sorted(scores, reverse=True), query
    assert lifted >= 2  # the rule moved a page on these queries (else the checks above hold without it)


def test_lift_ranker_firsts_moves_a_buried_first_row_to_the_slot_and_counts_places_per_document():
    page = {1: "a", 2: "a", 3: "b", 4: "c", 5: "d", 6: "e"}.__getitem__
    order = [(1, 0.9), (2, 0.8), (3, 0.7), (4, 0.6), (5, 0.5), (6, 0.4)]
    # Row 6 is BM25's first; with one row per page, places 1-3 are pages a, b, c: row 6 takes c's place and score.
    assert lift_ranker_firsts(order, [[6, 1], [1, 3]], page, per_doc=1, slot=3) == [
        (1, 0.9),
        (2, 0.8),
        (3, 0.7),
        (6, 0.6),
        (4, 0.6),
        (5, 0.5),
    ]
    # With two rows per page, places 1-3 are rows 1, 2, 3: row 6 goes before row 3.
    assert [row for row, _ in lift_ranker_firsts(order, [[6], []], page, per_doc=2, slot=3)] == [1, 2, 6, 3, 4, 5]
    # A first row whose page already stands in the first places, or a short list, stays where it is.
    assert lift_ranker_firsts(order, [[2], [3]], page, per_doc=2, slot=3) == order
    assert lift_ranker_firsts(order[:2], [[2], [1]], page, per_doc=2, slot=3) == order[:2]


def test_queries_prepared_in_one_batch_rank_exactly_as_queries_embedded_alone(sample_root, embedder):
    """``Retriever.prepare`` (a decomposed question's parts embedded in one model call) must cache each
    part's own vector: the same rankings and scores as a fresh Retriever embedding each query alone."""
    parts = [
        "webhook retries delivery",
        "refund window for annual plans",
        "  SSO  setup for SCIM  ",
        "webhook retries delivery",
    ]
    bob = Scope.of(user("bob"), NOW)
    batched, alone = Retriever(sample_root, embedder=embedder), Retriever(sample_root, embedder=Embedder())
    try:
        batched.prepare(bob, parts)
        for query in parts:
            a, b = batched.search(bob, query), alone.search(bob, query)
            # Padding in a batch may move a float in its last places; the ranking may not move.
            assert a.results and a.ids == b.ids, query
            assert [r.dense.score if r.dense else None for r in a.results] == pytest.approx(
                [r.dense.score if r.dense else None for r in b.results], abs=1e-5
            )
    finally:
        batched.close()
        alone.close()


def test_rrf():
    fused = rrf([["a", "b", "c"], ["c", "a"]], k=60)
    assert fused["a"] == pytest.approx(1 / 61 + 1 / 62)
    assert fused["c"] == pytest.approx(1 / 63 + 1 / 61)
    assert fused["b"] == pytest.approx(1 / 62)


def test_k_and_candidates_are_validated(retriever):
    with pytest.raises(InputError):
        retriever.search(Scope.of(user("bob")), "refund", config=SearchConfig(k=0))
    with pytest.raises(InputError):
        retriever.search(Scope.of(user("bob")), "refund", config=SearchConfig(candidates=0))


def test_unknown_tenant_principal(retriever):
    with pytest.raises(InputError, match="unknown tenant 'initech'"):
        retriever.search(Scope.of(Principal(user="x", tenant="initech")), "refund")


@pytest.mark.parametrize(
    "query",
    [
        "Which plan did Napoleon have for the invasion of Russia?",
        "a banana bread recipe with walnuts, baked for one hour",
    ],
)
def test_topic_gate_drops_word_matches_of_off_topic_queries(retriever, query):
    # These share ordinary words ("plan", "hour") with the corpus, so BM25 alone
    # matches; nothing is close in meaning, so hybrid search returns nothing.
    bob = user("bob")
    ungated = retriever.search(Scope.of(bob, NOW), query, config=SearchConfig(topic_gate=False))
    assert ungated.results, "the query must share words with the corpus for this test to mean anything"
    assert all(r.dense is None for r in ungated.results)
    gated = retriever.search(Scope.of(bob, NOW), query)
    assert gated.results == []
    assert any("off-topic" in note for note in gated.notes)


def test_topic_gate_keeps_identifier_queries(retriever):
    # An identifier is found exactly by BM25 even when its meaning is opaque to the model.
    response = retriever.search(Scope.of(user("alice"), NOW), "ERR_4021", config=SearchConfig(dense_floor=0.99))
    assert response.results and response.results[0].id.startswith("error-codes@")


# ----------------------------------------------------------------------- keyword queries, number units, explain reasons

KEYWORD_DOCS = {
    "sync.md": "# Syncing\n\nTo use the lockfile without checking it, pass the `--frozen` option to the command.\n",
    "backends.md": "# Backends\n\nProjects may pick the hatchling backend when they need build hooks.\n",
    "scripts.md": "# Scripts\n\nInline script metadata follows PEP 723 and is read before the script runs.\n",
    "isolation.md": "# Isolation\n\nBuild isolation follows PEP 517: each build gets a fresh environment with "
    "metadata.\n",
    **{
        f"filler{i}.md": f"# Topic {i}\n\nThis page covers the project setup, the environment and the command line, "
        f"part {i}.\n"
        for i in range(40)
    },
}


@pytest.fixture(scope="module")
def keyword_index(tmp_path_factory, embedder):
    base = tmp_path_factory.mktemp("keywords")
    for name, body in KEYWORD_DOCS.items():
        write(base / "docs" / name, markdown({"acl": ["everyone"]}, body))
    report = ingest(base / "docs", "kw", index=base / "index", embedder=embedder)
    assert not report.documents.rejected
    retriever = Retriever(base / "index", embedder=embedder)
    yield retriever
    retriever.close()


KW_USER = Principal(user="kim", tenant="kw", groups=())


@pytest.mark.parametrize(
    "query, doc", [("hatchling", "backends"), ("--frozen", "sync"), ("frozen", "sync"), ("PEP 723", "scripts")]
)
def test_topic_gate_keeps_specific_keyword_queries(keyword_index, query, doc):
    # An unreachable dense floor stands for "a one-word query the embedding does not place":
    # the word is rare here (or a flag or identifier), so its BM25 match is kept.
    response = keyword_index.search(Scope.of(KW_USER, NOW), query, config=SearchConfig(dense_floor=0.99))
    assert response.results, response.notes
    assert response.results[0].passage.doc_id == doc
    assert not any("off-topic" in note for note in response.notes)


def test_topic_gate_still_drops_a_common_word(keyword_index):
    response = keyword_index.search(Scope.of(KW_USER, NOW), "environment", config=SearchConfig(dense_floor=0.99))
    assert response.results == []
    assert {c.status for c in response.bm25_candidates} == {"topic_gate"}
    assert any("off-topic" in note for note in response.notes)


def test_a_word_and_number_unit_ranks_the_passage_that_names_it(keyword_index):
    # Dense sees "PEP 723" and "PEP 517" as neighbours; the unit is matched whole.
    response = keyword_index.search(Scope.of(KW_USER, NOW), "PEP 723")
    assert response.results[0].passage.doc_id == "scripts"
    other = keyword_index.search(Scope.of(KW_USER, NOW), "PEP 517")
    assert other.results[0].passage.doc_id == "isolation"


def test_explain_names_why_each_candidate_left(keyword_index):
    response = keyword_index.search(
        Scope.of(KW_USER, NOW), "project setup environment command line", config=SearchConfig(k=2)
    )
    statuses = {c.status for c in response.bm25_candidates + response.dense_candidates}
    assert "in_results" in statuses and "cut_at_k" in statuses
    in_results = {c.id for c in response.bm25_candidates + response.dense_candidates if c.status == "in_results"}
    assert in_results == set(response.ids)
    floored = keyword_index.search(
        Scope.of(KW_USER, NOW), "project setup", config=SearchConfig(dense_floor=0.99, topic_gate=False)
    )
    assert {c.status for c in floored.dense_candidates} == {"under_floor"}


@pytest.mark.parametrize(
    "text, units",
    [
        ("See PEP 723 and RFC 9110", ["pep_723", "rfc_9110"]),
        ("Python 3.12 on macOS 13", ["python_3.12", "macos_13"]),
        ("it happened in 2008 and less than 6 months", []),
    ],
)
def test_number_units_are_names_with_numbers(text, units):
    from ragcli.text import number_units

    assert number_units(text) == units


@pytest.mark.parametrize(
    "token, strong",
    [("err_4021", True), ("pd-1", True), ("pylock.toml", True), ("up-to-date", False), ("frozen", False)],
)
def test_strong_identifiers(token, strong):
    from ragcli.text import is_strong_identifier

    assert is_strong_identifier(token) is strong


def test_an_identifier_the_corpus_does_not_hold_opens_no_gate(keyword_index):
    # A scientific claim naming PD-1 shares "environment" with these pages; nothing here names PD-1.
    response = keyword_index.search(
        Scope.of(KW_USER, NOW), "PD-1 blockade changes the tumour environment", config=SearchConfig(dense_floor=0.99)
    )
    assert response.results == [] and {c.status for c in response.bm25_candidates} == {"topic_gate"}


def test_a_weak_word_match_must_earn_its_place(retriever):
    # As bob (no HR access), an L3 salary question has one weak dense hit, and BM25 finds pages that
    # share one word of four with it ("engineer"): not evidence. Without the rule they fill the results.
    bob = Scope.of(user("bob"), NOW)
    question = "What is the salary band for an L3 engineer?"
    strict = retriever.search(bob, question)
    loose = retriever.search(bob, question, config=SearchConfig(bm25_only_min_terms=1))
    weak = [c for c in strict.bm25_candidates if c.status == "weak_word_match"]
    assert weak, [(c.id, c.score, c.status) for c in strict.bm25_candidates]
    assert len(strict.results) < len(loose.results)
    assert not {c.id for c in weak} & set(strict.ids)
    assert len(strict.results) == 1


# --------------------------------------------------------------------------- each ranker's first hit, for evidence

RANKER_QUERIES = [
    "how long until I get my money back",
    "annual plan refund window days",
    "who approves parental leave",
    "vpn access for contractors",
]


def _first_kept(candidates) -> str | None:  # type: ignore[no-untyped-def]
    return next((c.id for c in candidates if c.kept), None)


@pytest.mark.parametrize("query", RANKER_QUERIES)
def test_ranker_tops_adds_each_rankers_first_hit_after_the_fused_top_k(retriever, query):
    scope = Scope.of(user("alice"), NOW)
    fused = retriever.search(scope, query, config=SearchConfig(k=1, per_doc=0))
    kept = retriever.search(scope, query, config=SearchConfig(k=1, per_doc=0, ranker_tops=1))
    ids = [r.passage.id for r in kept.results]
    assert ids[:1] == [r.passage.id for r in fused.results]  # the fused top k is untouched
    firsts = {_first_kept(kept.bm25_candidates), _first_kept(kept.dense_candidates)} - {None}
    assert set(ids) == set(ids[:1]) | firsts  # and after it: the rankers' firsts, nothing else
    assert len(ids) == len(set(ids)) and [r.rank for r in kept.results] == list(range(1, len(ids) + 1))
    for candidates in (kept.bm25_candidates, kept.dense_candidates):
        first = next((c for c in candidates if c.kept), None)
        assert first is None or first.status == "in_results"  # --explain and traces say where it went


def test_ranker_tops_adds_a_passage_when_the_rankers_disagree_at_the_top(retriever):
    """At least one of these queries has BM25 and the dense ranker disagree on their first hit (else the test
    above would hold by emptiness)."""
    scope = Scope.of(user("alice"), NOW)
    grown = [
        len(retriever.search(scope, q, config=SearchConfig(k=1, per_doc=0, ranker_tops=1)).results)
        for q in RANKER_QUERIES
    ]
    assert max(grown) >= 2


def test_ranker_tops_must_not_be_negative():
    with pytest.raises(InputError, match="ranker_tops"):
        SearchConfig(ranker_tops=-1)


def test_the_local_answerer_reads_a_rankers_first_hit_beyond_its_best_passages(retriever, monkeypatch):
    from ragcli.answer.run import evidence_config, found_by
    from ragcli.backends.local import answerer as local

    scope = Scope.of(user("alice"), NOW)
    hits = []
    for query in RANKER_QUERIES:
        response = retriever.search(scope, query, config=replace(evidence_config(retriever.config), k=1))
        if len(response.results) > 1:
            hits.append(response)
    assert hits
    monkeypatch.setattr(local, "MAX_PASSAGES", 1)
    for response in hits:
        evidence = [r.passage for r in response.results]
        found = {r.passage.id: found_by(r, len(response.results)) for r in response.results}
        assert local.read_passages(evidence, found) == evidence  # the best one, then the rankers' firsts
        unranked = {pid: replace(f, bm25_rank=None, dense_rank=None) for pid, f in found.items()}
        assert local.read_passages(evidence, unranked) == evidence[:1]
