"""Answering models behind one interface (``answer.AnswerModel``).

``local`` is the embedded extractive answerer (no network); ``anthropic`` talks
to Claude through the official SDK. This package is the only place that talks
to an LLM.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ..errors import InputError

if TYPE_CHECKING:
    from ..answer import AnswerModel
    from ..embedder import Embedder


def default_model_spec() -> str:
    """RAGCLI_MODEL if set; else anthropic when ANTHROPIC_API_KEY is set; else local."""
    chosen = os.environ.get("RAGCLI_MODEL")
    if chosen:
        return chosen
    return "anthropic" if os.environ.get("ANTHROPIC_API_KEY") else "local"


def resolve_model(spec: str | None, *, embedder: Embedder | None = None) -> AnswerModel:
    """``local``, ``anthropic`` or ``anthropic:MODEL_NAME`` -> a backend."""
    spec = (spec or default_model_spec()).strip()
    if spec == "local":
        from .local import LocalModel

        return LocalModel(embedder=embedder)
    if spec == "anthropic" or spec.startswith("anthropic:"):
        from .anthropic import DEFAULT_MODEL, AnthropicModel

        name = spec.partition(":")[2] or DEFAULT_MODEL
        return AnthropicModel(model_name=name)
    raise InputError(f"unknown model {spec!r}: use local, anthropic or anthropic:MODEL_NAME")
