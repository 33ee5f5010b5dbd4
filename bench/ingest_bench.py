"""Ingest throughput, time outside the model, peak memory, and length-sorted batching.

Part 1 ingests two corpora into temporary indexes with ``--acl everyone``, each in
its own fresh (spawned) process so peak RSS is that corpus's own:

  * SciFact ``corpus.jsonl`` — by default only its first 1,000 abstracts
    (``--limit 1000``; a full ingest of 5,183 takes several minutes at about
    12-17 abstracts/s on a 2-core machine; ``--limit 0`` ingests it all)
  * the uv ``docs/`` Markdown folder (81 files)

and prints documents, passages, seconds, passages/s, model tokens/s (word
pieces of each passage's ``index_text`` counted with ``Embedder.count_tokens``,
special tokens excluded), the share of ingest time spent outside the model
(the instance's ``embed_with_spans``, which ingest calls for passages and their
units, and ``embed`` are wrapped in one stopwatch, a call inside another counted
once, and the instance is passed in with ``ingest(..., embedder=...)``; a run in
which neither is called is an error, not 100% outside the model; model loading
happens before the ingest and is shown on its own), and peak RSS
(``resource.getrusage``).

Part 2 embeds the same texts (all-or-a-sample of the uv-docs passages, which vary
in length, plus a SciFact passage sample) with ``sort_by_length=True`` and
``False`` in alternating rounds of the same run and prints texts/s for both and
their ratio, beside the noise-free padded-token ratio (tokens the model computes
including padding, per mode).

With ``--ray`` it runs one comparison instead (``pip install 'ragcli[ray]'``): the
same SciFact slice (default its first 2,000 abstracts) ingested locally and with the
embedding on a local Ray instance with this machine's CPUs (``ingest(...,
embedding=RayEmbedding())``, what ``ragcli ingest --ray`` does), each in a fresh
spawned process, in the same run; it prints passages/s for both and the ratio of
Ray's wall time to the local one (target <= 1.25), with and without Ray's start-up
(``ray.init`` plus one model load per actor, timed on its own before the ingest).

Run (quick, then the default):
    python bench/ingest_bench.py --limit 200 --sample-texts 150
    python bench/ingest_bench.py            # SciFact first 1,000 abstracts
    python bench/ingest_bench.py --limit 0  # full SciFact
    python bench/ingest_bench.py --ray      # local vs --ray, SciFact first 2,000
Add ``--json`` for machine-readable results on stdout.
"""

from __future__ import annotations

import multiprocessing as mp
import random
import resource
import sys
import tempfile
import time
from itertools import islice
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Output, Stopwatch, base_parser, bench_principal, peak_rss_mb

TENANT = "bench"
DEFAULT_LIMIT = 1000
RAY_LIMIT = 2000
CPU_TARGET = 1.05
"""Issue 36: ingest CPU at most 1.05x the bare embedding of the same passages."""
RAY_TARGET = 1.25
"""Issue 13: an ingest with --ray on this machine takes at most 1.25x the local wall time."""


# --------------------------------------------------------------------------- corpora


def scifact_source(data: Path, limit: int, tmp: Path) -> tuple[Path, str]:
    """The SciFact corpus path to ingest: the file itself, or its first ``limit`` lines in a temp jsonl."""
    corpus = data / "scifact" / "corpus.jsonl"
    if limit <= 0:
        return corpus, "SciFact (full)"
    capped = tmp / "scifact-head.jsonl"
    with corpus.open(encoding="utf-8") as src, capped.open("w", encoding="utf-8") as dst:
        dst.writelines(islice((line for line in src if line.strip()), limit))
    return capped, f"SciFact (first {limit:,})"


# --------------------------------------------------------------------------- part 1: one ingest in its own process


