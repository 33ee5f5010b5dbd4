"""The pointer rule: which neighbouring section a passage points at ("the table above", "see below").

A chunk boundary can split a passage from the table or list it talks about:
"Paste the values from the table above." ``neighbour_steps`` reads such a
pointer; ``Retriever.pointed_at`` fetches the sections it names (the one before
for "above", the one after for "below" or a closing "the following:"), from
the same document version and only when the scope may see them.
"""

from __future__ import annotations

import re

_THING = r"(?:tables?|lists?|examples?|steps?|sections?|code|snippets?|commands?|diagrams?)"
POINTS_UP = re.compile(rf"\b{_THING}\s+above\b|\bsee\s+above\b", re.IGNORECASE)
POINTS_DOWN = re.compile(rf"\b{_THING}\s+below\b|\bsee\s+below\b|\b(?:as follows|the following)\s*:\s*$", re.IGNORECASE)
"""A passage that points at a neighbour: "the table above" (the section before), "(see below)" or
"… the following:" at its end (the section after)."""
MAX_NEIGHBOURS = 2
"""Neighbour sections added per search at most: the expansion is bounded, like the search itself."""


def neighbour_steps(text: str) -> tuple[int, ...]:
    """Which neighbours ``text`` points at: -1 the section before, 1 the section after; () none."""
    text = text.strip()
    return tuple(step for step, pattern in ((-1, POINTS_UP), (1, POINTS_DOWN)) if pattern.search(text))
