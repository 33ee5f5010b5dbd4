"""Quality of the int8 quantized scan (``ingest --quantize``): the dense ranker's recall@10 against exact, and
end-to-end metrics with and without it, on the same vectors in the same run.

For each tenant (SciFact in ``--index``, built if missing; the docs sets in ``--docs-index``), its published
generation is copied and the copy gets the int8 codes the writer writes at publish (``write_quantized``;
the manifest's checksums and seal renewed), so both sides hold the very same float32 vectors. Then:

* recall@10 of ``View.dense`` (the int8 scan, its best ``RESCORE_CANDIDATES`` rescored in float32) against
  ``View.dense(exact=True)`` over every query of the set, and how many queries' top 10 differ at all;
* SciFact test (300 queries): nDCG@10, recall@5 and recall@100 of the dense and hybrid rankings
  (``search_quality.ragcli_rankings``) on the original and on the copy;
* each docs set (``bench/questions/NAME.jsonl``): recall@5 and nDCG@5 of ``ragcli eval QUESTIONS -k 5`` (hybrid,
  search only) on the original and on the copy.

Run:
    python bench/quantized_quality.py --index /tmp/bench-index --docs-index /tmp/docs-index
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import REPO_ROOT, Output, base_parser, bench_principal, ensure_index, load_beir, mean
from search_quality import K, ragcli_rankings, scifact_metrics

DOCS_SETS = ("uv-docs", "docsy", "lazygit", "material", "myst", "prettier", "rustup")
QUESTIONS = REPO_ROOT / "bench" / "questions"
CANDIDATES = 100
"""Per ranker, as ``search_quality.py`` ranks SciFact (k = 100 documents)."""


def copy_with_codes(index_dir: Path, tenant: str, target: Path) -> None:
    """Copy the tenant's published generation to ``target`` and give the copy the int8 codes of its vectors."""
    import numpy as np

    from ragcli.index.layout import CURRENT, EMBEDDINGS, MANIFEST
    from ragcli.index.manifest import checksum, read_manifest, seal_of
    from ragcli.index.writer import write_quantized

    source = index_dir / tenant
    name = (source / CURRENT).read_text(encoding="utf-8").strip()
    (target / tenant).mkdir(parents=True)
    shutil.copytree(source / name, target / tenant / name)
    (target / tenant / CURRENT).write_text(name + "\n", encoding="utf-8")
    generation = target / tenant / name
    manifest = read_manifest(generation, tenant)
    new_files = write_quantized(generation, np.load(generation / EMBEDDINGS, mmap_mode="r"))
    manifest.checksums = {**manifest.checksums, **{f: checksum(generation / f) for f in new_files}}
    manifest.seal = seal_of(manifest)
    (generation / MANIFEST).write_text(manifest.model_dump_json(indent=1), encoding="utf-8")


def dense_recall(exact_dir: Path, codes_dir: Path, tenant: str, queries: list[str]) -> dict[str, Any]:
    """recall@10 of the quantized dense ranking against the exact one, and the queries whose top 10 differ."""
    from ragcli.embedder import Embedder
    from ragcli.index import TenantIndex
    from ragcli.principal import Scope, parse_principal

    scope = Scope.of(parse_principal(bench_principal(tenant)))
    embedder = Embedder()
    vectors = embedder.embed(queries)
    with TenantIndex.open(exact_dir, tenant) as exact_ix, TenantIndex.open(codes_dir, tenant) as codes_ix:
        assert exact_ix.quantized is None and codes_ix.quantized is not None
        exact_view, codes_view = exact_ix.view(scope), codes_ix.view(scope)
        recalls = []
        for v in vectors:
            exact = [h.row for h in exact_view.dense(v, 10, exact=True)]
            found = [h.row for h in codes_view.dense(v, 10)]
            recalls.append(len(set(exact) & set(found)) / max(1, len(exact)))
        passages = exact_view.count()
    return {
        "passages": passages,
        "queries": len(queries),
        "recall_at_10": mean(recalls),
        "queries_changed": sum(r < 1.0 for r in recalls),
    }


