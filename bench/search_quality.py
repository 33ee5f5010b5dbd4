"""Retrieval quality of ragcli's rankers on SciFact and SQuAD 2.0, beside bm25s and published numbers.

SciFact (BEIR test split: 300 queries, qrels/test.tsv): nDCG@10 and Recall@100 of
BM25-only, dense-only and hybrid (RRF) search through ``ragcli.retriever.Retriever``
with k=100 results and ``--candidates`` (default 100) per ranker. Passages map back to
documents: a document ranks where its first passage does, duplicates dropped.
The floors (BM25 > 0, cosine >= 0.30 by default) cut candidates, so "no floors"
variants (bm25_floor=-1, dense_floor=-1) are shown too. In the same run bm25s
(PyStemmer English stemmer, English stop words, k1=1.2, b=0.75, text = title + " " + text)
scores the same files, and the published numbers from ../shared/data/README.md are
listed as static rows marked "published" (not measured here).

SQuAD 2.0 dev (1,204 paragraphs, its own tenant): Recall@1 and Recall@5 of the source
paragraph for answerable questions, for the same modes and bm25s.

Indexes: ``--index DIR`` (default: $TMPDIR/ragcli-bench-index) holds tenants
``scifact`` and ``squad2-dev``; a tenant that already exists is reused, not re-ingested.
A full SciFact ingest takes ~5-8 minutes on 2 cores, so build it once, e.g. in the background:

    nohup python bench/search_quality.py --index /tmp/bench-index --json > /tmp/quality.json &

Run:
    python bench/search_quality.py --index /tmp/bench-index --queries 50    # quick
    python bench/search_quality.py --index /tmp/bench-index                 # all queries
"""

from __future__ import annotations

import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (
    Bm25sReference,
    Output,
    RetrievalSet,
    base_parser,
    bench_principal,
    doc_ranking,
    ensure_index,
    load_beir,
    load_squad,
    mean,
    ndcg_at_k,
    recall_at_k,
    sample_ids,
)

DEFAULT_INDEX = Path(tempfile.gettempdir()) / "ragcli-bench-index"
SCIFACT_TENANT = "scifact"
SQUAD_TENANT = "squad2-dev"
K = 100

PUBLISHED_SCIFACT = [
    ("BM25 flat (Lucene, Pyserini)", 0.6789, None),
    ("BM25 multifield (= BEIR paper)", 0.6647, None),
    ("all-MiniLM-L6-v2 dense", 0.6451, None),
    ("bge-small-en-v1.5 dense", 0.7127, None),
    ("bge-base-en-v1.5 dense", 0.7408, None),
    ("BM25 + bge-base, RRF", 0.7440, None),
    ("bm25s 0.3.16 (data README)", 0.6791, 0.9127),
]
PUBLISHED_SQUAD = [("bm25s (data README)", 0.800, 0.941)]


@dataclass(frozen=True)
class Variant:
    label: str
    mode: str
    no_floors: bool = False


VARIANTS = (
    Variant("ragcli bm25", "bm25"),
    Variant("ragcli dense", "dense"),
    Variant("ragcli hybrid", "hybrid"),
    Variant("ragcli dense, no floor", "dense", no_floors=True),
    Variant("ragcli hybrid, no floors", "hybrid", no_floors=True),
)


def search_config(variant: Variant, k: int, candidates: int, per_doc: int | None = None) -> Any:
    from ragcli.search import SearchConfig
    from ragcli.search.config import PER_DOC

    limit = PER_DOC if per_doc is None else per_doc
    if variant.no_floors:
        return SearchConfig(
            mode=variant.mode,  # type: ignore[arg-type]
            k=k,
            candidates=candidates,
            bm25_floor=-1.0,
            dense_floor=-1.0,
            per_doc=limit,
        )
    return SearchConfig(mode=variant.mode, k=k, candidates=candidates, per_doc=limit)  # type: ignore[arg-type]


