"""Embedding an ingest's new passages: where the vectors are computed, and filling them in, shortest first.

``EmbeddingBackend`` is where the model runs (``LocalEmbedding``: in this process;
``ray_embed.RayEmbedding``: on a Ray cluster); ``embed_into`` cuts the passages into
steps of ``EMBED_STEP`` in length order, checks what each step gives back and reports
progress in model work (``Embedder.batch_work``), so a bar moves at a steady pace.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Protocol

from ..embedder import Embedder
from ..errors import IndexWriteError
from ..passage import Passage
from ..units import Embedded, embed_passages
from .progress import Progress

if TYPE_CHECKING:
    import numpy as np

EMBED_STEP = 16
"""Passages per call to the embedder: progress moves this often."""


class EmbeddingBackend(Protocol):
    """Where the vectors of new passages are computed; discovery, diffing and publishing stay in the ingest.

    ``embed_steps`` yields, per step of passages and in step order, what
    ``units.embed_passages(embedder, step)`` gives: the (len(step), dim)
    passage vectors and each passage's unit vectors. The default runs the
    embedder in this process; ``ray_embed.RayEmbedding`` runs the same model on
    a Ray cluster.
    """

    def embed_steps(self, embedder: Embedder, steps: Sequence[Sequence[Passage]]) -> Iterator[Embedded]: ...


class LocalEmbedding:
    """The default backend: the embedder in this process, one step at a time."""

    def embed_steps(self, embedder: Embedder, steps: Sequence[Sequence[Passage]]) -> Iterator[Embedded]:
        for step in steps:
            yield embed_passages(embedder, step)


def embed_into(
    embedder: Embedder,
    backend: EmbeddingBackend,
    progress: Progress,
    tenant: str,
    vectors: np.ndarray,
    units: list[np.ndarray],
    rows: list[int],
    passages: list[Passage],
) -> None:
    """Embed ``passages`` into ``vectors[rows]`` and their units into ``units[rows]``, shortest first,
    reporting progress in model work."""
    texts = [p.index_text for p in passages]
    tokens = embedder.count_tokens(texts) if texts else []
    order = sorted(range(len(texts)), key=tokens.__getitem__)
    steps = [order[start : start + EMBED_STEP] for start in range(0, len(order), EMBED_STEP)]
    work = [embedder.batch_work([tokens[i] for i in step]) for step in steps]
    progress.embedding(len(texts), sum(work))
    results = iter(backend.embed_steps(embedder, [[passages[i] for i in step] for step in steps]))
    for step, step_work in zip(steps, work, strict=True):
        # A backend that returns less (or other shapes) than asked must not publish zero vectors.
        embedded = next(results, None)
        if embedded is None or embedded[0].shape != (len(step), vectors.shape[1]) or len(embedded[1]) != len(step):
            raise IndexWriteError(
                f"the embedding backend of tenant '{tenant}' returned incomplete vectors; "
                "the previous index is unchanged"
            )
        vectors[[rows[i] for i in step]] = embedded[0]
        for i, matrix in zip(step, embedded[1], strict=True):
            units[rows[i]] = matrix
        progress.embedded(step_work)
