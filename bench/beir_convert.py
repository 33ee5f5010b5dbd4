"""Convert a BEIR folder (or squad2-dev) into what ragcli ingests and evaluates.

Measures nothing: it prepares inputs. A BEIR ``corpus.jsonl`` is ingested as
it is, so it is not copied; the converter writes into ``--out``:

    user.json        {"user": "bench", "tenant": TENANT, "groups": ["everyone"]}
    questions.jsonl  one eval case per judged test query:
                     {"id", "question", "principal": {...}, "expect", "reason",
                      "relevant": [doc ids], "forbidden": []}

For ``squad2-dev`` (corpus.jsonl, queries.jsonl with ``answerable``/``answers``/
``source_passage``, qrels.tsv) answerable questions get ``expect: "answer"`` and
``relevant: [source paragraph id]`` and ``answer_contains`` (its gold answers: any one
in the answer text counts as right); unanswerable ones get ``expect: "abstain"``,
no ``reason`` (either abstention path is right) and no relevant labels. ``--sample N --seed S``
takes a deterministic sample of the questions.

Labels are document ids: a label matches a passage id ``{doc_id}@{version}#{section}``
that equals it or extends it at '@' or '#'.

Run:
    python bench/beir_convert.py --dataset scifact --out bench/out/scifact
    python bench/beir_convert.py --dataset squad2-dev --sample 500 --seed 1 --out bench/out/squad
    ragcli ingest ../shared/data/scifact/corpus.jsonl --tenant scifact --acl everyone
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from _common import (
    Output,
    base_parser,
    bench_principal,
    read_jsonl,
    read_qrels,
    sample_ids,
    write_jsonl,
)

SQUAD_ABSTAIN_REASON = None
"""No reason code: a SQuAD 2.0 unanswerable question has on-topic evidence, so ragcli may
correctly abstain either for no_visible_evidence or model_abstained."""


def default_tenant(folder: Path) -> str:
    """A valid tenant name from the folder name (``squad2-dev`` -> ``squad2-dev``)."""
    name = re.sub(r"[^a-z0-9_-]+", "-", folder.name.lower()).strip("-_")
    return name[:64] or "bench"


def is_squad_layout(folder: Path) -> bool:
    return (folder / "qrels.tsv").is_file() and not (folder / "qrels").is_dir()


def beir_cases(folder: Path, split: str, principal: dict[str, Any]) -> list[dict[str, Any]]:
    """One eval case per query that has judgments in qrels/<split>.tsv."""
    qrels = read_qrels(folder / "qrels" / f"{split}.tsv")
    cases = []
    for q in read_jsonl(folder / "queries.jsonl"):
        qid = str(q["_id"])
        if qid not in qrels:
            continue
        relevant = [d for d, score in qrels[qid].items() if score > 0]
        cases.append(case(qid, q["text"], principal, "answer", None, relevant))
    return cases


def squad_cases(folder: Path, principal: dict[str, Any]) -> list[dict[str, Any]]:
    """Answerable questions expect an answer from their source paragraph; the rest expect abstention."""
    cases = []
    for q in read_jsonl(folder / "queries.jsonl"):
        if q.get("answerable"):
            answers = list(dict.fromkeys(a.strip() for a in q.get("answers", []) if a.strip()))
            cases.append(case(str(q["_id"]), q["text"], principal, "answer", None, [str(q["source_passage"])], answers))
        else:
            cases.append(case(str(q["_id"]), q["text"], principal, "abstain", SQUAD_ABSTAIN_REASON, []))
    return cases


def case(
    qid: str,
    question: str,
    principal: dict[str, Any],
    expect: str,
    reason: str | None,
    relevant: list[str],
    answers: list[str] | None = None,
) -> dict[str, Any]:
    data = {
        "id": qid,
        "question": question,
        "principal": principal,
        "expect": expect,
        "reason": reason,
        "relevant": relevant,
        "forbidden": [],
    }
    if answers:
        data["answer_contains"] = answers  # SQuAD's gold answers: any one in the answer text is right
    return data


def take_sample(cases: list[dict[str, Any]], n: int | None, seed: int) -> list[dict[str, Any]]:
    by_id = {c["id"]: c for c in cases}
    return [by_id[i] for i in sample_ids(list(by_id), n, seed)]


def write_outputs(out_dir: Path, principal: dict[str, Any], cases: list[dict[str, Any]]) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "user.json").write_text(json.dumps(principal, indent=2) + "\n", encoding="utf-8")
    write_jsonl(out_dir / "questions.jsonl", cases)


def main() -> None:
    parser = base_parser(__doc__)
    parser.add_argument("--dataset", default="scifact", help="folder under --data (scifact, squad2-dev, ...)")
    parser.add_argument("--folder", type=Path, help="a BEIR folder anywhere (overrides --dataset)")
    parser.add_argument("--out", type=Path, required=True, help="output folder for user.json and questions.jsonl")
    parser.add_argument("--tenant", help="tenant name (default: from the folder name)")
    parser.add_argument("--split", default="test", help="BEIR qrels split (default: test)")
    parser.add_argument("--sample", type=int, default=0, help="keep a deterministic sample of N questions (0 = all)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    folder = (args.folder or args.data / args.dataset).resolve()
    tenant = args.tenant or default_tenant(folder)
    principal = bench_principal(tenant)
    squad = is_squad_layout(folder)
    cases = squad_cases(folder, principal) if squad else beir_cases(folder, args.split, principal)
    cases = take_sample(cases, args.sample, args.seed)
    write_outputs(args.out, principal, cases)

    out = Output(args.json)
    answer = sum(1 for c in cases if c["expect"] == "answer")
    summary = {
        "folder": str(folder),
        "layout": "squad2" if squad else "beir",
        "tenant": tenant,
        "questions": len(cases),
        "expect_answer": answer,
        "expect_abstain": len(cases) - answer,
        "relevant_labels": sum(len(c["relevant"]) for c in cases),
        "out": str(args.out.resolve()),
        "ingest": f"ragcli ingest {folder / 'corpus.jsonl'} --tenant {tenant} --acl everyone",
        # The cases name their principal inline (the bench user): eval runs them only when told to.
        "eval": f"ragcli eval {args.out / 'questions.jsonl'} --allow-inline-principals",
    }
    out.table(f"beir_convert: {folder.name}", ["field", "value"], [[k, v] for k, v in summary.items()])
    out.put("summary", summary)
    out.finish()


if __name__ == "__main__":
    main()
