"""Warm hybrid search latency: in-process ``Retriever.search`` against the same search through ``ragcli mcp``.

In-process: one ``Retriever`` (the CLI's defaults: hybrid, k=10, candidates=50) warmed on
other queries, then ``--queries`` SciFact test queries timed one by one.

Through MCP: ``python -m ragcli.cli mcp --as USER.json --index DIR`` started as a real
subprocess and driven by the official SDK's client (``stdio_client`` + ``ClientSession``),
warmed on the same other queries, then ``tools/call search {"query": q}`` per query, timed
from the client's send to the parsed result (JSON-RPC over pipes, argument validation, the
search on the server's worker thread, serialisation, the client's parsing and its check
against the tool's output schema). The server's own log line per call (stderr) gives the
time spent inside the server's handler, so the table splits the difference into the server
handler and the protocol; a ``ping`` round trip shows the SDK's floor.

The two paths alternate in blocks of ``--block`` queries (default 10), so machine noise hits
both alike (query by query would let onnxruntime's spinning threads in one process slow the
other). They are separate processes with their own query-vector caches, and each query is
searched once per path after the warm-up, so neither gets a cached vector. Each MCP result's
passage IDs are checked against the in-process result for the same query.

Target: MCP p50 <= in-process p50 + 5 ms.

Needs the ``scifact`` tenant in ``--index`` (built if missing, ~5-8 minutes; see search_quality.py).

Run:
    python bench/mcp_latency.py --index /tmp/bench-index
    python bench/mcp_latency.py --index /tmp/bench-index --queries 50 --json
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Output, base_parser, bench_principal, ensure_index, load_beir, percentiles, read_jsonl, sample_ids

DEFAULT_INDEX = Path("/tmp/bench-index")
TENANT = "scifact"
TARGET_MS = 5.0


class InProcess:
    """One ``Retriever`` with the CLI's defaults, searching as the bench principal."""

    def __init__(self, index_dir: Path) -> None:
        from ragcli.principal import Scope, parse_principal
        from ragcli.search import Retriever

        self.scope = Scope.of(parse_principal(bench_principal(TENANT)))
        self.retriever = Retriever(index_dir)

    def search(self, query: str) -> tuple[float, list[str]]:
        started = time.perf_counter()
        response = self.retriever.search(self.scope, query)
        return 1000 * (time.perf_counter() - started), response.ids


async def measure(
    index_dir: Path, user_file: Path, queries: list[str], warmup: list[str], errlog: Path, block: int
) -> dict[str, Any]:
    """Both paths over the same queries, in alternating blocks of ``block`` queries, after warming both.

    Blocks, not query by query: onnxruntime's threads spin for a moment after each run, and on a
    small machine the spinning of one process would slow the other's next query. Alternating blocks
    still spread machine noise over both paths alike.
    """
    from mcp import ClientSession, StdioServerParameters, stdio_client

    local = InProcess(index_dir)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "ragcli.cli", "mcp", "--as", str(user_file), "--index", str(index_dir)],
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )
    local_ms: list[float] = []
    mcp_ms: list[float] = []
    local_ids: list[list[str]] = []
    mcp_ids: list[list[str]] = []
    with errlog.open("w", encoding="utf-8") as err:
        started = time.perf_counter()
        async with stdio_client(params, errlog=err) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            ready_s = time.perf_counter() - started
            await session.list_tools()  # the client caches the output schemas it checks results against
            for q in warmup:
                local.search(q)
                await session.call_tool("search", {"query": q})
            for start in range(0, len(queries), block):
                chunk = queries[start : start + block]
                for q in chunk:
                    ms, ids = local.search(q)
                    local_ms.append(ms)
                    local_ids.append(ids)
                for q in chunk:
                    t = time.perf_counter()
                    result = await session.call_tool("search", {"query": q})
                    mcp_ms.append(1000 * (time.perf_counter() - t))
                    if result.is_error:
                        raise SystemExit(f"search failed through MCP: {result.content[0].text}")
                    mcp_ids.append([r["id"] for r in result.structured_content["results"]])
            ping_ms = []
            for _ in range(50):
                t = time.perf_counter()
                await session.send_ping()
                ping_ms.append(1000 * (time.perf_counter() - t))
    local.retriever.close()
    same = sum(a == b for a, b in zip(local_ids, mcp_ids, strict=True))
    return {"local_ms": local_ms, "mcp_ms": mcp_ms, "ping_ms": ping_ms, "same": same, "ready_s": ready_s}


