"""Where to put the dense (cosine) and BM25 floors: score distributions of unrelated vs relevant pairs.

Dense part (``ragcli.embedder.Embedder`` directly, the bundled MiniLM):
  * SciFact: test queries vs a random sample of abstracts not in their qrels
    (unrelated) and vs their judged abstracts (relevant). Abstracts are embedded as
    ragcli indexes a one-passage document: ``title\\n\\ntext`` (cut at 256 tokens).
  * SQuAD 2.0 dev: answerable questions vs paragraphs of *other* articles (the
    article is the id prefix before '_': ``07_012`` is paragraph 12 of article 07;
    checked one-to-one with the title) and vs their source paragraph.
  * Whole real indexes through ``Retriever`` (mode dense, floor off): the top-1 cosine
    of off-topic queries (SQuAD questions on the SciFact index, SciFact queries on the
    uv-docs index) and of in-domain ones (each set on its own index).
  Prints percentiles (50, 90, 95, 99, 99.9) of each, including the *best* unrelated
  cosine per query (what decides whether an off-topic query still gets a dense hit),
  and for each candidate floor (0.20 ... 0.40) the recall cost (share of relevant
  pairs under it) and the leak (share of queries whose best unrelated cosine passes).

BM25 part (ragcli's own tantivy BM25 through ``Retriever``, mode bm25, floors off):
  top-1 score of off-topic queries (SQuAD questions against the SciFact index, SciFact
  queries against the uv-docs index; SQuAD is also shown without its biomedical articles
  Immune_system, Pharmacy, Oxygen, Black_Death and Ctenophora, which are not off-topic)
  vs the score of the relevant document (its best passage) for in-domain queries
  (SciFact test; SQuAD answerable), with percentiles
  and the same cost/leak table for candidate BM25 floors.

Indexes (tenants ``scifact``, ``squad2-dev``, ``uv-docs``) are reused from ``--index`` or
built there (a full SciFact ingest takes ~5-8 minutes; see search_quality.py).

Run:
    python bench/floors.py --index /tmp/bench-index --queries 60 --abstracts 100 --squad 100   # quick
    python bench/floors.py --index /tmp/bench-index
"""

from __future__ import annotations

import random
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (
    Output,
    RetrievalSet,
    base_parser,
    bench_principal,
    ensure_index,
    load_beir,
    load_squad,
    percentiles,
    sample_ids,
    share_below,
    squad_article,
)

DEFAULT_INDEX = Path(tempfile.gettempdir()) / "ragcli-bench-index"
DENSE_FLOORS = (0.20, 0.25, 0.30, 0.35, 0.40)
BM25_FLOORS = (0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 15.0, 20.0, 25.0)
PROBE_DEPTH = 1000
BIOMEDICAL_ARTICLES = frozenset({"Immune_system", "Pharmacy", "Oxygen", "Black_Death", "Ctenophora"})
"""SQuAD articles whose questions are not off-topic for SciFact's biomedical abstracts."""


@dataclass
class Distribution:
    name: str
    kind: str  # "unrelated" | "unrelated, best per query" | "relevant" | ...
    values: list[float]


# --------------------------------------------------------------------------- dense


def passage_text(doc: dict[str, Any]) -> str:
    """ragcli's index_text of a plain-text document that fits one passage: title, blank line, text."""
    title = " ".join((doc.get("title") or "").split())
    return f"{title}\n\n{doc['text']}" if title else doc["text"]


def embed_docs(embedder: Any, corpus: dict[str, dict[str, Any]], ids: list[str]) -> dict[str, Any]:
    vectors = embedder.embed([passage_text(corpus[i]) for i in ids])
    return dict(zip(ids, vectors, strict=True))


def pair_scores(
    q_vecs: dict[str, Any], d_vecs: dict[str, Any], unrelated: Any, relevant: Any
) -> tuple[list[float], list[float], list[float]]:
    """Cosines of unrelated pairs, the best unrelated cosine per query, and relevant pairs.

    ``unrelated(qid, doc_id)`` and ``relevant(qid)`` (-> doc ids) define the pairs.
    """
    import numpy as np

    doc_ids = list(d_vecs)
    matrix = np.stack([d_vecs[d] for d in doc_ids])
    pairs, best, rel = [], [], []
    for qid, qv in q_vecs.items():
        sims = matrix @ qv
        others = [float(s) for d, s in zip(doc_ids, sims, strict=True) if unrelated(qid, d)]
        pairs += others
        if others:
            best.append(max(others))
        rel += [float(d_vecs[d] @ qv) for d in relevant(qid) if d in d_vecs]
    return pairs, best, rel


