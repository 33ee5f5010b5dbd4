"""One JSON line per ask: what happened, by passage ID only.

A trace never holds passage text, claim statements or quotes (they may copy
passage text), nor any credential. It holds the question and the model's
search queries, which are the user's and the model's own words.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import InputError

if TYPE_CHECKING:
    from .answer import Decision, Usage
    from .citations import CheckResult
    from .principal import Principal
    from .retriever import SearchResponse


@dataclass
class Trace:
    request_id: str
    time: str
    user: str
    tenant: str
    groups: list[str]
    as_of: str
    model: str
    prompt_version: str
    searches: list[dict[str, Any]] = field(default_factory=list)
    decisions: list[dict[str, Any]] = field(default_factory=list)
    checks: list[dict[str, Any]] = field(default_factory=list)
    disposition: str | None = None
    reason: str | None = None
    usage: dict[str, int] = field(default_factory=dict)
    latency_ms: dict[str, float] = field(default_factory=lambda: {"search": 0.0, "model": 0.0, "checks": 0.0, "total": 0.0})

    @classmethod
    def start(cls, request_id: str, principal: Principal, as_of: dt.date, model: str, prompt_version: str) -> Trace:
        return cls(
            request_id=request_id,
            time=dt.datetime.now(dt.timezone.utc).isoformat(timespec="milliseconds"),
            user=principal.user,
            tenant=principal.tenant,
            groups=sorted(principal.groups),
            as_of=as_of.isoformat(),
            model=model,
            prompt_version=prompt_version,
        )

    def add_search(self, response: SearchResponse, new_ids: list[str], ms: float) -> None:
        self.searches.append(
            {
                "query": response.query,
                "bm25": [[c.id, c.rank] for c in response.bm25_candidates if c.kept],
                "dense": [[c.id, c.rank] for c in response.dense_candidates if c.kept],
                "selected": response.ids,
                "new": new_ids,
                "ms": round(ms, 2),
            }
        )
        self.latency_ms["search"] += ms

    def add_decision(self, turn: int, decision: Decision, offered: list[str]) -> None:
        from .answer import AbstainDecision, ClaimsDecision, InvalidDecision, SearchDecision

        entry: dict[str, Any] = {"turn": turn, "offered": offered, "tool": getattr(decision, "tool", None)}
        if isinstance(decision, InvalidDecision):
            entry.update(valid=False, error=decision.error)
        elif isinstance(decision, SearchDecision):
            entry.update(valid=True, kind="search", query=decision.query)
        elif isinstance(decision, AbstainDecision):
            entry.update(valid=True, kind="abstain")
        elif isinstance(decision, ClaimsDecision):
            entry.update(valid=True, kind="claims", cited=[c.passage_id for c in decision.claims])
        self.decisions.append(entry)

    def add_model_time(self, ms: float) -> None:
        self.latency_ms["model"] += ms

    def add_checks(self, results: list[CheckResult], cited: list[str], ms: float) -> None:
        for r in results:
            self.checks.append({"claim": r.claim, "passage_id": cited[r.claim], "check": r.check, "passed": r.passed})
        self.latency_ms["checks"] += ms

    def finish(self, disposition: str, reason: str | None, usage: Usage, total_ms: float) -> None:
        self.disposition = disposition
        self.reason = reason
        self.usage = usage.to_json()
        self.latency_ms["total"] = total_ms
        self.latency_ms = {k: round(v, 2) for k, v in self.latency_ms.items()}

    def to_json(self) -> dict[str, Any]:
        return {
            "request_id": self.request_id,
            "time": self.time,
            "user": self.user,
            "tenant": self.tenant,
            "groups": self.groups,
            "as_of": self.as_of,
            "model": self.model,
            "prompt_version": self.prompt_version,
            "searches": self.searches,
            "decisions": self.decisions,
            "checks": self.checks,
            "disposition": self.disposition,
            "reason": self.reason,
            "usage": self.usage,
            "latency_ms": self.latency_ms,
        }


def append_trace(path: str | os.PathLike[str], trace: Trace) -> None:
    """Append one line with a single write, so concurrent runs never interleave lines."""
    line = (json.dumps(trace.to_json(), ensure_ascii=False) + "\n").encode("utf-8")
    try:
        fd = os.open(Path(path), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)
    except OSError as exc:
        raise InputError(f"cannot write trace file {path}: {exc.strerror or exc}") from None
