"""Checks on answer outcomes that every backend's tests share."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from ragcli.answer import ABSTAIN_MESSAGE, REASON_CODES


def assert_every_reason_looks_the_same(
    scenarios: Mapping[str, tuple[Any, ...]], run: Callable[..., Any], retriever: Any
) -> None:
    """Each scenario ``(question, api, limits)`` abstains with its reason code, and every abstention's JSON is
    identical apart from the reason, request ID, usage and search count: a forbidden document and a missing one
    must look alike, whatever the reason."""
    assert set(scenarios) == set(REASON_CODES)
    shapes = {}
    for reason, (question, api, limits) in scenarios.items():
        outcome = run(api, question, limits=limits, retriever=retriever)
        assert outcome.reason == reason
        data = outcome.to_wire().model_dump(mode="json")
        assert data["message"] == ABSTAIN_MESSAGE
        shapes[reason] = json.dumps(
            {k: v for k, v in data.items() if k not in ("reason", "request_id", "usage", "searches")}, sort_keys=True
        )
    assert len(set(shapes.values())) == 1, shapes
