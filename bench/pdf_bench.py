"""PDF pages per second by kind (text, ruled tables, OCR), beside the embedding time of the same passages;
and text-PDF ingest against another ragcli tree (main) in paired runs.

Part 1, in this process (this tree): three folders of generated PDFs, read with ``load_file`` and cut with
``chunk_document`` (pages/s), then the same passages embedded as ingest embeds them
(``units.embed_passages``): how the page reading compares with the model's share of an ingest.

  * text: ``_formats.to_pdf`` documents (Letter pages of prose, lists and plain-text tables, an outline);
  * table: pages each holding a ruled 3-column table of 12 rows under a sentence (pdfplumber's path);
  * ocr: pages of prose rendered to 300-dpi images (no text layer), read by Tesseract (needs ``ragcli[ocr]``
    and the ``tesseract`` program; else the row says why it is missing).

Part 2, paired runs: ``ingest()`` of the text folder into a fresh index, by this tree and by ``--peer`` (default
/work/main, the tree before PDF pages), alternating which goes first each round, each in its own
subprocess (same model, warmed up before the clock). Shown: median seconds outside the model (ingest seconds
minus seconds inside the embedder), median seconds in all, and the per-round ratio this/peer.

Run:
    python bench/pdf_bench.py                       # 20 text docs, 30 table pages, 4 OCR pages, 5 pairs
    python bench/pdf_bench.py --pairs 0 --ocr-pages 2   # quick: part 1 only
Add ``--json`` for machine-readable results on stdout.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the tests' PDF builders (support/pdf_files)

from _common import REPO_ROOT, Output, base_parser
from _formats import WORDS, make_docs, to_pdf

REPO = REPO_ROOT
TENANT = "bench"


# --------------------------------------------------------------------------- the folders


def write_text_folder(folder: Path, docs: int) -> int:
    """``docs`` outlined text PDFs; returns their page count."""
    from pypdf import PdfReader

    folder.mkdir(parents=True, exist_ok=True)
    pages = 0
    for doc in make_docs(docs, seed=7):
        data = to_pdf(doc)
        (folder / f"{doc.name}.pdf").write_bytes(data)
        pages += len(PdfReader(folder / f"{doc.name}.pdf").pages)
    return pages


def _sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 14))).capitalize() + "."


def write_table_folder(folder: Path, pages: int, per_doc: int = 5) -> int:
    from support.pdf_files import Page, Table, make_pdf

    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(11)
    for d in range(0, pages, per_doc):
        specs = []
        for _ in range(min(per_doc, pages - d)):
            rows = [("Item", "Owner", "Amount")]
            rows += [(rng.choice(WORDS).title(), rng.choice(WORDS), f"{rng.randint(10, 999)} EUR") for _ in range(12)]
            specs.append(Page(lines=[_sentence(rng)], tables=[Table(rows, top=110)]))
        (folder / f"tables-{d:03d}.pdf").write_bytes(make_pdf(specs))
    return pages


def write_ocr_folder(folder: Path, pages: int) -> int:
    from support.pdf_files import make_pdf, scanned

    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(13)
    for p in range(pages):
        prose = " ".join(_sentence(rng) for _ in range(12))
        (folder / f"scan-{p:03d}.pdf").write_bytes(scanned(make_pdf(["\n".join(textwrap.wrap(prose, 80))])))
    return pages


# --------------------------------------------------------------------------- part 1: page kinds


def read_and_embed(folder: Path, embedder: Any) -> dict[str, Any]:
    """Seconds to read + chunk every PDF of ``folder``, and to embed the passages that gives."""
    from ragcli.ingestion.chunking import chunk_document
    from ragcli.ingestion.folder import read_source
    from ragcli.ingestion.loaders import load_file
    from ragcli.ingestion.sources import DEFAULT_MAX_FILE_BYTES, SourceFile
    from ragcli.units import embed_passages

    passages = []
    ocr = unread = 0
    started = time.perf_counter()
    for path in sorted(folder.glob("*.pdf")):
        src = SourceFile(path.resolve(), path.name)
        doc = load_file(src, read_source(src, DEFAULT_MAX_FILE_BYTES), default_acl=("everyone",))
        passages += chunk_document(doc, TENANT, embedder.count_tokens)
        if doc.pdf is not None:
            ocr, unread = ocr + len(doc.pdf.ocr), unread + len(doc.pdf.unread)
    read = time.perf_counter() - started
    started = time.perf_counter()
    for start in range(0, len(passages), 16):  # ingest's EMBED_STEP
        embed_passages(embedder, passages[start : start + 16])
    return {
        "passages": len(passages),
        "read_s": read,
        "embed_s": time.perf_counter() - started,
        "ocr": ocr,
        "unread": unread,
    }


def part_one(out: Output, root: Path, args: Any, embedder: Any) -> None:
    from ragcli.ingestion.pdf_ocr import missing

    kinds = {
        "text": write_text_folder(root / "text", args.docs),
        "table": write_table_folder(root / "table", args.table_pages),
    }
    lacking = missing()
    if args.ocr_pages and lacking is None:
        kinds["ocr"] = write_ocr_folder(root / "ocr", args.ocr_pages)
    rows, data = [], {}
    for kind, pages in kinds.items():
        result = read_and_embed(root / kind, embedder)
        per_s = pages / result["read_s"]
        rows.append(
            [
                kind,
                pages,
                result["passages"],
                result["read_s"],
                per_s,
                result["embed_s"],
                result["read_s"] / result["embed_s"],
            ]
        )
        data[kind] = {"pages": pages, **result, "pages_per_s": per_s}
        if kind == "ocr":
            assert result["ocr"] == pages and result["unread"] == 0, result
    if "ocr" not in kinds:
        rows.append(["ocr", 0, 0, "-", "-", "-", f"skipped: {lacking or '--ocr-pages 0'}"])
    out.table(
        "PDF pages read (load_file + chunk_document) beside embedding the same passages",
        ["kind", "pages", "passages", "read s", "pages/s", "embed s", "read / embed"],
        rows,
        caption="embed s: units.embed_passages in steps of 16, as ingest does; read / embed < 1: the model costs more",
    )
    out.put("kinds", data)


# --------------------------------------------------------------------------- part 2: paired ingests against a peer

_ONE_INGEST = """
import json, sys, tempfile, time
from ragcli import ingest
from ragcli.embedder import Embedder
embedder = Embedder()
embedder.embed(["warm up the model"])
inside = [0.0]
for name in ("embed", "embed_with_spans"):
    original = getattr(embedder, name, None)
    if original is None:
        continue
    def timed(*a, _original=original, **k):
        t = time.perf_counter()
        try:
            return _original(*a, **k)
        finally:
            inside[0] += time.perf_counter() - t
    setattr(embedder, name, timed)
