"""What the folder-wide cross-reference pass costs against parsing the same files, and what it resolves.

Before an ingest parses any file it reads every reStructuredText and Markdown file once more for its
labels, section titles and references (``ragcli.ingestion.references.scan``). This prints, per corpus, that
pass's time next to the time of loading the same files (``loaders.load_file``: docutils for rst, front
matter for Markdown; chunking, which parses Markdown, not counted, so the ratio is an upper bound) in the
same run, and how many references without an explicit title now show their target's title:

    python bench/crossref_scan.py                       # bench/corpora/{black,nox,myst}
    python bench/crossref_scan.py --corpus bench/corpora/myst --repeat 5
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import REPO_ROOT, Output, base_parser

from ragcli.errors import DocumentRejected
from ragcli.ingestion.crossrefs import resolving
from ragcli.ingestion.folder import open_folder
from ragcli.ingestion.loaders import load_file
from ragcli.ingestion.references import ReferenceTable, scan

CORPORA = ("black", "nox", "myst")


def _best(repeat: int, run) -> float:  # type: ignore[no-untyped-def]
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - started)
    return best


def _load_all(folder, files, table: ReferenceTable) -> None:  # type: ignore[no-untyped-def]
    for src in files:
        if src.is_jsonl:
            continue
        try:
            data = folder.read(src, 64 << 20)
            with resolving(table.titles_for(src.relative)):
                load_file(src, data, default_acl=("everyone",))
        except DocumentRejected:
            pass


def measure(corpus: Path, repeat: int) -> list[object]:
    with open_folder(corpus) as folder:
        files = folder.discover().files
        table = scan(folder, files, 64 << 20)  # once before timing: imports (markdown-it, yaml) are not the pass
        scan_s = _best(repeat, lambda: scan(folder, files, 64 << 20))
        load_s = _best(repeat, lambda: _load_all(folder, files, table))
    made = sum(len(refs) for refs in table.refs.values())
    resolved = sum(len(table.titles_for(relative)) for relative in table.refs)
    return [corpus.name, len(files), len(table.labels), made, resolved, scan_s * 1000, load_s * 1000, scan_s / load_s]


def main() -> None:
    parser = base_parser(__doc__)
    parser.add_argument("--corpus", type=Path, action="append", help="a folder (repeatable; default: three corpora)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement; the best is shown")
    args = parser.parse_args()
    corpora = args.corpus or [REPO_ROOT / "bench" / "corpora" / name for name in CORPORA]
    out = Output(args.json)
    rows = [measure(corpus, args.repeat) for corpus in corpora]
    columns = ["corpus", "files", "labels", "refs", "resolved", "scan ms", "load ms", "scan/load"]
    out.table("Cross-reference pass against loading the same files", columns, rows)
    out.put("corpora", [dict(zip(columns, row, strict=True)) for row in rows])
    out.finish()


if __name__ == "__main__":
    main()
