"""The topic gate and its rare-word rule: what keyword queries keep, what off-topic queries lose.

For each share in ``--shares`` (the ``RARE_SHARE`` of ragcli/search/gate.py: a term in at
most this share of the visible passages is rare) and for the gate off, in hybrid mode on
the ``uv-docs`` tenant:

* keyword queries (single words, flags, identifiers a user types; ``--keywords``): the
  share that return results, and the share whose top 5 holds a passage containing the
  keyword itself (literal, case-insensitive);
* off-topic queries: SciFact test claims (long, scientific) and a few short off-topic
  phrases, searched against the uv docs: the share that return any result (noise that
  would reach the answerer as evidence).

Second table: the "word matches must earn their place" rule (``--bm25-only-min-terms``: a BM25
hit the dense ranker did not keep must share this many of a longer query's terms; 1 = off). For each value,
on labelled question files (the uv set, the sample corpus, a SQuAD sample): recall@5 and
recall@10 of answerable cases, and the noise that reaches the answerer: results matching
no relevant label per answerable case, and results per should-abstain case.

Third table (``--tenants-index``, an index holding the tenants of bench/questions): rules that
would let BM25's word matches through the gate when the gate would drop them, beside today's
rule. Long, chatty on-topic questions dilute MiniLM's cosine below the dense floor; a rule that
rescues them must not let long off-topic questions through. For each rule:

* cross-domain off-topic: every question of a set (answerable and should-abstain alike) asked of a
  tenant of an unrelated domain (``CROSS_DOMAIN``): the share that return any result, for
  questions of at most ``LONG_QUESTION_TERMS`` content terms and for longer ones;
* SciFact claims against the uv docs: the share that return any result;
* recall@5 of each set's answerable questions on its own tenant (the sets' ``relevant`` labels).

A rule only decides whether a gated query's word matches pass, so a query the gate does not
touch ranks as today and a gated one it lets through ranks as with ``--no-topic-gate``.

Run:
    python bench/gate.py --index /tmp/bench-index --sample-index /tmp/ragcli-bench-sample-index \
        --squad-questions bench/out/squad500/questions.jsonl
    python bench/gate.py --index /tmp/ans11 --tenants-index /tmp/ans11 --only-rules
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import CROSS_DOMAIN, REPO_ROOT, Output, base_parser, bench_principal, ensure_index, read_jsonl

from ragcli.passage import document_version_of
from ragcli.text import split_sentences

KEYWORDS = [
    "frozen",
    "hatchling",
    "--system",
    "PEP 723",
    "--frozen",
    "uv_build",
    "keyring",
    "dependency-groups",
    "UV_INDEX_URL",
    "pylock.toml",
    "--no-dev",
    "--universal",
    "ipykernel",
    "setup-uv",
    "pre-commit",
    "sys_platform",
    "module-root",
    "--with-editable",
    "tomllib",
    "musl",
    "zstd",
    "PyTorch",
    "--exclude-newer",
    "lowest-direct",
    "constraint-dependencies",
    "JFrog",
    "CodeArtifact",
    "dependabot",
    "marimo",
    "Jupyter",
]
SHORT_OFF_TOPIC = [
    "sourdough starter",
    "capital gains tax",
    "world cup final",
    "chocolate cake recipe",
    "knee surgery recovery",
    "medieval castles",
    "tax return deadline",
    "guitar chords",
    "marathon training plan",
    "wedding speech",
]


LONG_QUESTION_TERMS = 12
"""A question of more content terms than this is long (the split of the off-topic pass rate)."""
NEAR_FLOOR = 0.27
"""Candidate rule "agreement": the best cosine is at least this (the floor is 0.30)."""
AGREE_TOP = 3
"""Candidate rule "agreement": BM25's top document is among the dense ranker's top this many."""
LONG_FLOOR = 0.27
"""Candidate rule "length floor": the gate's floor for long questions."""
SENTENCE_FLOOR = 0.40
"""Candidate rule "question sentence": the floor its cosine must clear.

The p99 of unrelated pairs' cosines (0.39, bench/floors.py): a short sentence's cosine varies more than a question's."""


