"""``View``: a generation as one scope (principal + as-of date) may see it.

The only way to rank or fetch passages. The permission mask (ACL entries of
the principal, validity on the as-of day) is built once per view, when first
needed (a BM25-only search checks just its hits' rows by the same rule);
BM25 filters inside Tantivy with the same rule and is re-checked against
the mask; dense scoring keeps the scores of allowed rows only (``dense``), and its hits
are checked once more against Tantivy's permission filter (defence in depth:
a damaged or edited mask cannot widen the dense ranker alone); ``passage``
refuses a row outside the mask, and every row it reads must carry the
tenant, an ACL entry of the scope and validity on its day, or the index is
reported damaged. A denied passage's text, score or ID never leaves this
module.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Protocol

from ..errors import IndexCorruptError, InputError
from ..passage import Passage, doc_of
from ..principal import Scope
from .bm25 import filtered_count, filtered_search, permission_query, permitted_rows, text_query

if TYPE_CHECKING:
    import numpy as np
    import tantivy

    from .dense import MappedMatrix, Spans
    from .int8_scan import BlockSpans, QuantizedMatrix
    from .manifest import Manifest
    from .rows import RowFile


class Generation(Protocol):
    """What a view reads of one opened generation. ``reader.TenantIndex`` is one; naming it here keeps the
    view below the reader (the reader opens views, the view never imports the reader)."""

    tenant: str
    manifest: Manifest
    _bm25: tantivy.Index
    _rows: RowFile

    # The arrays: read-only here, mapped by the reader when first asked for.
    @property
    def acl(self) -> np.ndarray:
        """Per row and ACL entry of ``manifest.groups``: may the entry read the row."""

    @property
    def valid_from(self) -> np.ndarray: ...

    @property
    def valid_until(self) -> np.ndarray: ...

    @property
    def embeddings(self) -> np.ndarray: ...

    @property
    def vectors(self) -> MappedMatrix:
        """The float32 vectors (``embeddings`` is their array), mapped."""

    @property
    def quantized(self) -> QuantizedMatrix | None:
        """Their int8 codes, when the generation has them."""

    @property
    def size(self) -> int: ...

    @property
    def generation(self) -> str: ...

    def check_model(self, model_id: str, sha256: str) -> None: ...

    def units_of(self, row: int) -> np.ndarray | None: ...

    def row_permitted(self, row: int, columns: Sequence[int], day: int) -> bool: ...


@dataclass(frozen=True)
class Hit:
    """A ranked row that passed the permission filter."""

    row: int
    score: float


class View:
    """What ``scope`` may see of ``index``; build one with ``TenantIndex.view(scope)``."""

    def __init__(self, index: Generation, scope: Scope) -> None:
        if scope.tenant != index.tenant:
            # Defence in depth: the caller picked this index from the principal.
            raise InputError(f"principal of tenant '{scope.tenant}' cannot read tenant '{index.tenant}'")
        self.index = index
        self.scope = scope
        self._columns = [i for i, g in enumerate(index.manifest.groups) if g in scope.acl_tokens]
        """The ACL entries of ``manifest.groups`` this scope holds."""

    @cached_property
    def mask(self) -> np.ndarray:
        """Boolean per row: may this scope see it. Built when first needed (dense ranking, counting): a BM25
        search checks only its hits' rows (``_visible``), without numpy."""
        import numpy as np

        index = self.index
        columns = self._columns
        acl_ok = index.acl[:, columns].any(axis=1) if columns else np.zeros(index.size, dtype=bool)
        day = self.scope.day
        mask: np.ndarray = acl_ok & (index.valid_from <= day) & (day < index.valid_until)
        return mask

    def _visible(self, row: int) -> bool:
        """``mask[row]``: read from the mask once it is built, else from the row's own permission columns (the same
        rule on the same files: ``TenantIndex.row_permitted``)."""
        if not 0 <= row < self.index.size:
            return False
        if "mask" in self.__dict__:
            return bool(self.mask[row])
        return self.index.row_permitted(row, self._columns, self.scope.day)

    @cached_property
    def allowed_rows(self) -> np.ndarray:
        """Row numbers of the mask, ascending."""
        import numpy as np

        return np.flatnonzero(self.mask)

    @property
    def generation(self) -> str:
        return self.index.generation

    # -- rankers ----------------------------------------------------------------

    def bm25(self, text: str, limit: int) -> list[Hit]:
        """BM25 over the allowed rows; the permission clauses add nothing to the score."""
        bm25 = self.index._bm25
        scoring = text_query(bm25.schema, text)
        if scoring is None or self.index.size == 0:
            return []
        permission = permission_query(bm25.schema, self.scope.acl_tokens, self.scope.day)
        try:
            found = filtered_search(bm25, scoring, permission, limit)
        except ValueError as exc:
            raise IndexCorruptError.damaged(self.index.tenant, f"BM25 search failed ({exc})") from None
        # Belt and braces: the same rule computed from the permission columns.
        return [Hit(row, score) for row, score in found if self._visible(row)]

    def identifier_matches(self, identifiers: Sequence[str], limit: int) -> list[Hit]:
        """Allowed rows holding any of ``identifiers`` (as the ident field spells them), best first.

        A row holding more of them ranks first; among equals, the higher BM25
        score of the identifiers alone. ``Hit.score`` is that summed score.
        """
        import tantivy

        bm25 = self.index._bm25
        permission = permission_query(bm25.schema, self.scope.acl_tokens, self.scope.day)
        held: dict[int, tuple[int, float]] = {}
        try:
            for term in dict.fromkeys(identifiers):
                query = tantivy.Query.term_query(bm25.schema, "ident", term, index_option="freq")
                for row, score in filtered_search(bm25, query, permission, limit):
                    if self._visible(row):
                        count, total = held.get(row, (0, 0.0))
                        held[row] = (count + 1, total + score)
        except ValueError as exc:
            raise IndexCorruptError.damaged(self.index.tenant, f"BM25 search failed ({exc})") from None
        order = sorted(held, key=lambda row: (-held[row][0], -held[row][1], row))
        return [Hit(row, held[row][1]) for row in order]

    def term_counts(self, terms: Sequence[str], field: str = "body") -> dict[str, int]:
        """For each analysed term of ``field`` (``body`` or ``ident``), how many passages this scope may see hold it.

        Counted over the visible rows only, so what a principal may not see never
        changes the answer (a forbidden page and a missing one count the same).
        """
        bm25 = self.index._bm25
        permission = permission_query(bm25.schema, self.scope.acl_tokens, self.scope.day)
        try:
            return {t: filtered_count(bm25, field, t, permission) for t in dict.fromkeys(terms)}
        except ValueError as exc:
            raise IndexCorruptError.damaged(self.index.tenant, f"BM25 search failed ({exc})") from None

    @cached_property
    def spans(self) -> Spans:
        """The windows of the matrix that hold the allowed rows (``dense.Spans``), found once per view."""
        from .dense import Spans

        return Spans.of(self.allowed_rows, self.index.vectors.row_bytes)

    @cached_property
    def block_spans(self) -> BlockSpans | None:
        """The windows of the int8 codes' blocks that hold the allowed rows (``int8_scan.BlockSpans``), found once
        per view; None when the generation has no codes."""
        quantized = self.index.quantized
        return quantized.spans(self.allowed_rows) if quantized is not None else None

    def dense(self, vector: np.ndarray, limit: int, *, exact: bool = False) -> list[Hit]:
        """Cosine similarity over allowed rows only: no denied vector enters a kept score (``dense``).

        With the generation's int8 codes (written by default at ingest) and not ``exact``: the quantized scan,
        its best ``dense.RESCORE_CANDIDATES`` rescored exactly; else every allowed row scored in float32. A view
        of at most that many rows is scored exactly: the rescoring would score every one of them anyway.
        """
        from .dense import RESCORE_CANDIDATES, allowed_scores, rescored, top

        rows = self.allowed_rows
        if rows.size == 0 or limit <= 0:
            return []
        quantized = self.index.quantized
        scan = quantized is not None and not exact and rows.size > max(limit, RESCORE_CANDIDATES)
        block_spans = self.block_spans if scan else None
        if quantized is not None and block_spans is not None:
            approximate = quantized.approximate_scores(block_spans, vector)
            best, scores = rescored(self.index.vectors, approximate, rows, vector, limit)
        else:
            best, scores = top(allowed_scores(self.index.vectors, self.spans, vector), rows, limit)
        hits = [Hit(int(r), float(s)) for r, s in zip(best.tolist(), scores.tolist(), strict=True)]
        bm25 = self.index._bm25
        permission = permission_query(bm25.schema, self.scope.acl_tokens, self.scope.day)
        try:
            confirmed = permitted_rows(bm25, permission, [h.row for h in hits])
        except ValueError as exc:
            raise IndexCorruptError.damaged(self.index.tenant, f"BM25 search failed ({exc})") from None
        return [h for h in hits if h.row in confirmed]

    # -- passages ---------------------------------------------------------------

    def passage(self, row: int) -> Passage:
        """The passage at ``row``, which must be one this scope may see (and whose record must say so too)."""
        self._check_visible(row)
        return self._read(row)

    def _read(self, row: int) -> Passage:
        """Row ``row``'s passage, after checking that its own record carries this tenant, an ACL entry of the
        scope and validity on its day: the mask chose the row, the record must agree."""
        p = self.index._rows.passage(row)
        scope = self.scope
        valid = (p.effective_from is None or p.effective_from <= scope.as_of) and (
            p.superseded_on is None or scope.as_of < p.superseded_on
        )
        if p.tenant != self.index.tenant or not scope.acl_tokens.intersection(p.acl) or not valid:
            raise IndexCorruptError.damaged(
                self.index.tenant, f"row {row} does not carry the permissions its acl.npy and date columns give it"
            )
        return p

    def passage_id(self, row: int) -> str:
        """The ID of the passage at ``row``, which must be one this scope may see."""
        self._check_visible(row)
        return self.index._rows.passage_id(row)

    def passages(self, rows: Sequence[int]) -> list[Passage]:
        return [self.passage(r) for r in rows]

    def neighbours(self, row: int, steps: Sequence[int] = (-1, 1)) -> list[Passage]:
        """The passages ``steps`` rows from ``row`` (-1: just before, 1: just after) in the same document version,
        those this scope may see.

        A document's passages are stored in reading order, so these are the sections a passage
        points at with "the table above" or "see below". A neighbour the scope may not see is
        never returned, whatever the passage says.
        """
        here = self.passage(row)
        out = []
        for r in (row + step for step in steps):
            if self._visible(r):
                p = self._read(r)
                if (p.doc_id, p.version) == (here.doc_id, here.version):
                    out.append(p)
        return out

    def unit_vectors(self, row: int) -> np.ndarray | None:
        """The vectors of the units of the passage at ``row`` (one per ``units.unit_spans`` span), which must
        be one this scope may see; None when the generation stores none."""
        self._check_visible(row)
        return self.index.units_of(row)

    def ids_of_documents(self, doc_ids: Iterable[str]) -> dict[str, list[str]]:
        """The IDs of the visible passages of each of ``doc_ids`` (one ID read per visible row; for replays, not
        searches)."""
        wanted = set(doc_ids)
        out: dict[str, list[str]] = {}
        for row in self.allowed_rows:
            pid = self.index._rows.passage_id(int(row))
            doc = doc_of(pid)
            if doc in wanted:
                out.setdefault(doc, []).append(pid)
        return out

    def _check_visible(self, row: int) -> None:
        if not self._visible(row):
            raise InputError(f"row {row} is not visible to this scope")

    def count(self) -> int:
        """How many passages this scope may see."""
        return int(self.allowed_rows.size)
