"""Bounded work per file (issue 22): one 8 MiB Markdown line took 17 s and 800 MB to ingest.

A line over ``MAX_LINE_CHARS`` rejects its document with a clear line; a line under it is cut into passages in
time linear in its length (the word cut counts tokens O(log n) times per passage, not once per word).
"""

from __future__ import annotations

import random
from pathlib import Path

from support.corpus import WORDS, all_passages, markdown, write

from ragcli import ingest
from ragcli.embedder import MAX_MODEL_TOKENS
from ragcli.ingestion.chunking import chunk_document
from ragcli.ingestion.loaders import MAX_LINE_CHARS, load_file
from ragcli.ingestion.sizing import Counts, Sizer
from ragcli.ingestion.sources import SourceData, SourceFile


def test_a_line_over_the_limit_rejects_its_document(tmp_path: Path, embedder) -> None:
    docs, index = tmp_path / "docs", tmp_path / "index"
    write(docs / "dump.md", markdown({"acl": ["everyone"]}, "# Dump\n\n" + "a" * (8 * 1024 * 1024) + "\n"))
    long_line = " ".join(["word"] * (MAX_LINE_CHARS // 5 + 10))
    write(docs / "corpus.jsonl", '{"_id": "c1", "acl": ["everyone"], "text": "' + long_line + '"}\n')
    write(docs / "ok.md", markdown({"acl": ["everyone"]}, "# Ok\n\nFine.\n"))
    report = ingest(docs, "t", index=index, embedder=embedder)
    assert {Path(r.path).name: r.reason for r in report.documents.rejected} == {
        "dump.md": "line 8 is 8,388,608 characters long, over the 100,000-character limit per line; "
        "break it into lines or paragraphs",
        "corpus.jsonl:1": f"line 1 is {len(long_line):,} characters long, over the 100,000-character limit per line; "
        "break it into lines or paragraphs",
    }
    assert {p.doc_id for p in all_passages(index, "t")} == {"ok"}


def test_a_line_at_the_limit_is_cut_into_passages_under_the_cap(tmp_path: Path, embedder) -> None:
    rng = random.Random(3)
    line = " ".join(rng.choice(WORDS) for _ in range(MAX_LINE_CHARS // 6))[: MAX_LINE_CHARS - 10]
    src = SourceFile(tmp_path / "long.md", "long.md")
    raw = markdown({"acl": ["everyone"]}, "# Long\n\n" + line + "\n").encode()
    passages = chunk_document(load_file(src, SourceData(raw), default_acl=()), "t", embedder.count_tokens)
    assert len(passages) > 40
    assert max(embedder.count_tokens([p.index_text for p in passages])) <= MAX_MODEL_TOKENS - 2  # [CLS], [SEP]
    assert " ".join(p.text for p in passages).split() == line.split()  # every word, once, in order


def test_the_word_cut_is_the_greedy_one_word_at_a_time_cut(embedder) -> None:
    sizer = Sizer(Counts(embedder.count_tokens), 64)
    rng = random.Random(7)
    for n in (1, 5, 63, 64, 65, 300, 2000):
        words = [rng.choice([*WORDS, "zq" * rng.randint(1, 40), "PEP-723", "ERR_4021"]) for _ in range(n)]
        expected, current = [], []
        for word in words:  # the reference: add one word at a time, cut when it no longer fits
            if current and not sizer.fits(" ".join([*current, word])):
                expected.append(" ".join(current))
                current = []
            current.append(word)
        expected.append(" ".join(current))
        pieces, start = [], 0
        while start < len(words):
            count = sizer._words_that_fit(words, start)
            pieces.append(" ".join(words[start : start + count]))
            start += count
        assert pieces == expected, n
