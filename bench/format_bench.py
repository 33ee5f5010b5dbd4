"""Ingest throughput per document format, outside the model, side by side with Markdown in the same run.

The same seeded documents (``_formats.py``: title, sections two levels deep,
paragraphs, a bulleted and a numbered list, a table, a code block) are written as
Markdown, HTML, Word, reStructuredText, Jupyter notebooks and PDFs with an
outline; CSV files hold rows only (one per sentence of a document). The model is
loaded, and every format's library imported, before any clock starts.

Two measurements per format, in alternating rounds (the order of formats rotates
each round, so machine noise hits all of them alike; the median round is shown):

  * parse + chunk: ``load_file`` and ``chunk_document`` on every file (the
    tokenizer counts tokens; the ONNX model does not run): passages/s and the
    ratio to Markdown's passages/s in the same round;
  * ingest: ``ingest()`` of the format's folder into a fresh temporary index with
    ``Embedder.embed`` timed (``_common.timed_embedder``); passages/s outside the
    model = passages / (ingest seconds - seconds inside ``embed``), and its ratio
    to Markdown's.

Run:
    python bench/format_bench.py                 # 30 documents, 3 parse rounds, 1 ingest round
    python bench/format_bench.py --docs 10 --ingest-rounds 0   # quick: parse + chunk only
Add ``--json`` for machine-readable results on stdout.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Output, base_parser, timed_embedder
from _formats import WRITERS, make_docs, write_corpora

TENANT = "bench"
BASELINE = "markdown"


def parse_and_chunk(folder: Path, embedder: Any, limit: int | None = None) -> tuple[int, int, float]:
    """(files, passages, seconds) of loading and chunking the files of ``folder`` (the first ``limit``)."""
    from ragcli.ingestion.chunking import chunk_document
    from ragcli.ingestion.loaders import load_file
    from ragcli.ingestion.sources import discover

    files, rejected = discover(folder)
    assert not rejected, rejected
    files = files[:limit]
    passages = 0
    started = time.perf_counter()
    for src in files:
        doc = load_file(src, default_acl=("everyone",))
        passages += len(chunk_document(doc, TENANT, embedder.count_tokens))
    return len(files), passages, time.perf_counter() - started


def ingest_outside_model(folder: Path, embedder: Any, index: Path) -> dict[str, float]:
    from ragcli import ingest

    watch = timed_embedder(embedder)
    try:
        report = ingest(folder, TENANT, index=index, default_acl=["everyone"], embedder=embedder)
    finally:
        del embedder.embed  # back to the class's method
    assert not report.documents.rejected, report.documents.rejected
    outside = report.seconds - watch.seconds
    return {"passages": report.passages, "seconds": report.seconds, "embed_seconds": watch.seconds, "outside": outside}


def rotated(names: list[str], round_no: int) -> list[str]:
    shift = round_no % len(names)
    return names[shift:] + names[:shift]


def main() -> None:
    parser = base_parser(__doc__)
    parser.add_argument("--docs", type=int, default=30, help="documents per format (default 30)")
    parser.add_argument("--rounds", type=int, default=3, help="parse + chunk rounds (default 3)")
    parser.add_argument("--ingest-rounds", type=int, default=1, help="full ingest rounds; 0 skips them (default 1)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    out = Output(args.json)

    from ragcli.embedder import Embedder

    embedder = Embedder()
    embedder.embed(["load the model before any clock starts"])
    names = list(WRITERS)
    with tempfile.TemporaryDirectory(prefix="ragcli-format-bench-") as tmp:
        folders = write_corpora(make_docs(args.docs, args.seed), Path(tmp) / "corpora")
        for name in names:  # imports each format's library (python-docx, docutils...) before any clock
            parse_and_chunk(folders[name], embedder, limit=1)
        parse: dict[str, list[tuple[int, int, float]]] = {n: [] for n in names}
        for round_no in range(args.rounds):
            for name in rotated(names, round_no):
                parse[name].append(parse_and_chunk(folders[name], embedder))
        ingests: dict[str, list[dict[str, float]]] = {n: [] for n in names}
        for round_no in range(args.ingest_rounds):
            for name in rotated(names, round_no):
                index = Path(tmp) / f"index-{round_no}-{name.split()[0]}"
                ingests[name].append(ingest_outside_model(folders[name], embedder, index))
    rows = [summary(name, parse, ingests) for name in names]
    report(out, rows, args)
    out.put("formats", rows)
    out.finish()


def summary(
    name: str, parse: dict[str, list[tuple[int, int, float]]], ingests: dict[str, list[dict[str, float]]]
) -> dict[str, Any]:
    files, passages, _ = parse[name][0]
    rate = [p / s for _, p, s in parse[name]]
    # Each round's ratio to Markdown's rate in that same round, then the median of the ratios.
    ratio = [r / (bp / bs) for r, (_, bp, bs) in zip(rate, parse[BASELINE], strict=True)]
    row: dict[str, Any] = {
        "format": name,
        "files": files,
        "passages": passages,
        "parse_seconds": statistics.median(s for _, _, s in parse[name]),
        "parse_passages_per_s": statistics.median(rate),
        "parse_vs_markdown": statistics.median(ratio),
    }
    if ingests[name]:
        outside = [r["passages"] / r["outside"] for r in ingests[name]]
        base = [r["passages"] / r["outside"] for r in ingests[BASELINE]]
        row |= {
            "ingest_seconds": statistics.median(r["seconds"] for r in ingests[name]),
            "embed_seconds": statistics.median(r["embed_seconds"] for r in ingests[name]),
            "outside_seconds": statistics.median(r["outside"] for r in ingests[name]),
            "outside_passages_per_s": statistics.median(outside),
            "outside_vs_markdown": statistics.median(o / b for o, b in zip(outside, base, strict=True)),
        }
    return row


def report(out: Output, rows: list[dict[str, Any]], args: Any) -> None:
    columns = ["format", "files", "passages", "parse+chunk s", "passages/s", "x markdown"]
    with_ingest = "ingest_seconds" in rows[0]
    if with_ingest:
        columns += ["ingest s", "embed s", "outside model s", "passages/s outside model", "x markdown "]
    table = []
    for r in rows:
        line = [r["format"], r["files"], r["passages"], r["parse_seconds"], r["parse_passages_per_s"]]
        line.append(f"{r['parse_vs_markdown']:.2f}")
        if with_ingest:
            line += [r["ingest_seconds"], r["embed_seconds"], r["outside_seconds"], r["outside_passages_per_s"]]
            line.append(f"{r['outside_vs_markdown']:.2f}")
        table.append(line)
    out.table(
        f"Ingest throughput per format ({args.docs} documents each; median of {args.rounds} parse rounds"
        + (f", {args.ingest_rounds} ingest rounds)" if with_ingest else ")"),
        columns,
        table,
        caption="parse+chunk = load_file + chunk_document (tokenizer only, no model); outside model = "
        "ingest time minus time inside Embedder.embed; x markdown = ratio to Markdown's passages/s in the "
        "same round (higher is faster). CSV files hold rows only, so their passages are row groups.",
    )


if __name__ == "__main__":
    main()
