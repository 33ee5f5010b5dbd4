"""The local answerer credits a window for the question's words it says in other words (``soft_overlap``)."""

from __future__ import annotations

import numpy as np
import pytest

from ragcli.backends.local import LocalModel
from ragcli.backends.local.evidence import units
from ragcli.backends.local.question import Question
from ragcli.backends.local.selector import Weights, term_weights, windows
from ragcli.backends.local.soft_overlap import SoftOverlap
from ragcli.passage import Passage
from ragcli.text import query_terms

# uv's documentation (MIT/Apache-2.0), docs/concepts/python-versions.md: the answer to uv13 of the uv-docs set says
# "disable" where its question says "switch off", and "Python downloads" where it says "download a Python".
DISABLE = (
    "By default, uv will automatically download Python versions when needed. "
    "The python-downloads option can be used to disable this behavior."
)
PYPY = "uv supports CPython, PyPy, and GraalPy. Python downloads come from the Astral python-build-standalone project."
QUESTION = "I never want uv to download a Python interpreter by itself. How do I switch that off?"


def passage(doc: str, text: str, heading: str = "Python versions") -> Passage:
    return Passage(
        f"{doc}@v#s", doc, "v", "s", "t", ("everyone",), None, None, "Python", (heading,), f"/{doc}.md", None, text
    )


def scored(embedder, question: str, passages: list[Passage]) -> dict[str, float]:
    """Each window's quote and its soft overlap with ``question``."""
    asked = Question.read(question)
    weights = term_weights(asked, [frozenset(query_terms(p.index_text)) for p in passages])
    soft = SoftOverlap.of(embedder, question, passages, weights)
    return {w.quote: soft(w, set(query_terms(w.quote))) for p in passages for w in windows(units(p), max_units=1)}


def test_word_pieces_are_the_ones_a_passage_unit_is_pooled_from(embedder) -> None:
    """One vector per piece, each piece a slice of the text, from the model run that pools a unit's vector: the mean
    of a sentence's pieces is that sentence's unit vector."""
    text = passage("a", DISABLE).index_text
    (read,) = embedder.token_vectors([text])
    assert len(read.spans) == len(read.vectors) > 10
    assert "".join(text[a:b] for a, b in read.spans) == "".join(text.split())
    raw = _raw(embedder, text)
    assert np.allclose(read.vectors, raw / np.linalg.norm(raw, axis=1, keepdims=True), atol=1e-5)
    start = text.index("The python-downloads")
    _, (pooled,) = embedder.embed_with_spans([text], [[(start, len(text))]])
    mean = raw[[i for i, (a, _) in enumerate(read.spans) if a >= start]].mean(axis=0)
    assert np.allclose(mean / np.linalg.norm(mean), pooled[0], atol=1e-4)


def _raw(embedder, text: str) -> np.ndarray:
    """The model's piece vectors before normalising (what ``embed_with_spans`` pools), [CLS] and [SEP] left out."""
    ids, _ = embedder._encode_with_offsets([text])
    hidden, _ = embedder._hidden(embedder._session, ids)
    return hidden[0, 1 : len(ids[0]) - 1]


def test_a_paraphrase_is_credited_where_shared_words_are_not(embedder) -> None:
    values = scored(embedder, QUESTION, [passage("a", DISABLE), passage("b", PYPY)])
    disable = values["The python-downloads option can be used to disable this behavior."]
    downloads = values["Python downloads come from the Astral python-build-standalone project."]
    # Both hold "python" and "download"; only the first says what "switch off" asks for.
    assert disable > downloads
    assert 0 < downloads < disable < 1


def test_a_window_that_holds_every_term_scores_one(embedder) -> None:
    values = scored(embedder, "Can the python-downloads option disable this behavior?", [passage("a", DISABLE)])
    assert values["The python-downloads option can be used to disable this behavior."] == pytest.approx(1.0)


def test_a_question_without_terms_scores_nothing(embedder) -> None:
    assert set(scored(embedder, "How do I do it?", [passage("a", DISABLE)]).values()) == {0.0}


def test_past_the_token_limit_only_its_own_words_count(embedder) -> None:
    """The model reads 256 pieces of a passage: a window after them is credited for the words it holds, no more."""
    filler = " ".join(f"Sentence {i} is about nothing in particular at all." for i in range(60))
    long = passage("a", f"{filler}\n\n{DISABLE}")
    last = scored(embedder, QUESTION, [long])["The python-downloads option can be used to disable this behavior."]
    weights = term_weights(Question.read(QUESTION), [frozenset(query_terms(long.index_text))])
    held = set(query_terms("The python-downloads option can be used to disable this behavior."))
    # Every term of this question is one word piece: each counts once.
    assert last == pytest.approx(sum(w for t, w in weights.items() if t in held) / sum(weights.values()))
    assert 0 < last < 0.1


def one_feature(name: str) -> Weights:
    return Weights(weights={name: 1.0}, means={name: 0.0}, scales={name: 1.0})


def test_the_rule_judges_the_judges_window_and_the_claim_is_the_selectors(embedder) -> None:
    """The claim is the best window by every feature, ``soft_overlap`` too; the answerability rule reads the best window
    of the judge, fitted without it (a rule fitted on the selector's windows abstained on more answerable questions)."""
    pypy, disable = passage("p", PYPY), passage("d", DISABLE)
    model = LocalModel(embedder=embedder, selector=one_feature("soft_overlap"), judge=one_feature("rank"))
    assessment = model.assess(QUESTION, [pypy, disable])  # the search's order: the judge's "rank" prefers pypy's
    # Every pypy window ties on rank: the judge takes the first in reading order, as the rule was fitted.
    first, values = model.candidates(QUESTION, [pypy, disable], {}).windows[0]
    assert first.passage_id == pypy.id
    assert assessment.scored[0].window.passage_id == disable.id
    assert assessment.features is not None and assessment.features["best"] == model.judge.score(values) == 1.0
    assert assessment.features["cosine"] == values.cosine != assessment.scored[0].values.cosine
    assert [c.passage_id for c in assessment.claims][:1] == [disable.id]
    assert "disable" in assessment.claims[0].quote


def test_the_heading_is_no_part_of_a_window(embedder) -> None:
    """The passage is read with its headings before it (``index_text``), as ingest embeds it; a window holds only its
    own pieces: a heading that says what is asked does not make its text say it."""
    under = passage("h", "Versions are listed in a table.", heading="Switch off automatic downloads")
    assert under.index_text.startswith("Python") and under.index_text.endswith(under.text)
    values = scored(embedder, "How do I switch off automatic downloads?", [under])
    assert values["Versions are listed in a table."] < 0.6
