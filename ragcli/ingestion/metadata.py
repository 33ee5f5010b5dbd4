"""Document metadata: YAML front matter, sidecars, JSONL fields and text fields, validated.

Keys: ``id``, ``title``, ``version``, ``acl``, ``effective_from``,
``superseded_on``, ``source_url``, matched the same way in every format:
without case and surrounding spaces (``ACL: [hr]`` is ``acl``), and two keys
naming one field (``acl`` and ``ACL``) reject the document (``reserved_keys``).
Other keys are ignored (a BEIR line carries its own). Values YAML reads as something else (``version: 4.10`` as a float)
are refused with a hint instead of silently changed. Formats that hold only
text (Word custom properties, a reStructuredText field list) go through
``text_fields`` first: ``acl`` there is a comma-separated list.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Hashable
from typing import Any

from pydantic import ConfigDict, ValidationError, field_validator, model_validator

from ..dates import IsoDate
from ..errors import DocumentRejected, DuplicateKey, plain_validation_message
from ..record import Record

_ID_FORBIDDEN = re.compile(r"[@#\s]")
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?\n)?---[ \t]*(?:\n|\Z)", re.DOTALL)
_TOML_FRONT_MATTER = re.compile(r"\A\+\+\+[ \t]*\n(.*?\n)?\+\+\+[ \t]*(?:\n|\Z)", re.DOTALL)
_JSON_FRONT_MATTER = re.compile(r"\A(\{[ \t]*\n.*?\n\})[ \t]*(?:\n|\Z)", re.DOTALL)
"""Hugo's JSON front matter: an object from the first line to the first line that is only ``}``."""


class Metadata(Record):
    """Metadata as found in front matter, a sidecar or a JSONL line (validated here)."""

    model_config = ConfigDict(extra="ignore")

    id: str | None = None
    title: str | None = None
    version: str | None = None
    acl: list[str] | None = None
    effective_from: IsoDate | None = None
    superseded_on: IsoDate | None = None
    source_url: str | None = None

    @field_validator("id", "version", mode="before")
    @classmethod
    def _scalar_to_str(cls, value: Any) -> Any:
        # YAML reads `version: 2026-09-01` as a date and JSON ids are often numbers.
        if isinstance(value, (int, dt.date)) and not isinstance(value, bool):
            return value.isoformat() if isinstance(value, dt.date) else str(value)
        if isinstance(value, float):
            # 4.10 would silently become "4.1": only the author knows the intended text.
            raise ValueError(f'{value!r} was read as a number; write it in quotes (for example "4.10")')
        return value

    @field_validator("title", mode="before")
    @classmethod
    def _title_to_str(cls, value: Any) -> Any:
        if isinstance(value, (int, float, dt.date)) and not isinstance(value, bool):
            return str(value)
        return value

    @field_validator("id", "version")
    @classmethod
    def _no_separators(cls, value: str | None) -> str | None:
        if value is not None and (not value or _ID_FORBIDDEN.search(value) or len(value) > 200):
            raise ValueError("must be 1-200 characters without spaces, '@' or '#'")
        return value

    @field_validator("acl", mode="before")
    @classmethod
    def _acl_is_list(cls, value: Any) -> Any:
        if value is not None and not isinstance(value, list):
            raise ValueError("must be a list of group names (or user:NAME entries), not a single value")
        return value

    @field_validator("acl")
    @classmethod
    def _acl_entries(cls, value: list[str] | None) -> list[str] | None:
        if value is not None:
            for entry in value:
                if not entry.strip() or len(entry) > 256:
                    raise ValueError("entries must be non-empty names")
        return value

    @model_validator(mode="after")
    def _dates_in_order(self) -> Metadata:
        if self.effective_from and self.superseded_on and self.superseded_on <= self.effective_from:
            raise ValueError("superseded_on must be after effective_from")
        return self


def reserved_keys(data: dict[Any, Any], source: str) -> dict[Any, Any]:
    """``data`` with every key that names a metadata field, whatever its case or spaces, spelled as the field.

    ``ACL: [hr]`` in front matter was ignored while Word and reStructuredText read it: the page was served to
    everyone. Now a key is read the same everywhere; two keys naming one field reject the document, naming both.
    """
    out: dict[Any, Any] = {}
    seen: dict[str, Any] = {}
    for key, value in data.items():
        name = key.strip().lower() if isinstance(key, str) else None
        if name is None or name not in Metadata.model_fields:
            out[key] = value
            continue
        if name in seen:
            raise DocumentRejected(source, f"metadata keys {seen[name]!r} and {key!r} both name '{name}'; keep one")
        seen[name] = key
        out[name] = value
    return out


