"""The BM25 side of a generation: a Tantivy index of the same rows.

Two text fields hold each passage's ``index_text``: ``body`` (stemmed words,
stop words removed) and ``ident`` (identifiers kept whole). Beside them sit
the row number, the ACL entries and the validity days, so the permission
filter runs inside Tantivy before anything is scored. Queries are built from
analysed tokens, never parsed: query syntax in the user's text is just text.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .. import dates
from ..errors import descriptor_errno
from ..passage import Passage
from ..text import BODY_TOKENIZER, IDENT_TOKENIZER, analyzers, identifier_terms, number_units

if TYPE_CHECKING:
    import tantivy

WRITER_HEAP_BYTES = 128_000_000


def _schema() -> tantivy.Schema:
    import tantivy

    builder = tantivy.SchemaBuilder()
    builder.add_integer_field("row", stored=True, indexed=True, fast=True)
    builder.add_text_field("body", stored=False, tokenizer_name=BODY_TOKENIZER)
    builder.add_text_field("ident", stored=False, tokenizer_name=IDENT_TOKENIZER, index_option="freq")
    builder.add_text_field("acl", stored=False, tokenizer_name="raw", index_option="basic")
    builder.add_integer_field("valid_from", stored=False, indexed=True, fast=True)
    builder.add_integer_field("valid_until", stored=False, indexed=True, fast=True)
    return builder.build()


def open_bm25(path: Path) -> tantivy.Index:
    """Open (or, for an empty directory, create) the Tantivy index at ``path`` with ragcli's analyzers."""
    import tantivy

    if (path / "meta.json").exists():
        index = tantivy.Index.open(str(path))
    else:
        index = tantivy.Index(_schema(), path=str(path), reuse=True)
    for name, analyzer in analyzers().items():
        index.register_tokenizer(name, analyzer)
    return index


def valid_days(p: Passage) -> tuple[int, int]:
    """The passage's validity as day numbers, open bounds as the extremes of int32."""
    start = dates.day_number(p.effective_from) if p.effective_from else dates.OPEN_FROM
    end = dates.day_number(p.superseded_on) if p.superseded_on else dates.OPEN_UNTIL
    return start, end


def write_bm25(path: Path, passages: Sequence[Passage]) -> None:
    """Index ``passages`` in row order. Tantivy's I/O errors arrive as ValueError and leave as OSError."""
    import tantivy

    path.mkdir()
    try:
        index = open_bm25(path)
        writer = index.writer(heap_size=WRITER_HEAP_BYTES, num_threads=1)
        for row, p in enumerate(passages):
            doc = tantivy.Document()
            doc.add_integer("row", row)
            doc.add_text("body", p.index_text)
            doc.add_text("ident", " ".join([p.index_text, *number_units(p.index_text)]))
            for entry in p.acl:
                doc.add_text("acl", entry)
            start, end = valid_days(p)
            doc.add_integer("valid_from", start)
            doc.add_integer("valid_until", end)
            writer.add_document(doc)
        writer.commit()
        writer.wait_merging_threads()
    except ValueError as exc:  # disk full, too many open files
        code = descriptor_errno(exc)
        if code is not None:  # with its errno the error line names the limit and the way out (os_reason)
            raise OSError(code, os.strerror(code)) from None
        raise OSError(f"the BM25 index could not be written ({exc})") from None


def text_query(schema: tantivy.Schema, text: str) -> tantivy.Query | None:
    """A BM25 query built from tokens, never parsed; None when ``text`` has no searchable term.

    Stemmed terms go to the ``body`` field; identifier-looking tokens
    (``ERR_4021``, ``ORB-7731``, ``v2.3.1``) also go, whole, to ``ident``.
    """
    import tantivy

    clauses: list[tuple[tantivy.Occur, tantivy.Query]] = []
    for term in dict.fromkeys(analyzers()[BODY_TOKENIZER].analyze(text)):
        clauses.append((tantivy.Occur.Should, tantivy.Query.term_query(schema, "body", term, index_option="freq")))
    for token in identifier_terms(text):
        clauses.append((tantivy.Occur.Should, tantivy.Query.term_query(schema, "ident", token, index_option="freq")))
    if not clauses:
        return None
    return tantivy.Query.boolean_query(clauses)


def permission_query(schema: tantivy.Schema, acl_tokens: frozenset[str], day: int) -> tantivy.Query:
    """Rows carrying one of ``acl_tokens`` and valid on ``day`` (from <= day < until)."""
    import tantivy

    acl = tantivy.Query.term_set_query(schema, "acl", sorted(acl_tokens))
    starts = tantivy.Query.range_query(schema, "valid_from", tantivy.FieldType.Integer, None, day)
    ends = tantivy.Query.range_query(schema, "valid_until", tantivy.FieldType.Integer, day, None, include_lower=False)
    return tantivy.Query.boolean_query(
        [(tantivy.Occur.Must, acl), (tantivy.Occur.Must, starts), (tantivy.Occur.Must, ends)]
    )


def filtered_count(index: tantivy.Index, field: str, term: str, permission: tantivy.Query) -> int:
    """How many rows that pass ``permission`` hold ``term`` in ``field``."""
    import tantivy

    query = tantivy.Query.boolean_query(
        [
            (tantivy.Occur.Must, tantivy.Query.term_query(index.schema, field, term)),
            (tantivy.Occur.Must, tantivy.Query.const_score_query(permission, 0.0)),
        ]
    )
    # tantivy's stub omits SearchResult.count, which search(count=True) fills at run time.
    return int(index.searcher().search(query, limit=1, count=True).count)  # type: ignore[attr-defined]


def permitted_rows(index: tantivy.Index, permission: tantivy.Query, rows: Sequence[int]) -> set[int]:
    """Which of ``rows`` pass ``permission`` by Tantivy's own fields (the dense ranker's second opinion)."""
    import tantivy

    if not rows:
        return set()
    query = tantivy.Query.boolean_query(
        [
            (tantivy.Occur.Must, tantivy.Query.term_set_query(index.schema, "row", list(rows))),
            (tantivy.Occur.Must, tantivy.Query.const_score_query(permission, 0.0)),
        ]
    )
    searcher = index.searcher()
    result = searcher.search(query, limit=len(rows), count=False)
    return {int(searcher.doc(addr)["row"][0]) for _, addr in result.hits}


def filtered_search(
    index: tantivy.Index, scoring: tantivy.Query, permission: tantivy.Query, limit: int
) -> list[tuple[int, float]]:
    """(row, score) of the best ``limit`` rows that match ``scoring`` and pass ``permission``.

    The permission clause is a Must with a constant score of 0: it filters
    before the top-k cut and adds nothing to the score.
    """
    import tantivy

    final = tantivy.Query.boolean_query(
        [(tantivy.Occur.Must, scoring), (tantivy.Occur.Must, tantivy.Query.const_score_query(permission, 0.0))]
    )
    searcher = index.searcher()
    result = searcher.search(final, limit=limit, count=False)
    return [(int(searcher.doc(addr)["row"][0]), float(score)) for score, addr in result.hits]