@dataclass
class Probe:
    """One query searched with today's gate, and what the candidate rules decide on."""

    terms: int
    gated: bool
    """Today's topic gate dropped the word matches."""
    ids: list[str]
    """Today's results."""
    open_ids: list[str]
    """The results with the gate open (gated queries only)."""
    dense: list[tuple[str, float]]
    """The dense ranker's candidates, floor not applied: passage ID and cosine, best first."""
    bm25_top: str | None
    sentence_cosine: float | None
    """Best cosine of the question sentences alone, for a gated query of several sentences."""


Rule = Callable[[Probe], bool]
"""Whether a gated query's word matches pass."""


def agreement(p: Probe) -> bool:
    """Near the floor, and the dense ranker's top documents hold BM25's top document."""
    near = bool(p.dense) and p.dense[0][1] >= NEAR_FLOOR
    return (
        near
        and p.bm25_top is not None
        and document_version_of(p.bm25_top) in {document_version_of(i) for i, _ in p.dense[:AGREE_TOP]}
    )


def length_floor(p: Probe) -> bool:
    """A long question's gate floor is lower, as its in-domain cosines are."""
    return p.terms > LONG_QUESTION_TERMS and bool(p.dense) and p.dense[0][1] >= LONG_FLOOR


def question_sentence(p: Probe) -> bool:
    """The question sentence of a chatty query, embedded alone, is close to a passage."""
    return p.sentence_cosine is not None and p.sentence_cosine >= SENTENCE_FLOOR


RULES: dict[str, Rule] = {
    "today": lambda p: False,
    f"agreement (>= {NEAR_FLOOR}, top {AGREE_TOP})": agreement,
    f"length floor ({LONG_FLOOR} over {LONG_QUESTION_TERMS} terms)": length_floor,
    f"question sentence (>= {SENTENCE_FLOOR})": question_sentence,
    "gate off": lambda p: True,
}


def question_sentences(text: str) -> list[str]:
    """The sentences ending in '?' of a query of several sentences (none for one sentence)."""
    sentences = split_sentences(text)
    return [s for s in sentences if s.endswith("?")] if len(sentences) > 1 else []


def probe(retriever: Any, scope: Any, query: str) -> Probe:
    """Search ``query`` with today's gate; for a gated one, also with the gate open and its question sentences."""
    from ragcli.search import SearchConfig, gate
    from ragcli.search.query import clean_query
    from ragcli.text import query_terms

    text = clean_query(query)[0]
    response = retriever.search(scope, query, config=SearchConfig(k=5))
    gated = gate.TOPIC_GATE_NOTE in response.notes
    open_ids: list[str] = []
    cosine = None
    if gated:
        open_ids = retriever.search(scope, query, config=SearchConfig(k=5, topic_gate=False)).ids
        sentences = question_sentences(text)
        if sentences:
            view = retriever.view(scope)
            cosine = max(view.dense(v, 1)[0].score for v in retriever.embedder.embed(sentences))
    return Probe(
        terms=len(set(query_terms(text))),
        gated=gated,
        ids=response.ids,
        open_ids=open_ids,
        dense=[(c.id, c.score) for c in response.dense_candidates],
        bm25_top=response.bm25_candidates[0].id if response.bm25_candidates else None,
        sentence_cosine=cosine,
    )


def results(p: Probe, rule: Rule) -> list[str]:
    return p.open_ids if p.gated and rule(p) else p.ids


def share(probes: list[Probe], rule: Rule) -> str:
    """How many of ``probes`` return any result under ``rule``."""
    n = sum(1 for p in probes if results(p, rule))
    return f"{n}/{len(probes)} ({n / len(probes):.1%})" if probes else "-"


