"""Answer quality of the local answerer, reported only on questions its numbers were not fitted on.

The local answerer (``ragcli ask --model local``) has two fitted parts: the
selector that scores windows of units (``ragcli/backends/local/selector.py``; fitted twice,
with every feature for the claims and without ``soft_overlap`` as the judge whose best window
the rule reads) and the answerability rule (``ragcli/backends/local/answerability.py``); their
numbers live in ``ragcli/backends/local/fitted.py``. This script fits them and measures them, and it
never reports a corpus with numbers that saw that corpus:

* Development corpora: the uv docs (``../shared/data/uv-docs``) and the fourteen
  documentation sets under ``bench/corpora`` (MkDocs Material, Hugo, Docusaurus,
  Sphinx/MyST, mdBook, GitHub Markdown, Sphinx/reStructuredText, MkDocs Material with
  mkdocstrings and pymdownx blocks, Jekyll pages without an H1, Sphinx + MyST, and pdm,
  requests, starlette and attrs), each with ``bench/questions/NAME.jsonl``.
* Leave one corpus out: for each development corpus, the selector, the rule
  and its threshold are fitted on the other fourteen, and the corpus is answered
  with those numbers through the real answer loop (``ragcli.eval.evaluate``,
  what ``ragcli eval --ask`` runs). The table shows these left-out numbers.
* SQuAD 2.0 dev (``--squad 500 --seed 1``, with its gold answers) and
  ``sample_corpus/questions.jsonl`` are never fitted on: they are answered
  with the numbers fitted on all fifteen development corpora (what ships).
* ``--write`` fits on all fifteen and writes ``ragcli/backends/local/fitted.py``.

How it fits (numpy + scipy, in ``bench/fitting.py``): the selector is a conditional logit over
each answerable question's windows (the windows whose text holds one of its ``answer_contains``
are the right ones); the rule is a logistic regression whose coefficients are bounded at zero
from below, so every feature can only push towards answering as it grows; its training features
come from selectors fitted without the corpus they describe (cross-fitting), so the rule learns
from scores as they look on unseen questions. The threshold is the highest that keeps the
abstention rate on answerable training questions at most ``--max-abstain`` (default 0.06). The yes/no floor
(``Rule.yes_no_floor``) is chosen in between: among the training yes/no questions a rule fitted without it
answers, the lowest floor that stops the most unanswerable ones net of the answerable ones; the rule and its
threshold are then fitted again on what the floor leaves.

Metrics per corpus: answer accuracy (answerable questions whose answer contains one of its
``answer_contains``; an abstention counts as wrong), abstention on the on-topic unanswerable
questions, abstention on the answerable ones, and disposition accuracy (answered when
answerable, abstained when not), all as ``ragcli eval --ask`` computes them. And abstention on
off-topic questions: the corpus's own questions asked of an unrelated tenant (``CROSS_DOMAIN`` in
``_common.py``: the attrs questions of the Jekyll docs, ...), answered with the same left-out numbers;
people's questions about another project, which a trustworthy answerer never answers from these pages.

Run:
    python bench/answers.py --index /tmp/answers-index --squad 0            # the left-out table
    python bench/answers.py --index /tmp/answers-index --squad 0 --write    # ... and refit fitted.py
    python bench/answers.py --index /tmp/answers-index --squad 0 --json > after.json --against before.json
                                                        # ... and the questions whose outcome changed

On 2 busy cores: ingesting the fifteen corpora into an empty index ~35 min (once; tenants are reused),
then ~15 min for the table (collecting 1-2 min, each of the fifteen folds about a minute).
"""

from __future__ import annotations

import sys
import textwrap
import time
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import CROSS_DOMAIN, REPO_ROOT, Output, base_parser, ensure_index
from fitting import Collected, Example, Row, fit_rule, fit_selector, pick_threshold, pick_yes_no_floor

