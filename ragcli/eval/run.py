"""Running cases: one search per case, and the answer loop with ``--ask``.

Everything runs in one process with each tenant's index opened once. Every
passage ID a case's principal was shown (results, and with ``--ask`` the
evidence and citations) is checked against its ``forbidden`` labels.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from ..answer import Answered, Answerer, ask
from ..errors import InputError
from ..search import Retriever
from .breakdown import fell_back, model_queries, repaired
from .cases import Case
from .gates import Gates
from .metrics import label_matches, retrieval_scores
from .report import CaseResult, EvalReport


def evaluate(
    cases: Sequence[Case],
    retriever: Retriever,
    *,
    k: int = 10,
    answerer: Answerer | None = None,
    gates: Gates | None = None,
    progress: Callable[[], None] | None = None,
) -> EvalReport:
    """Run every case (search, and the answer loop when ``answerer`` is given) and apply the gates.

    ``answerer``: the model, the limits of each case's run and, with ``--verify``, the verifier that judges the
    claims of every answer a second time (see ``answer.loop.ask``).
    """
    _open_every_tenant(cases, retriever)
    _warm_up(cases, retriever)
    results = []
    for case in cases:
        results.append(_run_case(case, retriever, k, answerer))
        if progress is not None:
            progress()
    return EvalReport.of(results, k=k, model=answerer.model.name if answerer else None, gates=gates or Gates())


def _open_every_tenant(cases: Sequence[Case], retriever: Retriever) -> None:
    """Fail on an unknown tenant before running anything, naming its first line."""
    first_of_tenant: dict[str, Case] = {}
    for c in cases:
        first_of_tenant.setdefault(c.scope.tenant, c)
    for tenant, case in first_of_tenant.items():
        try:
            retriever.index_for(tenant)
        except InputError as exc:
            raise InputError(f"line {case.line}: {exc.message}") from None


WARM_UP_QUERY = "warm up the rankers"
"""Not a case's text: the query vector cache must not make a timed search look fast."""


def _warm_up(cases: Sequence[Case], retriever: Retriever) -> None:
    """One untimed search per tenant, so no case's latency includes loading the model or opening the index."""
    first_of_tenant: dict[str, Case] = {}
    for c in cases:
        first_of_tenant.setdefault(c.scope.tenant, c)
    for case in first_of_tenant.values():
        retriever.search(case.scope, WARM_UP_QUERY)


def _violations(case: Case, ids: Sequence[str]) -> list[str]:
    return [pid for pid in dict.fromkeys(ids) if any(label_matches(lab, pid) for lab in case.forbidden)]


def _run_case(
    case: Case,
    retriever: Retriever,
    k: int,
    answerer: Answerer | None,
) -> CaseResult:
    t = time.perf_counter()
    response = retriever.search(case.scope, case.question, k=k)
    search_ms = (time.perf_counter() - t) * 1000
    ranked = response.ids
    result = CaseResult(
        case=case,
        ranked_ids=ranked,
        search_ms=search_ms,
        scores=retrieval_scores(case.relevant, ranked, k) if case.relevant else None,
        violations=_violations(case, ranked),
        timings_ms=dict(response.timings_ms),
    )
    if answerer is not None:
        t = time.perf_counter()
        outcome = ask(case.question, case.scope, retriever, answerer)
        result.ask_ms = (time.perf_counter() - t) * 1000
        result.disposition = outcome.disposition
        result.reason = None if isinstance(outcome, Answered) else outcome.reason
        result.searches = outcome.searches
        result.claims_submitted = bool(outcome.checks)
        result.citations_passed = all(c.passed for c in outcome.checks) if outcome.checks else None
        result.tokens = outcome.usage.total
        result.cost_usd = answerer.model.cost_usd(outcome.usage)
        answered = outcome if isinstance(outcome, Answered) else None
        result.answer_text = answered.answer if answered is not None else None
        result.conflict = (
            bool(outcome.conflicts) if isinstance(outcome, Answered) else outcome.reason == "conflicting_evidence"
        )
        if answerer.verifier is not None:
            result.verified = outcome.trace.verification is not None
            result.verifier_rejected = sum(1 for ok in outcome.verified or () if not ok)
            result.verifier_failed = (
                outcome.trace.verification is not None and outcome.trace.verification.error is not None
            )
            result.submitted_answer = outcome.submitted_answer
        result.model_queries, result.drifted_queries = model_queries(outcome.trace)
        result.repaired = repaired(outcome.trace, case.relevant)
        result.fell_back = fell_back(outcome.trace)
        cited = [c.passage.id for c in answered.claims] if answered is not None else []
        result.violations = list(dict.fromkeys(result.violations + _violations(case, [*outcome.evidence_ids, *cited])))
    return result
