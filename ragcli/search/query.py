"""The query as search sees it: plain text, normalised, bounded."""

from __future__ import annotations

import unicodedata

from ..errors import InputError

MAX_QUERY_CHARS = 1000
"""Longer queries are cut (with a note): nobody types more, and BM25 cost grows with terms."""


def clean_query(text: str) -> tuple[str, list[str]]:
    """Normalise a query (NFKC, control characters out, one space, length capped); raise on an empty one."""
    notes: list[str] = []
    text = unicodedata.normalize("NFKC", text)
    text = "".join(" " if unicodedata.category(c).startswith("C") else c for c in text)
    text = " ".join(text.split())
    if not text:
        raise InputError("empty query: give the words to search for")
    if len(text) > MAX_QUERY_CHARS:
        text = text[:MAX_QUERY_CHARS].rsplit(" ", 1)[0] or text[:MAX_QUERY_CHARS]
        notes.append(f"query cut to its first {len(text)} characters")
    return text, notes