def rules_table(retriever: Any, tenants: Any, claims: list[str], uv_scope: Any, out: Output) -> None:
    """Candidate gate rules beside today's: off-topic pass rates (cross-domain, SciFact) and recall@5 per set."""
    from ragcli.eval import load_cases
    from ragcli.eval.metrics import retrieval_scores

    questions = REPO_ROOT / "bench" / "questions"
    cases = {name: load_cases(questions / f"{name}.jsonl") for name in CROSS_DOMAIN}
    scope_of = {name: cs[0].scope for name, cs in cases.items()}
    labelled = {
        name: [(c, probe(tenants, c.scope, c.question)) for c in cs if c.relevant] for name, cs in cases.items()
    }
    cross = [probe(tenants, scope_of[CROSS_DOMAIN[name]], c.question) for name, cs in cases.items() for c in cs]
    scifact = [probe(retriever, uv_scope, q) for q in claims]
    short = [p for p in cross if p.terms <= LONG_QUESTION_TERMS]
    long = [p for p in cross if p.terms > LONG_QUESTION_TERMS]

    def recall(name: str, rule: Rule) -> float:
        scores = [retrieval_scores(c.relevant, results(p, rule), 5).recall for c, p in labelled[name]]
        return round(sum(scores) / len(scores), 4)

    recalls = {rule: {name: recall(name, fn) for name in labelled} for rule, fn in RULES.items()}
    rows = []
    for rule, fn in RULES.items():
        gained = [n for n in labelled if recalls[rule][n] > recalls["today"][n]]
        lost = [n for n in labelled if recalls[rule][n] < recalls["today"][n]]
        rows.append(
            {
                "rule": rule,
                f"cross-domain <= {LONG_QUESTION_TERMS} terms": share(short, fn),
                f"cross-domain > {LONG_QUESTION_TERMS} terms": share(long, fn),
                "cross-domain all": share(cross, fn),
                "SciFact vs uv": share(scifact, fn),
                "min recall@5": min(recalls[rule].values()),
                "sets up": " ".join(gained) or "-",
                "sets down": " ".join(lost) or "-",
            }
        )
    columns = list(rows[0])
    out.table(
        "gate rules: off-topic questions with results, and recall@5 (hybrid, k = 5)",
        columns,
        [[r[c] for c in columns] for r in rows],
        caption="cross-domain: " + ", ".join(f"{q} -> {t}" for q, t in CROSS_DOMAIN.items()),
    )
    out.table(
        "recall@5 per set under each rule",
        ["set", *RULES],
        [[name, *(recalls[rule][name] for rule in RULES)] for name in labelled],
    )
    out.put("rules", rows)
    out.put("rules_recall", recalls)


def run(retriever: Any, scope: Any, queries: list[str], config: Any) -> list[list[str]]:
    """The top-5 passage texts of each query."""
    return [[r.passage.text for r in retriever.search(scope, q, config=config).results[:5]] for q in queries]


def earn_their_place(retriever: Any, cases: list[Any], min_terms: int) -> dict[str, Any]:
    """Recall and noise of one question set with ``bm25_only_min_terms`` = ``min_terms``."""
    from ragcli.eval.metrics import label_matches
    from ragcli.search import SearchConfig

    config = SearchConfig(bm25_only_min_terms=min_terms)
    recall5, recall10, noise_answer, noise_abstain = [], [], [], []
    for case in cases:
        ids = retriever.search(case.scope, case.question, config=config).ids
        if case.expect == "answer" and case.relevant:

            def hit(n: int, relevant: tuple[str, ...] = case.relevant, ids: list[str] = ids) -> bool:
                return any(label_matches(label, pid) for label in relevant for pid in ids[:n])

            recall5.append(hit(5))
            recall10.append(hit(10))
            noise_answer.append(sum(1 for pid in ids if not any(label_matches(label, pid) for label in case.relevant)))
        elif case.expect == "abstain":
            noise_abstain.append(len(ids))
    mean = lambda xs: round(sum(xs) / len(xs), 3) if xs else None  # noqa: E731
    return {
        "any relevant@5": mean(recall5),
        "any relevant@10": mean(recall10),
        "noise / answerable": mean(noise_answer),
        "results / abstain case": mean(noise_abstain),
    }


