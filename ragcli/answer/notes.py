"""What code tells the model between turns: facts about the last step, in plain sentences.

Every note is written by code, from counts, IDs and values code computed; none
repeats what the model wrote. A backend shows the note as the result of the
model's last tool call (``Turn.note``). The loop (``answer.handlers``) picks
which note a step earns; the wording lives here, in one place, so a change of
wording is a change of one module and ``PROMPT_VERSION`` (``answer.loop``).
"""

from __future__ import annotations

from collections.abc import Sequence

from .protocol import Conflict, Verdict

RETRY_NOTE = "The first search found no passages. You may search once more with different words, or abstain."
"""The first search (the question itself) found nothing: one turn to rewrite the query."""
NOTHING_NEW_NOTE = "That search found no new passages; no more searches are allowed."

GRADE_NOTES: dict[Verdict, str] = {
    "sufficient": "Graded sufficient. Now call submit_answer.",
    "conflicting": (
        "Graded conflicting. Do not pick one value: cite every passage that states one, each in its own claim, "
        "or abstain."
    ),
    "missing": (
        "No search was run for the gap (none is left, or no gap was named). "
        "Answer what the evidence supports, or abstain."
    ),
}
"""What a grade that ran no search earns (``grade_evidence``; ``irrelevant`` ends the run instead)."""
GAP_NOTE = "These passages were found for the gap. Now call submit_answer."
GAP_EMPTY_NOTE = "The gap-filling search found no new passages; no more searches are allowed."


def parts_note(ran: Sequence[str], counts: Sequence[int], skipped: int) -> str:
    """What code tells the model after a decomposed search: how many new passages each part found."""
    lines = [
        f"Searched {len(ran)} parts: "
        + "; ".join(f"{q!r} found {n} new" for q, n in zip(ran, counts, strict=True))
        + "."
    ]
    if skipped:
        lines.append(f"{skipped} more parts were not searched: the search budget is spent.")
    return "\n".join(lines)


def conflict_note(conflicts: Sequence[Conflict]) -> str:
    """What code tells the model when its claims relied on one side of a conflict: IDs and values only."""
    lines = [
        "Your answer was not accepted yet: current passages that this employee may read state different values "
        "for the same thing, and the answer cited only one side."
    ]
    for c in conflicts:
        lines.append("- " + "; ".join(f"passage {s.passage_id} says {s.value}" for s in c.sides))
    lines.append(
        "Do not pick one. Call submit_answer again with claims that cite every one of these passages, "
        "each claim saying what its own passage states, or abstain."
    )
    return "\n".join(lines)


def drift_note(lost: Sequence[str]) -> str:
    """A query that lost what the question asks about (``answer.drift``): it was not run. ``lost`` are the
    question's own words (``ERR_4021``, ``the negation 'not'``), never the model's."""
    return (
        "That query was not run: it leaves out what the question asks about: "
        + ", ".join(lost)
        + ". Search again keeping each of them, or name each one you leave out on purpose in dropped, with a reason. "
        "Another query that loses one ends the run."
    )


PARTS_FALLBACK_NOTE = (
    "The decomposition is not used and not offered again. Go on from the question's own search (the evidence you "
    "were shown first): answer from it, search with other words, or abstain."
)
"""A ``search_parts`` call that was malformed or found nothing new: the run goes on from the question's search."""
