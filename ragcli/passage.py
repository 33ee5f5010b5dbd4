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
        """Where a person should look: the document's URL if it has one, else its file."""
        return self.source_url or self.source
