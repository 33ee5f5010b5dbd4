"""``Metrics``: what ``GET /metrics`` shows, in the Prometheus text format (``prometheus-client``).

Labels are routes, status codes, dispositions, reason codes and tenants:
never a user name, a query or a passage. One registry per server (not the
library's global one), so a test can run two in one process.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .refusal import REASONS, Reason

if TYPE_CHECKING:
    from prometheus_client import CollectorRegistry

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
ROUTES = ("search", "ask", "mcp")
"""The route label: the name of the endpoint, never the raw path (an unknown path is not a label value)."""


class Metrics:
    """The server's counters, histograms and gauges."""

    def __init__(self) -> None:
        from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

        self.registry: CollectorRegistry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.requests = Counter(
            "ragcli_requests", "Requests answered, by route and HTTP status", ["route", "status"], registry=r
        )
        self.latency = Histogram(
            "ragcli_request_seconds",
            "Time from arrival to response, by route",
            ["route"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.dispositions = Counter(
            "ragcli_answers",
            "Asks by disposition (answered, abstained) and reason code",
            ["disposition", "reason"],
            registry=r,
        )
        self.rejected = Counter(
            "ragcli_rejected_credentials",
            "Requests refused at authentication, by the check that failed",
            ["reason"],
            registry=r,
        )
        self.overloaded = Counter(
            "ragcli_overloaded",
            "Requests refused with 503: the queue was full or the deadline passed before a worker was free",
            ["why"],
            registry=r,
        )
        self.queue_depth = Gauge("ragcli_queue_depth", "Requests waiting for a worker", registry=r)
        self.busy = Gauge("ragcli_busy_workers", "Workers running a request", registry=r)
        self.generation_changes = Counter(
            "ragcli_generation_switches", "Newly published generations picked up, by tenant", ["tenant"], registry=r
        )
        self.publish_lag = Histogram(
            "ragcli_publish_lag_seconds",
            "From a generation's CURRENT pointer changing to the server seeing it (the poll)",
            buckets=(0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0),
            registry=r,
        )
        for reason in REASONS:  # every reason shows as 0 from the start: a dashboard can rate() it at once
            self.rejected.labels(reason=reason)

    def refuse(self, reason: Reason) -> None:
        self.rejected.labels(reason=reason).inc()

    def exposition(self) -> tuple[bytes, str]:
        """The text format and its content type."""
        from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

        return generate_latest(self.registry), CONTENT_TYPE_LATEST


__all__ = ["ROUTES", "Metrics"]
