"""``Checked``: a dataclass that pydantic-core validates and writes as JSON, without importing pydantic.

The records a cold start reads and writes are of this kind: the user file
(``principal``), the manifest (``index.manifest``), the ``--json`` of search
and ask (``search.response``, ``answer.outcome``) and ask's trace
(``answer.trace``). As pydantic models they made every ``ragcli search`` and
``ragcli ask`` import pydantic, build each model's validator with it and load
its plugin machinery: about a third of a cold hybrid search's CPU above the
import floor (docs/defaults.md, "Start-up time"). pydantic-core, the engine under
pydantic, validates and serialises the same way from a schema given to it
directly, for a fraction of the import.

A Checked class is declared as a pydantic model is: fields with annotations,
defaults and docstrings, constraints as ``Annotated`` metadata (``Strict``,
``Text``, ``Size``, ``Before``, ``After``, which pydantic models read too),
``exclude_if`` in a field's metadata. Those declarations are its one
description: ``core_schema_of`` maps them onto a pydantic-core schema when the
class is first used, so a validation error is the ``ValidationError`` a
pydantic model raises (``errors.plain_validation_message`` words it) and the
JSON is byte for byte what pydantic writes. Construction validates, as a
pydantic model's does. The methods callers use keep pydantic's names
(``model_validate``, ``model_validate_json``, ``model_construct``,
``model_dump``, ``model_dump_json``, ``model_json_schema``), so a caller, or a
library user holding ``to_wire()``, need not know which kind it holds; a
pydantic model may have a Checked field. ``model_json_schema`` alone imports
pydantic (the MCP server's tool list needs it, no CLI start does).

The annotations mapped: ``str``, ``int``, ``float``, ``bool``, ``datetime.date``,
``Any``, ``None``, ``list[T]``, ``tuple[T, ...]``, ``tuple[A, B]``,
``dict[K, V]``, ``Literal[...]``, unions (``X | None`` is nullable), nested
dataclasses, and ``Annotated`` with the markers here; anything else is a
``TypeError`` when the schema is first built (tests/test_checked.py builds them all).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import types
import typing
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeVar, Union, get_args, get_origin

if TYPE_CHECKING:
    from pydantic_core import CoreSchema, SchemaSerializer, SchemaValidator

C = TypeVar("C", bound="Checked")
Extra = Literal["ignore", "forbid"]


class Checked:
    """Base of a dataclass validated on construction, read and written by pydantic-core.

    A subclass is decorated ``@dataclass(kw_only=True)`` (``frozen=True`` for a value that must not change) and
    sets ``extra`` for unknown keys: ``"ignore"`` (pydantic's default) or ``"forbid"``.
    """

    extra: ClassVar[Extra] = "ignore"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # What pydantic's JSON Schema reads of a dataclass (not its core schema): the unknown-key rule, so a
        # published schema (the MCP tools') says "additionalProperties": false where a key is refused.
        cls.__pydantic_config__ = {"extra": cls.extra}  # type: ignore[attr-defined]

    def __post_init__(self) -> None:
        # Validates the fields as given and sets them as validated (stripped, converted), in place. Validation
        # replaces the instance's __dict__: the fields __init__ does not take are set again after it.
        given = {name: self.__dict__[name] for name in field_names(type(self))}
        own, record = self.__dict__, typing.cast(Any, type(self))
        kept = {f.name: own[f.name] for f in dataclasses.fields(record) if not f.init and f.name in own}
        _validator(type(self)).validate_python(given, self_instance=self)
        self.__dict__.update(kept)

    @classmethod
    def model_validate(cls: type[C], data: object) -> C:
        """``data`` (a dict) as an instance, or pydantic-core's ``ValidationError``."""
        value: C = _validator(cls).validate_python(data)
        return value

    @classmethod
    def model_validate_json(cls: type[C], raw: str | bytes) -> C:
        value: C = _validator(cls).validate_json(raw)
        return value

    @classmethod
    def model_construct(cls: type[C], **values: Any) -> C:
        """An instance of code's own values, not validated: the fields left out take their defaults (a required
        one left out is a TypeError). For a record code fills in, whose validator a run may never need."""
        self = cls.__new__(cls)
        for f in dataclasses.fields(cls):  # type: ignore[arg-type]
            if f.name in values:
                value = values[f.name]
            elif f.default_factory is not dataclasses.MISSING:
                value = f.default_factory()
            elif f.default is not dataclasses.MISSING:
                value = f.default
            else:
                raise TypeError(f"{cls.__name__}.model_construct: {f.name} is required")
            object.__setattr__(self, f.name, value)
        return self

    def model_dump(self, *, mode: Literal["python", "json"] = "python", exclude: Any = None) -> dict[str, Any]:
        dumped: dict[str, Any] = _serializer(type(self)).to_python(self, mode=mode, exclude=exclude)
        return dumped

    def model_dump_json(self, *, indent: int | None = None, exclude: Any = None) -> str:
        return _serializer(type(self)).to_json(self, indent=indent, exclude=exclude).decode("utf-8")

    @classmethod
    def model_json_schema(cls, mode: Literal["validation", "serialization"] = "validation") -> dict[str, Any]:
        """The JSON Schema of the type, by pydantic (imported here, and only here)."""
        from pydantic import TypeAdapter

        schema: dict[str, Any] = TypeAdapter(cls).json_schema(mode=mode)
        return schema

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> CoreSchema:
        """What lets a pydantic model hold a Checked field: this class's own schema."""
        return core_schema_of(cls)


def field_names(cls: type[Any]) -> list[str]:
    """The fields a record reads, in order (what an unknown key is compared with for a hint)."""
    return [f.name for f in dataclasses.fields(cls) if f.init]


def exclude_if(test: Callable[[Any], bool]) -> dict[str, Any]:
    """A field's metadata: leave the field out of the JSON when ``test(value)`` holds."""
    return {"exclude_if": test}


# --------------------------------------------------------------------------- constraints (Annotated metadata)


class _Marker:
    """A constraint for ``Annotated``: changes the schema of the type it annotates, here and in pydantic.

    Plain classes, not dataclasses: a marker is made once, at import, where a dataclass's generated methods
    would cost more than all its uses."""

    __slots__ = ("keys",)

    def __init__(self, **keys: Any) -> None:
        self.keys = {k: v for k, v in keys.items() if v is not None and v is not False}

    def apply(self, schema: CoreSchema) -> CoreSchema:
        return {**schema, **self.keys}

    def __get_pydantic_core_schema__(self, source: Any, handler: Callable[[Any], CoreSchema]) -> CoreSchema:
        return self.apply(handler(source))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self.keys.items())})"


