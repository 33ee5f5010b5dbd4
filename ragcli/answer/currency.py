"""What became of a trace's passage IDs on the published generation (``ragcli trace replay --current``).

A passage ID names one text (its version carries the text's hash), so an ID
that still exists is the same text: *unchanged*. An ID that is gone while its
document still has passages the caller may see was edited: *changed* (same
document, new ID; ``now`` lists the new IDs of the same section, if any). An
ID whose document the caller can no longer see at all is *vanished*. Only
passages the caller may see count: a hidden passage is vanished, never
"unchanged".
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from pydantic import Field

from ..passage import doc_of, section_of
from ..record import Record


class Changed(Record):
    id: str
    """The traced ID."""
    now: list[str]
    """The IDs of the same document and section now (empty when the section itself is gone)."""


class Currency(Record):
    """Traced passage IDs, by what became of them."""

    unchanged: list[str] = Field(default_factory=list)
    changed: list[Changed] = Field(default_factory=list)
    vanished: list[str] = Field(default_factory=list)


IdsOfDocuments = Callable[[Iterable[str]], Mapping[str, Sequence[str]]]
"""doc IDs -> the IDs of their passages the caller may see now (``Retriever.ids_of_documents`` for a scope)."""


def currency_of(lookup: IdsOfDocuments, traced: Iterable[str]) -> Currency:
    ids = list(dict.fromkeys(traced))
    visible = lookup({doc_of(i) for i in ids})
    out = Currency()
    for pid in ids:
        now = visible.get(doc_of(pid), ())
        if pid in now:
            out.unchanged.append(pid)
        elif now:
            out.changed.append(Changed(id=pid, now=[n for n in now if section_of(n) == section_of(pid)]))
        else:
            out.vanished.append(pid)
    return out
