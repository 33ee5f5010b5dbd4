"""Answering backends behind one interface (``answer.protocol.AnswerModel``).

``local`` is the embedded extractive answerer (no network; a package of its own:
the evidence it may quote, what a question asks for, the window selector, the
abstention rule and their fitted numbers). ``anthropic`` talks to Claude
through the official SDK; ``openai`` to the OpenAI API or any server speaking
Chat Completions with tools (Ollama, vLLM, llama.cpp, LM Studio). The two LLM
backends share their prompt and evidence format (``prompt``); which model and
server ``openai:MODEL[@URL]`` names is read in ``openai_server``, and a reply is
read in ``openai_reply``. Both bound a server the same way (``bounds``: one
deadline per ask over every request and retry, a cap on a reply's size, usage
clamped at zero). This package is the only place that talks to an LLM;
backends implement the protocol and import nothing of the loop.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import InputError
from ..settings import default_answer_model

if TYPE_CHECKING:
    from ..answer.protocol import AnswerModel, Verifier
    from ..answer.setup import Answerer, AnswerSetup
    from ..embedder import Embedder
    from .local.vectors import Source


def open_answerer(setup: AnswerSetup, *, embedder: Embedder | None = None, vectors: Source | None = None) -> Answerer:
    """The backend and the verifier ``setup`` names, opened now (a wrong model name or a missing key fails here,
    before any question): what ``ragcli ask``, ``eval --ask`` and ``mcp`` answer with. ``vectors`` (the
    ``Retriever`` answered from) is where the local answerer reads stored unit vectors."""
    from ..answer.setup import Answerer

    backend = resolve_model(setup.model, embedder=embedder, vectors=vectors)
    verifier = verifier_for(backend, setup)
    return Answerer(backend, setup.limits, verifier, plan=setup.plan, retry_on_empty=setup.retry_on_empty)


def resolve_model(
    spec: str | None = None, *, embedder: Embedder | None = None, vectors: Source | None = None
) -> AnswerModel:
    """``local``, ``anthropic[:MODEL]`` or ``openai:MODEL[@URL]``
    (default: see ``settings.default_answer_model``) -> a backend.

    ``openai:MODEL@URL``: the URL starts at the ``@`` followed by ``http://`` or
    ``https://`` (a model name may hold ``:`` and ``@``, as in ``qwen2.5:7b``);
    without it, $RAGCLI_OPENAI_BASE_URL, else the OpenAI API.
    """
    spec = (spec or default_answer_model()).strip()
    if spec == "local":
        from .local import LocalModel

        return LocalModel(embedder=embedder, vectors=vectors)
    if spec == "anthropic" or spec.startswith("anthropic:"):
        from .anthropic import DEFAULT_MODEL, AnthropicModel

        return AnthropicModel(model_name=spec.partition(":")[2] or DEFAULT_MODEL)
    if spec == "openai" or spec.startswith("openai:"):
        from .openai import OpenAIModel

        return OpenAIModel.from_spec(spec.partition(":")[2])
    raise InputError(f"unknown model {spec!r}: use local, anthropic[:MODEL] or openai:MODEL[@URL]")


def verifier_for(answering: AnswerModel, setup: AnswerSetup) -> Verifier | None:
    """The second pass ``setup`` asks for (``AnswerSetup.verifies``), or None:
    the answering model itself when it can verify and no other was named."""
    if not setup.verifies:
        return None
    from ..answer.protocol import Verifier

    if setup.verify_model is None and isinstance(answering, Verifier):
        return answering
    return resolve_verifier(setup.verify_model or setup.model)


def resolve_verifier(spec: str | None = None) -> Verifier:
    """``--verify`` / ``--verify-model``: an LLM backend
    (``anthropic[:MODEL]`` or ``openai:MODEL[@URL]``) as the second pass."""
    spec = (spec or default_answer_model()).strip()
    if spec == "local":
        raise InputError(
            "--verify needs an LLM model to judge the claims: "
            "give --verify-model anthropic[:MODEL] or openai:MODEL[@URL]"
        )
    from ..answer.protocol import Verifier

    backend = resolve_model(spec)
    assert isinstance(backend, Verifier)
    return backend
