"""The passages a chunker change must not change: dump every passage of some corpora, then compare two dumps.

A corpus is read the way ``ingest`` reads it (``folder`` discovery, ``parsing.parse``
in process, ``chunking.chunk_document`` with the model's tokenizer), without the
model run: what the index would hold is each passage's ID, text, title, heading
path and carried length, and the unit spans its unit vectors are cut by, every
field of each (``units.Span``), cut as ingest cuts them (from the blocks the
chunker read off the document's parse, ``Passage.blocks``, where it knows them;
else ``units.unit_spans``, what the answerer cuts at ask time: a dump of the
tree before a change of the one holds the other to it). ``--dump OUT`` writes
them as JSON lines; ``--compare A B``
prints, per corpus, how many passages are identical (same ID, same fields) out of
how many, and exits 1 when any differ.

Before and after a change (the tree before it unpacked with ``git archive``):

    PYTHONPATH=/tmp/base python bench/passage_identity.py --dump /tmp/before.jsonl CORPUS...
    python bench/passage_identity.py --dump /tmp/after.jsonl CORPUS...
    python bench/passage_identity.py --compare /tmp/before.jsonl /tmp/after.jsonl
"""

from __future__ import annotations

import argparse
import inspect
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def corpus_records(corpus: Path) -> Iterator[dict[str, Any]]:
    """Every passage of ``corpus`` as ingest would cut it (rejected files are skipped, as ingest skips them)."""
    from ragcli.embedder import Embedder
    from ragcli.ingestion.chunking import chunk_document
    from ragcli.ingestion.folder import open_folder
    from ragcli.ingestion.loaders import Document
    from ragcli.ingestion.parsing import ParseTask, parse
    from ragcli.ingestion.sources import DEFAULT_MAX_FILE_BYTES
    from ragcli.units import unit_spans

    try:
        from ragcli.units import spans_in
    except ImportError:  # a tree from before ``Passage.blocks``: every passage's units are cut by parsing it
        spans_in = None

    embedder = Embedder()
    # As the ingest calls it; a tree from before ``counts_add_up`` (the "before" of a comparison) has no such flag.
    adds = "counts_add_up" in inspect.signature(chunk_document).parameters
    options = {"counts_add_up": embedder.counts_add_up} if adds else {}
    with open_folder(corpus) as folder:
        for src in folder.discover().files:
            data = folder.read(src, DEFAULT_MAX_FILE_BYTES)
            for doc in parse(ParseTask(src, data, ("everyone",), "", DEFAULT_MAX_FILE_BYTES)):
                if not isinstance(doc, Document):
                    continue
                for p in chunk_document(doc, "t", embedder.count_tokens, **options):
                    known = getattr(p, "blocks", None)
                    spans = unit_spans(p.text) if known is None or spans_in is None else spans_in(p.text, known)
                    yield {
                        "corpus": corpus.name,
                        "id": p.id,
                        "title": p.title,
                        "heading_path": list(p.heading_path),
                        "text": p.text,
                        "carried": p.carried,
                        "pages": list(p.pages),
                        "units": [
                            [s.kind, s.start, s.end, s.block, s.sentence_end, list(s.shown), list(s.header)]
                            for s in spans
                        ],
                    }


def dump(out: Path, corpora: list[Path]) -> None:
    with out.open("w", encoding="utf-8") as fh:
        for corpus in corpora:
            n = 0
            for record in corpus_records(corpus):
                fh.write(json.dumps(record, ensure_ascii=False) + "\n")
                n += 1
            print(f"{corpus}: {n} passages", file=sys.stderr)


def _load(path: Path) -> dict[str, dict[tuple[str, str], dict[str, Any]]]:
    by_corpus: dict[str, dict[tuple[str, str], dict[str, Any]]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        by_corpus.setdefault(record["corpus"], {})[(record["corpus"], record["id"])] = record
    return by_corpus


def compare(before_path: Path, after_path: Path) -> int:
    """Print ``identical: N of M`` per corpus and overall; 1 when a passage differs, is missing or is new."""
    before, after = _load(before_path), _load(after_path)
    total = same = 0
    for corpus in sorted(set(before) | set(after)):
        old, new = before.get(corpus, {}), after.get(corpus, {})
        keys = set(old) | set(new)
        identical = sum(1 for k in keys if old.get(k) == new.get(k))
        total, same = total + len(keys), same + identical
        print(f"{corpus}: identical: {identical} of {len(keys)}")
        for k in sorted(k for k in keys if old.get(k) != new.get(k))[:5]:
            print(f"  differs: {k[1]}")
    print(f"all: identical: {same} of {total}")
    return 0 if same == total else 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dump", type=Path, help="write every passage of the corpora to this JSON-lines file")
    parser.add_argument("--compare", type=Path, nargs=2, metavar=("BEFORE", "AFTER"), help="compare two dumps")
    parser.add_argument("corpora", type=Path, nargs="*", help="folders (or files) to read, as ingest would")
    args = parser.parse_args()
    if args.compare:
        raise SystemExit(compare(*args.compare))
    if args.dump is None or not args.corpora:
        parser.error("give --dump OUT CORPUS... or --compare BEFORE AFTER")
    dump(args.dump, args.corpora)


if __name__ == "__main__":
    main()