def ragcli_rankings(
    index_dir: Path, tenant: str, queries: dict[str, str], k: int, candidates: int, per_doc: int | None = None
) -> dict[str, dict[str, Any]]:
    """Per variant: {qid: ranked doc ids}, plus seconds and how many queries came back empty."""
    from ragcli.principal import Scope, parse_principal
    from ragcli.search import Retriever

    scope = Scope.of(parse_principal(bench_principal(tenant)))
    retriever = Retriever(index_dir)
    configs = {v.label: search_config(v, k, candidates, per_doc) for v in VARIANTS}
    out: dict[str, dict[str, Any]] = {v.label: {"runs": {}, "seconds": 0.0, "empty": 0} for v in VARIANTS}
    try:
        for qid, text in queries.items():  # variants inside, so the query-vector cache serves dense and hybrid
            for label, cfg in configs.items():
                started = time.perf_counter()
                response = retriever.search(scope, text, config=cfg)
                out[label]["seconds"] += time.perf_counter() - started
                out[label]["runs"][qid] = doc_ranking(r.passage.doc_id for r in response.results)
                out[label]["empty"] += not response.results
    finally:
        retriever.close()
    return out


def bm25s_rankings(dataset: RetrievalSet, queries: dict[str, str], k: int) -> dict[str, Any]:
    started = time.perf_counter()
    ref = Bm25sReference(dataset.corpus)
    index_seconds = time.perf_counter() - started
    started = time.perf_counter()
    hits = ref.search(list(queries.values()), k)
    runs = {qid: [d for d, _ in row] for qid, row in zip(queries, hits, strict=True)}
    return {"runs": runs, "seconds": time.perf_counter() - started, "index_seconds": index_seconds, "empty": 0}


def scifact_metrics(runs: dict[str, list[str]], qrels: dict[str, dict[str, int]]) -> dict[str, float]:
    return {
        "ndcg@10": mean(ndcg_at_k(runs[q], qrels[q], 10) for q in runs),
        "recall@5": mean(recall_at_k(runs[q], qrels[q], 5) for q in runs),
        "recall@100": mean(recall_at_k(runs[q], qrels[q], 100) for q in runs),
    }


def squad_metrics(runs: dict[str, list[str]], qrels: dict[str, dict[str, int]]) -> dict[str, float]:
    return {
        "recall@1": mean(recall_at_k(runs[q], qrels[q], 1) for q in runs),
        "recall@5": mean(recall_at_k(runs[q], qrels[q], 5) for q in runs),
    }


def evaluate(
    dataset: RetrievalSet,
    queries: dict[str, str],
    index_dir: Path,
    tenant: str,
    k: int,
    candidates: int,
    metrics: Any,
    per_doc: int | None = None,
) -> list[dict[str, Any]]:
    systems = ragcli_rankings(index_dir, tenant, queries, k, candidates, per_doc)
    systems["bm25s (same run)"] = bm25s_rankings(dataset, queries, k)
    rows = []
    for label, result in systems.items():
        row = {"system": label, "source": "measured", **metrics(result["runs"], dataset.qrels)}
        row["empty_results"] = result["empty"]
        row["ms_per_query"] = 1000 * result["seconds"] / max(1, len(queries))
        rows.append(row)
    return rows


def scifact_table(out: Output, rows: list[dict[str, Any]], n: int, candidates: int, per_doc_label: str) -> None:
    body = [
        [r["system"], r["source"], r["ndcg@10"], r["recall@5"], r["recall@100"], r["empty_results"], r["ms_per_query"]]
        for r in rows
    ]
    body += [[name, "published", ndcg, None, r100, None, None] for name, ndcg, r100 in PUBLISHED_SCIFACT]
    out.table(
        f"SciFact test: {n} queries, k={K}, candidates={candidates} per ranker, per-doc limit {per_doc_label}",
        ["system", "source", "nDCG@10", "Recall@5", "Recall@100", "empty", "ms/query"],
        body,
        caption="documents ranked by their first passage; "
        "'published' rows are copied from ../shared/data/README.md, not measured; "
        "ms/query: ragcli rows share one warm Retriever "
        "(the query-vector cache serves the later dense/hybrid variants).",
    )


