"""Where an asked eval's time and money went, and how the agent path behaved. Pure, over the per-case rows.

    by outcome   latency p50 / p95 of the answer, tokens per case and cost of
                 the cases answered right, answered wrong, abstained right and
                 abstained wrong
    by reason    the same for each abstention's reason code
    searches     cases by how many searches their run made
    researched   share of runs that searched again after the question's own search
    repair rate  of those, on cases with ``relevant`` labels: the share whose
                 later searches found a relevant passage the first did not
    query drift  share of the model's queries refused for losing a kept term
                 of the question (``answer.drift``)

Computed from ``CaseJson`` rows, the same rows a ``--json`` report holds.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ..answer.trace import Trace
from .metrics import label_matches, mean
from .wire import OUTCOMES, Breakdown, CaseJson, EvalJson, Group, Latency


def breakdown(rows: Sequence[CaseJson]) -> Breakdown:
    by_outcome = {name: [r for r in rows if r.outcome == name] for name in OUTCOMES}
    reasons = sorted({r.reason for r in rows if r.reason is not None})
    by_reason = {reason: [r for r in rows if r.reason == reason] for reason in reasons}
    searches = Counter(r.searches for r in rows if r.searches is not None)
    return Breakdown(
        by_outcome={name: _group(group) for name, group in by_outcome.items()},
        by_reason={reason: _group(group) for reason, group in by_reason.items()},
        searches={str(n): searches[n] for n in sorted(searches)},
    )


def _group(rows: Sequence[CaseJson]) -> Group:
    return Group(
        cases=len(rows),
        ask_ms=Latency.of([r.ask_ms or 0.0 for r in rows]),
        tokens_per_case=round(mean([float(r.tokens or 0) for r in rows]) or 0.0, 1),
        cost_usd=_cost(rows),
    )


def _cost(rows: Sequence[CaseJson]) -> float | None:
    """The rows' total cost; a row that spent tokens without a price makes it unknown."""
    if any(r.cost_usd is None and (r.tokens or 0) > 0 for r in rows):
        return None
    return round(sum(r.cost_usd or 0.0 for r in rows), 6)


def add_agent_path(data: EvalJson) -> None:
    """The agent-path numbers of an asked report, from its rows: query drift, re-searches, repairs, fallbacks."""
    rows = data.cases
    queries = sum(r.model_queries or 0 for r in rows)
    data.model_queries = queries
    data.query_drift = round(sum(r.drifted_queries or 0 for r in rows) / queries, 4) if queries else None
    data.researched = round(mean([1.0 if (r.searches or 0) > 1 else 0.0 for r in rows]) or 0.0, 4)
    repairs = [1.0 if r.repaired else 0.0 for r in rows if r.repaired is not None]
    data.repair_rate = round(sum(repairs) / len(repairs), 4) if repairs else None
    data.parts_fallbacks = sum(1 for r in rows if r.fell_back)
    data.breakdown = breakdown(rows)


# --------------------------------------------------------------------------- from one run's trace


def model_queries(trace: Trace) -> tuple[int, int]:
    """(decisions that carried a query the model wrote, those refused for query drift)."""
    carried = [
        d
        for d in trace.decisions
        if d.kind in ("search", "parts") or (d.kind == "grade" and d.query is not None) or d.repair == "query_drift"
    ]
    return len(carried), sum(1 for d in carried if d.repair == "query_drift")


def repaired(trace: Trace, relevant: Sequence[str]) -> bool | None:
    """Whether a search after the question's own found a relevant passage it did not; None when the run did not
    search again or the case has no relevant labels."""
    if len(trace.searches) < 2 or not relevant:
        return None
    first = set(trace.searches[0].selected)
    later = {pid for s in trace.searches[1:] for pid in s.new if pid not in first}
    return any(label_matches(label, pid) for label in relevant for pid in later)


def fell_back(trace: Trace) -> bool:
    return any(d.repair == "parts_fallback" for d in trace.decisions)
