"""Replaying a trace: re-run a traced run's searches and say whether each ranking matches.

A trace line holds the scope (user, tenant, groups, as-of date), the index
generation, the search settings and, per search, each ranker's kept
candidates with rank and score and the fused selection. Replaying runs every
search again as that scope with those settings on the same generation (it is
refused on another: a re-ingest changes rankings by design), so a ranking
that differs points at the code, the model or the machine, not the data.
Useful in CI when an eval gate starts failing.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from pydantic import BaseModel, ValidationError

from ..errors import InputError, RagcliError, json_object, plain_validation_message
from ..principal import Principal, Scope
from ..search import Retriever, SearchConfig
from .trace import Trace, TraceSearch, ranking

SCORE_TOLERANCE = 1e-4
"""Scores are traced to 6 decimals; float32 sums may differ in the last places across builds."""
MAX_DIFFERENCES = 3
"""Differences listed per ranker: the first ones say what changed."""


class ReplaySearch(BaseModel):
    query: str
    match: bool
    differences: list[str]
    """What differs, by passage ID and rank (never passage text)."""


class ReplayRun(BaseModel):
    request_id: str
    user: str
    tenant: str
    groups: list[str]
    as_of: dt.date
    generation: str
    match: bool
    searches: list[ReplaySearch]


class ReplayReport(BaseModel):
    """What ``ragcli trace replay --json`` prints."""

    match: bool
    runs: list[ReplayRun]


def read_traces(arg: str) -> list[Trace]:
    """Trace lines from ``arg``: one JSON line itself, or a file of them."""
    if arg.lstrip().startswith("{"):
        lines, name = [arg], "the trace line"
    else:
        try:
            lines, name = Path(arg).read_text(encoding="utf-8").splitlines(), arg
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise InputError(f"cannot read trace file {arg}: {getattr(exc, 'strerror', None) or exc}") from None
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


def replay_traces(traces: list[Trace], retriever: Retriever) -> ReplayReport:
    runs = [replay(trace, retriever) for trace in traces]
    return ReplayReport(match=all(r.match for r in runs), runs=runs)


def replay(trace: Trace, retriever: Retriever) -> ReplayRun:
    """Re-run ``trace``'s searches as its scope, with its settings, on its generation."""
    scope = _scope(trace)
    published = retriever.index_for(scope.tenant).generation
    if published != trace.generation:
        raise InputError(
            f"run {trace.request_id} was traced on generation {trace.generation} of tenant '{scope.tenant}', "
            f"but {published} is published now: a ranking can only be replayed on the generation it was traced on"
        )
    config = _config(trace)
    searches = []
    for traced in trace.searches:
        response = retriever.search(scope, traced.query, config=config)
        differences = [
            *_ranking_differences("bm25", traced.bm25, ranking(response.bm25_candidates)),
            *_ranking_differences("dense", traced.dense, ranking(response.dense_candidates)),
            *_selected_differences(traced, response.ids),
        ]
        searches.append(ReplaySearch(query=traced.query, match=not differences, differences=differences))
    return ReplayRun(
        request_id=trace.request_id,
        user=trace.user,
        tenant=trace.tenant,
        groups=trace.groups,
        as_of=trace.as_of,
        generation=trace.generation or "",
        match=all(s.match for s in searches),
        searches=searches,
    )


def _scope(trace: Trace) -> Scope:
    try:
        principal = Principal(user=trace.user, tenant=trace.tenant, groups=tuple(trace.groups))
    except ValidationError as exc:
        raise InputError(plain_validation_message(exc, where=f"run {trace.request_id}: principal")) from None
    return Scope.of(principal, trace.as_of)


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
