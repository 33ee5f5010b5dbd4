"""How a tenant's passages are cut: intros separated from their blocks, passages that start
with a code fence, sentences cut at a soft line wrap, passage sizes.

Reads one tenant's published passages straight from its ``passages.jsonl`` (rows are in
document order), so it measures any index ragcli wrote, old chunker or new, side by side:

    python bench/chunk_stats.py --index /tmp/bench-index --tenant uv-docs
    python bench/chunk_stats.py --index /tmp/old-index --index /tmp/bench-index --tenant uv-docs

Columns: passages; ``ends ':'`` (text ends with a colon); ``intro split`` (ends with a colon
and the next passage of the same section starts with the code block, list or table it
introduced); ``starts fence`` (text starts with a code fence); ``soft-wrap cuts`` (a line
break inside prose: a line that ends without sentence punctuation followed by a line that
starts with a lowercase letter, outside code); median and p95 characters.
"""

from __future__ import annotations

import json
import re
import statistics
import sys
from itertools import pairwise
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Output, base_parser

_BLOCK_START = re.compile(r"^(```|~~~|[-*+] |\d+[.)] |\|)")


def passages(index: Path, tenant: str) -> list[dict[str, Any]]:
    generation = index / tenant / (index / tenant / "CURRENT").read_text(encoding="utf-8").strip()
    return [json.loads(line) for line in (generation / "passages.jsonl").read_text(encoding="utf-8").splitlines()]


def soft_wrap_cuts(text: str) -> int:
    cuts = 0
    in_code = False
    lines = text.split("\n")
    for line, following in pairwise(lines):
        if line.lstrip().startswith(("```", "~~~")):
            in_code = not in_code
        if in_code or not line.strip() or not following.strip():
            continue
        if (
            not re.search(r"[.!?:;|)]\s*$", line)
            and re.match(r"^\s*[a-z]", following)
            and not _BLOCK_START.match(following.lstrip())
        ):
            cuts += 1
    return cuts


def stats(rows: list[dict[str, Any]]) -> dict[str, Any]:
    ends_colon = intro_split = 0
    for row, following in zip(rows, [*rows[1:], None], strict=True):
        if not row["text"].rstrip().endswith(":"):
            continue
        ends_colon += 1
        same_section = (
            following is not None
            and following["doc_id"] == row["doc_id"]
            and following["heading_path"] == row["heading_path"]
        )
        if same_section and _BLOCK_START.match(following["text"].lstrip()):
            intro_split += 1
    sizes = sorted(len(r["text"]) for r in rows)
    return {
        "passages": len(rows),
        "ends_colon": ends_colon,
        "intro_split": intro_split,
        "starts_fence": sum(1 for r in rows if r["text"].lstrip().startswith(("```", "~~~"))),
        "soft_wrap_cuts": sum(soft_wrap_cuts(r["text"]) for r in rows),
        "median_chars": int(statistics.median(sizes)) if sizes else 0,
        "p95_chars": sizes[int(0.95 * (len(sizes) - 1))] if sizes else 0,
    }


def main() -> None:
    parser = base_parser(__doc__)
    parser.add_argument("--index", type=Path, action="append", required=True, help="index folder (repeat to compare)")
    parser.add_argument("--tenant", default="uv-docs")
    args = parser.parse_args()
    out = Output(args.json)
    rows = []
    for index in args.index:
        row = {"index": str(index), **stats(passages(index, args.tenant))}
        rows.append(row)
    columns = list(rows[0])
    out.table(f"chunk stats: tenant {args.tenant}", columns, [[r[c] for c in columns] for r in rows])
    out.put("rows", rows)
    out.finish()


if __name__ == "__main__":
    main()
