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

from ..answer.setup import AnswerSetup
from ..embedder import Embedder
from ..errors import InputError, plain_validation_message
from ..record import Record
from ..search.config import PER_DOC, TOP_K, Mode
from .cases import Case
from .gates import Gates
from .report import EvalReport

ANSWER_KEYS = ("model", "max_searches", "plan", "verify")


class RunConfig(Record):
    """One configuration file of ``--compare``, validated where it enters."""

    model_config = ConfigDict(extra="forbid", strict=True)

    model: Annotated[str, StringConstraints(min_length=1, max_length=500)] | None = None
    mode: Mode | None = None
    k: int | None = Field(default=None, ge=1, le=1000)
    per_doc: int | None = Field(default=None, ge=0, le=1000)
    max_searches: int | None = Field(default=None, ge=1, le=10)
    plan: bool | None = None
    verify: bool | None = None
    index: Annotated[str, StringConstraints(min_length=1)] | None = None


@dataclass(frozen=True)
class EvalSetup:
    """How one eval run is made: the index, the search, and the answers (None: retrieval only, no ``--ask``)."""

    index: Path
    k: int = TOP_K
    """Passages per search (the answer loop's too) and the cut-off of recall@k, precision@k and nDCG@k."""
    mode: Mode = "hybrid"
    per_doc: int = PER_DOC
    """At most this many passages of one document in each search's results (0 = no limit; ``--per-doc``)."""
    answer: AnswerSetup | None = None
    name: str = "options"
    """What reports call it: the configuration file, or the command line's options."""

    def describe(self) -> dict[str, Any]:
        """The setup as a report shows it (``setup`` in ``--json``)."""
        out: dict[str, Any] = {"name": self.name, "index": str(self.index), "k": self.k, "mode": self.mode}
        out["per_doc"] = self.per_doc
        if self.answer is not None:
            out |= {
                "model": self.answer.model or "default",
                "max_searches": self.answer.limits.max_searches,
                "plan": self.answer.limits.plan,
                "verify": self.answer.verifies,
            }
        return out


def load_config(path: Path) -> RunConfig:
    """Read and validate one configuration file; every error names the file."""
    try:
        if path.exists() and not path.is_file():
            raise InputError(f"cannot read configuration {path}: not a regular file")
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read configuration {path}: {getattr(exc, 'strerror', None) or exc}") from None
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
    config = load_config(path)
    answer_keys = [key for key in ANSWER_KEYS if getattr(config, key) is not None]
    if answer_keys and base.answer is None:
        raise InputError(f"{path} sets {', '.join(answer_keys)}, which change the answers: add --ask")
    answer = base.answer
    if answer is not None:
        limits = answer.limits
        if config.max_searches is not None:
            limits = dataclasses.replace(limits, max_searches=config.max_searches)
        if config.plan is not None:
            limits = dataclasses.replace(limits, plan=config.plan)
        answer = dataclasses.replace(
            answer,
            model=config.model if config.model is not None else answer.model,
            limits=limits,
            verify=config.verify if config.verify is not None else answer.verify,
        )
    return EvalSetup(
        index=(path.parent / config.index) if config.index is not None else base.index,
        k=config.k if config.k is not None else base.k,
        mode=config.mode if config.mode is not None else base.mode,
        per_doc=config.per_doc if config.per_doc is not None else base.per_doc,
        answer=answer,
        name=str(path),
    )


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
    from ..search import Retriever, SearchConfig
    from .run import evaluate

    config = SearchConfig(k=setup.k, mode=setup.mode, per_doc=setup.per_doc)
    retriever = Retriever(setup.index, embedder=embedder, config=config)
    try:
        answerer = (
            open_answerer(setup.answer, embedder=retriever.embedder, vectors=retriever)
            if setup.answer is not None
            else None
        )
        return evaluate(cases, retriever, k=setup.k, answerer=answerer, gates=gates, progress=progress)
    finally:
        retriever.close()