class Strict(_Marker):
    """No conversion: a number is not text, text is not a number."""

    def __init__(self) -> None:
        super().__init__(strict=True)


class Text(_Marker):
    """Bounds of a string (its length after ``strip_whitespace``)."""

    def __init__(
        self, *, min_length: int | None = None, max_length: int | None = None, strip_whitespace: bool = False
    ) -> None:
        super().__init__(min_length=min_length, max_length=max_length, strip_whitespace=strip_whitespace)


class Size(_Marker):
    """How many items a list or tuple may have."""

    def __init__(self, *, min_length: int | None = None, max_length: int | None = None) -> None:
        super().__init__(min_length=min_length, max_length=max_length)


class Before(_Marker):
    """``function(value)`` runs before the type's own check (a ``ValueError`` is a validation error)."""

    def __init__(self, function: Callable[[Any], Any]) -> None:
        super().__init__(function=function)

    def apply(self, schema: CoreSchema) -> CoreSchema:
        from pydantic_core import core_schema as cs

        return cs.no_info_before_validator_function(self.keys["function"], schema)


class After(_Marker):
    """``function(value)`` runs on the checked value; what it returns is kept (a ``ValueError`` is an error)."""

    def __init__(self, function: Callable[[Any], Any]) -> None:
        super().__init__(function=function)

    def apply(self, schema: CoreSchema) -> CoreSchema:
        from pydantic_core import core_schema as cs

        return cs.no_info_after_validator_function(self.keys["function"], schema)


# --------------------------------------------------------------------------- annotations -> schema


