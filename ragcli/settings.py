"""The environment, read in one place.

Every variable ragcli honours is read here and nowhere else; callers resolve
a setting once at their entry point (the CLI through Typer's ``envvar=``, a
library user when a function is called without the value) and pass the
result down as a typed value.

    RAGCLI_INDEX              index directory (default ./.ragcli)
    RAGCLI_MODEL              default answering model: local | anthropic[:NAME]
    ANTHROPIC_API_KEY         enables (and defaults to) the anthropic model
    RAGCLI_EMBED_MODEL        another ONNX embedding model (.onnx path) ...
    RAGCLI_EMBED_TOKENIZER    ... its tokenizer.json or WordPiece vocab.txt ...
    RAGCLI_EMBED_POOLING      ... and its pooling, mean or cls
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

INDEX_ENV = "RAGCLI_INDEX"
MODEL_ENV = "RAGCLI_MODEL"
ANTHROPIC_KEY_ENV = "ANTHROPIC_API_KEY"
DEFAULT_INDEX_DIR = Path(".ragcli")


def index_root(given: str | os.PathLike[str] | None = None) -> Path:
    """``given``, else $RAGCLI_INDEX, else ``./.ragcli``."""
    return Path(given) if given else Path(os.environ.get(INDEX_ENV) or DEFAULT_INDEX_DIR)


def default_answer_model() -> str:
    """$RAGCLI_MODEL if set; else ``anthropic`` when an Anthropic key is set; else ``local``."""
    chosen = os.environ.get(MODEL_ENV, "").strip()
    if chosen:
        return chosen
    return "anthropic" if os.environ.get(ANTHROPIC_KEY_ENV) else "local"


@dataclass(frozen=True)
class CustomEmbedModel:
    """An embedding model named through RAGCLI_EMBED_* instead of the bundled one."""

    onnx_path: Path
    tokenizer: str | None
    pooling: str


def custom_embed_model() -> CustomEmbedModel | None:
    """The RAGCLI_EMBED_* variables as given (validated by the embedder), or None for the bundled model."""
    model = os.environ.get("RAGCLI_EMBED_MODEL")
    if not model:
        return None
    return CustomEmbedModel(
        onnx_path=Path(model),
        tokenizer=os.environ.get("RAGCLI_EMBED_TOKENIZER") or None,
        pooling=os.environ.get("RAGCLI_EMBED_POOLING", "mean"),
    )
