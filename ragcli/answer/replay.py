"""Replaying a trace: re-run a traced run's searches and say whether each ranking matches.

A trace line holds the scope (user, tenant, groups, as-of date), the index
generation, the search settings and, per search, each ranker's kept
candidates with rank and score and the fused selection. Replaying runs every
search again with those settings on the same generation (it is refused on
another: a re-ingest changes rankings by design), so a ranking that differs
points at the code, the model or the machine, not the data. Useful in CI
when an eval gate starts failing.

A replay runs as the caller, never as the trace says: the caller's principal
(a user file) must be the traced one (user, tenant and groups), or the replay
is refused naming the field that differs. The traced day stands, within the
bound the user file sets. IDs the replay prints come from the trace itself
or from searches the caller may run; none is a passage the caller may not see
on the traced day. With ``current`` a trace whose generation is gone is
replayed on the published one: per search the ranking differences and which
traced passage IDs still exist unchanged, changed (same document, new ID) or
vanished (``currency``).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from pydantic import ValidationError

from ..errors import InputError, RagcliError, json_object, os_reason, plain_validation_message
from ..passage import doc_of
from ..principal import Principal, Scope
from ..record import Record
from ..search import Retriever, SearchConfig
from .currency import Currency, currency_of
from .trace import NOT_RETRIEVED, Trace, TraceSearch, ranking

SCORE_TOLERANCE = 1e-4
"""Scores are traced to 6 decimals; float32 sums may differ in the last places across builds."""
MAX_DIFFERENCES = 3
"""Differences listed per ranker: the first ones say what changed."""


class ReplaySearch(Record):
    query: str
    match: bool
    differences: list[str]
    """What differs, by passage ID and rank (never passage text)."""
    passages: Currency | None = None
    """With ``--current``: what became of the passages this search selected when it was traced."""


class ReplayRun(Record):
    request_id: str
    user: str
    tenant: str
    groups: list[str]
    as_of: dt.date
    generation: str
    """The generation replayed on (the traced one, or with ``--current`` the published one)."""
    traced_generation: str
    match: bool
    searches: list[ReplaySearch]
    cited: Currency | None = None
    """With ``--current``: what became of the passages the run's answer cited."""

    @property
    def cited_unchanged(self) -> bool:
        return self.cited is None or not (self.cited.changed or self.cited.vanished)


class ReplayReport(Record):
    """What ``ragcli trace replay --json`` prints."""

    match: bool
    runs: list[ReplayRun]
    current: bool = False
    """Replayed on the published generation (``--current``): the exit code then says whether every cited passage
    still exists unchanged."""
    cited_unchanged: bool = True


def read_traces(arg: str) -> list[Trace]:
    """Trace lines from ``arg``: one JSON line itself, or a file of them."""
    if arg.lstrip().startswith("{"):
        lines, name = [arg], "the trace line"
    else:
        try:
            lines, name = Path(arg).read_text(encoding="utf-8").splitlines(), arg
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise InputError(f"cannot read trace file {arg}: {os_reason(exc)}") from None
    traces = [
        _parse(raw, f"{name}:{n}" if name != "the trace line" else name)
        for n, raw in enumerate(lines, start=1)
        if raw.strip()
    ]
    if not traces:
        raise InputError(f"{name} holds no trace lines")
    return traces


def _parse(raw: str, where: str) -> Trace:
    data = json_object(raw, where=where, not_object="a trace line is a JSON object")
    try:
        trace = Trace.model_validate(data)
    except ValidationError as exc:
        raise InputError(f"not a trace line: {plain_validation_message(exc, where=where)}") from None
    if trace.generation is None or trace.search_config is None:
        raise InputError(
            f"{where}: this trace was written before traces recorded the index generation; it cannot be replayed"
        )
    return trace


def replay_traces(
    traces: list[Trace], retriever: Retriever, caller: Principal, *, current: bool = False
) -> ReplayReport:
    """Replay every trace as ``caller`` (each must be the caller's own); ``current``: on the published generation."""
    runs = [replay(trace, retriever, caller, current=current) for trace in traces]
    return ReplayReport(
        match=all(r.match for r in runs),
        runs=runs,
        current=current,
        cited_unchanged=all(r.cited_unchanged for r in runs),
    )