_SCHEMAS: dict[type[Any], CoreSchema] = {}
_VALIDATORS: dict[type[Any], SchemaValidator] = {}
_SERIALIZERS: dict[type[Any], SchemaSerializer] = {}


def _validator(cls: type[Any]) -> SchemaValidator:
    found = _VALIDATORS.get(cls)
    if found is None:
        from pydantic_core import SchemaValidator

        found = _VALIDATORS[cls] = SchemaValidator(core_schema_of(cls))
    return found


def _serializer(cls: type[Any]) -> SchemaSerializer:
    found = _SERIALIZERS.get(cls)
    if found is None:
        from pydantic_core import SchemaSerializer

        found = _SERIALIZERS[cls] = SchemaSerializer(core_schema_of(cls))
    return found


def core_schema_of(cls: type[Any]) -> CoreSchema:
    """The pydantic-core schema of a dataclass (a Checked one, or a plain one it holds), built once."""
    found = _SCHEMAS.get(cls)
    if found is None:
        found = _SCHEMAS[cls] = _dataclass_schema(cls)
    return found


def _dataclass_schema(cls: type[Any]) -> CoreSchema:
    from pydantic_core import core_schema as cs

    hints = typing.get_type_hints(cls, include_extras=True)
    fields = []
    for f in dataclasses.fields(cls):
        if not f.init:
            if f.default is dataclasses.MISSING:
                # pydantic-core builds a record it reads without __init__: only a class-level default is there.
                raise TypeError(f"{cls.__name__}.{f.name}: a field __init__ does not take needs a plain default")
            continue
        schema = schema_of(hints[f.name])
        if f.default_factory is not dataclasses.MISSING:
            schema = cs.with_default_schema(schema, default_factory=f.default_factory)
        elif f.default is not dataclasses.MISSING:
            schema = cs.with_default_schema(schema, default=f.default)
        fields.append(
            cs.dataclass_field(
                f.name,
                schema,
                kw_only=bool(f.kw_only),
                init=True,
                serialization_exclude_if=f.metadata.get("exclude_if"),
            )
        )
    extra = cls.extra if issubclass(cls, Checked) else None
    frozen = cls.__dataclass_params__.frozen
    return cs.dataclass_schema(
        cls,
        cs.dataclass_args_schema(cls.__name__, fields, extra_behavior=extra),
        [f["name"] for f in fields],
        frozen=frozen,
        slots=False,
        ref=f"{cls.__module__}.{cls.__qualname__}",
        config={"title": cls.__name__},
    )


_SCALARS: Mapping[Any, str] = {str: "str", int: "int", float: "float", bool: "bool", dt.date: "date", Any: "any"}


def schema_of(annotation: Any) -> CoreSchema:
    """The pydantic-core schema of one annotation, as pydantic would generate it."""
    from pydantic_core import core_schema as cs

    if annotation in _SCALARS:
        return {"type": _SCALARS[annotation]}
    if annotation is None or annotation is type(None):
        return cs.none_schema()
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is typing.Annotated:
        schema = schema_of(args[0])
        for marker in annotation.__metadata__:
            if not isinstance(marker, _Marker):
                raise TypeError(f"unknown constraint {marker!r} in {annotation!r}")
            schema = marker.apply(schema)
        return schema
    if origin in (Union, types.UnionType):
        given = [a for a in args if a is not type(None)]
        inner = schema_of(given[0]) if len(given) == 1 else cs.union_schema([schema_of(a) for a in given])
        return cs.nullable_schema(inner) if len(given) < len(args) else inner
    if origin is Literal:
        return cs.literal_schema(list(args))
    if origin is list:
        return cs.list_schema(schema_of(args[0]))
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return cs.tuple_schema([schema_of(args[0])], variadic_item_index=0)
        return cs.tuple_schema([schema_of(a) for a in args])
    if origin is dict:
        return cs.dict_schema(schema_of(args[0]), schema_of(args[1]))
    if isinstance(annotation, type) and dataclasses.is_dataclass(annotation):
        return core_schema_of(annotation)
    raise TypeError(f"no schema for {annotation!r}")