def ingest_in_child(corpus: str, index_dir: str) -> dict[str, Any]:
    """Runs in a spawned process: load the model, ingest with a timed embedder, count tokens."""
    from ragcli import ingest
    from ragcli.embedder import Embedder

    rss_start = peak_rss_mb()
    embedder = Embedder()
    load_started = time.perf_counter()
    _ = embedder.dim  # opens the ONNX session (and checks the model hash) before the clock starts
    load_seconds = time.perf_counter() - load_started
    rss_model = peak_rss_mb()
    watch = timed_model(embedder)
    cpu_started = process_cpu()
    report = ingest(corpus, TENANT, index=index_dir, default_acl=["everyone"], embedder=embedder)
    ingest_cpu = process_cpu() - cpu_started
    if report.embedded and watch.calls == 0:
        raise SystemExit("the ingest embedded passages without calling embed or embed_with_spans: time the new call")
    tokens = count_index_tokens(embedder, Path(index_dir))
    bare = bare_embedding(embedder, [p.index_text for p in published_passages(Path(index_dir))])
    return {
        "ingest_cpu_seconds": ingest_cpu,
        "model_cpu_seconds": watch.cpu,
        "bare_cpu_seconds": bare["cpu"],
        "bare_seconds": bare["wall"],
        "documents": report.documents.added + report.documents.updated + report.documents.unchanged,
        "rejected": len(report.documents.rejected),
        "passages": report.passages,
        "embedded": report.embedded,
        "seconds": report.seconds,
        "embed_seconds": watch.seconds,
        "embed_calls": watch.calls,
        "model_load_seconds": load_seconds,
        "tokens": tokens,
        "peak_rss_mb": peak_rss_mb(),
        "rss_after_imports_mb": rss_start,
        "rss_after_model_mb": rss_model,
    }


