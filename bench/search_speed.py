"""Search speed on the SciFact index: CLI wall time against an import floor, and warm latency.

Part 1 (cold, one process per call): wall time of
``ragcli search QUERY --as user.json --index DIR --json`` (hybrid, and ``--mode bm25``),
``ragcli --help``, the floor ``python -c "import onnxruntime, tantivy, numpy"`` and bare
``python -c pass``, interleaved round by round (``--repeat``, default 10) so machine
noise hits all of them alike. Prints medians and each one's ratio to the import floor:
on a shared 2-core machine the ratio is the number to compare across runs.
The ragcli console script beside the running interpreter is used (a pyenv shim would
add its own startup); ``--cli`` overrides it.

Part 2 (warm, in-process): p50/p95 of ``Retriever.search`` per query for BM25-only,
dense-only and hybrid over ``--queries`` (default 100) SciFact test queries, with the
CLI's defaults (k=10, candidates=50). Each mode gets its own Retriever (sharing one loaded
Embedder) warmed on other queries, so no mode reuses another's cached query vector;
the median per-stage timings the retriever reports (bm25, embed, dense) are shown too.

Needs the ``scifact`` tenant in ``--index`` (built if missing, which takes ~5-8 minutes;
see search_quality.py).

Run:
    python bench/search_speed.py --index /tmp/bench-index --repeat 3 --queries 20   # quick
    python bench/search_speed.py --index /tmp/bench-index
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Output, base_parser, bench_principal, ensure_index, load_beir, percentiles, read_jsonl, sample_ids  # noqa: E402

DEFAULT_INDEX = Path(tempfile.gettempdir()) / "ragcli-bench-index"
TENANT = "scifact"
FLOOR_IMPORTS = "import onnxruntime, tantivy, numpy, tokenizers"
TYPER_FLOOR = "import typer"
TARGETS = {"ragcli --help": 1.2, "ragcli search --mode bm25 --json": 1.5, "ragcli search --json (hybrid)": 2.0, "ragcli ask --json (local)": 2.5}
"""Issue 11's cold-start budget: ratio to the floor (``--help``: to the ``import typer`` floor)."""


# --------------------------------------------------------------------------- part 1: subprocess wall time


def ragcli_command(override: str | None) -> list[str]:
    """The console script next to this interpreter, else on PATH, else ``python -m ragcli.cli``."""
    if override:
        return override.split()
    beside = Path(sys.executable).with_name("ragcli")
    if beside.is_file():
        return [str(beside)]
    found = shutil.which("ragcli")
    return [found] if found else [sys.executable, "-m", "ragcli.cli"]


def cold_commands(cli: list[str], query: str, user_file: Path, index_dir: Path) -> dict[str, list[str]]:
    search = [*cli, "search", query, "--as", str(user_file), "--index", str(index_dir), "--json"]
    ask = [*cli, "ask", query, "--as", str(user_file), "--index", str(index_dir), "--json", "--model", "local"]
    return {
        "python -c pass": [sys.executable, "-c", "pass"],
        f'python -c "{TYPER_FLOOR}" (typer floor)': [sys.executable, "-c", TYPER_FLOOR],
        f'python -c "{FLOOR_IMPORTS}" (floor)': [sys.executable, "-c", FLOOR_IMPORTS],
        "ragcli --help": [*cli, "--help"],
        "ragcli search --mode bm25 --json": [*search, "--mode", "bm25"],
        "ragcli search --json (hybrid)": search,
        "ragcli ask --json (local)": ask,
    }


def wall_seconds(cmd: list[str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env={**os.environ, "NO_COLOR": "1"})
    elapsed = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"command failed ({done.returncode}): {' '.join(cmd)}\n{done.stderr.decode(errors='replace')}")
    return elapsed


