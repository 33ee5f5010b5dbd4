"""Why the local answerer misses: each left-out wrong answerable question, categorised.

For every development corpus, the selector and the answerability rule are fitted without it (the
folds of ``answers.py``), and each of its answerable questions is decided from its first search's
candidate windows the way ``LocalModel.assess`` decides (best window, a second one, the run-on to
the unit holding the wanted fact). A wrong one is put in one category:

* ``abstained``      the rule (or a name no passage mentions) abstained;
* ``no window``      no candidate window holds an ``answer_contains`` (retrieval, or the unit cut);
* ``one unit short`` a window holding the answer starts where the claimed one starts or runs into it
                     (the claimed window plus or minus a unit would have held it);
* ``same page``      the answer is in another window of the claimed passage, or of its page (``doc_id``);
* ``wrong page``     the answer is on another page of the evidence.

For each miss it prints the winner, the best-ranked right window (its rank among the question's windows)
and the features that separated them most (weight times standardised difference). It also prints the
mean length of the claimed text (words) so a change that only lengthens quotes shows up.

Run:
    python bench/answer_misses.py --index /tmp/answers-index --cache /tmp/emb.pkl [--corpora uv-docs,nox] [-v]

Every number it prints is left-out (fitted without the corpus it describes). It is an analysis aid:
``answers.py`` (the real answer loop) is what is reported.
"""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Output, base_parser
from answers import DEV, QUESTIONS, MemoEmbedder, collect, examples, fit_fold

if TYPE_CHECKING:
    from fitting import Example

    from ragcli.backends.local.answerability import Rule
    from ragcli.backends.local.selector import Weights, Window

CATEGORIES = ("right", "abstained", "no window", "one unit short", "same page", "wrong page")
UNANSWERABLE = ("abstained: unanswerable", "unanswerable")


@dataclass
class Miss:
    """One answerable question as the left-out fold decides it."""

    corpus: str
    case_id: str
    question: str
    category: str
    claimed: str
    right: str
    right_rank: int | None
    separating: list[tuple[str, float]]
    words: int


def decide(example: Example, selector: Weights, judge: Weights, rule: Rule) -> tuple[str, Miss | None, int]:
    """The category of one answerable question (and the claimed text's length in words): the rule reads the judge's
    best window, the claims are the selector's (as ``LocalModel.assess``)."""
    from ragcli.answer.citations import normalize
    from ragcli.backends.local import answerability
    from ragcli.backends.local.answerer import LocalModel, Scored

    c = example.collected
    gold = [normalize(g) for g in c.case.answer_contains]
    scored = sorted(
        (Scored(w, v, selector.score(v)) for w, v in c.candidates.windows),
        key=lambda s: -s.score,
    )
    if not scored:
        return "no window", _miss(example, "no window", "", None, None, selector), 0
    best = scored[0]
    judged = max(scored, key=lambda s: judge.score(s.values))
    values = answerability.features(
        c.candidates.question,
        judged.values,
        judge.score(judged.values),
        judged.window.first.passage,
        c.evidence,
        c.found,
        c.candidates.unmatched,
    )
    probability = 0.0 if rule.stops(c.candidates.missing, values) else rule.probability(values)
    claims = LocalModel(embedder=object(), selector=selector, judge=judge, rule=rule)._claims(scored)  # type: ignore[arg-type]
    text = "\n".join(cl.statement for cl in claims)
    words = len(text.split())
    rights = [i for i, s in enumerate(scored) if any(g in normalize(s.window.statement) for g in gold)]
    right = scored[rights[0]] if rights else None
    if probability < rule.threshold:
        return "abstained", _miss(example, "abstained", text, right, rights, selector, best), words
    if any(g in normalize(text) for g in gold):
        return "right", None, words
    if right is None:
        return "no window", _miss(example, "no window", text, None, None, selector, best), words
    category = _category(best.window, right.window)
    return category, _miss(example, category, text, right, rights, selector, best), words


def abstains(example: Example, judge: Weights, rule: Rule) -> bool:
    """Whether the fold abstains on ``example`` (as ``LocalModel.assess`` and its conversation decide: from the judge's
    best window)."""
    from ragcli.backends.local import answerability

    c = example.collected
    scores = [judge.score(v) for _, v in c.candidates.windows]
    if not scores or c.candidates.missing:
        return True
    best = max(range(len(scores)), key=lambda i: scores[i])
    window, values = c.candidates.windows[best]
    features = answerability.features(
        c.candidates.question, values, scores[best], window.first.passage, c.evidence, c.found, c.candidates.unmatched
    )
    return rule.stops(c.candidates.missing, features) or rule.probability(features) < rule.threshold