def scifact_dense(embedder: Any, data: RetrievalSet, n_queries: int, n_abstracts: int, seed: int) -> list[Distribution]:
    qids = sample_ids(list(data.queries), n_queries, seed)
    judged = {d for q in qids for d in data.qrels[q]}
    pool = [d for d in data.corpus if d not in judged]
    randoms = random.Random(seed).sample(pool, min(n_abstracts, len(pool)))
    d_vecs = embed_docs(embedder, data.corpus, sorted(judged) + randoms)
    q_vecs = dict(zip(qids, embedder.embed([data.queries[q] for q in qids]), strict=True))
    random_set = set(randoms)
    pairs, best, rel = pair_scores(
        q_vecs, d_vecs, lambda q, d: d in random_set and d not in data.qrels[q], lambda q: list(data.qrels[q])
    )
    return [
        Distribution(f"SciFact: {len(qids)} queries x {len(randoms)} random abstracts", "unrelated pairs", pairs),
        Distribution("SciFact: best unrelated per query", "unrelated, best of sample", best),
        Distribution("SciFact: judged abstract", "relevant pairs", rel),
    ]


def squad_dense(
    embedder: Any, data: RetrievalSet, n_questions: int, n_paragraphs: int, seed: int
) -> list[Distribution]:
    answerable = [q for q in data.queries if q in data.qrels]
    qids = sample_ids(answerable, n_questions, seed)
    sources = {q: str(data.extra[q]["source_passage"]) for q in qids}
    pool = [d for d in data.corpus if d not in set(sources.values())]
    randoms = random.Random(seed).sample(pool, min(n_paragraphs, len(pool)))
    d_vecs = embed_docs(embedder, data.corpus, sorted(set(sources.values())) + randoms)
    q_vecs = dict(zip(qids, embedder.embed([data.queries[q] for q in qids]), strict=True))
    random_set = set(randoms)
    pairs, best, rel = pair_scores(
        q_vecs,
        d_vecs,
        lambda q, d: d in random_set and squad_article(d) != squad_article(sources[q]),
        lambda q: [sources[q]],
    )
    return [
        Distribution(
            f"SQuAD: {len(qids)} questions x other-article paragraphs (of {len(randoms)})", "unrelated pairs", pairs
        ),
        Distribution("SQuAD: best other-article paragraph per question", "unrelated, best of sample", best),
        Distribution("SQuAD: source paragraph", "relevant pairs", rel),
    ]


# --------------------------------------------------------------------------- scores from real indexes


class ScoreProbe:
    """One ranker of ragcli over one tenant with its floor off: top-1 score and the best score of a document."""

    def __init__(self, index_dir: Path, tenant: str, mode: str, embedder: Any = None) -> None:
        from ragcli.principal import Scope, parse_principal
        from ragcli.search import Retriever, SearchConfig

        self.mode = mode
        self.scope = Scope.of(parse_principal(bench_principal(tenant)))
        config = SearchConfig(mode=mode, k=PROBE_DEPTH, candidates=PROBE_DEPTH, bm25_floor=-1.0, dense_floor=-1.0)  # type: ignore[arg-type]
        self.retriever = Retriever(index_dir, embedder=embedder, config=config)

    def scores(self, query: str) -> list[tuple[str, float]]:
        """(doc_id, ranker score) of every candidate, best first; [] when nothing matches."""
        response = self.retriever.search(self.scope, query)
        hits = [(r.passage.doc_id, r.bm25 if self.mode == "bm25" else r.dense) for r in response.results]
        return [(doc, hit.score) for doc, hit in hits if hit is not None]

    def top1(self, query: str) -> float:
        hits = self.scores(query)
        return hits[0][1] if hits else 0.0

    def doc_score(self, query: str, doc_id: str) -> float:
        """Best passage score of ``doc_id``; 0.0 when it is not among the candidates (BM25: no matching term)."""
        return next((s for d, s in self.scores(query) if d == doc_id), 0.0)

    def close(self) -> None:
        self.retriever.close()


