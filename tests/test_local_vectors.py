"""The local answerer reads the stored unit vectors through its own lookup; turns carry no arrays.

Real ingest of sample_corpus (the session index), the real ONNX model.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from support.corpus import scope
from support.paths import DAY

from ragcli.answer.protocol import Found, Turn
from ragcli.answer.run import evidence_config, found_by
from ragcli.backends.local.vectors import question_vector, stored_units
from ragcli.units import embed_passages

QUESTION = "How long do customers have to ask for a refund?"


def _search(retriever):  # type: ignore[no-untyped-def]
    response = retriever.search(scope("alice", DAY), QUESTION, config=evidence_config(retriever.config))
    evidence = [r.passage for r in response.results]
    found = {r.passage.id: found_by(r, len(response.results), response.generation) for r in response.results}
    return evidence, found


def test_a_turn_carries_no_vectors() -> None:
    names = {f.name for f in dataclasses.fields(Turn)}
    assert not names & {"unit_vectors", "question_vector"}
    assert not any("ndarray" in str(f.type) for f in dataclasses.fields(Turn))


def test_the_lookup_reads_what_ingest_stored_for_the_passages_found(retriever, embedder) -> None:
    evidence, found = _search(retriever)
    assert evidence and all(found[p.id].row >= 0 and found[p.id].generation for p in evidence)
    stored = stored_units(retriever, evidence, found)
    assert set(stored) == {p.id for p in evidence}
    # The same vectors the answerer would compute itself (stored as float16, hence the tolerance).
    computed = embed_passages(embedder, evidence)[1]
    for p, vectors in zip(evidence, computed, strict=True):
        assert stored[p.id].shape == vectors.shape
        assert np.abs(stored[p.id] - vectors).max() < 0.01
    # The question's vector, as its search embedded it.
    vector = question_vector(retriever, QUESTION)
    assert vector is not None and np.abs(vector - embedder.embed([QUESTION])[0]).max() < 1e-4


def test_a_row_of_another_generation_is_not_read(retriever) -> None:
    evidence, found = _search(retriever)
    stale = {pid: dataclasses.replace(hit, generation="gen-elsewhere") for pid, hit in found.items()}
    assert stored_units(retriever, evidence, stale) == {}
    unranked = {pid: Found(hit.rank, hit.of, hit.cosine, hit.bm25_rank) for pid, hit in found.items()}
    assert stored_units(retriever, evidence, unranked) == {}
    assert stored_units(None, evidence, found) == {}