def squad_table(out: Output, rows: list[dict[str, Any]], n: int) -> None:
    body = [
        [r["system"], r["source"], r["recall@1"], r["recall@5"], r["empty_results"], r["ms_per_query"]] for r in rows
    ]
    body += [[name, "published", r1, r5, None, None] for name, r1, r5 in PUBLISHED_SQUAD]
    out.table(
        f"SQuAD 2.0 dev: {n} answerable questions, source paragraph found",
        ["system", "source", "Recall@1", "Recall@5", "empty", "ms/query"],
        body,
    )


def per_doc_label(per_doc: int | None) -> str:
    from ragcli.search.config import PER_DOC

    limit = PER_DOC if per_doc is None else per_doc
    return f"{limit} (default)" if per_doc is None else ("none" if limit == 0 else str(limit))


def pick(queries: dict[str, str], n: int, seed: int) -> dict[str, str]:
    return {q: queries[q] for q in sample_ids(list(queries), n, seed)}


def run_scifact(args: Any, out: Output, candidates: int) -> None:
    data = load_beir(args.data / "scifact", "test")
    report = ensure_index(data.corpus_path, SCIFACT_TENANT, args.index, out)
    queries = pick(data.queries, args.queries, args.seed)
    rows = evaluate(data, queries, args.index, SCIFACT_TENANT, K, candidates, scifact_metrics, args.per_doc)
    scifact_table(out, rows, len(queries), candidates, per_doc_label(args.per_doc))
    out.put(
        "scifact",
        {
            "queries": len(queries),
            "k": K,
            "candidates": candidates,
            "ingest": report,
            "rows": rows,
            "published": [dict(zip(("system", "ndcg@10", "recall@100"), p, strict=True)) for p in PUBLISHED_SCIFACT],
        },
    )


def run_squad(args: Any, out: Output, candidates: int) -> None:
    data = load_squad(args.data / "squad2-dev")
    report = ensure_index(data.corpus_path, SQUAD_TENANT, args.index, out)
    answerable = {q: t for q, t in data.queries.items() if q in data.qrels}
    queries = pick(answerable, args.squad_queries if args.squad_queries is not None else args.queries, args.seed)
    rows = evaluate(data, queries, args.index, SQUAD_TENANT, 10, candidates, squad_metrics, args.per_doc)
    squad_table(out, rows, len(queries))
    out.put(
        "squad2",
        {
            "queries": len(queries),
            "k": 10,
            "candidates": candidates,
            "ingest": report,
            "rows": rows,
            "published": [dict(zip(("system", "recall@1", "recall@5"), p, strict=True)) for p in PUBLISHED_SQUAD],
        },
    )


def main() -> None:
    parser = base_parser(__doc__)
    parser.add_argument(
        "--index",
        type=Path,
        default=DEFAULT_INDEX,
        help=f"index folder, reused if the tenants exist (default {DEFAULT_INDEX})",
    )
    parser.add_argument(
        "--queries", type=int, default=0, help="subsample N queries (0 = all); also caps SQuAD unless --squad-queries"
    )
    parser.add_argument(
        "--squad-queries", type=int, default=None, help="SQuAD answerable questions to use (0 = all 5,928)"
    )
    parser.add_argument("--candidates", type=int, default=100, help="candidates per ranker (at least 100)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--per-doc",
        type=int,
        default=None,
        help="at most N passages of one document in ragcli's results (0 = no limit; default: ragcli's default)",
    )
    parser.add_argument("--skip", choices=("scifact", "squad"), action="append", default=[], help="skip a dataset")
    args = parser.parse_args()

    out = Output(args.json)
    candidates = max(K, args.candidates)
    if "scifact" not in args.skip:
        run_scifact(args, out, candidates)
    if "squad" not in args.skip:
        run_squad(args, out, candidates)
    out.finish()


if __name__ == "__main__":
    main()