def server_handler_ms(errlog: Path, n: int) -> list[float]:
    """The ``ms`` of the server's last ``n`` successful search calls, from its stderr log."""
    calls = []
    for line in errlog.read_text(encoding="utf-8").splitlines():
        if line.startswith("ragcli mcp: {"):
            entry = json.loads(line.removeprefix("ragcli mcp: "))
            if entry.get("event") == "call" and entry.get("tool") == "search" and entry.get("ok"):
                calls.append(float(entry["ms"]))
    return calls[-n:]


def main() -> None:
    import anyio

    parser = base_parser(__doc__)
    parser.add_argument(
        "--index",
        type=Path,
        default=DEFAULT_INDEX,
        help=f"index folder with tenant 'scifact' (default {DEFAULT_INDEX})",
    )
    parser.add_argument("--queries", type=int, default=100, help="timed queries per side")
    parser.add_argument("--warmup", type=int, default=10, help="untimed queries per side first (SciFact train queries)")
    parser.add_argument(
        "--block", type=int, default=10, help="queries per block; the two paths alternate block by block"
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    out = Output(args.json)
    data = load_beir(args.data / "scifact", "test")
    ensure_index(data.corpus_path, TENANT, args.index, out)
    warmup = [
        q["text"] for q in read_jsonl(args.data / "scifact" / "queries.jsonl") if str(q["_id"]) not in data.queries
    ][: args.warmup]
    queries = [data.queries[i] for i in sample_ids(list(data.queries), args.queries, args.seed)]

    with tempfile.TemporaryDirectory(prefix="ragcli-mcp-bench-") as tmp:
        user_file = Path(tmp) / "user.json"
        user_file.write_text(json.dumps(bench_principal(TENANT)), encoding="utf-8")
        errlog = Path(tmp) / "server.log"
        run = anyio.run(measure, args.index, user_file, queries, warmup, errlog, args.block)
        handler_ms = server_handler_ms(errlog, len(queries))

    local_ms, mcp_ms, same, ready_s = run["local_ms"], run["mcp_ms"], run["same"], run["ready_s"]
    local, remote, ping = (
        percentiles(local_ms, (50, 95)),
        percentiles(mcp_ms, (50, 95)),
        percentiles(run["ping_ms"], (50, 95)),
    )
    handler = percentiles(handler_ms, (50, 95)) if handler_ms else {"p50": float("nan"), "p95": float("nan")}
    diff = remote["p50"] - local["p50"]
    rows = [
        ["in-process Retriever.search", local["p50"], local["p95"], "-"],
        ["server handler (from its log)", handler["p50"], handler["p95"], handler["p50"] - local["p50"]],
        ["MCP tools/call search (client)", remote["p50"], remote["p95"], diff],
        ["MCP ping round trip (client)", ping["p50"], ping["p95"], "-"],
    ]
    out.table(
        f"Warm hybrid search, tenant {TENANT} ({len(queries)} SciFact test queries, k=10; index {args.index})",
        ["path", "p50 ms", "p95 ms", "p50 - in-process ms"],
        rows,
        caption=f"MCP p50 - in-process p50 = {diff:.2f} ms (target <= {TARGET_MS:.0f} ms: "
        f"{'met' if diff <= TARGET_MS else 'NOT met'}); "
        f"same result IDs for {same}/{len(queries)} queries; server ready (initialize answered) after {ready_s:.1f} s.",
    )
    out.put(
        "mcp_latency",
        {
            "index": str(args.index),
            "tenant": TENANT,
            "queries": len(queries),
            "in_process": local,
            "server_handler": handler,
            "mcp": remote,
            "ping": ping,
            "p50_difference_ms": diff,
            "target_ms": TARGET_MS,
            "met": diff <= TARGET_MS,
            "same_results": same,
            "ready_s": ready_s,
            "mean_ms": {"in_process": statistics.fmean(local_ms), "mcp": statistics.fmean(mcp_ms)},
        },
    )
    out.finish()


if __name__ == "__main__":
    main()