if TYPE_CHECKING:
    from ragcli.backends.local.answerability import Rule
    from ragcli.backends.local.selector import Weights

DEV = (
    "uv-docs",
    "material",
    "docsy",
    "prettier",
    "myst",
    "rustup",
    "lazygit",
    "nox",
    "mkdocstrings-python",
    "jekyll",
    "black",
    "pdm",
    "requests",
    "starlette",
    "attrs",
)
QUESTIONS = REPO_ROOT / "bench" / "questions"
FITTED = REPO_ROOT / "ragcli" / "backends" / "local" / "fitted.py"


def corpus_folder(name: str, data: Path) -> Path:
    return data / "uv-docs" / "docs" if name == "uv-docs" else REPO_ROOT / "bench" / "corpora" / name / "docs"


# --------------------------------------------------------------------------- cases and evidence


def squad_cases(data: Path, n: int, seed: int) -> list[Any]:
    """The SQuAD 2.0 dev sample ``beir_convert.py --dataset squad2-dev --sample N --seed S`` writes, gold answers
    as ``answer_contains``."""
    from beir_convert import squad_cases as converted
    from beir_convert import take_sample

    from ragcli.eval.cases import Case
    from ragcli.principal import Principal, Scope

    principal = {"user": "bench", "tenant": "squad2-dev", "groups": ["everyone"]}
    scope = Scope.of(Principal.model_validate(principal))
    return [
        Case(
            id=c["id"],
            line=i,
            question=c["question"],
            scope=scope,
            expect=c["expect"],
            reason=None,
            relevant=tuple(c["relevant"]),
            forbidden=(),
            answer_contains=tuple(c.get("answer_contains", ())),
        )
        for i, c in enumerate(take_sample(converted(data / "squad2-dev", principal), n, seed), start=1)
    ]


def collect(cases: list[Any], retriever: Any, model: Any) -> list[Collected]:
    """The first search of every case as the answer loop runs it, and the answerer's candidate windows."""
    from ragcli.answer.run import evidence_config, found_by
    from ragcli.backends.local.answerer import Vectors
    from ragcli.backends.local.vectors import stored_units

    config = evidence_config(retriever.config)
    out = []
    for case in cases:
        response = retriever.search(case.scope, case.question, config=config)
        evidence = tuple(r.passage for r in response.results)
        found = {r.passage.id: found_by(r, len(response.results), response.generation) for r in response.results}
        # The vectors the answer loop's local model reads (its own lookup): the same features as ``evaluate`` sees.
        vectors = Vectors(stored_units(retriever, evidence, found), retriever.query_vector(case.question))
        out.append(Collected(case, evidence, found, model.candidates(case.question, evidence, found, vectors)))
    return out


def examples(collected: list[Collected]) -> list[Example]:
    from ragcli.answer.citations import normalize

    out = []
    for c in collected:
        gold = [normalize(g) for g in c.case.answer_contains]
        labels = [bool(gold) and any(g in normalize(w.statement) for g in gold) for w, _ in c.candidates.windows]
        out.append(Example(c, [v for _, v in c.candidates.windows], labels, c.case.expect == "answer"))
    return out


