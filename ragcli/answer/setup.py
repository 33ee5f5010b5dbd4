"""How answers are made: the model, its limits, the verifier. One description, whoever asks.

``AnswerSetup`` is what the options say (``ragcli ask``, ``ragcli eval --ask``
and ``ragcli mcp`` take the same ones, declared once in ``cli.answer_options``): model names and
numbers, nothing opened. ``backends.open_answerer`` turns it into an
``Answerer``: the backend and the verifier, ready for every question of a
session. ``Limits`` are the budgets of one run of the loop, and only those.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # only named in annotations: the CLI reads Limits for --help without loading the protocol
    from .protocol import AnswerModel, Verifier


@dataclass(frozen=True)
class Limits:
    """The run's budgets (and nothing else: how the run goes is ``AnswerSetup``'s); every field is a CLI flag."""

    max_searches: int = 3
    """Searches in all, the first (the question itself) included."""
    max_turns: int = 6
    """Model calls at most (a verifier's call not counted)."""
    max_tokens: int = 200_000
    """Tokens at most, as the API reports them (input, output and cache), checked after each model call."""
    timeout_s: float = 120.0
    """Wall-clock seconds at most for the whole run, checked after each model call."""

    @property
    def may_search_again(self) -> bool:
        """Whether the budget leaves the model a search after the question's own."""
        return self.max_searches > 1


@dataclass(frozen=True)
class AnswerSetup:
    """How answers are made, as the options say it (``--model``, the limits, ``--plan``, ``--verify``)."""

    model: str | None = None
    """``local``, ``anthropic[:MODEL]`` or ``openai:MODEL[@URL]``; None: the default (``settings``)."""
    limits: Limits = field(default_factory=Limits)
    plan: bool = False
    """``--plan``: see ``Answerer.plan``."""
    retry_on_empty: bool = True
    """``--retry-on-empty``: see ``Answerer.retry_on_empty``."""
    verify: bool = False
    """A second model call judges each claim (``--verify``): the answering model, unless ``verify_model``."""
    verify_model: str | None = None
    """The verifier's model (``--verify-model``, implies ``verify``)."""

    @property
    def verifies(self) -> bool:
        """Whether a second model call judges the claims: ``--verify``, or a verifier named (the one place it is
        decided; ``backends.verifier_for`` opens what it says)."""
        return self.verify or self.verify_model is not None


@dataclass(frozen=True)
class Answerer:
    """An ``AnswerSetup`` opened: the backend, the limits, the verifier (None without ``--verify``) and the switches
    of how a run goes. The loop takes it whole (``answer.loop.ask``)."""

    model: AnswerModel
    limits: Limits = field(default_factory=Limits)
    verifier: Verifier | None = None
    plan: bool = False
    """Offer the LLM ``search_parts`` (decomposition, on the first turn) and ``grade_evidence`` (once; a ``missing``
    verdict drives one gap-filling search). Every search still counts against ``max_searches``."""
    retry_on_empty: bool = True
    """Let a model that supports it rewrite a query whose first search found nothing."""

    @property
    def may_retry_empty(self) -> bool:
        """Whether a first search that found nothing leaves the model one turn to search with other words."""
        return self.retry_on_empty and self.model.retry_on_empty and self.limits.may_search_again