def run_scifact(args: Any, out: Output, work: Path) -> None:
    data = load_beir(args.data / "scifact", "test")
    ensure_index(data.corpus_path, "scifact", args.index, out)
    codes = work / "scifact-codes"
    copy_with_codes(args.index, "scifact", codes)
    recall = dense_recall(args.index, codes, "scifact", list(data.queries.values()))
    out.put("scifact_dense_recall", recall)
    rows = []
    for label, index_dir in (("exact", args.index), ("int8 + rescoring", codes)):
        systems = ragcli_rankings(index_dir, "scifact", data.queries, K, CANDIDATES)
        for system in ("dense", "hybrid"):
            metrics = scifact_metrics(systems[f"ragcli {system}"]["runs"], data.qrels)
            rows.append({"scan": label, "system": system, **metrics})
    out.put("scifact", rows)
    out.table(
        f"SciFact test ({len(data.queries)} queries): the int8 scan against exact, same vectors, same run",
        ["scan", "system", "nDCG@10", "recall@5", "recall@100"],
        [[r["scan"], r["system"], r["ndcg@10"], r["recall@5"], r["recall@100"]] for r in rows],
        caption=f"dense ranker alone: recall@10 of the int8 scan against exact {recall['recall_at_10']:.4f} "
        f"over {recall['queries']} queries ({recall['queries_changed']} with any change in the top 10).",
    )


def eval_metrics(index_dir: Path, name: str) -> dict[str, Any]:
    questions = QUESTIONS / f"{name}.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "ragcli.cli", "eval", str(questions), "-k", "5", "--index", str(index_dir), "--json"],
        capture_output=True,
        text=True,
        cwd=QUESTIONS,
    )
    if done.returncode not in (0, 1):
        raise SystemExit(f"ragcli eval {questions} failed ({done.returncode}): {done.stderr}")
    report = json.loads(done.stdout)
    return {"recall@5": report["retrieval"]["recall@5"], "ndcg@5": report["retrieval"]["ndcg@5"]}


def tenant_of(name: str) -> str:
    """The tenant a question file's users name."""
    first = json.loads((QUESTIONS / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()[0])
    user = json.loads((QUESTIONS / first["as"]).read_text(encoding="utf-8"))
    return str(user["tenant"])


def run_docs(args: Any, out: Output, work: Path) -> None:
    rows = []
    for name in DOCS_SETS:
        tenant = tenant_of(name)
        if not (args.docs_index / tenant / "CURRENT").is_file():
            out.note(f"[dim]no tenant '{tenant}' in {args.docs_index}: {name} skipped[/dim]")
            continue
        exact = work / f"{name}-exact"
        shutil.copytree(args.docs_index / tenant, exact / tenant)  # a snapshot: the source may be re-ingested
        codes = work / f"{name}-codes"
        copy_with_codes(exact, tenant, codes)
        questions = [
            json.loads(line)["question"] for line in (QUESTIONS / f"{name}.jsonl").read_text().splitlines() if line
        ]
        recall = dense_recall(exact, codes, tenant, questions)
        before, after = eval_metrics(exact, name), eval_metrics(codes, name)
        rows.append({"set": name, **recall, "exact": before, "int8": after})
    out.put("docs_sets", rows)
    out.table(
        "Docs sets: ragcli eval -k 5 (hybrid) on the same vectors, exact and with the int8 scan",
        ["set", "passages", "questions", "dense recall@10 vs exact", "changed", "recall@5", "nDCG@5"],
        [
            [
                r["set"],
                r["passages"],
                r["queries"],
                r["recall_at_10"],
                r["queries_changed"],
                f"{r['exact']['recall@5']:.4f} -> {r['int8']['recall@5']:.4f}",
                f"{r['exact']['ndcg@5']:.4f} -> {r['int8']['ndcg@5']:.4f}",
            ]
            for r in rows
        ],
    )


def main() -> None:
    parser = base_parser(__doc__)
    parser.add_argument("--index", type=Path, default=Path(tempfile.gettempdir()) / "ragcli-bench-index")
    parser.add_argument("--docs-index", type=Path, help="index folder holding the docs sets' tenants")
    parser.add_argument("--skip", choices=["scifact", "docs"], action="append", default=[])
    args = parser.parse_args()
    out = Output(args.json)
    with tempfile.TemporaryDirectory(prefix="ragcli-int8-") as tmp:
        if "scifact" not in args.skip:
            run_scifact(args, out, Path(tmp))
        if "docs" not in args.skip and args.docs_index is not None:
            run_docs(args, out, Path(tmp))
    out.finish()


if __name__ == "__main__":
    main()