def measure_cold(commands: dict[str, list[str]], repeat: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {name: [] for name in commands}
    for name, cmd in commands.items():  # one untimed run each: page cache, .pyc files
        wall_seconds(cmd)
    for _ in range(repeat):
        for name, cmd in commands.items():
            times[name].append(wall_seconds(cmd))
    return times


def cold_rows(times: dict[str, list[float]]) -> list[dict[str, Any]]:
    floor = statistics.median(next(t for n, t in times.items() if n.endswith("(floor)")))
    typer_floor = statistics.median(next(t for n, t in times.items() if n.endswith("(typer floor)")))
    rows = []
    for name, t in times.items():
        base = typer_floor if name == "ragcli --help" else floor
        ratio = statistics.median(t) / base
        target = TARGETS.get(name)
        rows.append({"command": name, "runs": len(t), "median_ms": 1000 * statistics.median(t), "min_ms": 1000 * min(t),
                     "max_ms": 1000 * max(t), "ratio": ratio, "ratio_of": "typer floor" if name == "ragcli --help" else "floor",
                     "target": target, "met": None if target is None else ratio <= target})
    return rows


# --------------------------------------------------------------------------- part 2: warm in-process latency


def warm_latency(index_dir: Path, queries: list[str], warmup: list[str]) -> list[dict[str, Any]]:
    from ragcli.embedder import Embedder
    from ragcli.principal import Scope, parse_principal
    from ragcli.search import Retriever, SearchConfig

    scope = Scope.of(parse_principal(bench_principal(TENANT)))
    embedder = Embedder()
    rows = []
    for mode in ("bm25", "dense", "hybrid"):
        retriever = Retriever(index_dir, embedder=embedder, config=SearchConfig(mode=mode))  # type: ignore[arg-type]
        for q in warmup:
            retriever.search(scope, q)
        latencies, stages = [], {}
        for q in queries:
            started = time.perf_counter()
            response = retriever.search(scope, q)
            latencies.append(1000 * (time.perf_counter() - started))
            for stage, ms in response.timings_ms.items():
                stages.setdefault(stage, []).append(ms)
        retriever.close()
        pct = percentiles(latencies, (50, 95))
        rows.append({"mode": mode, "queries": len(queries), "p50_ms": pct["p50"], "p95_ms": pct["p95"], "max_ms": max(latencies),
                     "stage_p50_ms": {s: statistics.median(v) for s, v in stages.items()}})
    return rows


# --------------------------------------------------------------------------- main


def main() -> None:
    parser = base_parser(__doc__)
    parser.add_argument("--index", type=Path, default=DEFAULT_INDEX, help=f"index folder with tenant 'scifact' (default {DEFAULT_INDEX})")
    parser.add_argument("--repeat", type=int, default=10, help="subprocess runs per command (median reported)")
    parser.add_argument("--queries", type=int, default=100, help="queries for warm latency")
    parser.add_argument("--cli", help="command that runs ragcli (default: the console script beside this python)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    out = Output(args.json)
    data = load_beir(args.data / "scifact", "test")
    ensure_index(data.corpus_path, TENANT, args.index, out)
    train = [q["text"] for q in read_jsonl(args.data / "scifact" / "queries.jsonl") if str(q["_id"]) not in data.queries]
    ids = sample_ids(list(data.queries), args.queries, args.seed)
    queries = [data.queries[i] for i in ids]

    with tempfile.TemporaryDirectory(prefix="ragcli-speed-") as tmp:
        user_file = Path(tmp) / "user.json"
        user_file.write_text(json.dumps(bench_principal(TENANT)), encoding="utf-8")
        cli = ragcli_command(args.cli)
        rows = cold_rows(measure_cold(cold_commands(cli, queries[0], user_file, args.index), args.repeat))
    out.table(
        f"Cold CLI wall time ({args.repeat} interleaved runs each; cli = {' '.join(cli)})",
        ["command", "median ms", "min ms", "max ms", "ratio", "of", "target", "met"],
        [[r["command"], r["median_ms"], r["min_ms"], r["max_ms"], r["ratio"], r["ratio_of"], r["target"] or "-", {None: "-", True: "yes", False: "NO"}[r["met"]]] for r in rows],
        caption=f'ratio = median / median of the floor measured in the same run: python -c "{FLOOR_IMPORTS}", '
        f'or for --help python -c "{TYPER_FLOOR}". The first run of each is untimed (page cache, .pyc, the model cache).',
    )
    out.put("cold", {"cli": cli, "repeat": args.repeat, "query": queries[0], "rows": rows})

    warm = warm_latency(args.index, queries, train[:5])
    out.table(
        f"Warm in-process Retriever.search latency ({len(queries)} SciFact test queries, k=10, candidates=50)",
        ["mode", "p50 ms", "p95 ms", "max ms", "stage p50 ms"],
        [[r["mode"], r["p50_ms"], r["p95_ms"], r["max_ms"], ", ".join(f"{s} {v:.1f}" for s, v in r["stage_p50_ms"].items())] for r in warm],
    )
    out.put("warm", warm)
    by_mode = {r["mode"]: r for r in warm}
    embed_p50 = by_mode["hybrid"]["stage_p50_ms"].get("embed", by_mode["dense"]["stage_p50_ms"].get("embed", 0.0))
    parts = embed_p50 + by_mode["bm25"]["p50_ms"]
    overhead = {"hybrid_p50_ms": by_mode["hybrid"]["p50_ms"], "embed_p50_ms": embed_p50, "bm25_only_p50_ms": by_mode["bm25"]["p50_ms"],
                "ratio": by_mode["hybrid"]["p50_ms"] / parts if parts else None}
    out.table(
        "Warm hybrid search against its two unavoidable parts (same run)",
        ["hybrid p50 ms", "embed query p50 ms", "BM25-only search p50 ms", "hybrid / (embed + BM25)", "target"],
        [[overhead["hybrid_p50_ms"], overhead["embed_p50_ms"], overhead["bm25_only_p50_ms"], overhead["ratio"], 1.5]],
    )
    out.put("warm_overhead", overhead)
    out.finish()


if __name__ == "__main__":
    main()
