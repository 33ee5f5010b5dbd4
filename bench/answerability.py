"""Fit and report the local answerer's answerability rule (ragcli/models/answerability.py).

For every question it runs what ``ragcli ask --model local`` runs for the first turn (one
search as the case's principal, the local model's scoring of the evidence), records the
answerability features, whether the question is answerable, and whether the answer the
model would give contains a gold answer. Then:

* ``--fit``: fits a logistic regression (standardised features, L2, Newton's method, numpy
  only) on two groups of equal total weight: the SQuAD 2.0 dev articles of the FIT split
  (even article numbers) and the even-numbered half of the uv-docs questions (uv-A). It
  picks the threshold with the best mean disposition accuracy over those two groups among
  those that keep each group's answer accuracy within 0.01 of the old floor's (answer
  accuracy must not drop to buy dispositions), and prints
  the constants to paste into answerability.py;
* always: reports, per data set, disposition accuracy, answer accuracy (a gold string in
  the answer, over answerable questions) and answered / abstained counts for the rule in
  the package (``--fit`` also shows the freshly fitted one) beside the old single floor
  (blended score >= 0.45, the rule before it).

Data sets: SQuAD 2.0 dev (``--squad N`` questions per split, half answerable, seeded),
split by article: FIT = even article numbers, HELD-OUT = odd ones; ``bench/questions/
uv-docs.jsonl`` split into uv-A (even positions, fitted on) and uv-B (odd, held out);
``sample_corpus/questions.jsonl`` (never fitted on). SQuAD alone is a poor teacher for
documentation: its unanswerable questions are written from the paragraph itself, so term
coverage is high exactly where the answer is missing; fitted on it alone the rule learns
to distrust coverage, which on real docs is the strongest sign of an answer.

Needs the ``squad2-dev`` and ``uv-docs`` tenants in ``--index`` (see search_quality.py) and
a sample-corpus index (``--sample-index``, built if missing).

Run:
    python bench/answerability.py --index /tmp/bench-index --squad 600 --fit
    python bench/answerability.py --index /tmp/bench-index --squad 500 --json
"""

from __future__ import annotations

import json
import random
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import REPO_ROOT, Output, base_parser, bench_principal, ensure_index, read_jsonl

OLD_FLOOR = 0.45
MAX_PASSAGES = 8


@dataclass
class Row:
    dataset: str
    id: str
    answerable: bool
    features: dict[str, float] | None
    score: float
    answer: str
    gold: list[str]


# --------------------------------------------------------------------------- collecting