def process_cpu() -> float:
    """CPU seconds of this process (every thread: the model's too) and of its finished children (parse workers)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def bare_embedding(embedder: Any, texts: list[str]) -> dict[str, float]:
    """The floor of an ingest: the same passages through the bare ONNX session, nothing else. Token ids as the
    model sees them ([CLS] text [SEP], cut at its limit), sorted by length, batches of ``DEFAULT_BATCH`` padded to
    their longest, mean-pooled and normalised: what ``embed_with_spans`` runs, without units, chunking or
    parsing. Returns its CPU and wall seconds (tokenizing included)."""
    import numpy as np

    from ragcli.embedder import DEFAULT_BATCH

    session = embedder._session
    names = {i.name for i in session.get_inputs()}
    cpu, wall = process_cpu(), time.perf_counter()
    ids = embedder._encode(texts)
    order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
    for start in range(0, len(order), DEFAULT_BATCH):
        batch = [ids[i] for i in order[start : start + DEFAULT_BATCH]]
        width = max(len(row) for row in batch)
        input_ids = np.zeros((len(batch), width), dtype=np.int64)
        mask = np.zeros_like(input_ids)
        for r, row in enumerate(batch):
            input_ids[r, : len(row)] = row
            mask[r, : len(row)] = 1
        feed = {"input_ids": input_ids, "attention_mask": mask}
        if "token_type_ids" in names:
            feed["token_type_ids"] = np.zeros_like(input_ids)
        hidden = session.run(None, feed)[0]
        pooled = (hidden * mask[:, :, None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
        pooled /= np.linalg.norm(pooled, axis=1, keepdims=True)
    return {"cpu": process_cpu() - cpu, "wall": time.perf_counter() - wall}


MODEL_METHODS = ("embed_with_spans", "embed")
"""The Embedder methods that run the model for an ingest (``units.embed_passages`` calls the first)."""


class ModelWatch(Stopwatch):
    """Wall time over the model calls, and their CPU time (every thread's)."""

    def __init__(self) -> None:
        super().__init__()
        self.cpu = 0.0


def timed_model(embedder: Any) -> ModelWatch:
    """Wrap the instance's ``MODEL_METHODS`` in one stopwatch; a call made inside another is not counted twice."""
    watch = ModelWatch()
    depth = [0]

    def wrap(original: Any) -> Any:
        def timed(*args: Any, **kwargs: Any) -> Any:
            if depth[0]:
                return original(*args, **kwargs)
            depth[0] += 1
            cpu = process_cpu()
            try:
                with watch:
                    return original(*args, **kwargs)
            finally:
                depth[0] -= 1
                watch.cpu += process_cpu() - cpu  # the model's CPU (all its threads), beside its wall time

        return timed

    for name in MODEL_METHODS:
        setattr(embedder, name, wrap(getattr(embedder, name)))
    return watch


def count_index_tokens(embedder: Any, index_dir: Path) -> int:
    texts = [p.index_text for p in published_passages(index_dir)]
    return sum(sum(embedder.count_tokens(texts[i : i + 256])) for i in range(0, len(texts), 256))


def published_passages(index_dir: Path) -> list[Any]:
    """Every passage, as the bench user (group everyone, which every bench document carries) sees them."""
    from ragcli.index import TenantIndex
    from ragcli.principal import Scope, parse_principal

    with TenantIndex.open(index_dir, TENANT) as index:
        view = index.view(Scope.of(parse_principal(bench_principal(TENANT))))
        return view.passages([int(r) for r in view.allowed_rows])


def measure_ingest(name: str, corpus: Path, index_dir: Path) -> dict[str, Any]:
    ctx = mp.get_context("spawn")
    with ctx.Pool(1) as pool:
        row = pool.apply(ingest_in_child, (str(corpus), str(index_dir)))
    row["corpus"] = name
    row["passages_per_s"] = row["passages"] / row["seconds"]
    row["documents_per_s"] = row["documents"] / row["seconds"]
    row["tokens_per_s"] = row["tokens"] / row["seconds"]
    row["outside_model_share"] = 1 - row["embed_seconds"] / row["seconds"]
    row["cpu_ratio"] = row["ingest_cpu_seconds"] / row["bare_cpu_seconds"]
    return row


def ingest_table(out: Output, rows: list[dict[str, Any]]) -> None:
    out.table(
        "Ingest throughput (each corpus in a fresh process)",
        [
            "corpus",
            "docs",
            "passages",
            "seconds",
            "docs/s",
            "passages/s",
            "tokens/s",
            "embed s",
            "outside model",
            "model load s",
            "ingest CPU s",
            "model CPU s",
            "bare CPU s",
            "CPU ratio",
            "RSS model MiB",
            "peak RSS MiB",
        ],
        [
            [
                r["corpus"],
                r["documents"],
                r["passages"],
                r["seconds"],
                r["documents_per_s"],
                r["passages_per_s"],
                r["tokens_per_s"],
                r["embed_seconds"],
                f"{r['outside_model_share']:.1%}",
                r["model_load_seconds"],
                r["ingest_cpu_seconds"],
                r["model_cpu_seconds"],
                r["bare_cpu_seconds"],
                f"{r['cpu_ratio']:.3f}",
                r["rss_after_model_mb"],
                r["peak_rss_mb"],
            ]
            for r in rows
        ],
        caption="tokens = word pieces of each passage's index_text (no [CLS]/[SEP]); "
        "outside model = 1 - model time (embed_with_spans + embed, where ingest calls them) / ingest time; "
        "model load (hash check + ONNX session) is before the ingest clock; "
        "ingest CPU = this process and its parse workers during the ingest (model CPU: inside embed_with_spans, "
        "its span pooling included); bare CPU = the same passages' "
        "index_text through the bare ONNX session (sorted batches, mean pooling), same process; "
        f"target ratio <= {CPU_TARGET}; "
        "RSS model = peak RSS once the model is loaded, before ingesting.",
    )


# --------------------------------------------------------------------------- part 2: sorted vs unsorted batching


def text_sample(uv_index: Path, sf_index: Path, n: int, seed: int) -> dict[str, list[str]]:
    """Up to ``n`` passages: 60% uv-docs, 40% SciFact, seeded; plus the mixed, shuffled union."""
    rng = random.Random(seed)
    uv = [p.index_text for p in published_passages(uv_index)]
    sf = [p.index_text for p in published_passages(sf_index)]
    uv = rng.sample(uv, min(len(uv), round(n * 0.6)))
    sf = rng.sample(sf, min(len(sf), n - len(uv)))
    mixed = uv + sf
    rng.shuffle(mixed)
    return {"uv-docs": uv, "scifact": sf, "mixed": mixed}


def padded_tokens(lengths: list[int], batch_size: int, sort: bool) -> int:
    """Tokens the model computes, padding included, when batching in input or length order."""
    order = sorted(lengths) if sort else lengths
    return sum(len(b) * max(b) for b in (order[i : i + batch_size] for i in range(0, len(order), batch_size)))


def model_lengths(embedder: Any, texts: list[str]) -> list[int]:
    """Sequence length the model sees: tokens + 2 special ones, capped at the model's maximum."""
    cap = embedder.spec.max_tokens
    return [min(n + 2, cap) for n in embedder.count_tokens(texts)]


def measure_batching(embedder: Any, texts: list[str], batch_size: int, rounds: int) -> dict[str, Any]:
    """Alternate the two orders (AB, BA, ...) so drift on a noisy machine hits both."""
    seconds = {True: 0.0, False: 0.0}
    embedder.embed(texts[:batch_size], batch_size=batch_size)  # warm-up
    for r in range(rounds):
        for sort in (True, False) if r % 2 == 0 else (False, True):
            started = time.perf_counter()
            embedder.embed(texts, batch_size=batch_size, sort_by_length=sort)
            seconds[sort] += time.perf_counter() - started
    n = len(texts) * rounds
    return {
        "texts": len(texts),
        "rounds": rounds,
        "sorted_texts_per_s": n / seconds[True],
        "unsorted_texts_per_s": n / seconds[False],
        "speedup": seconds[False] / seconds[True],
    }


def batching_rows(embedder: Any, samples: dict[str, list[str]], batch_size: int, rounds: int) -> list[dict[str, Any]]:
    rows = []
    for name, texts in samples.items():
        lengths = model_lengths(embedder, texts)
        row = {
            "sample": name,
            "texts": len(texts),
            "mean_tokens": sum(lengths) / len(lengths),
            "padded_ratio": padded_tokens(lengths, batch_size, False) / padded_tokens(lengths, batch_size, True),
        }
        if name == "mixed":
            row.update(measure_batching(embedder, texts, batch_size, rounds))
        rows.append(row)
    return rows


def batching_table(out: Output, rows: list[dict[str, Any]], batch_size: int) -> None:
    out.table(
        f"Embedder batching: length-sorted vs input order (batch size {batch_size}, same texts, same run)",
        [
            "sample",
            "texts",
            "mean tokens",
            "sorted texts/s",
            "unsorted texts/s",
            "measured speedup",
            "padded-token ratio",
        ],
        [
            [
                r["sample"],
                r["texts"],
                r["mean_tokens"],
                r.get("sorted_texts_per_s"),
                r.get("unsorted_texts_per_s"),
                r.get("speedup"),
                r["padded_ratio"],
            ]
            for r in rows
        ],
        caption="speedup = unsorted time / sorted time (timed on the mixed sample only); padded-token ratio = "
        "tokens computed incl. padding, unsorted / sorted (deterministic, no timing noise).",
    )


# --------------------------------------------------------------------------- --ray: local vs Ray in one run


def ingest_mode_in_child(corpus: str, index_dir: str, mode: str) -> dict[str, Any]:
    """Runs in a spawned process: one ingest, embedding in this
    process (``local``) or on a fresh local Ray instance (``ray``)."""
    from ragcli import ingest
    from ragcli.embedder import Embedder

    embedder = Embedder()
    started = time.perf_counter()
    _ = embedder.dim  # the driver's model load: paid alike in both modes
    load_seconds = time.perf_counter() - started
    startup = 0.0
    if mode == "ray":
        from ragcli.ingestion.ray_embed import RayEmbedding

        backend = RayEmbedding()
        started = time.perf_counter()
        backend._start_actors(embedder)  # ray.init + one model per actor, timed apart from the ingest
        startup = time.perf_counter() - started
        with backend:
            report = ingest(
                corpus, TENANT, index=index_dir, default_acl=["everyone"], embedder=embedder, embedding=backend
            )
        actors = len(backend.pids)
    else:
        report = ingest(corpus, TENANT, index=index_dir, default_acl=["everyone"], embedder=embedder)
        actors = 0
    return {
        "mode": mode,
        "passages": report.passages,
        "embedded": report.embedded,
        "seconds": report.seconds,
        "startup_seconds": startup,
        "model_load_seconds": load_seconds,
        "actors": actors,
        "peak_rss_mb": peak_rss_mb(),
    }


def ray_comparison(out: Output, data: Path, limit: int, tmp: Path) -> list[dict[str, Any]]:
    import os

    corpus, name = scifact_source(data, limit, tmp)
    ctx = mp.get_context("spawn")
    rows = []
    for mode in ("local", "ray"):
        with ctx.Pool(1) as pool:
            rows.append(pool.apply(ingest_mode_in_child, (str(corpus), str(tmp / f"idx-{mode}"), mode)))
    local = rows[0]
    for r in rows:
        r["corpus"] = name
        r["wall_seconds"] = r["seconds"] + r["startup_seconds"]
        r["passages_per_s"] = r["passages"] / r["seconds"]
        r["wall_passages_per_s"] = r["passages"] / r["wall_seconds"]
        r["ratio_wall"] = r["wall_seconds"] / local["wall_seconds"]
        r["ratio_ingest"] = r["seconds"] / local["seconds"]
        r["met"] = r["ratio_wall"] <= RAY_TARGET
    same = published_vectors(tmp / "idx-local"), published_vectors(tmp / "idx-ray")
    max_diff = float(abs(same[0] - same[1]).max()) if same[0].shape == same[1].shape else float("nan")
    out.table(
        f"Ingest local vs --ray ({name}, {os.cpu_count()} CPUs, each mode in a fresh process, same run)",
        [
            "mode",
            "passages",
            "actors",
            "Ray start s",
            "ingest s",
            "wall s",
            "passages/s (ingest)",
            "passages/s (wall)",
            "wall / local",
            "ingest / local",
            "target",
            "met",
            "peak RSS MiB",
        ],
        [
            [
                r["mode"],
                r["passages"],
                r["actors"],
                r["startup_seconds"],
                r["seconds"],
                r["wall_seconds"],
                r["passages_per_s"],
                r["wall_passages_per_s"],
                r["ratio_wall"],
                r["ratio_ingest"],
                RAY_TARGET,
                r["met"],
                r["peak_rss_mb"],
            ]
            for r in rows
        ],
        caption="wall = Ray start (ray.init with this machine's CPUs + one model load per actor) + ingest; "
        "local pays neither. "
        f"Max |vector difference| between the two indexes: {max_diff:.2e}. "
        "Peak RSS is the driver's (actors are other processes).",
    )
    return rows


def published_vectors(index_dir: Path) -> Any:
    import numpy as np

    generation = index_dir / TENANT / (index_dir / TENANT / "CURRENT").read_text(encoding="utf-8").strip()
    return np.load(generation / "embeddings.npy")


# --------------------------------------------------------------------------- main


def main() -> None:
    parser = base_parser(__doc__)
    parser.add_argument(
        "--limit", type=int, default=DEFAULT_LIMIT, help="SciFact documents to ingest (default 1000; 0 = all 5,183)"
    )
    parser.add_argument(
        "--sample-texts", type=int, default=500, help="texts for the batching comparison (60%% uv-docs, 40%% SciFact)"
    )
    parser.add_argument(
        "--corpora",
        default="scifact,uv",
        help="comma-separated corpora to ingest: scifact, uv, material (bench/corpora/material); "
        "the batching table needs scifact and uv (default scifact,uv)",
    )
    parser.add_argument("--batch-size", type=int, default=None, help="embed batch size (default: ragcli's)")
    parser.add_argument("--rounds", type=int, default=2, help="alternating sorted/unsorted rounds")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--ray",
        action="store_true",
        help="only compare a local ingest with one on a local Ray instance "
        f"(SciFact first {RAY_LIMIT:,} unless --limit)",
    )
    args = parser.parse_args()

    from ragcli.embedder import DEFAULT_BATCH, Embedder

    out = Output(args.json)
    if args.ray:
        limit = args.limit if "--limit" in sys.argv else RAY_LIMIT
        with tempfile.TemporaryDirectory(prefix="ragcli-ingest-bench-") as tmp_name:
            out.put("ray", ray_comparison(out, args.data, limit, Path(tmp_name)))
        out.put("settings", {"scifact_limit": limit})
        out.finish()
        return
    batch_size = args.batch_size or DEFAULT_BATCH
    if args.limit > 0 and "scifact" in args.corpora.split(","):
        out.note(
            f"[yellow]SciFact capped at its first {args.limit:,} abstracts (--limit {args.limit}); "
            "--limit 0 ingests all 5,183 "
            "(several minutes at ~12-17 abstracts/s).[/yellow]"
        )
    with tempfile.TemporaryDirectory(prefix="ragcli-ingest-bench-") as tmp_name:
        tmp = Path(tmp_name)
        sf_corpus, sf_name = scifact_source(args.data, args.limit, tmp)
        chosen = args.corpora.split(",")
        corpora = {
            "scifact": (sf_name, sf_corpus),
            "uv": ("uv-docs (Markdown)", args.data / "uv-docs" / "docs"),
            "material": ("Material docs (Markdown)", Path(__file__).resolve().parent / "corpora" / "material"),
        }
        unknown = [c for c in chosen if c not in corpora]
        if unknown:
            raise SystemExit(f"--corpora: unknown {', '.join(unknown)} (choose from {', '.join(corpora)})")
        rows = [measure_ingest(*corpora[c], tmp / f"idx-{c}") for c in chosen]
        ingest_table(out, rows)
        out.put("ingest", rows)

        if {"scifact", "uv"} <= set(chosen) and args.sample_texts > 0:
            embedder = Embedder()
            samples = text_sample(tmp / "idx-uv", tmp / "idx-scifact", args.sample_texts, args.seed)
            brows = batching_rows(embedder, samples, batch_size, args.rounds)
            batching_table(out, brows, batch_size)
            out.put("batching", {"batch_size": batch_size, "rows": brows})
    out.put(
        "settings",
        {
            "corpora": args.corpora,
            "scifact_limit": args.limit,
            "sample_texts": args.sample_texts,
            "rounds": args.rounds,
            "seed": args.seed,
        },
    )
    out.finish()


if __name__ == "__main__":
    main()