def replay(trace: Trace, retriever: Retriever, caller: Principal, *, current: bool = False) -> ReplayRun:
    """Re-run ``trace``'s searches as ``caller`` on the traced day, with its settings, on its generation
    (``current``: on the published one, saying what became of the traced passages)."""
    scope = _scope(trace, caller)
    published = retriever.index_for(scope.tenant).generation
    if published != trace.generation and not current:
        raise InputError(
            f"run {trace.request_id} was traced on generation {trace.generation} of tenant '{scope.tenant}', "
            f"but {published} is published now: a ranking can only be replayed on the generation it was traced on "
            "(--current replays it on the published one and says what became of its passages)"
        )
    config = _config(trace)
    today = _SeenToday(retriever, caller, scope)
    lookup = (lambda doc_ids: today.only(retriever.ids_of_documents(scope, doc_ids))) if current else None
    searches = []
    for traced in trace.searches:
        response = retriever.search(scope, traced.query, config=config)
        differences = [
            *_ranking_differences("bm25", traced.bm25, today.ranking(ranking(response.bm25_candidates))),
            *_ranking_differences("dense", traced.dense, today.ranking(ranking(response.dense_candidates))),
            *_selected_differences(traced, today.ids(response.ids)),
        ]
        passages = currency_of(lookup, traced.selected) if lookup is not None else None
        searches.append(
            ReplaySearch(query=traced.query, match=not differences, differences=differences, passages=passages)
        )
    cited = [pid for d in trace.decisions for pid in d.cited or () if pid != NOT_RETRIEVED]
    return ReplayRun(
        request_id=trace.request_id,
        user=trace.user,
        tenant=trace.tenant,
        groups=trace.groups,
        as_of=trace.as_of,
        generation=published,
        traced_generation=trace.generation or "",
        match=all(s.match for s in searches),
        searches=searches,
        cited=currency_of(lookup, cited) if lookup is not None else None,
    )


HIDDEN_TODAY = "(a passage you may not see today)"


class _SeenToday:
    """IDs a search printed, kept only if the caller may see them today as well (a trace may pin a past day)."""

    def __init__(self, retriever: Retriever, caller: Principal, scope: Scope) -> None:
        self._retriever = retriever
        self._today = Scope.of(caller)
        self._same_day = self._today.as_of == scope.as_of
        self._visible: dict[str, set[str]] = {}

    def _seen(self, pid: str) -> bool:
        if self._same_day:
            return True
        doc = doc_of(pid)
        if doc not in self._visible:
            found = self._retriever.ids_of_documents(self._today, [doc])
            self._visible[doc] = set(found.get(doc, ()))
        return pid in self._visible[doc]

    def ids(self, ids: list[str]) -> list[str]:
        return [i if self._seen(i) else HIDDEN_TODAY for i in ids]

    def ranking(self, entries: list[tuple[str, int, float]]) -> list[tuple[str, int, float]]:
        return [(i if self._seen(i) else HIDDEN_TODAY, r, s) for i, r, s in entries]

    def only(self, by_document: dict[str, list[str]]) -> dict[str, list[str]]:
        return {doc: [i for i in ids if self._seen(i)] for doc, ids in by_document.items()}


def _scope(trace: Trace, caller: Principal) -> Scope:
    """The caller on the traced day; refused when the trace names another principal (the field, not its value)."""
    if trace.user != caller.user:
        field = "user"
    elif trace.tenant != caller.tenant:
        field = "tenant"
    elif sorted(set(trace.groups)) != sorted(set(caller.groups)):
        field = "groups"
    else:
        return Scope.of(caller, trace.as_of)
    raise InputError(
        f"run {trace.request_id[:40]}: the trace's {field} differs from the user file's; a trace is replayed only "
        "as the principal who ran it"
    )


def _config(trace: Trace) -> SearchConfig:
    # A trace written before the per-document limit existed was ranked without one.
    settings = {"per_doc": 0, **(trace.search_config or {})}
    try:
        return SearchConfig(**settings)
    except TypeError as exc:
        raise InputError(f"run {trace.request_id}: search_config is not one this ragcli knows ({exc})") from None
    except RagcliError as exc:
        raise InputError(f"run {trace.request_id}: search_config: {exc.message}") from None


def _ranking_differences(
    name: str, traced: list[tuple[str, int, float]], now: list[tuple[str, int, float]]
) -> list[str]:
    out = []
    if len(traced) != len(now):
        out.append(f"{name}: traced {len(traced)} kept candidates, now {len(now)}")
    for (tid, trank, tscore), (nid, nrank, nscore) in zip(traced, now, strict=False):
        if (tid, trank) != (nid, nrank):
            out.append(f"{name} rank {trank}: traced {tid}, now {nid}")
        elif abs(tscore - nscore) > SCORE_TOLERANCE * max(1.0, abs(tscore)):
            out.append(f"{name} score of {tid}: traced {tscore}, now {nscore}")
    extra = [f"{name} rank {r}: now {i}, not traced" for i, r, _ in now[len(traced) :]]
    return (out + extra)[:MAX_DIFFERENCES]


def _selected_differences(traced: TraceSearch, now: list[str]) -> list[str]:
    if traced.selected == now:
        return []
    for rank, (t, n) in enumerate(zip(traced.selected, now, strict=False), start=1):
        if t != n:
            return [f"selected rank {rank}: traced {t}, now {n}"]
    return [f"selected: traced {len(traced.selected)} results, now {len(now)}"]