def ensure_indexes(args: Any, out: Output, scifact: RetrievalSet, squad: RetrievalSet) -> None:
    ensure_index(scifact.corpus_path, "scifact", args.index, out)
    ensure_index(squad.corpus_path, "squad2-dev", args.index, out)
    ensure_index(args.data / "uv-docs" / "docs", "uv-docs", args.index, out)


def off_topic_samples(args: Any, scifact: RetrievalSet, squad: RetrievalSet) -> tuple[list[str], list[str]]:
    sf_q = sample_ids(list(scifact.queries), args.queries, args.seed)
    squad_q = sample_ids([q for q in squad.queries if q in squad.qrels], args.squad, args.seed)
    return sf_q, squad_q


def squad_title(squad: RetrievalSet, qid: str) -> str:
    return str(squad.corpus[str(squad.extra[qid]["source_passage"])]["title"])


def squad_vs_scifact(name: str, squad: RetrievalSet, qids: list[str], scores: list[float]) -> list[Distribution]:
    """Two rows from one measurement: all SQuAD questions, and those from articles unlike SciFact's topics."""
    far = [s for q, s in zip(qids, scores, strict=True) if squad_title(squad, q) not in BIOMEDICAL_ARTICLES]
    return [
        Distribution(f"SQuAD questions ({len(qids)}) -> {name} index", "off-topic top-1 (index)", scores),
        Distribution(f"  same, without biomedical articles ({len(far)})", "off-topic top-1 (index)", far),
    ]


def dense_index_top1(args: Any, embedder: Any, scifact: RetrievalSet, squad: RetrievalSet) -> list[Distribution]:
    """Best cosine a query gets from a whole real index: off-topic (what a floor must stop) and in-domain."""
    sf_q, squad_q = off_topic_samples(args, scifact, squad)
    probes = {t: ScoreProbe(args.index, t, "dense", embedder) for t in ("scifact", "squad2-dev", "uv-docs")}
    try:
        return [
            *squad_vs_scifact("SciFact", squad, squad_q, [probes["scifact"].top1(squad.queries[q]) for q in squad_q]),
            Distribution(
                f"SciFact queries ({len(sf_q)}) -> uv-docs index",
                "off-topic top-1 (index)",
                [probes["uv-docs"].top1(scifact.queries[q]) for q in sf_q],
            ),
            Distribution(
                "SciFact queries -> SciFact index",
                "in-domain top-1",
                [probes["scifact"].top1(scifact.queries[q]) for q in sf_q],
            ),
            Distribution(
                "SQuAD questions -> SQuAD index",
                "in-domain top-1",
                [probes["squad2-dev"].top1(squad.queries[q]) for q in squad_q],
            ),
        ]
    finally:
        for probe in probes.values():
            probe.close()


def bm25_distributions(args: Any, scifact: RetrievalSet, squad: RetrievalSet) -> list[Distribution]:
    sf_q, squad_q = off_topic_samples(args, scifact, squad)
    probes = {t: ScoreProbe(args.index, t, "bm25") for t in ("scifact", "squad2-dev", "uv-docs")}
    try:
        return [
            *squad_vs_scifact("SciFact", squad, squad_q, [probes["scifact"].top1(squad.queries[q]) for q in squad_q]),
            Distribution(
                f"SciFact queries ({len(sf_q)}) -> uv-docs index",
                "off-topic top-1 (index)",
                [probes["uv-docs"].top1(scifact.queries[q]) for q in sf_q],
            ),
            Distribution(
                "SciFact queries -> SciFact index",
                "in-domain top-1",
                [probes["scifact"].top1(scifact.queries[q]) for q in sf_q],
            ),
            Distribution(
                "SciFact queries -> judged abstract",
                "relevant doc",
                [probes["scifact"].doc_score(scifact.queries[q], d) for q in sf_q for d in scifact.qrels[q]],
            ),
            Distribution(
                "SQuAD questions -> source paragraph",
                "relevant doc",
                [
                    probes["squad2-dev"].doc_score(squad.queries[q], str(squad.extra[q]["source_passage"]))
                    for q in squad_q
                ],
            ),
        ]
    finally:
        for probe in probes.values():
            probe.close()


# --------------------------------------------------------------------------- tables


