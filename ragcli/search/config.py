"""How search ranks: modes, floors, fusion constant, candidates. Every field is a CLI flag but
``ranker_tops``, which the answer loop sets for its evidence.

The defaults were measured, not guessed; the numbers are in the docstrings
and in docs/defaults.md, "How the defaults were chosen" (bench/floors.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..errors import InputError

Mode = Literal["hybrid", "bm25", "dense"]
MODES: tuple[Mode, ...] = ("hybrid", "bm25", "dense")

DENSE_FLOOR = 0.30
"""Cosine under which a passage is noise for the bundled MiniLM.

Chosen from data (bench/floors.py): the cosine of unrelated query/passage
pairs has p99 0.39 (SciFact queries x random abstracts) and 0.27 (SQuAD
questions x other articles' paragraphs); relevant pairs have a median of 0.59
(SciFact) and 0.58 (SQuAD). At 0.30 the best hit of an off-topic query
(SciFact claims against the uv docs) passes 1% of the time, while 100% of
SciFact and 99.3% of SQuAD queries keep at least one hit.
"""

BM25_FLOOR = 0.0
"""Minimum BM25 score; 0 keeps every hit that matches a non-stop-word term.

BM25 scores grow with query length and term rarity, so off-topic and relevant
scores overlap and no absolute value works across corpora (bench/floors.py: a
floor of 10 cut 12% of SciFact's relevant documents and still let 83% of
off-topic questions through). Off-topic queries are sent home by the topic
gate instead (SearchConfig.topic_gate).
"""

BM25_ONLY_MIN_TERMS = 2
"""In hybrid mode, when the closest passage in meaning only just clears the dense floor (under
``DENSE_WEAK``), a word match the dense ranker did not keep must share at least this many of the
query's terms (1 = keep every word match; keyword queries of up to three words are exempt): one
shared ordinary word of a question is not evidence. Measured by bench/gate.py; see docs/defaults.md,
"How the defaults were chosen"."""
DENSE_WEAK = 0.35
"""A best dense score under this has barely cleared the floor (0.30), well inside the range of
unrelated pairs (bench/floors.py: their p99 is 0.39 on SciFact): the query's meaning was hardly found.
At 0.40 the rule also fired on in-domain SciFact queries and cost nDCG@10 (0.714 -> 0.712)."""

RRF_K = 60
RANKER_FIRST_SLOT = 3
"""Hybrid mode under a per-document limit: BM25's first passage and the embedder's stand no lower than this place
(``fusion.lift_ranker_firsts``). Chosen on the fifteen development sets' recall@5 (docs/defaults.md): places 3 to
5 tie on recall (0.968 -> 0.971 pooled, no set lower); 3 kept one more answer string in the top 5 than 5 did."""
CANDIDATES = 50
TOP_K = 10
PER_DOC = 2
"""At most this many passages of one document version in the top k (0 = no limit).

A long section split into parts matches a query with every part, and one document
then fills the results with near-duplicates. Measured before and after (docs/defaults.md,
"How the defaults were chosen"): recall@5 and nDCG@10 on the uv docs, SciFact and
the sample corpus did not fall."""


@dataclass(frozen=True)
class SearchConfig:
    """How search ranks; every field is a CLI flag but ``ranker_tops``."""

    k: int = TOP_K
    candidates: int = CANDIDATES
    """How many candidates each ranker returns before floors and fusion."""
    bm25_floor: float = BM25_FLOOR
    dense_floor: float = DENSE_FLOOR
    rrf_k: int = RRF_K
    identifier_ranking: bool = True
    """Hybrid mode: a short query's rare identifiers (``ERR_4021``, ``PEP 723``) add a third ranking to the fusion:
    the passages that hold them.

    A sentence embedding sees ``PEP 723`` and ``PEP 517`` as near neighbours, and
    fusion favours a passage both rankers found over BM25's exact hit; a user who
    types an identifier wants the passages that name it.
    """
    mode: Mode = "hybrid"
    bm25_only_min_terms: int = BM25_ONLY_MIN_TERMS
    """Hybrid mode, weak meaning: a BM25 hit the dense ranker
    did not keep must share this many of a long query's terms."""
    dense_weak: float = DENSE_WEAK
    """A best dense score under this counts as weak meaning (see ``bm25_only_min_terms``)."""
    topic_gate: bool = True
    """In hybrid mode, drop BM25's word matches when the query is off-topic (see ``search.gate``)."""
    per_doc: int = PER_DOC
    """At most this many passages of one document version in the top k; 0 = no limit."""
    ranker_tops: int = 0
    """Also keep each ranker's best N hits that fusion placed below k, after the top k (0 = off).

    Fusion favours a passage both rankers found; one that only BM25 ranks first (the page titled with the
    query's words) or only the embedder does (a paraphrase) can fall to 20th. The answer loop reads them
    as evidence; a result list for a person stays as fused."""

    def __post_init__(self) -> None:
        if self.k < 1 or self.candidates < 1:
            raise InputError("-k and --candidates must be at least 1")
        parse_mode(self.mode)
        if self.per_doc < 0:
            raise InputError("--per-doc must be at least 0 (0 = no limit)")
        if self.ranker_tops < 0:
            raise InputError("ranker_tops must be at least 0 (0 = off)")

    @property
    def uses_bm25(self) -> bool:
        return self.mode in ("hybrid", "bm25")

    @property
    def uses_dense(self) -> bool:
        return self.mode in ("hybrid", "dense")

    @property
    def ranks_documents(self) -> bool:
        """Each document's best passage is scored by the document's ranks (``fusion.document_leads``): in hybrid
        mode under a per-document limit, where the results are a list of pages for a person."""
        return self.mode == "hybrid" and self.per_doc > 0


def parse_mode(value: str) -> Mode:
    """``--mode`` text as a ``Mode``; InputError names the choices."""
    for mode in MODES:
        if value == mode:
            return mode
    raise InputError(f"--mode {value!r}: use hybrid, bm25 or dense")
