"""How one eval run is made (``EvalSetup``), the TOML files ``--compare`` reads, and running a setup.

A configuration file says what differs from the command line's options; every key is optional:

    model = "local"             # as --model
    mode = "bm25"               # hybrid, bm25 or dense (as ragcli search --mode)
    k = 5                       # passages per search (what the answer loop is shown) and the metrics' cut-off
    per_doc = 0                 # at most this many passages of one document per search, 0 = no limit
    max_searches = 2            # as --max-searches
    plan = true                 # as --plan
    verify = true               # as --verify
    index = "../.ragcli-next"   # relative to the file

Unknown keys, and values of the wrong type, are errors naming the file and the key. A file that sets an
answer key (model, max_searches, plan, verify) needs ``--ask``: without it the key could change nothing.
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from pydantic import ConfigDict, Field, StringConstraints, ValidationError

from ..answer.setup import AnswerSetup, Limits
from ..embedder import Embedder
from ..errors import InputError, os_reason, plain_validation_message
from ..record import Record
from ..search.config import Mode, SearchConfig
from .cases import Case
from .gates import Gates
from .report import EvalReport


class RunConfig(Record):
    """One configuration file of ``--compare``, validated where it enters. Each key is named as the field it sets
    (of ``EvalSetup``, its ``SearchConfig``, its ``AnswerSetup`` or that setup's ``Limits``), in the order a
    report's ``setup`` shows them."""

    model_config = ConfigDict(extra="forbid", strict=True)

    index: Annotated[str, StringConstraints(min_length=1)] | None = None
    k: int | None = Field(default=None, ge=1, le=1000)
    mode: Mode | None = None
    per_doc: int | None = Field(default=None, ge=0, le=1000)
    model: Annotated[str, StringConstraints(min_length=1, max_length=500)] | None = None
    max_searches: int | None = Field(default=None, ge=1, le=10)
    plan: bool | None = None
    verify: bool | None = None


def _fields(cls: type) -> frozenset[str]:
    return frozenset(f.name for f in dataclasses.fields(cls))


SEARCH_KEYS = tuple(key for key in RunConfig.model_fields if key in _fields(SearchConfig))
"""The keys that change how a run searches (``SearchConfig`` fields)."""
ANSWER_KEYS = tuple(key for key in RunConfig.model_fields if key in _fields(AnswerSetup) | _fields(Limits))
"""The keys that change the answers (``AnswerSetup`` and ``Limits`` fields): they need ``--ask``."""


@dataclass(frozen=True)
class EvalSetup:
    """How one eval run is made: the index, the search, and the answers (None: retrieval only, no ``--ask``)."""

    index: Path
    search: SearchConfig = dataclasses.field(default_factory=SearchConfig)
    """How each case searches; its ``k`` (passages per search, the answer loop's too) is also the cut-off of
    recall@k, precision@k and nDCG@k."""
    answer: AnswerSetup | None = None
    name: str = "options"
    """What reports call it: the configuration file, or the command line's options."""

    def describe(self) -> dict[str, Any]:
        """The setup as a report shows it (``setup`` in ``--json``): the name, then every configurable key this run
        uses (the answer keys with ``--ask`` only), as the file would set it."""
        keys = [key for key in RunConfig.model_fields if key not in ANSWER_KEYS or self.answer is not None]
        return {"name": self.name} | {key: self._shown(key) for key in keys}

    def _shown(self, key: str) -> Any:
        if key == "index":
            return str(self.index)
        if key in SEARCH_KEYS:
            return getattr(self.search, key)
        assert self.answer is not None
        if key == "model":
            return self.answer.model or "default"
        if key == "verify":
            return self.answer.verifies  # --verify-model verifies too
        held = self.answer.limits if key in _fields(Limits) else self.answer
        return getattr(held, key)


def load_config(path: Path) -> RunConfig:
    """Read and validate one configuration file; every error names the file."""
    try:
        if path.exists() and not path.is_file():
            raise InputError(f"cannot read configuration {path}: not a regular file")
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read configuration {path}: {os_reason(exc)}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{path}: not TOML: {exc}") from None
    try:
        return RunConfig.model_validate(data)
    except ValidationError as exc:
        raise InputError(plain_validation_message(exc, where=str(path), known_fields=RunConfig.model_fields)) from None


def configured(base: EvalSetup, path: Path) -> EvalSetup:
    """``base`` (the command line's options) with what the file at ``path`` sets."""
    given = load_config(path).model_dump(exclude_none=True)
    answer_keys = [key for key in ANSWER_KEYS if key in given]
    if answer_keys and base.answer is None:
        raise InputError(f"{path} sets {', '.join(answer_keys)}, which change the answers: add --ask")
    answer = base.answer
    if answer is not None:
        limits = dataclasses.replace(answer.limits, **_set(given, Limits))
        answer = dataclasses.replace(answer, **_set(given, AnswerSetup), limits=limits)
    return EvalSetup(
        index=path.parent / given["index"] if "index" in given else base.index,
        search=dataclasses.replace(base.search, **_set(given, SearchConfig)),
        answer=answer,
        name=str(path),
    )


def _set(given: dict[str, Any], cls: type) -> dict[str, Any]:
    """What ``given`` sets of ``cls``'s fields."""
    return {key: value for key, value in given.items() if key in _fields(cls)}


def run_setup(
    setup: EvalSetup,
    cases: Sequence[Case],
    *,
    gates: Gates | None = None,
    embedder: Embedder | None = None,
    progress: Callable[[], None] | None = None,
) -> EvalReport:
    """Every case run as ``setup`` says (its own retriever and answerer; the embedder shared when given)."""
    from ..backends import open_answerer
    from ..search import Retriever
    from .run import evaluate

    retriever = Retriever(setup.index, embedder=embedder, config=setup.search)
    try:
        answerer = (
            open_answerer(setup.answer, embedder=retriever.embedder, vectors=retriever)
            if setup.answer is not None
            else None
        )
        return evaluate(cases, retriever, k=setup.search.k, answerer=answerer, gates=gates, progress=progress)
    finally:
        retriever.close()
