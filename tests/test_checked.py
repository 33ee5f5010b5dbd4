"""``checked``: records that pydantic-core validates and serialises as pydantic would, without pydantic.

Every ``Checked`` record of the package is held against pydantic itself: the schema ``checked`` maps its
annotations to is the one pydantic generates for a plain dataclass of the same fields. The lines a bad record
prints are held in tests/test_error_lines.py, the bytes of the files in tests/test_store.py.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import importlib
import pkgutil
import typing
from typing import Annotated, Any

import pytest
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

import ragcli
from ragcli.checked import After, Checked, Strict, Text, core_schema_of, field_names


def _records() -> list[type[Checked]]:
    for module in pkgutil.walk_packages(ragcli.__path__, "ragcli."):
        if not module.name.endswith("__main__"):
            importlib.import_module(module.name)

    def below(k: type[Checked]) -> list[type[Checked]]:
        return [r for s in k.__subclasses__() for r in (s, *below(s))]

    return below(Checked)


RECORDS = _records()
_IGNORED = {"ref", "metadata", "config", "cls", "post_init", "slots", "frozen", "kw_only", "init", "extra_behavior"}
_IGNORED |= {"default_factory_takes_data", "computed_fields", "collect_init_only", "dataclass_name"}
"""What differs between the two schemas without changing what is accepted or written: names and refs, the
dataclass flags pydantic reads from the class itself, and where the unknown-key rule is kept (held below)."""


def _twin(cls: type[Checked]) -> type[Any]:
    """A plain dataclass with the record's fields, for pydantic to generate its own schema of."""
    hints = typing.get_type_hints(cls, include_extras=True)
    fields: list[tuple[str, Any, Any]] = []
    for f in dataclasses.fields(cls):
        if not f.init:
            continue
        default: dict[str, Any] = {}
        if f.default is not dataclasses.MISSING:
            default["default"] = f.default
        if f.default_factory is not dataclasses.MISSING:
            default["default_factory"] = f.default_factory
        if "exclude_if" in f.metadata:
            fields.append((f.name, hints[f.name], Field(**default, exclude_if=f.metadata["exclude_if"], kw_only=True)))
        else:
            fields.append((f.name, hints[f.name], dataclasses.field(**default, kw_only=True)))
    twin = dataclasses.make_dataclass(cls.__name__, fields, kw_only=True)
    twin.__pydantic_config__ = ConfigDict(extra=cls.extra)  # type: ignore[attr-defined]
    return twin


def _plain(schema: Any, definitions: dict[str, Any] | None = None) -> Any:
    """``schema`` with its definitions inlined and the keys of ``_IGNORED`` left out."""
    if isinstance(schema, dict):
        if schema.get("type") == "definitions":
            found = {d["ref"]: d for d in schema["definitions"]}
            return _plain(schema["schema"], {**(definitions or {}), **found})
        if schema.get("type") == "definition-ref":
            return _plain((definitions or {})[schema["schema_ref"]], definitions)
        return {k: _plain(v, definitions) for k, v in schema.items() if k not in _IGNORED}
    if isinstance(schema, list):
        return [_plain(v, definitions) for v in schema]
    return schema


def test_the_records_are_found() -> None:
    names = {r.__name__ for r in RECORDS}
    assert {"Principal", "Manifest", "DocumentEntry", "SearchJson", "AnswerJson", "Trace"} <= names


@pytest.mark.parametrize("record", RECORDS, ids=[r.__qualname__ for r in RECORDS])
def test_a_record_has_the_schema_pydantic_would_generate(record: type[Checked]) -> None:
    assert dataclasses.is_dataclass(record) and all(f.kw_only for f in dataclasses.fields(record))
    assert _plain(core_schema_of(record)) == _plain(TypeAdapter(_twin(record)).core_schema)
    assert core_schema_of(record)["schema"].get("extra_behavior") == record.extra  # type: ignore[typeddict-item]
    # No field hides a method or setting of the base.
    assert not set(field_names(record)) & {n for n in dir(Checked) if not n.startswith("__")}


