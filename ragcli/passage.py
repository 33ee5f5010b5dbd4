"""``Passage``: the unit every layer shares. Imports nothing from the package.

The chunker makes passages, the index stores them, search ranks them, the
answer loop cites them. A passage carries everything the permission filter
needs (tenant, ACL, validity dates) beside its text and where it came from.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

HEADING_SEPARATOR = " › "


@dataclass(frozen=True)
class Passage:
    """One retrievable unit of text, with everything the permission filter needs."""

    id: str
    """``{doc_id}@{version}#{section}``: stable while the content is unchanged."""
    doc_id: str
    version: str
    section: str
    """The section key: the heading's slug, with ``-2``, ``-3`` for later parts."""
    tenant: str
    acl: tuple[str, ...]
    """Groups (or ``user:NAME`` entries) that may read it."""
    effective_from: dt.date | None
    """First day it is visible; None = always was."""
    superseded_on: dt.date | None
    """First day it is no longer visible; None = still is."""
    title: str
    heading_path: tuple[str, ...]
    source: str
    """The file (or ``file:line`` of a JSONL corpus) it was read from."""
    source_url: str | None
    text: str
    path: str = ""
    """The file relative to the folder it was ingested from (``guides/setup.md``, ``corpus.jsonl:12``);
    empty for an index written before paths were recorded."""
    carried: int = 0
    """How many leading characters of ``text`` repeat the part before it: the sentence that introduces a
    split code block, list or table, carried into every part for its meaning. A snippet starts after them."""

    @property
    def heading_label(self) -> str:
        """``Title › Section › Subsection``, as shown to people and models."""
        return HEADING_SEPARATOR.join((self.title, *self.heading_path))

    @property
    def index_text(self) -> str:
        """What both rankers see: the title and heading path belong to the passage's meaning."""
        return f"{self.heading_label}\n\n{self.text}"

    @property
    def shown_source(self) -> str:
        """Where a person (or a model) should look: the document's URL if it has one, else its file relative to
        the ingested folder; never an absolute local path unless the index predates relative paths."""
        return self.source_url or self.path or self.source

    @property
    def own_text(self) -> str:
        """``text`` without what it carries from the part before: what this part adds, for snippets."""
        return self.text[self.carried :].lstrip() or self.text