def percentile_table(out: Output, title: str, dists: list[Distribution]) -> list[dict[str, Any]]:
    rows = [{"sample": d.name, "kind": d.kind, "n": len(d.values), **percentiles(d.values)} for d in dists]
    keys = [k for k in rows[0] if k.startswith("p")]
    out.table(
        title, ["sample", "kind", "n", *keys], [[r["sample"], r["kind"], r["n"], *(r[k] for k in keys)] for r in rows]
    )
    return rows


def floor_table(
    out: Output, title: str, floors: tuple[float, ...], dists: list[Distribution], keep_strictly_above: bool
) -> list[dict[str, Any]]:
    """One row per sample, one column per floor: relevant samples show the share cut, off-topic ones the share kept."""
    rows = []
    for d in dists:
        relevant = d.kind.startswith("relevant")
        shares = [cut_share(d.values, f, keep_strictly_above) for f in floors]
        rows.append(
            {
                "sample": d.name,
                "kind": d.kind,
                "measure": "cut" if relevant else "kept",
                "by_floor": {f"{f:g}": (c if relevant else 1 - c) for f, c in zip(floors, shares, strict=True)},
            }
        )
    rule = "score > floor is kept" if keep_strictly_above else "cosine >= floor is kept"
    out.table(
        title,
        ["sample", "kind", "shows", *(f"{f:g}" for f in floors)],
        [[r["sample"], r["kind"], r["measure"], *(f"{v:.1%}" for v in r["by_floor"].values())] for r in rows],
        caption=f"{rule}; cut = relevant pairs the floor removes (recall cost); "
        "kept = queries whose best score still passes (off-topic: leak; in-domain: queries that keep a hit).",
    )
    return rows


def cut_share(values: list[float], floor: float, strictly_above: bool) -> float:
    """Share of values the floor removes: ``<= floor`` for BM25 (score > floor kept), ``< floor`` for cosine."""
    if not values:
        return float("nan")
    if strictly_above:
        return sum(1 for v in values if v <= floor) / len(values)
    return share_below(values, floor)


# --------------------------------------------------------------------------- main


def main() -> None:
    parser = base_parser(__doc__)
    parser.add_argument("--index", type=Path, default=DEFAULT_INDEX, help=f"index folder (default {DEFAULT_INDEX})")
    parser.add_argument("--queries", type=int, default=300, help="SciFact test queries (all 300 by default)")
    parser.add_argument("--abstracts", type=int, default=400, help="random SciFact abstracts to embed (~15/s)")
    parser.add_argument("--squad", type=int, default=1000, help="SQuAD answerable questions")
    parser.add_argument("--paragraphs", type=int, default=400, help="random SQuAD paragraphs to embed")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip", choices=("dense", "bm25"), action="append", default=[])
    args = parser.parse_args()

    out = Output(args.json)
    scifact = load_beir(args.data / "scifact", "test")
    squad = load_squad(args.data / "squad2-dev")
    ensure_indexes(args, out, scifact, squad)
    if "dense" not in args.skip:
        from ragcli.embedder import Embedder

        embedder = Embedder()
        dense = scifact_dense(embedder, scifact, args.queries, args.abstracts, args.seed)
        dense += squad_dense(embedder, squad, args.squad, args.paragraphs, args.seed)
        dense += dense_index_top1(args, embedder, scifact, squad)
        out.put(
            "dense_percentiles", percentile_table(out, "Dense: cosine of query/passage pairs (bundled MiniLM)", dense)
        )
        relevant = [d for d in dense if d.kind == "relevant pairs"]
        leak = [d for d in dense if d.kind.startswith(("unrelated, best", "off-topic", "in-domain"))]
        out.put(
            "dense_floors",
            floor_table(out, "Dense floor candidates", DENSE_FLOORS, relevant + leak, keep_strictly_above=False),
        )
    if "bm25" not in args.skip:
        bm25 = bm25_distributions(args, scifact, squad)
        out.put("bm25_percentiles", percentile_table(out, "BM25 (ragcli/tantivy) scores, no floor", bm25))
        relevant = [d for d in bm25 if d.kind == "relevant doc"]
        off = [d for d in bm25 if d.kind.startswith(("off-topic", "in-domain"))]
        out.put(
            "bm25_floors",
            floor_table(out, "BM25 floor candidates", BM25_FLOORS, relevant + off, keep_strictly_above=True),
        )
    out.put("settings", vars(args) | {"data": str(args.data), "index": str(args.index)})
    out.finish()


if __name__ == "__main__":
    main()