def squad_cases(data: Path, per_split: int, seed: int) -> dict[str, list[dict[str, Any]]]:
    """``per_split`` questions from even (fit) and odd (held-out) articles, half answerable each."""
    rng = random.Random(seed)
    pools: dict[tuple[str, bool], list[dict[str, Any]]] = {}
    for q in read_jsonl(data / "squad2-dev" / "queries.jsonl"):
        split = "squad-fit" if int(str(q["source_passage"]).split("_")[0]) % 2 == 0 else "squad-heldout"
        pools.setdefault((split, bool(q["answerable"])), []).append(q)
    out: dict[str, list[dict[str, Any]]] = {}
    for split in ("squad-fit", "squad-heldout"):
        chosen = []
        for answerable in (True, False):
            pool = sorted(pools[(split, answerable)], key=lambda q: q["_id"])
            chosen += rng.sample(pool, min(per_split // 2, len(pool)))
        out[split] = [
            {
                "id": q["_id"],
                "question": q["text"],
                "answerable": q["answerable"],
                "gold": q["answers"],
                "tenant": "squad2-dev",
            }
            for q in chosen
        ]
    return out


def eval_file_cases(path: Path, name: str) -> list[dict[str, Any]]:
    """Cases of a ragcli question file, with their principal."""
    from ragcli.eval import load_cases

    return [
        {
            "id": c.id,
            "question": c.question,
            "answerable": c.expect == "answer",
            "gold": list(c.answer_contains),
            "scope": c.scope,
        }
        for c in load_cases(path)
        if c.expect is not None
    ]


def load_rows(path: Path) -> dict[str, list[Row]]:
    """Rows written by an earlier ``--rows`` run, by data set."""
    sets: dict[str, list[Row]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        row = Row(**json.loads(line))
        sets.setdefault(row.dataset, []).append(row)
    return sets


def collect(dataset: str, cases: list[dict[str, Any]], retriever: Any, model: Any) -> list[Row]:
    from ragcli.principal import Scope, parse_principal

    rows = []
    for case in cases:
        scope = case.get("scope") or Scope.of(parse_principal(bench_principal(case["tenant"])))
        evidence = tuple(r.passage for r in retriever.search(scope, case["question"]).results)
        assessment = model.assess(case["question"], evidence[:MAX_PASSAGES])
        answer = " ".join(c.statement for c in assessment.claims)
        score = assessment.scored[0].score if assessment.scored else 0.0
        rows.append(
            Row(dataset, str(case["id"]), bool(case["answerable"]), assessment.features, score, answer, case["gold"])
        )
    return rows


# --------------------------------------------------------------------------- fitting


def matrix(rows: list[Row], names: tuple[str, ...]) -> Any:
    import numpy as np

    return np.array([[r.features[n] for n in names] for r in rows if r.features is not None], dtype=float)


def fit(groups: list[list[Row]], names: tuple[str, ...], l2: float = 1.0) -> dict[str, Any]:
    """Logistic regression on standardised features, each group
    weighing the same in total; Newton's method with an L2 penalty."""
    import numpy as np

    usable = [[r for r in g if r.features is not None] for g in groups]
    rows = [r for g in usable for r in g]
    x = matrix(rows, names)
    y = np.array([1.0 if r.answerable else 0.0 for r in rows])
    weight = np.array([1.0 / len(g) for g in usable for _ in g])
    weight /= weight.mean()
    means, scales = x.mean(axis=0), x.std(axis=0) + 1e-9
    z = np.hstack([np.ones((len(x), 1)), (x - means) / scales])
    w = np.zeros(z.shape[1])
    penalty = np.eye(z.shape[1]) * l2
    penalty[0, 0] = 0.0
    for _ in range(50):
        p = 1 / (1 + np.exp(-z @ w))
        gradient = z.T @ (weight * (p - y)) + penalty @ w
        hessian = (z * (weight * p * (1 - p))[:, None]).T @ z + penalty
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return {
        "intercept": float(w[0]),
        "coefficients": {n: float(c) for n, c in zip(names, w[1:], strict=True)},
        "means": {n: float(m) for n, m in zip(names, means, strict=True)},
        "scales": {n: float(s) for n, s in zip(names, scales, strict=True)},
    }


def probability(model: dict[str, Any], values: dict[str, float]) -> float:
    import math

    z = model["intercept"] + sum(
        model["coefficients"][n] * (values[n] - model["means"][n]) / model["scales"][n] for n in model["coefficients"]
    )
    return 1 / (1 + math.exp(-max(-40.0, min(40.0, z))))


# --------------------------------------------------------------------------- scoring a rule


def correct(row: Row) -> bool:
    from ragcli.answer.citations import normalize

    text = normalize(row.answer)
    return any(normalize(g) in text for g in row.gold)


def outcome(rows: list[Row], answers: list[bool]) -> dict[str, Any]:
    answerable = [r for r in rows if r.answerable]
    pairs = list(zip(rows, answers, strict=True))
    unanswerable = len(rows) - len(answerable)
    graded = [(r, a) for r, a in pairs if r.answerable and r.gold]
    return {
        "questions": len(rows),
        "disposition": round(sum((a == r.answerable) for r, a in pairs) / len(rows), 4) if rows else None,
        "answer_accuracy": round(sum(1 for r, a in graded if a and correct(r)) / len(graded), 4) if graded else None,
        "answered_answerable": f"{sum(1 for r, a in pairs if a and r.answerable)}/{len(answerable)}",
        "abstained_unanswerable": f"{sum(1 for r, a in pairs if not a and not r.answerable)}/{unanswerable}",
    }


def old_rule(rows: list[Row]) -> list[bool]:
    return [r.features is not None and r.score >= OLD_FLOOR for r in rows]


def fitted_rule(rows: list[Row], model: dict[str, Any], threshold: float) -> list[bool]:
    return [r.features is not None and probability(model, r.features) >= threshold for r in rows]


def package_rule(rows: list[Row]) -> list[bool]:
    from ragcli.models import answerability

    return [r.features is not None and answerability.probability(r.features) >= answerability.THRESHOLD for r in rows]


ANSWER_SLACK = 0.01


def best_threshold(groups: list[list[Row]], model: dict[str, Any]) -> float:
    """The best mean disposition over ``groups`` among thresholds that keep each group's answer accuracy
    within ANSWER_SLACK of the old floor's (abstaining on everything is perfect on unanswerable questions only)."""
    floors = [outcome(g, old_rule(g))["answer_accuracy"] or 0.0 for g in groups]

    def merit(t: float) -> tuple[bool, float]:
        results = [outcome(g, fitted_rule(g, model, t)) for g in groups]
        keeps = all(
            (r["answer_accuracy"] or 0.0) >= floor - ANSWER_SLACK for r, floor in zip(results, floors, strict=True)
        )
        return keeps, sum(r["disposition"] for r in results) / len(results)

    return max((t / 100 for t in range(5, 96)), key=merit)


# --------------------------------------------------------------------------- main


def main() -> None:
    parser = base_parser(__doc__)
    parser.add_argument(
        "--index", type=Path, required=True, help="index folder with the squad2-dev and uv-docs tenants"
    )
    parser.add_argument(
        "--sample-index",
        type=Path,
        default=Path("/tmp/ragcli-bench-sample-index"),
        help="index of sample_corpus (built if missing)",
    )
    parser.add_argument("--squad", type=int, default=600, help="SQuAD questions per split (half answerable)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--fit", action="store_true", help="fit on the SQuAD fit split and print the constants")
    parser.add_argument("--rows", type=Path, help="also write every row (features, label, answer) as JSONL here")
    parser.add_argument(
        "--from-rows", type=Path, help="fit and report on rows an earlier --rows run wrote (no searching)"
    )
    args = parser.parse_args()
    out = Output(args.json)

    from ragcli.embedder import Embedder
    from ragcli.models.local import LocalModel
    from ragcli.search import Retriever

    if args.from_rows:
        report(out, load_rows(args.from_rows), args.fit)
        return
    ensure_index(args.data / "squad2-dev" / "corpus.jsonl", "squad2-dev", args.index, out)
    ensure_index(args.data / "uv-docs" / "docs", "uv-docs", args.index, out)
    for tenant in ("acme", "globex"):
        ensure_index(REPO_ROOT / "sample_corpus" / tenant, tenant, args.sample_index, out)
    embedder = Embedder()
    model = LocalModel(embedder=embedder)
    sets: dict[str, list[Row]] = {}
    squad = squad_cases(args.data, args.squad, args.seed)
    main_retriever = Retriever(args.index, embedder=embedder)
    for name, cases in squad.items():
        sets[name] = collect(name, cases, main_retriever, model)
    uv = collect(
        "uv-docs",
        eval_file_cases(REPO_ROOT / "bench" / "questions" / "uv-docs.jsonl", "uv-docs"),
        main_retriever,
        model,
    )
    for n, row in enumerate(uv):
        row.dataset = "uv-A" if n % 2 == 0 else "uv-B"
    sets["uv-A"], sets["uv-B"] = uv[0::2], uv[1::2]
    sets["sample"] = collect(
        "sample",
        eval_file_cases(REPO_ROOT / "sample_corpus" / "questions.jsonl", "sample"),
        Retriever(args.sample_index, embedder=embedder),
        model,
    )
    if args.rows:
        with args.rows.open("w", encoding="utf-8") as fh:
            for rows in sets.values():
                for r in rows:
                    fh.write(json.dumps(r.__dict__) + "\n")
    report(out, sets, args.fit)


def report(out: Output, sets: dict[str, list[Row]], refit: bool) -> None:
    from ragcli.models import answerability

    fitted = None
    if refit:
        groups = [sets["squad-fit"], sets["uv-A"]]
        fitted = fit(groups, answerability.FEATURES)
        fitted["threshold"] = best_threshold(groups, fitted)
        out.put("fitted", fitted)
        out.note(json.dumps(fitted, indent=1))
    table = []
    for name, rows in sets.items():
        rules = [("old floor 0.45", old_rule(rows)), ("package", package_rule(rows))]
        if fitted is not None:
            rules.append(("fitted now", fitted_rule(rows, fitted, fitted["threshold"])))
        for rule, answers in rules:
            table.append({"data": name, "rule": rule, **outcome(rows, answers)})
    columns = list(table[0])
    out.table("answerability: local model, first search only", columns, [[r[c] for c in columns] for r in table])
    out.put("results", table)
    out.finish()


if __name__ == "__main__":
    main()