def validate_metadata(data: dict[str, Any], source: str) -> Metadata:
    """Validate metadata (keys matched by ``reserved_keys``); a bad value rejects the document with the field."""
    try:
        meta = Metadata.model_validate(reserved_keys(data, source))
    except ValidationError as exc:
        raise DocumentRejected(source, plain_validation_message(exc, where="metadata")) from None
    # A YAML or JSON "\ud800" escape decodes to a lone surrogate that no later step can encode.
    for value in (meta.id, meta.title, meta.version, meta.source_url, *(meta.acl or ())):
        if value is not None and any("\ud800" <= c <= "\udfff" for c in value):
            raise DocumentRejected(source, "metadata holds an unpaired surrogate escape (\\ud800-\\udfff), not text")
    return meta


def split_front_matter(text: str, source: str) -> tuple[dict[str, Any], str]:
    """Split front matter from a Markdown body: YAML (``---``), TOML (``+++``, Hugo) or a JSON object (Hugo)."""
    match = _FRONT_MATTER.match(text)
    if match:
        return load_yaml_mapping(match.group(1) or "", source), text[match.end() :]
    match = _TOML_FRONT_MATTER.match(text)
    if match:
        return _load_toml_mapping(match.group(1) or "", source), text[match.end() :]
    match = _JSON_FRONT_MATTER.match(text)
    if match:
        return _load_json_mapping(match.group(1), source), text[match.end() :]
    return {}, text


def _load_toml_mapping(text: str, source: str) -> dict[str, Any]:
    """TOML front matter as a mapping (a repeated key is an error in TOML itself)."""
    import tomllib

    try:
        return reserved_keys(tomllib.loads(text), source)
    except tomllib.TOMLDecodeError as exc:
        raise DocumentRejected(source, f"broken TOML metadata: {exc}") from None


def _load_json_mapping(text: str, source: str) -> dict[str, Any]:
    """A JSON object as front matter; a repeated key rejects the document rather than letting the last one win."""
    import json

    def unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        keys = [k for k, _ in pairs]
        repeated = next((k for k in keys if keys.count(k) > 1), None)
        if repeated is not None:
            raise DocumentRejected(source, f"JSON metadata repeats the key {repeated!r}")
        return dict(pairs)

    try:
        data = json.loads(text, object_pairs_hook=unique)
    except (ValueError, RecursionError) as exc:
        raise DocumentRejected(source, f"broken JSON metadata: {exc}") from None
    if not isinstance(data, dict):
        raise DocumentRejected(source, "JSON metadata must be an object")
    return reserved_keys(data, source)


@functools.cache
def _strict_loader() -> type:
    """PyYAML's safe loader, except that a mapping naming one key twice is an error (the last copy would win)."""
    import yaml

    class StrictLoader(yaml.SafeLoader):
        pass

    def mapping(loader: yaml.SafeLoader, node: yaml.MappingNode) -> dict[Any, Any]:
        loader.flatten_mapping(node)
        seen = set()
        for key_node, _ in node.value:
            key = loader.construct_object(key_node, deep=True)
            if isinstance(key, Hashable):
                if key in seen:
                    raise DuplicateKey(key)
                seen.add(key)
        return loader.construct_mapping(node, deep=True)

    StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, mapping)
    return StrictLoader


def load_yaml_mapping(text: str, source: str) -> dict[str, Any]:
    """Parse YAML that must be a mapping; anything broken (a key given twice included) rejects the document."""
    import yaml  # only when there is YAML to read

    try:
        data = yaml.load(text, Loader=_strict_loader())
    except DuplicateKey as exc:
        raise DocumentRejected(source, f"metadata {exc}; remove one (the last copy would silently win)") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise DocumentRejected(source, f"broken YAML metadata{where}") from None
    except (ValueError, OverflowError, RecursionError) as exc:
        # PyYAML reads an unquoted 2026-02-30 as a timestamp and then fails to build
        # the date with a plain ValueError; deep nesting overflows its recursion.
        raise DocumentRejected(source, f"broken YAML metadata: {exc}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise DocumentRejected(source, "YAML metadata must be a mapping of keys to values")
    return reserved_keys(data, source)


def text_fields(fields: list[tuple[str, str]], source: str) -> dict[str, Any]:
    """Metadata written as text (Word custom properties, a reStructuredText field list), as front matter gives it.

    Names of metadata keys are matched without case and may appear once; other
    names are not metadata and are left out. ``acl`` is a comma-separated list
    of groups (an empty entry is kept, so validation refuses it); every other
    value is the text itself, so ``version: 4.10`` stays "4.10" and a date is
    read by the same ``YYYY-MM-DD`` rule.
    """
    out: dict[str, Any] = {}
    for name, value in fields:
        key = name.strip().lower()
        if key not in Metadata.model_fields:
            continue
        if key in out:
            raise DocumentRejected(source, f"metadata field '{key}' is given twice")
        out[key] = [entry.strip() for entry in value.split(",")] if key == "acl" else value.strip()
    return out
