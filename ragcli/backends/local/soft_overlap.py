"""How much of what a question asks a window holds, in its words or in other words: the ``soft_overlap`` feature.

``weighted_overlap`` counts the question's terms a window holds word for word,
so a paraphrase holds none of them: "I never want uv to download a Python
interpreter by itself. How do I switch that off?" shares only "python" and
"download" with "The python-downloads option can be used to disable this
behavior". Here each word piece of a term the window does not hold counts as
the closest it comes to one of the window's pieces, both read in context
by the embedder (``Embedder.token_vectors``: the run that pools a unit's
vector at ingest, its pieces kept instead of pooled; at ask time, one run over
the question and the passages read), so "switch off" is credited for "disable".

    soft_overlap = sum over the question's pieces p of weight(p) * (1 if p's term is in the window,
                   else max over the window's pieces q of cos(p, q)) / sum of the weights

A piece is a word piece of a question term (stop words are none); its weight
is its term's (``selector.term_weights``: rare in the evidence, heavy), so a
word the tokenizer cuts in three weighs three times (each term counted once,
by its best piece, answered one question fewer: ``docs/defaults.md``).
A window past the model's token limit has no pieces: only its words count.

Only the selector weighs it: the answerability rule reads the best window of
the judge, the selector fitted without it (``answerer.LocalModel.judge``).
Measured by ``bench/answers.py``, left out: the first search's best window
holds the answer for 348 of 472 questions against 334 without it; through the
whole loop 389 of 501 are answered right against 384, every abstention the
same (``docs/defaults.md``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...passage import Passage
from ...text import query_terms
from .selector import Window

if TYPE_CHECKING:
    import numpy as np

    from ...embedder import Embedder, TokenVectors

_WORD = re.compile(r"[^\W_]+")
"""A run of letters and digits: the word a piece belongs to ("check_in" is two)."""


@dataclass(frozen=True)
class _Read:
    """One passage's pieces: their cosines with each question piece (rows), and where each piece starts and ends
    in the passage's ``text`` (``index_text`` less its heading prefix)."""

    cosines: np.ndarray
    starts: np.ndarray
    ends: np.ndarray


@dataclass(frozen=True)
class SoftOverlap:
    """The question's pieces, their terms and weights, and each read passage's pieces: call it with a window."""

    terms: tuple[str, ...]
    """Each question piece's term."""
    weights: np.ndarray
    read: Mapping[str, _Read]
    total: float
    """The weights' sum: the share's denominator, the same for every window."""

    @classmethod
    def of(
        cls, embedder: Embedder, question: str, passages: Sequence[Passage], weights: Mapping[str, float]
    ) -> SoftOverlap:
        """One model run over the question and the passages (``index_text``, as ingest embedded them)."""
        import numpy as np

        asked, *texts = embedder.token_vectors([question, *(p.index_text for p in passages)])
        rows, terms = _pieces(question, asked, weights)
        mine = asked.vectors[rows]
        read = {}
        for passage, pieces in zip(passages, texts, strict=True):
            shift = len(passage.index_text) - len(passage.text)  # the heading prefix
            spans = np.array(pieces.spans, dtype=np.int64).reshape(-1, 2) - shift
            read[passage.id] = _Read(mine @ pieces.vectors.T, spans[:, 0], spans[:, 1])
        mass = np.array([weights[t] for t in terms], dtype=np.float64)
        return cls(tuple(terms), mass, read, float(mass.sum()))

    def __call__(self, window: Window, held: AbstractSet[str]) -> float:
        """The window's ``soft_overlap`` (0 for a question without terms); ``held``: the terms it holds, as
        ``selector.features`` reads them (a table row's with its column headers, ``selector.row_headers``)."""
        import numpy as np

        if self.total <= 0:
            return 0.0
        said = np.array([t in held for t in self.terms], dtype=bool)
        closest = np.zeros(len(self.terms))
        read = self.read.get(window.passage_id)
        if read is not None:
            inside = np.nonzero((read.starts < window.units[-1].end) & (read.ends > window.first.start))[0]
            if inside.size:
                closest = read.cosines[:, inside].max(axis=1)
        return float((np.where(said, 1.0, closest) * self.weights).sum() / self.total)


def _pieces(question: str, asked: TokenVectors, weights: Mapping[str, float]) -> tuple[list[int], list[str]]:
    """The rows of the question's pieces that belong to a weighted term, and each one's term."""
    words = [(m.start(), m.end(), m.group(0)) for m in _WORD.finditer(question)]
    rows, terms = [], []
    for row, (start, end) in enumerate(asked.spans):
        word = next((w for a, b, w in words if a <= start and end <= b), None)
        term = query_terms(word) if word else []
        if term and term[0] in weights:
            rows.append(row)
            terms.append(term[0])
    return rows, terms