def _category(claimed: Window, right: Window) -> str:
    if claimed.passage_id == right.passage_id:
        near = abs(right.first.position - claimed.first.position) <= 1 or right.overlaps(claimed)
        return "one unit short" if near else "same page"
    if claimed.first.passage.doc_id == right.first.passage.doc_id:
        return "same page"
    return "wrong page"


def _miss(
    example: Example,
    category: str,
    text: str,
    right: Any,
    rights: list[int] | None,
    selector: Weights,
    best: Any = None,
) -> Miss:
    separating: list[tuple[str, float]] = []
    if right is not None and best is not None:
        diffs = {n: w * (right.values[n] - best.values[n]) / selector.scales[n] for n, w in selector.weights.items()}
        separating = sorted(diffs.items(), key=lambda kv: kv[1])[:4]
    c = example.collected.case
    return Miss(
        corpus="",
        case_id=c.id,
        question=c.question,
        category=category,
        claimed=text,
        right=right.window.statement if right is not None else "",
        right_rank=rights[0] + 1 if rights else None,
        separating=separating,
        words=len(text.split()),
    )


def main() -> None:
    parser = base_parser(__doc__)
    parser.add_argument("--index", type=Path, required=True, help="index folder (every development tenant ingested)")
    parser.add_argument("--cache", type=Path, help="unit embeddings kept between runs (as answers.py)")
    parser.add_argument("--corpora", default=",".join(DEV), help="corpora to report (all fifteen are fitted on)")
    parser.add_argument("--max-abstain", type=float, default=0.06)
    parser.add_argument("-v", "--verbose", action="store_true", help="print every miss")
    args = parser.parse_args()
    out = Output(args.json)

    from ragcli.backends.local import LocalModel
    from ragcli.eval.cases import load_cases
    from ragcli.search import Retriever

    retriever = Retriever(args.index)
    memo = MemoEmbedder(retriever.embedder, args.cache)
    probe = LocalModel(embedder=memo, vectors=retriever)  # type: ignore[arg-type]
    collected = {name: collect(load_cases(QUESTIONS / f"{name}.jsonl"), retriever, probe) for name in DEV}
    memo.save()
    train = {name: examples(rows) for name, rows in collected.items()}

    table, misses, words = [], [], []
    answered: list[tuple[str, Example]] = []
    total: Counter[str] = Counter()
    for left in [c for c in args.corpora.split(",") if c]:
        selector, judge, rule = fit_fold({n: e for n, e in train.items() if n != left}, args.max_abstain)
        counts: Counter[str] = Counter()
        for example in train[left]:
            if not example.answerable:
                counts["unanswerable"] += 1
                abstained = abstains(example, judge, rule)
                counts["abstained: unanswerable"] += abstained
                if not abstained:
                    answered.append((left, example))
                continue
            if not example.collected.case.answer_contains or not example.collected.case.answer_contains:
                continue
            category, miss, n = decide(example, selector, judge, rule)
            counts[category] += 1
            if category != "abstained":
                words.append(n)
            if miss is not None:
                miss.corpus = left
                misses.append(miss)
        total += counts
        table.append([left, *(counts[k] for k in (*CATEGORIES, *UNANSWERABLE))])
    table.append(["all", *(total[k] for k in (*CATEGORIES, *UNANSWERABLE))])
    out.table("Left-out questions by outcome (first search)", ["corpus", *CATEGORIES, *UNANSWERABLE], table)
    mean_words = sum(words) / len(words) if words else 0.0
    out.note(f"mean claimed words per answered question: {mean_words:.1f}")
    if args.verbose:
        from rich.markup import escape

        for m in misses:
            out.note(escape(f"\n{m.corpus} {m.case_id} ({m.category}) {m.question}"))
            out.note(escape(f"  claimed: {m.claimed[:300]!r}"))
            if m.right:
                out.note(escape(f"  right (rank {m.right_rank}): {m.right[:300]!r}"))
                out.note("  separating: " + ", ".join(f"{n} {v:+.2f}" for n, v in m.separating))
    if args.verbose:
        for left, example in answered:
            case = example.collected.case
            out.note(escape(f"\n{left} {case.id} (unanswerable, answered) {case.question}"))
    out.put("counts", {row[0]: dict(zip((*CATEGORIES, *UNANSWERABLE), row[1:], strict=True)) for row in table})
    out.put("mean_claimed_words", mean_words)
    out.put("misses", [m.__dict__ for m in misses])
    out.finish()


if __name__ == "__main__":
    main()