def test_a_record_validates_when_made() -> None:
    from ragcli.principal import Principal
    from ragcli.search.response import ExplainJson

    assert Principal(user=" alice ", tenant="acme").user == "alice"  # stripped, as a pydantic model did
    with pytest.raises(ValidationError):
        Principal(user=7, tenant="acme")  # type: ignore[arg-type]
    explain = ExplainJson(
        mode="hybrid",
        per_doc=3,
        floors={"bm25_only_min_terms": 2},
        topic_gate=True,
        rrf_k=60,
        identifier_ranking=True,
        candidates=50,
        bm25=[],
        dense=[],
        timings_ms={},
        generation="g",
    )
    assert explain.floors == {"bm25_only_min_terms": 2.0}  # dict[str, float]: written 2.0, as before
    assert '"bm25_only_min_terms":2.0' in explain.model_dump_json()


def test_model_construct_takes_the_values_as_given() -> None:
    from ragcli.answer.trace import Latency, Trace

    given = {"request_id": "r", "time": "t", "user": 7, "tenant": "t", "groups": [], "as_of": dt.date(2026, 1, 2)}
    trace = Trace.model_construct(**given, model="local", prompt_version="p")
    assert trace.user == 7 and trace.searches == [] and trace.latency_ms == Latency()  # not checked; defaults
    with pytest.raises(TypeError, match="prompt_version is required"):
        Trace.model_construct(**given, model="local")


def test_the_json_and_the_dict_are_pydantics() -> None:
    from ragcli.search.response import RankJson, SearchJson

    result = SearchJson(query="q", tenant="t", user="u", as_of=dt.date(2026, 1, 2), results=[], notes=[])
    assert result.model_dump_json() == '{"query":"q","tenant":"t","user":"u","as_of":"2026-01-02","results":[]}'
    assert result.model_dump(mode="json")["as_of"] == "2026-01-02"
    assert result.model_dump()["as_of"] == dt.date(2026, 1, 2)
    assert RankJson(rank=1, score=1e-6).model_dump_json(indent=1) == '{\n "rank": 1,\n "score": 1e-6\n}'
    noted = SearchJson(query="q", tenant="t", user="u", as_of=dt.date(2026, 1, 2), results=[], notes=["n"])
    assert SearchJson.model_validate_json(noted.model_dump_json()) == noted
    assert SearchJson.model_json_schema(mode="serialization")["required"] == [
        "query",
        "tenant",
        "user",
        "as_of",
        "results",
    ]


def test_a_pydantic_model_may_hold_a_record_and_read_its_markers() -> None:
    """A record as a field of a pydantic model (the server's token holds a principal), and the markers used
    in pydantic models (a tenant name in the server's configuration)."""
    from ragcli.principal import Principal, TenantName

    class Holder(BaseModel):
        principal: Principal
        tenants: tuple[TenantName, ...]
        name: Annotated[str, Strict(), Text(min_length=2, strip_whitespace=True), After(str.upper)]

    held = Holder.model_validate({"principal": {"user": "a", "tenant": "acme"}, "tenants": ["acme"], "name": " ab "})
    assert held.principal == Principal(user="a", tenant="acme") and held.name == "AB"
    with pytest.raises(ValidationError) as bad:
        Holder.model_validate({"principal": {"user": "a", "tenant": "acme"}, "tenants": ["Acme!"], "name": 5})
    assert [(e["loc"], e["type"]) for e in bad.value.errors()] == [
        (("tenants", 0), "value_error"),
        (("name",), "string_type"),
    ]


@pytest.mark.parametrize("record", [r for r in RECORDS if r.extra == "forbid"], ids=lambda r: r.__name__)
def test_a_record_that_forbids_unknown_keys_says_so_in_its_json_schema(record: type[Checked]) -> None:
    # The MCP tools publish these schemas: a client must see that an unknown key is refused.
    assert record.model_json_schema()["additionalProperties"] is False


def test_a_field_init_does_not_take_keeps_its_value() -> None:
    @dataclasses.dataclass(kw_only=True)
    class Noted(Checked):
        name: str
        note: str | None = dataclasses.field(default=None, init=False)

    made = Noted(name="a")
    assert made.note is None and made.name == "a"
    made.note = "kept"
    assert Noted.model_validate({"name": "b"}).note is None


def test_a_field_init_does_not_take_needs_a_plain_default() -> None:
    @dataclasses.dataclass(kw_only=True)
    class Cached(Checked):
        name: str
        cache: list[str] = dataclasses.field(default_factory=list, init=False)

    with pytest.raises(TypeError, match="Cached.cache"):
        Cached(name="a")
