"""The embedded extractive answerer: no network, no LLM, quotes only what the passages say.

    answerer       ``LocalModel``, the backend: reads the passages, picks a window, claims or abstains
    evidence       the units it may quote (sentences, list items, table rows, code lines) and their spans
    question       what a question asks for (its kind, its named things, its terms)
    selector       which window of units holds the fact: named features, weighted
    soft_overlap   the selector's feature for a paraphrase: the question's words a window says in other words
    answerability  when the best window does not answer: the abstention rule
    fitted         the numbers ``bench/answers.py`` fitted for the selector, its judge and the rule
    vectors        its own lookup of the stored unit vectors and the question's search vector

Nothing here is imported by the LLM backends, and nothing here imports them.
"""

from __future__ import annotations

from .answerer import LocalModel

__all__ = ["LocalModel"]