class MemoEmbedder:
    """The bench's embedder: each text is embedded once per run (and across runs with ``--cache FILE``), and so are
    its word pieces (``token_vectors``).

    The fold models answer the same questions over the same passages; without it every fold
    would embed every unit again.
    """

    def __init__(self, embedder: Any, cache: Path | None) -> None:
        import pickle

        self.embedder = embedder
        self.cache = cache
        self.vectors: dict[object, Any] = pickle.loads(cache.read_bytes()) if cache and cache.exists() else {}

    def embed(self, texts: list[str]) -> Any:
        import numpy as np

        missing = [t for t in dict.fromkeys(texts) if t not in self.vectors]
        if missing:
            self.vectors.update(zip(missing, self.embedder.embed(missing), strict=True))
        return np.stack([self.vectors[t] for t in texts]) if texts else self.embedder.embed([])

    def embed_with_spans(self, texts: list[str], spans: list[list[tuple[int, int]]]) -> Any:
        keys = [(t, tuple(sp)) for t, sp in zip(texts, spans, strict=True)]
        missing = [k for k in dict.fromkeys(keys) if k not in self.vectors]
        if missing:
            whole, parts = self.embedder.embed_with_spans([t for t, _ in missing], [list(sp) for _, sp in missing])
            self.vectors.update(zip(missing, parts, strict=True))
        return None, [self.vectors[k] for k in keys]

    def token_vectors(self, texts: list[str]) -> Any:
        keys = [("pieces", t) for t in texts]
        missing = [k for k in dict.fromkeys(keys) if k not in self.vectors]
        if missing:
            self.vectors.update(zip(missing, self.embedder.token_vectors([t for _, t in missing]), strict=True))
        return [self.vectors[k] for k in keys]

    def save(self) -> None:
        import pickle

        if self.cache is not None:
            self.cache.write_bytes(pickle.dumps(self.vectors))


# --------------------------------------------------------------------------- evaluating


def evaluate(cases: list[Any], retriever: Any, model: Any) -> dict[str, Any]:
    """The real loop over ``cases`` (what ``ragcli eval --ask`` runs) and the four numbers of the issue."""
    from ragcli.answer.setup import Answerer
    from ragcli.eval.run import evaluate as run_eval

    report = run_eval(cases, retriever, answerer=Answerer(model))
    results = report.results
    answerable = [r for r in results if r.case.expect == "answer"]
    unanswerable = [r for r in results if r.case.expect == "abstain"]
    with_gold = [r for r in answerable if r.case.answer_contains]

    def share(rows: list[Any], test: Any) -> float | None:
        return sum(1 for r in rows if test(r)) / len(rows) if rows else None

    def outcome(r: Any) -> str:
        if r.disposition == "abstained":
            return "abstained"
        if r.case.expect == "answer" and r.case.answer_contains:
            return "right" if r.answer_ok is True else "wrong"
        return "answered"

    return {
        "answer_accuracy": share(with_gold, lambda r: r.answer_ok is True),
        "abstain_unanswerable": share(unanswerable, lambda r: r.disposition == "abstained"),
        "abstain_answerable": share(answerable, lambda r: r.disposition == "abstained"),
        "disposition": share([r for r in results if r.case.expect], lambda r: r.disposition_ok is True),
        "answerable": len(answerable),
        "unanswerable": len(unanswerable),
        "counts": {
            "right": sum(1 for r in with_gold if r.answer_ok is True),
            "with_gold": len(with_gold),
            "abstained_unanswerable": sum(1 for r in unanswerable if r.disposition == "abstained"),
            "abstained_answerable": sum(1 for r in answerable if r.disposition == "abstained"),
            "disposition_right": sum(1 for r in results if r.disposition_ok is True),
            "labelled": sum(1 for r in results if r.case.expect),
        },
        "questions": {r.case.id: outcome(r) for r in results if r.case.expect},
    }


def changed(before: Mapping[str, Any], after: Mapping[str, dict[str, Any]]) -> list[list[str]]:
    """The left-out questions whose outcome differs from an earlier run's (``--against``): corpus, id, before,
    after. A question the earlier run did not ask shows as "-"."""
    rows = []
    for name, row in after.items():
        earlier = before.get(name, {}).get("questions", {})
        for qid, now in row["questions"].items():
            was = earlier.get(qid, "-")
            if was != now:
                rows.append([name, qid, was, now])
    return rows