with tempfile.TemporaryDirectory() as index:
    report = ingest(sys.argv[1], "bench", index=index, default_acl=["everyone"], embedder=embedder)
print(json.dumps({"seconds": report.seconds, "embed": inside[0], "passages": report.passages}))
"""


def one_ingest(tree: Path, folder: Path) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONWARNINGS": "ignore"}
    proc = subprocess.run(
        [sys.executable, "-c", _ONE_INGEST, str(folder)], capture_output=True, text=True, env=env, check=False
    )
    if proc.returncode != 0:
        raise SystemExit(f"ingest under {tree} failed: {proc.stderr[-2000:]}")
    result: dict[str, float] = json.loads(proc.stdout.strip().splitlines()[-1])
    result["outside"] = result["seconds"] - result["embed"]
    return result


def part_two(out: Output, root: Path, args: Any) -> None:
    folder = root / "text"
    runs: dict[str, list[dict[str, float]]] = {"this": [], "peer": []}
    for n in range(args.pairs):
        order = ("this", "peer") if n % 2 == 0 else ("peer", "this")
        for who in order:
            runs[who].append(one_ingest(REPO if who == "this" else args.peer, folder))
    ratios_out = [a["outside"] / b["outside"] for a, b in zip(runs["this"], runs["peer"], strict=True)]
    ratios_all = [a["seconds"] / b["seconds"] for a, b in zip(runs["this"], runs["peer"], strict=True)]
    rows = []
    for who, label in (("this", f"this tree ({REPO})"), ("peer", f"peer ({args.peer})")):
        rs = runs[who]
        rows.append(
            [
                label,
                int(rs[0]["passages"]),
                statistics.median(r["outside"] for r in rs),
                statistics.median(r["embed"] for r in rs),
                statistics.median(r["seconds"] for r in rs),
            ]
        )
    rows.append(
        ["ratio this / peer (median of pairs)", "", statistics.median(ratios_out), "", statistics.median(ratios_all)]
    )
    out.table(
        f"Text-PDF ingest, {args.pairs} paired runs (alternating order, one subprocess each)",
        ["tree", "passages", "outside model s", "embed s", "ingest s"],
        rows,
        caption="outside model = ingest seconds minus seconds inside the embedder; ratio > 1: this tree is slower",
    )
    out.put(
        "paired", {"this": runs["this"], "peer": runs["peer"], "ratio_outside": ratios_out, "ratio_all": ratios_all}
    )


def main() -> None:
    parser = base_parser(__doc__)
    parser.add_argument("--docs", type=int, default=20, help="text PDFs (about 3 pages each)")
    parser.add_argument("--table-pages", type=int, default=30)
    parser.add_argument("--ocr-pages", type=int, default=4)
    parser.add_argument("--pairs", type=int, default=5, help="paired ingest runs against --peer (0: none)")
    parser.add_argument("--peer", type=Path, default=Path("/work/main"), help="the other ragcli tree")
    args = parser.parse_args()
    out = Output(args.json)
    from ragcli.embedder import Embedder

    embedder = Embedder()
    embedder.embed(["warm up the model"])
    import pdfplumber  # noqa: F401  (imported before any clock starts, like the model)
    import pypdf  # noqa: F401

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        part_one(out, root, args, embedder)
        if args.pairs:
            part_two(out, root, args)
    out.finish()


if __name__ == "__main__":
    main()
