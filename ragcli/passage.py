"""``Passage``: the unit every layer shares. Imports nothing from the package.

The chunker makes passages, the index stores them, search ranks them, the
answer loop cites them. A passage carries everything the permission filter
needs (tenant, ACL, validity dates) beside its text and where it came from.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

HEADING_SEPARATOR = " › "


def passage_id(doc_id: str, version: str, section: str) -> str:
    """A passage's ID, ``{doc_id}@{version}#{section}``: the one format every layer reads back with the three below."""
    return f"{doc_id}@{version}#{section}"


def doc_of(pid: str) -> str:
    """The ``doc_id`` of a passage ID (the part before the first ``@``)."""
    return pid.split("@", 1)[0]


def document_version_of(pid: str) -> str:
    """``{doc_id}@{version}`` of a passage ID: one version of one document (no ``#`` in a section key)."""
    return pid.rpartition("#")[0]


def section_of(pid: str) -> str:
    """The section key of a passage ID (the part after the last ``#``)."""
    return pid.rpartition("#")[2]


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
    pages: tuple[int, ...] = ()
    """The PDF pages (1-based) its text comes from, in order; () for every other format."""
    ocr: bool = False
    """Whether its text was read by OCR from a scanned PDF page (it may hold misread words)."""
    blocks: tuple[Any, ...] | None = field(default=None, compare=False, repr=False)
    """The top-level blocks of ``text`` (``structure.blocks(text)``, ``structure.Block``s: typed loosely, as this
    module imports nothing) as the chunker read them off its document's one parse, so ingest cuts its units without
    parsing it again; None when not known (read from an index, or a part the chunker cannot follow):
    ``units.unit_spans`` parses the text then. Not stored, not compared."""

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
        the ingested folder; never an absolute local path unless the index predates relative paths. A PDF
        passage's link opens its first page (``policy.pdf#page=12``, the fragment PDF viewers follow)."""
        where = self.source_url or self.path or self.source
        return f"{where}#page={self.pages[0]}" if self.pages and "#" not in where else where

    @property
    def page_label(self) -> str:
        """``p. 12``, ``pp. 12-13`` (a range when the pages follow on), ``pp. 3, 7``; "" without pages."""
        if not self.pages:
            return ""
        if len(self.pages) == 1:
            return f"p. {self.pages[0]}"
        consecutive = list(self.pages) == list(range(self.pages[0], self.pages[-1] + 1))
        return f"pp. {self.pages[0]}-{self.pages[-1]}" if consecutive else "pp. " + ", ".join(map(str, self.pages))

    @property
    def location(self) -> str:
        """How text output cites it: ``policy.pdf, p. 12`` (a URL keeps its ``#page=12``); else ``shown_source``.

        The one place a citation's location is written for people: search, ask and their Markdown output."""
        if not self.pages:
            return self.shown_source
        where = self.shown_source if self.source_url else (self.path or self.source)
        return f"{where}, {self.page_label}" + (" (OCR)" if self.ocr else "")

    @property
    def own_text(self) -> str:
        """``text`` without what it carries from the part before: what this part adds, for snippets."""
        return self.text[self.carried :].lstrip() or self.text