def read_earlier(path: Path) -> dict[str, Any]:
    """The left-out rows of an earlier ``--json`` run of this script, with each question's outcome."""
    import json

    try:
        left_out: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))["left_out"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        _usage_error(f"--against {path}: not the --json output of bench/answers.py ({exc})")
    if not all(isinstance(r, dict) and "questions" in r for r in left_out.values()):
        _usage_error(f"--against {path}: written before answers.py kept each question's outcome")
    return left_out


def _usage_error(message: str) -> NoReturn:
    """One line on stderr and exit code 2, as ragcli answers bad input."""
    print(f"error: {message}", file=sys.stderr)
    raise SystemExit(2)


def off_topic(cases: Mapping[str, list[Any]], name: str) -> list[Any]:
    """``name``'s questions asked of an unrelated tenant (``CROSS_DOMAIN``) by its bench principal: questions people
    wrote about another project, which the documents there do not answer. Every one should be abstained on."""
    tenant = CROSS_DOMAIN[name]
    there = cases[tenant][0].scope
    return [
        replace(
            c,
            id=f"{c.id}@{tenant}",
            scope=there,
            expect="abstain",
            reason=None,
            relevant=(),
            forbidden=(),
            answer_contains=(),
        )
        for c in cases[name]
    ]


def off_topic_share(counts: Mapping[str, int] | None) -> float | None:
    return counts["abstained_unanswerable"] / counts["labelled"] if counts else None


def pooled(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Questions pooled over corpora (not a mean of rates)."""
    total = {k: sum(r["counts"][k] for r in rows) for k in rows[0]["counts"]}
    answerable = sum(r["answerable"] for r in rows)
    unanswerable = sum(r["unanswerable"] for r in rows)
    off = [r["off_topic"] for r in rows if "off_topic" in r]
    return {
        "off_topic": {k: sum(o[k] for o in off) for k in off[0]} if off else None,
        "answer_accuracy": total["right"] / total["with_gold"],
        "abstain_unanswerable": total["abstained_unanswerable"] / unanswerable,
        "abstain_answerable": total["abstained_answerable"] / answerable,
        "disposition": total["disposition_right"] / total["labelled"],
        "answerable": answerable,
        "unanswerable": unanswerable,
        "counts": total,
    }


# --------------------------------------------------------------------------- fitting a fold


def fit_fold(train: dict[str, list[Example]], max_abstain: float) -> tuple[Weights, Weights, Rule]:
    """Selector, judge and rule fitted on ``train`` (corpus -> examples). The rule reads the judge's best window
    (``LocalModel.judge``), its features cross-fitted by corpus: each corpus's from a judge fitted without it."""
    from ragcli.backends.local.selector import JUDGED

    every = [e for rows in train.values() for e in rows]
    selector, judge = fit_selector(every), fit_selector(every, JUDGED)
    rule_rows: list[Row] = []
    for corpus, rows in train.items():
        inner = (
            fit_selector([e for other, more in train.items() if other != corpus for e in more], JUDGED)
            if len(train) > 1
            else judge
        )
        rule_rows += [(corpus, e, inner) for e in rows]
    # The yes/no floor is chosen among the questions a rule without it answers; the rule is then refit without
    # the questions the floor stops, as it is fitted without those the other hard rules stop.
    plain = fit_rule(rule_rows)
    plain = replace(plain, threshold=pick_threshold(plain, rule_rows, max_abstain))
    floor = pick_yes_no_floor(rule_rows, plain)
    if floor == 0.0:
        return selector, judge, plain
    rule = fit_rule(rule_rows, floor)
    return selector, judge, replace(rule, threshold=pick_threshold(rule, rule_rows, max_abstain))


# --------------------------------------------------------------------------- writing fitted.py


def write_fitted(selector: Weights, judge: Weights, rule: Rule, command: str, corpora: list[str]) -> None:
    from ragcli.backends.local.answerability import FEATURES as RULE_FEATURES
    from ragcli.backends.local.selector import JUDGED
    from ragcli.backends.local.selector import SELECTED as FEATURES

    def mapping(values: Mapping[str, float], names: tuple[str, ...]) -> str:
        return "{\n" + "".join(f'        "{n}": {values[n]:.6f},\n' for n in names) + "    }"

    def standardised(judge: Weights) -> str:
        """The judge standardises its features as the selector does (the same windows): it reads the selector's
        means and scales, unless a written digit differs."""
        same = all(
            f"{mine[n]:.6f}" == f"{theirs[n]:.6f}"
            for mine, theirs in ((judge.means, selector.means), (judge.scales, selector.scales))
            for n in JUDGED
        )
        if same:
            return "means=SELECTOR.means,\n    scales=SELECTOR.scales"
        return f"means={mapping(judge.means, JUDGED)},\n    scales={mapping(judge.scales, JUDGED)}"

    FITTED.write_text(
        f'''"""The local answerer's fitted numbers. Written by bench/answers.py; do not edit by hand.

Fitted on the {len(corpora)} development corpora with:

    {command}

{textwrap.fill(", ".join(corpora), 100)}

Reported only on corpora left out of the fit (see bench/answers.py and docs/defaults.md).
"""

from __future__ import annotations

from .answerability import Rule
from .selector import Weights

SELECTOR = Weights(
    weights={mapping(selector.weights, FEATURES)},
    means={mapping(selector.means, FEATURES)},
    scales={mapping(selector.scales, FEATURES)},
)
"""The window score: a conditional logit over each question's windows (``selector``)."""

JUDGE = Weights(
    weights={mapping(judge.weights, JUDGED)},
    {standardised(judge)},
)
"""The same fit without ``soft_overlap``: the rule judges its best window (``LocalModel.judge``)."""

ANSWERABILITY = Rule(
    coefficients={mapping(rule.coefficients, RULE_FEATURES)},
    intercept={rule.intercept:.6f},
    means={mapping(rule.means, RULE_FEATURES)},
    scales={mapping(rule.scales, RULE_FEATURES)},
    threshold={rule.threshold:.4f},
    yes_no_floor={rule.yes_no_floor!r},
)
"""P(answerable): a logistic model (each coefficient of its feature's sign), its threshold and the yes/no floor
(``answerability``)."""
''',
        encoding="utf-8",
    )


# --------------------------------------------------------------------------- main


def main() -> None:
    parser = base_parser(__doc__)
    parser.add_argument("--index", type=Path, required=True, help="index folder (tenants are ingested if missing)")
    parser.add_argument("--squad", type=int, default=500, help="SQuAD 2.0 questions (half answerable); 0 = none")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--max-abstain",
        type=float,
        default=0.06,
        help="threshold: abstain on at most this share of answerable training questions",
    )
    parser.add_argument("--cache", type=Path, help="keep unit embeddings in this file between runs (faster reruns)")
    parser.add_argument("--corpora", default=",".join(DEV), help="development corpora (comma-separated)")
    parser.add_argument(
        "--against",
        type=Path,
        help="an earlier run's --json output: also list the left-out questions whose outcome changed since",
    )
    parser.add_argument(
        "--write", action="store_true", help="fit on every development corpus and write ragcli/backends/local/fitted.py"
    )
    args = parser.parse_args()
    out = Output(args.json)
    earlier = read_earlier(args.against) if args.against else None

    from ragcli.backends.local import LocalModel
    from ragcli.eval.cases import load_cases
    from ragcli.search import Retriever

    dev = [c for c in args.corpora.split(",") if c]
    for name in dev:
        ensure_index(corpus_folder(name, args.data), name, args.index, out)
    if args.squad:
        ensure_index(args.data / "squad2-dev" / "corpus.jsonl", "squad2-dev", args.index, out)
    _ensure_sample(args.index, out)

    retriever = Retriever(args.index)
    memo = MemoEmbedder(retriever.embedder, args.cache)
    probe = LocalModel(embedder=memo, vectors=retriever)  # type: ignore[arg-type]
    started = time.perf_counter()
    cases = {name: load_cases(QUESTIONS / f"{name}.jsonl") for name in dev}
    collected = {name: collect(cases[name], retriever, probe) for name in dev}
    seconds = time.perf_counter() - started
    out.note(f"[dim]collected {sum(len(v) for v in collected.values())} development questions in {seconds:.0f} s[/dim]")
    train = {name: examples(rows) for name, rows in collected.items()}

    rows: dict[str, dict[str, Any]] = {}
    for left in dev:
        selector, judge, rule = fit_fold({n: e for n, e in train.items() if n != left}, args.max_abstain)
        model = LocalModel(embedder=memo, vectors=retriever, selector=selector, judge=judge, rule=rule)  # type: ignore[arg-type]
        rows[left] = evaluate(cases[left], retriever, model) | {
            "threshold": rule.threshold,
            "yes_no_floor": rule.yes_no_floor,
        }
        if CROSS_DOMAIN.get(left) in cases:
            rows[left]["off_topic"] = evaluate(off_topic(cases, left), retriever, model)["counts"]
        out.note(f"[dim]{left}: answer {rows[left]['answer_accuracy']:.3f}[/dim]")

    selector, judge, rule = fit_fold(train, args.max_abstain)
    shipped = LocalModel(embedder=memo, vectors=retriever, selector=selector, judge=judge, rule=rule)  # type: ignore[arg-type]
    extra: dict[str, dict[str, Any]] = {}
    if args.squad:
        extra[f"squad2-dev ({args.squad}, seed {args.seed})"] = evaluate(
            squad_cases(args.data, args.squad, args.seed), retriever, shipped
        )
    extra["sample_corpus"] = evaluate(load_cases(REPO_ROOT / "sample_corpus" / "questions.jsonl"), retriever, shipped)

    pool = pooled(list(rows.values()))
    table = [_row(name, r) for name, r in [*rows.items(), ("pooled (left-out)", pool), *extra.items()]]
    out.table(
        "Local answerer, each corpus answered with numbers fitted without it",
        [
            "corpus",
            "answer accuracy",
            "abstained: unanswerable",
            "abstained: answerable",
            "abstained: off-topic",
            "disposition",
            "questions (ans/unans)",
        ],
        table,
    )
    if earlier is not None:
        moved = changed(earlier, rows)
        title = f"Left-out questions whose outcome changed since {args.against}"
        gained = sum(1 for *_, was, now in moved if now == "right")
        lost = sum(1 for *_, was, now in moved if was == "right")
        caption = f"{len(moved)} changed; answered right: {gained} gained, {lost} lost"
        out.table(title, ["corpus", "question", "before", "now"], moved, caption)
        out.put("changed", moved)
    memo.save()
    out.put("left_out", rows)
    out.put("pooled", pool)
    out.put("never_fitted", extra)
    if args.write:
        write_fitted(
            selector,
            judge,
            rule,
            "python bench/answers.py --index DIR --write"
            + (f" --max-abstain {args.max_abstain}" if args.max_abstain != 0.06 else ""),
            dev,
        )
        out.note(f"wrote {FITTED.relative_to(REPO_ROOT)}")
    out.finish()


def _row(name: str, r: dict[str, Any]) -> list[Any]:
    first = ("answer_accuracy", "abstain_unanswerable", "abstain_answerable")
    off = off_topic_share(r.get("off_topic"))
    return [
        name,
        *(r[k] for k in first),
        "" if off is None else off,
        r["disposition"],
        f"{r['answerable']}/{r['unanswerable']}",
    ]


def _ensure_sample(index: Path, out: Output) -> None:
    from _common import tenant_exists

    from ragcli import ingest

    for tenant in ("acme", "globex"):
        if not tenant_exists(index, tenant):
            out.note(f"[dim]ingesting sample_corpus/{tenant}[/dim]")
            ingest(REPO_ROOT / "sample_corpus" / tenant, tenant, index=index)


if __name__ == "__main__":
    main()