def main() -> None:
    parser = base_parser(__doc__)
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--shares", default="0,0.01,0.02,0.03,0.05,0.1", help="RARE_SHARE values to try")
    parser.add_argument("--claims", type=int, default=300, help="SciFact test claims used as off-topic queries")
    parser.add_argument("--sample-index", type=Path, help="index of sample_corpus (acme, globex) for the second table")
    parser.add_argument(
        "--squad-questions", type=Path, help="a SQuAD question file from beir_convert.py for the second table"
    )
    parser.add_argument("--bm25-only-min-terms", default="1,2,3")
    parser.add_argument("--skip-gate", action="store_true", help="only the second table")
    parser.add_argument(
        "--tenants-index", type=Path, help="an index holding the bench/questions tenants: the gate-rules table"
    )
    parser.add_argument("--only-rules", action="store_true", help="only the gate-rules table (needs --tenants-index)")
    args = parser.parse_args()
    if args.only_rules and not args.tenants_index:
        parser.error("--only-rules needs --tenants-index")
    out = Output(args.json)

    from ragcli.embedder import Embedder
    from ragcli.principal import Scope, parse_principal
    from ragcli.search import Retriever, SearchConfig, gate

    ensure_index(args.data / "uv-docs" / "docs", "uv-docs", args.index, out)
    retriever = Retriever(args.index, embedder=Embedder())
    scope = Scope.of(parse_principal(bench_principal("uv-docs")))
    claims = [q["text"] for q in read_jsonl(args.data / "scifact" / "queries.jsonl")][: args.claims]
    if args.tenants_index:
        tenants = Retriever(args.tenants_index, embedder=retriever.embedder)
        rules_table(retriever, tenants, claims, scope, out)
    if args.only_rules:
        out.finish()
        return
    default_share = gate.RARE_SHARE
    rows = []
    variants: list[tuple[str, float | None]] = [("gate off", None)] + [
        (f"RARE_SHARE={s}", float(s)) for s in args.shares.split(",")
    ]
    for name, share in variants if not args.skip_gate else []:
        config = SearchConfig(topic_gate=share is not None)
        if share is not None:
            gate.RARE_SHARE = share
        keyword = run(retriever, scope, KEYWORDS, config)
        found = [any(k.lower() in t.lower() for t in texts) for k, texts in zip(KEYWORDS, keyword, strict=True)]
        scifact = run(retriever, scope, claims, config)
        short = run(retriever, scope, SHORT_OFF_TOPIC, config)
        rows.append(
            {
                "variant": name,
                "keyword: results": f"{sum(1 for t in keyword if t)}/{len(KEYWORDS)}",
                "keyword: in top 5": f"{sum(found)}/{len(KEYWORDS)}",
                "SciFact claims with results": f"{sum(1 for t in scifact if t) / len(claims):.1%}",
                "short off-topic with results": f"{sum(1 for t in short if t)}/{len(SHORT_OFF_TOPIC)}",
            }
        )
    if rows:
        columns = list(rows[0])
        out.table("topic gate on uv-docs (hybrid)", columns, [[r[c] for c in columns] for r in rows])
        out.put("rows", rows)
    gate.RARE_SHARE = default_share

    from ragcli.eval import load_cases

    sets = [("uv-docs", retriever, load_cases(REPO_ROOT / "bench" / "questions" / "uv-docs.jsonl"))]
    if args.sample_index:
        sets.append(
            (
                "sample",
                Retriever(args.sample_index, embedder=retriever.embedder),
                load_cases(REPO_ROOT / "sample_corpus" / "questions.jsonl"),
            )
        )
    if args.squad_questions:
        # beir_convert writes its bench principal inline: this script vouches for it.
        sets.append(("squad", retriever, load_cases(args.squad_questions, allow_inline_principals=True)))
    earned = []
    for name, set_retriever, cases in sets:
        for min_terms in (int(n) for n in args.bm25_only_min_terms.split(",")):
            earned.append(
                {"set": name, "bm25_only_min_terms": min_terms, **earn_their_place(set_retriever, cases, min_terms)}
            )
    columns = list(earned[0])
    out.table(
        "word matches that must earn their place (hybrid, k=10)", columns, [[r[c] for c in columns] for r in earned]
    )
    out.put("earned", earned)
    out.finish()


if __name__ == "__main__":
    main()
