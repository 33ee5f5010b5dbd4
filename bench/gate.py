"""The topic gate and its rare-word rule: what keyword queries keep, what off-topic queries lose.

For each share in ``--shares`` (the ``RARE_SHARE`` of ragcli/search/gate.py: a term in at
most this share of the visible passages is rare) and for the gate off, in hybrid mode on
the ``uv-docs`` tenant:

* keyword queries (single words, flags, identifiers a user types; ``--keywords``): the
  share that return results, and the share whose top 5 holds a passage containing the
  keyword itself (literal, case-insensitive);
* off-topic queries: SciFact test claims (long, scientific) and a few short off-topic
  phrases, searched against the uv docs: the share that return any result (noise that
  would reach the answerer as evidence).

Second table: the "word matches must earn their place" rule (``--bm25-only-min-terms``: a BM25
hit the dense ranker did not keep must share this many of a longer query's terms; 1 = off). For each value,
on labelled question files (the uv set, the sample corpus, a SQuAD sample): recall@5 and
recall@10 of answerable cases, and the noise that reaches the answerer: results matching
no relevant label per answerable case, and results per should-abstain case.

Run:
    python bench/gate.py --index /tmp/bench-index --sample-index /tmp/ragcli-bench-sample-index \
        --squad-questions bench/out/squad500/questions.jsonl
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import REPO_ROOT, Output, base_parser, bench_principal, ensure_index, read_jsonl

KEYWORDS = [
    "frozen",
    "hatchling",
    "--system",
    "PEP 723",
    "--frozen",
    "uv_build",
    "keyring",
    "dependency-groups",
    "UV_INDEX_URL",
    "pylock.toml",
    "--no-dev",
    "--universal",
    "ipykernel",
    "setup-uv",
    "pre-commit",
    "sys_platform",
    "module-root",
    "--with-editable",
    "tomllib",
    "musl",
    "zstd",
    "PyTorch",
    "--exclude-newer",
    "lowest-direct",
    "constraint-dependencies",
    "JFrog",
    "CodeArtifact",
    "dependabot",
    "marimo",
    "Jupyter",
]
SHORT_OFF_TOPIC = [
    "sourdough starter",
    "capital gains tax",
    "world cup final",
    "chocolate cake recipe",
    "knee surgery recovery",
    "medieval castles",
    "tax return deadline",
    "guitar chords",
    "marathon training plan",
    "wedding speech",
]


def run(retriever: Any, scope: Any, queries: list[str], config: Any) -> list[list[str]]:
    """The top-5 passage texts of each query."""
    return [[r.passage.text for r in retriever.search(scope, q, config=config).results[:5]] for q in queries]


def earn_their_place(retriever: Any, cases: list[Any], min_terms: int) -> dict[str, Any]:
    """Recall and noise of one question set with ``bm25_only_min_terms`` = ``min_terms``."""
    from ragcli.eval.metrics import label_matches
    from ragcli.search import SearchConfig

    config = SearchConfig(bm25_only_min_terms=min_terms)
    recall5, recall10, noise_answer, noise_abstain = [], [], [], []
    for case in cases:
        ids = retriever.search(case.scope, case.question, config=config).ids
        if case.expect == "answer" and case.relevant:

            def hit(n: int, relevant: tuple[str, ...] = case.relevant, ids: list[str] = ids) -> bool:
                return any(label_matches(label, pid) for label in relevant for pid in ids[:n])

            recall5.append(hit(5))
            recall10.append(hit(10))
            noise_answer.append(sum(1 for pid in ids if not any(label_matches(label, pid) for label in case.relevant)))
        elif case.expect == "abstain":
            noise_abstain.append(len(ids))
    mean = lambda xs: round(sum(xs) / len(xs), 3) if xs else None  # noqa: E731
    return {
        "any relevant@5": mean(recall5),
        "any relevant@10": mean(recall10),
        "noise / answerable": mean(noise_answer),
        "results / abstain case": mean(noise_abstain),
    }


def main() -> None:
    parser = base_parser(__doc__)
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--shares", default="0,0.01,0.02,0.03,0.05,0.1", help="RARE_SHARE values to try")
    parser.add_argument("--claims", type=int, default=300, help="SciFact test claims used as off-topic queries")
    parser.add_argument("--sample-index", type=Path, help="index of sample_corpus (acme, globex) for the second table")
    parser.add_argument(
        "--squad-questions", type=Path, help="a SQuAD question file from beir_convert.py for the second table"
    )
    parser.add_argument("--bm25-only-min-terms", default="1,2,3")
    parser.add_argument("--skip-gate", action="store_true", help="only the second table")
    args = parser.parse_args()
    out = Output(args.json)

    from ragcli.embedder import Embedder
    from ragcli.principal import Scope, parse_principal
    from ragcli.search import Retriever, SearchConfig, gate

    ensure_index(args.data / "uv-docs" / "docs", "uv-docs", args.index, out)
    retriever = Retriever(args.index, embedder=Embedder())
    scope = Scope.of(parse_principal(bench_principal("uv-docs")))
    claims = [q["text"] for q in read_jsonl(args.data / "scifact" / "queries.jsonl")][: args.claims]
    default_share = gate.RARE_SHARE
    rows = []
    variants: list[tuple[str, float | None]] = [("gate off", None)] + [
        (f"RARE_SHARE={s}", float(s)) for s in args.shares.split(",")
    ]
    for name, share in variants if not args.skip_gate else []:
        config = SearchConfig(topic_gate=share is not None)
        if share is not None:
            gate.RARE_SHARE = share
        keyword = run(retriever, scope, KEYWORDS, config)
        found = [any(k.lower() in t.lower() for t in texts) for k, texts in zip(KEYWORDS, keyword, strict=True)]
        scifact = run(retriever, scope, claims, config)
        short = run(retriever, scope, SHORT_OFF_TOPIC, config)
        rows.append(
            {
                "variant": name,
                "keyword: results": f"{sum(1 for t in keyword if t)}/{len(KEYWORDS)}",
                "keyword: in top 5": f"{sum(found)}/{len(KEYWORDS)}",
                "SciFact claims with results": f"{sum(1 for t in scifact if t) / len(claims):.1%}",
                "short off-topic with results": f"{sum(1 for t in short if t)}/{len(SHORT_OFF_TOPIC)}",
            }
        )
    if rows:
        columns = list(rows[0])
        out.table("topic gate on uv-docs (hybrid)", columns, [[r[c] for c in columns] for r in rows])
        out.put("rows", rows)
    gate.RARE_SHARE = default_share

    from ragcli.eval import load_cases

    sets = [("uv-docs", retriever, load_cases(REPO_ROOT / "bench" / "questions" / "uv-docs.jsonl"))]
    if args.sample_index:
        sets.append(
            (
                "sample",
                Retriever(args.sample_index, embedder=retriever.embedder),
                load_cases(REPO_ROOT / "sample_corpus" / "questions.jsonl"),
            )
        )
    if args.squad_questions:
        # beir_convert writes its bench principal inline: this script vouches for it.
        sets.append(("squad", retriever, load_cases(args.squad_questions, allow_inline_principals=True)))
    earned = []
    for name, set_retriever, cases in sets:
        for min_terms in (int(n) for n in args.bm25_only_min_terms.split(",")):
            earned.append(
                {"set": name, "bm25_only_min_terms": min_terms, **earn_their_place(set_retriever, cases, min_terms)}
            )
    columns = list(earned[0])
    out.table(
        "word matches that must earn their place (hybrid, k=10)", columns, [[r[c] for c in columns] for r in earned]
    )
    out.put("earned", earned)
    out.finish()


if __name__ == "__main__":
    main()
