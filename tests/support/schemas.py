"""What a tool schema lets a model name: every property name, however deeply nested."""

from __future__ import annotations

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
