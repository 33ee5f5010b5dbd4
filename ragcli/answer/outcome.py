"""What ``ask`` returns: ``Answered`` or ``Abstained``, and the ``--json`` shape of both.

An abstention carries a reason code and shows one generic sentence, the same
for every reason, so a forbidden document and a missing one look identical.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ..checked import Checked
from ..passage import Passage
from .citations import CheckResult
from .protocol import Conflict, Usage
from .trace import Trace

ReasonCode = Literal[
    "no_visible_evidence",
    "citation_check_failed",
    "model_abstained",
    "invalid_decision",
    "budget_exhausted",
    "conflicting_evidence",
]
REASON_CODES: tuple[ReasonCode, ...] = (
    "no_visible_evidence",
    "citation_check_failed",
    "model_abstained",
    "invalid_decision",
    "budget_exhausted",
    "conflicting_evidence",
)

ABSTAIN_MESSAGE = "I can't answer that from the documents available to you."
"""One sentence for every abstention: the reason code says why, the message never does."""


@dataclass(frozen=True)
class CitedClaim:
    """A claim that passed every check, with the passage it cites."""

    statement: str
    passage: Passage
    quote: str


@dataclass(frozen=True, kw_only=True)
class _Run:
    """What every outcome records of its run."""

    searches: int
    model: str
    request_id: str
    usage: Usage
    evidence_ids: tuple[str, ...]
    """Every passage ID the model was shown, in the order found."""
    checks: tuple[CheckResult, ...]
    """The citation checks of the submitted claims (empty when none were submitted)."""
    trace: Trace
    verified: tuple[bool, ...] | None = None
    """With ``--verify``: the verifier's verdict on each
    submitted claim (None: not verified, or the verifier failed)."""
    submitted_answer: str | None = None
    """With ``--verify``: the submitted claims' statements as
    they would have read unverified (for eval: what it stopped)."""


@dataclass(frozen=True, kw_only=True)
class Answered(_Run):
    claims: tuple[CitedClaim, ...]
    conflicts: tuple[Conflict, ...] = ()
    """Current sources that disagree on something the answer states; the answer cites every side of each."""
    disposition: Literal["answered"] = "answered"

    @property
    def sources(self) -> list[Passage]:
        """Cited passages, each once, in order of first citation."""
        seen: dict[str, Passage] = {}
        for c in self.claims:
            seen.setdefault(c.passage.id, c.passage)
        return list(seen.values())

    @property
    def answer(self) -> str:
        """The claims as text with numbered markers pointing at ``sources``.

        Prose claims run on, each followed by its marker. A claim that holds a block (code, a
        table, a list: more than one line) starts on its own line and its marker gets a line of
        its own after the block, so a copied command never carries a ``[1]``.
        """
        number = {p.id: i for i, p in enumerate(self.sources, start=1)}
        out = ""
        for c in self.claims:
            statement, marker = c.statement.strip(), f"[{number[c.passage.id]}]"
            if "\n" in statement:
                out = (out.rstrip() + "\n\n" if out else "") + f"{statement}\n{marker}\n\n"
            else:
                out += ("" if not out or out.endswith("\n") else " ") + f"{statement} {marker}"
        return out.strip()

    @property
    def conflict_notes(self) -> list[str]:
        """One visible line per conflict: which numbered source says what."""
        number = {p.id: i for i, p in enumerate(self.sources, start=1)}
        notes = []
        for c in self.conflicts:
            said = "; ".join(f"[{number[s.passage_id]}] says {s.value}" for s in c.sides if s.passage_id in number)
            notes.append(f"conflict: the sources disagree: {said}.")
        return notes

    def to_wire(self) -> AnswerJson:
        return AnswerJson.of(self)


@dataclass(frozen=True, kw_only=True)
class Abstained(_Run):
    reason: ReasonCode
    disposition: Literal["abstained"] = "abstained"

    @property
    def message(self) -> str:
        return ABSTAIN_MESSAGE

    def to_wire(self) -> AnswerJson:
        return AnswerJson.of(self)


Outcome = Answered | Abstained


# --------------------------------------------------------------------------- the --json contract


@dataclass(kw_only=True)
class ClaimJson(Checked):
    statement: str
    passage_id: str
    quote: str
    source: str
    pages: list[int]
    """The cited passage's PDF pages (1-based); [] for every other format."""


@dataclass(kw_only=True)
class SourceJson(Checked):
    n: int
    passage_id: str
    title: str
    source: str
    pages: list[int]
    """Its PDF pages (1-based); [] for every other format."""
    ocr: bool
    """Whether OCR read it from a scanned PDF page."""


@dataclass(kw_only=True)
class ConflictSideJson(Checked):
    n: int
    """The side's number in ``sources``."""
    passage_id: str
    value: str


@dataclass(kw_only=True)
class ConflictJson(Checked):
    note: str
    """The line shown to people: ``conflict: the sources disagree: [1] says 1 hour; [2] says 4 hours.``"""
    sides: list[ConflictSideJson]


@dataclass(kw_only=True)
class AnswerJson(Checked):
    disposition: Literal["answered", "abstained"]
    answer: str | None
    claims: list[ClaimJson]
    sources: list[SourceJson]
    conflicts: list[ConflictJson] = field(default_factory=list)
    """Current sources that disagree on something the answer states (empty when none, or abstained)."""
    reason: ReasonCode | None
    message: str | None
    searches: int
    model: str
    request_id: str
    usage: Usage

    @classmethod
    def of(cls, outcome: Outcome) -> AnswerJson:
        answered = outcome if isinstance(outcome, Answered) else None
        abstained = outcome if isinstance(outcome, Abstained) else None
        claims = answered.claims if answered is not None else ()
        sources = answered.sources if answered is not None else []
        number = {p.id: i for i, p in enumerate(sources, start=1)}
        conflicts = (
            [
                ConflictJson(
                    note=note,
                    sides=[
                        ConflictSideJson(n=number[s.passage_id], passage_id=s.passage_id, value=s.value)
                        for s in c.sides
                        if s.passage_id in number
                    ],
                )
                for c, note in zip(answered.conflicts, answered.conflict_notes, strict=True)
            ]
            if answered is not None
            else []
        )
        return cls(
            disposition=outcome.disposition,
            answer=answered.answer if answered is not None else None,
            claims=[
                ClaimJson(
                    statement=c.statement,
                    passage_id=c.passage.id,
                    quote=c.quote,
                    source=c.passage.shown_source,
                    pages=list(c.passage.pages),
                )
                for c in claims
            ],
            sources=[
                SourceJson(
                    n=i, passage_id=p.id, title=p.heading_label, source=p.shown_source, pages=list(p.pages), ocr=p.ocr
                )
                for i, p in enumerate(sources, start=1)
            ],
            conflicts=conflicts,
            reason=abstained.reason if abstained is not None else None,
            message=abstained.message if abstained is not None else None,
            searches=outcome.searches,
            model=outcome.model,
            request_id=outcome.request_id,
            usage=outcome.usage,
        )
