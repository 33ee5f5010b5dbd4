"""What a tool schema lets a model name: every property name, however deeply nested."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def property_names(schema: Any) -> list[str]:
    """Every key of every ``properties`` object in a JSON schema (or a list of schemas)."""
    names: list[str] = []
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "properties" and isinstance(value, dict):
                names.extend(value)
            names.extend(property_names(value))
    elif isinstance(schema, list):
        for value in schema:
            names.extend(property_names(value))
    return names


SCOPE_WORDS = ("tenant", "group", "user", "filter", "date", "day", "acl", "principal", "as_of", "asof")
"""What no tool argument may name: the principal, its scope and the date are fixed by code, never by the model."""


def assert_no_scope_fields(names: Iterable[str]) -> None:
    """No property name holds a scope word (``tenant_id``, ``groups`` and ``as_of_date`` included)."""
    for name in names:
        for word in SCOPE_WORDS:
            assert word not in name.lower(), name
