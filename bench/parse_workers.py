"""Parsing in worker processes: ingest throughput against parsing in the ingesting process, and hostile files.

Part 1, paired runs: the same real docs folder (default ``bench/corpora``, every corpus) ingested through the
CLI into a fresh index, alternately with ``RAGCLI_PARSE_WORKERS=0`` (parsing in the ingesting process, the
old way) and the default (2 worker processes under limits), ``--rounds`` times each, in the same run. It prints
the wall time of each run, the median of each side and their ratio (workers / in-process; under 1 is faster).

Part 2, hostile files: the folder with the decompression-stall ``.docx`` (208 KB unpacking to 60 MB of
one-letter paragraphs) and with a 4 MB CSV of 2 million rows, one at a time, beside the plain folder as the
baseline: exit code, the file's rejection line, wall time and the peak memory of the whole ingest (the sum of
the resident sets of the CLI and its worker processes, sampled every 50 ms).

Part 2 puts each hostile file beside a few pages of the corpus (``--hostile-pages``, default 3), so the wall
time is the file's and not the embedding of the corpus. Every CLI run is limited to 6 GiB of address space
(``RLIMIT_AS``), so a regression cannot endanger the machine.

Run:
    python bench/parse_workers.py                 # 3 rounds on bench/corpora
    python bench/parse_workers.py --corpus bench/corpora/rustup --skip-hostile
    python bench/parse_workers.py --rounds 5 --corpus bench/corpora/material
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Output, base_parser

REPO = Path(__file__).resolve().parents[1]
RUN_LIMIT = 6 * 1024**3
TARGET_SECONDS = 60
TARGET_MIB = 1024


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (RUN_LIMIT, RUN_LIMIT))


def _tree_rss_kib(root: int) -> int:
    """Resident memory of ``root`` and every process below it, from /proc."""
    parents: dict[int, int] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            parents[int(entry)] = int(fields[1])
            rss[int(entry)] = int(fields[21]) * (os.sysconf("SC_PAGE_SIZE") // 1024)
        except (OSError, IndexError, ValueError):
            continue
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        total += rss.get(pid, 0)
        stack += [child for child, parent in parents.items() if parent == pid]
    return total


def ingest(folder: Path, env: dict[str, str]) -> dict[str, Any]:
    """One ``ragcli ingest --json`` of ``folder`` into a fresh index: wall seconds, peak tree RSS, the report."""
    with tempfile.TemporaryDirectory() as tmp:
        command = [sys.executable, "-m", "ragcli.cli", "ingest", str(folder), "--tenant", "bench"]
        command += ["--index", str(Path(tmp) / "index"), "--acl", "everyone", "--json"]
        started = time.perf_counter()
        proc = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, **env},
            preexec_fn=_limited,
        )
        peak = [0]

        def sample() -> None:
            while proc.poll() is None:
                peak[0] = max(peak[0], _tree_rss_kib(proc.pid))
                time.sleep(0.05)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        out, err = proc.communicate()
        seconds = time.perf_counter() - started
        sampler.join()
    report = json.loads(out) if out.strip().startswith("{") else {}
    lines = [line for line in err.splitlines() if line.startswith("error: rejected ") and " of " not in line[:30]]
    return {
        "rc": proc.returncode,
        "seconds": seconds,
        "peak_mib": peak[0] / 1024,
        "report": report,
        "rejections": lines,
        "traceback": "Traceback" in err,
    }


def stall_docx() -> bytes:
    sys.path.insert(0, str(REPO / "tests"))
    from test_hostile_files import stall_docx as build

    return build(1_764_705)


def hostile_folders(base: Path, tmp: Path) -> dict[str, Path]:
    import shutil

    out = {}
    for name, content in (("stall.docx", stall_docx), ("rows.csv", lambda: b"a\n" + b"1\n" * 1_999_999)):
        folder = tmp / name.replace(".", "-")
        shutil.copytree(base, folder)
        (folder / name).write_bytes(content())
        out[name] = folder
    return out


def _pages(corpus: Path, pages: int, into: Path) -> Path:
    """The first ``pages`` Markdown pages of ``corpus`` copied into ``into`` (the corpus itself for 0)."""
    if pages <= 0:
        return corpus
    into.mkdir(parents=True)
    for n, page in enumerate(sorted(corpus.rglob("*.md"))[:pages]):
        (into / f"{n}-{page.name}").write_bytes(page.read_bytes())
    return into


def _paired_tables(out: Output, corpus: Path, sides: dict[str, dict[str, str]], times, rows) -> None:  # type: ignore[no-untyped-def]
    out.table(
        f"Paired ingests of {corpus.relative_to(REPO) if corpus.is_relative_to(REPO) else corpus}",
        ["round", "parsing", "documents", "passages", "wall s", "peak MiB"],
        rows,
    )
    base_side, worker_side = list(sides)
    medians = {side: statistics.median(values) for side, values in times.items()}
    ratio = medians[worker_side] / medians[base_side]
    out.table(
        "Median wall time",
        ["parsing", "median s", "ratio to in-process"],
        [[side, medians[side], medians[side] / medians[base_side]] for side in sides],
        caption=f"ratio {ratio:.3f}: under 1 means parsing in workers made the ingest faster",
    )
    out.put("paired", {"times": times, "medians": medians, "ratio": ratio})


def main() -> None:
    parser = base_parser(__doc__)
    parser.add_argument("--corpus", type=Path, default=REPO / "bench/corpora", help="a real docs folder")
    parser.add_argument("--rounds", type=int, default=3, help="paired runs (in-process, workers) each")
    parser.add_argument("--skip-hostile", action="store_true", help="part 1 only")
    parser.add_argument("--skip-paired", action="store_true", help="part 2 only")
    parser.add_argument(
        "--hostile-pages",
        type=int,
        default=3,
        help="pages of the corpus beside each hostile file (0: the whole corpus); few, so the wall time is the file's",
    )
    args = parser.parse_args()
    out = Output(args.json)
    sides = {"in-process (RAGCLI_PARSE_WORKERS=0)": {"RAGCLI_PARSE_WORKERS": "0"}, "2 workers (default)": {}}
    times: dict[str, list[float]] = {side: [] for side in sides}
    rows = []
    for round_no in range(0 if args.skip_paired else args.rounds):
        order = list(sides) if round_no % 2 == 0 else list(reversed(sides))  # alternate who goes first
        for side in order:
            run = ingest(args.corpus, sides[side])
            assert run["rc"] == 0 and not run["traceback"], run
            times[side].append(run["seconds"])
            docs = run["report"]["documents"]["added"]
            rows.append([round_no + 1, side, docs, run["report"]["passages"], run["seconds"], run["peak_mib"]])
    if not args.skip_paired:
        _paired_tables(out, args.corpus, sides, times, rows)
    if not args.skip_hostile:
        with tempfile.TemporaryDirectory() as tmp:
            base = _pages(args.corpus, args.hostile_pages, Path(tmp) / "base")
            folders = {"(none: baseline)": base, **hostile_folders(base, Path(tmp))}
            hostile_rows = []
            for name, folder in folders.items():
                run = ingest(folder, {})
                ok = run["seconds"] < TARGET_SECONDS and run["peak_mib"] < TARGET_MIB and not run["traceback"]
                line = run["rejections"][0] if run["rejections"] else "-"
                published = run["report"].get("documents", {}).get("added", 0)
                hostile_rows.append([name, run["rc"], published, line[:110], run["seconds"], run["peak_mib"], ok])
                out.put(f"hostile {name}", {k: v for k, v in run.items() if k != "report"})
        out.table(
            "Hostile files beside the same folder (one ingest each)",
            ["hostile file", "exit", "published", "rejection line", "wall s", "peak MiB", "< 60 s, < 1 GiB"],
            hostile_rows,
            caption="peak MiB: the CLI and its parsing workers together, sampled every 50 ms",
        )
    out.finish()


if __name__ == "__main__":
    main()
