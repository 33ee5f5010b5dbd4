"""Answering models behind one interface (``answer.protocol.AnswerModel``).

``local`` is the embedded extractive answerer (no network; what it may quote
is in ``evidence``, when it abstains in ``answerability``); ``anthropic`` talks
to Claude through the official SDK. This package is the only place that talks
to an LLM; backends implement the protocol and import nothing of the loop.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import InputError
from ..settings import default_answer_model

if TYPE_CHECKING:
    from ..answer.protocol import AnswerModel
    from ..embedder import Embedder


def resolve_model(spec: str | None = None, *, embedder: Embedder | None = None) -> AnswerModel:
    """``local``, ``anthropic`` or ``anthropic:MODEL_NAME`` (default: see ``settings.default_answer_model``) -> a backend."""
    spec = (spec or default_answer_model()).strip()
    if spec == "local":
        from .local import LocalModel

        return LocalModel(embedder=embedder)
    if spec == "anthropic" or spec.startswith("anthropic:"):
        from .anthropic import DEFAULT_MODEL, AnthropicModel

        return AnthropicModel(model_name=spec.partition(":")[2] or DEFAULT_MODEL)
    raise InputError(f"unknown model {spec!r}: use local, anthropic or anthropic:MODEL_NAME")
