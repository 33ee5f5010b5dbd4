"""Shared helpers for the benchmark scripts in bench/.

Data loading (BEIR and the SQuAD 2.0 retrieval layout), ranking metrics
(nDCG@k, recall@k), passage-to-document mapping, eval-label matching,
timing percentiles, peak memory, ingest-if-missing, bm25s as an outside
reference, and output (Rich tables; ``--json`` for machines).

Not a script: the runnable benchmarks import it.
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = (REPO_ROOT / ".." / "shared" / "data").resolve()
PERCENTILES = (50, 90, 95, 99, 99.9)
BENCH_USER = "bench"
BENCH_GROUPS = ("everyone",)


# --------------------------------------------------------------------------- arguments and output


def base_parser(doc: str | None) -> argparse.ArgumentParser:
    """An argument parser with the flags every bench script shares: --data and --json."""
    parser = argparse.ArgumentParser(
        description=(doc or "").split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--data", type=Path, default=DEFAULT_DATA, help=f"benchmark data folder (default: {DEFAULT_DATA})"
    )
    parser.add_argument("--json", action="store_true", help="print results as JSON on stdout (tables go to stderr)")
    return parser


class Output:
    """Rich tables for people; with --json the tables go to stderr and one JSON object to stdout."""

    def __init__(self, as_json: bool) -> None:
        from rich.console import Console

        self.as_json = as_json
        self.console = Console(stderr=as_json)
        if not self.console.is_terminal:
            self.console.width = 160  # logs and pipes: do not wrap tables at 80 columns
        self.data: dict[str, Any] = {}

    def note(self, text: str) -> None:
        self.console.print(text)

    def table(
        self, title: str, columns: Sequence[str], rows: Iterable[Sequence[Any]], caption: str | None = None
    ) -> None:
        from rich.table import Table

        table = Table(title=title, caption=caption, caption_justify="left")
        for i, name in enumerate(columns):
            table.add_column(name, justify="left" if i == 0 else "right")
        for row in rows:
            table.add_row(*(fmt(v) for v in row))
        self.console.print(table)

    def put(self, key: str, value: Any) -> None:
        self.data[key] = value

    def finish(self) -> None:
        if self.as_json:
            sys.stdout.write(json.dumps(self.data, indent=2, default=str) + "\n")


def fmt(value: Any) -> str:
    """Numbers to short strings: 4 decimals under 10, thousands separators above."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if math.isnan(value):
            return "-"
        if abs(value) >= 1000:
            return f"{value:,.0f}"
        if abs(value) >= 10:
            return f"{value:.1f}"
        return f"{value:.4f}"
    return str(value)


# --------------------------------------------------------------------------- data


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


def write_jsonl(path: Path, records: Iterable[dict[str, Any]]) -> int:
    count = 0
    with path.open("w", encoding="utf-8") as fh:
        for record in records:
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")
            count += 1
    return count


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    """BEIR qrels (``query-id corpus-id score``, header row) -> {qid: {doc_id: score}}."""
    qrels: dict[str, dict[str, int]] = {}
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh):
            parts = line.split()
            if not parts or (lineno == 0 and not parts[-1].lstrip("-").isdigit()):
                continue
            qid, doc_id, score = parts[0], parts[1], int(parts[2])
            qrels.setdefault(qid, {})[doc_id] = score
    return qrels


@dataclass
class RetrievalSet:
    """A corpus, the test queries that have judgments, and the judgments."""

    name: str
    corpus_path: Path
    corpus: dict[str, dict[str, Any]]
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]
    extra: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Per-query fields beyond the text (SQuAD: answerable, answers, source_passage)."""


def load_corpus(path: Path) -> dict[str, dict[str, Any]]:
    return {str(d["_id"]): d for d in read_jsonl(path)}


def load_beir(folder: Path, split: str = "test") -> RetrievalSet:
    """A BEIR folder: corpus.jsonl, queries.jsonl, qrels/<split>.tsv; only judged queries are kept."""
    qrels = read_qrels(folder / "qrels" / f"{split}.tsv")
    queries = {str(q["_id"]): q["text"] for q in read_jsonl(folder / "queries.jsonl") if str(q["_id"]) in qrels}
    return RetrievalSet(folder.name, folder / "corpus.jsonl", load_corpus(folder / "corpus.jsonl"), queries, qrels)


def load_squad(folder: Path) -> RetrievalSet:
    """squad2-dev: every question (answerable or not) in ``queries``; qrels for answerable ones."""
    qrels = read_qrels(folder / "qrels.tsv")
    queries: dict[str, str] = {}
    extra: dict[str, dict[str, Any]] = {}
    for q in read_jsonl(folder / "queries.jsonl"):
        qid = str(q["_id"])
        queries[qid] = q["text"]
        extra[qid] = {k: q.get(k) for k in ("answerable", "answers", "source_passage")}
    return RetrievalSet(
        folder.name, folder / "corpus.jsonl", load_corpus(folder / "corpus.jsonl"), queries, qrels, extra
    )


def squad_article(doc_id: str) -> str:
    """The article of a squad2-dev paragraph id ``AA_PPP`` (checked: prefix <-> title is one-to-one)."""
    return doc_id.split("_", 1)[0]


def corpus_text(doc: dict[str, Any]) -> str:
    """What bm25s indexes: title + " " + text (the README's reference setup)."""
    return f"{doc.get('title') or ''} {doc.get('text') or ''}".strip()


def sample_ids(ids: Sequence[str], n: int | None, seed: int) -> list[str]:
    """A deterministic sample of ``n`` ids in their original order (all when n is falsy or too big)."""
    import random

    if not n or n >= len(ids):
        return list(ids)
    chosen = set(random.Random(seed).sample(list(ids), n))
    return [i for i in ids if i in chosen]


# --------------------------------------------------------------------------- metrics


def ndcg_at_k(ranked: Sequence[str], relevance: dict[str, int], k: int = 10) -> float:
    """nDCG@k with linear gains, as BEIR/pytrec_eval compute it."""
    dcg = sum(relevance.get(doc, 0) / math.log2(i + 2) for i, doc in enumerate(ranked[:k]))
    ideal = sorted((r for r in relevance.values() if r > 0), reverse=True)[:k]
    idcg = sum(r / math.log2(i + 2) for i, r in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def recall_at_k(ranked: Sequence[str], relevance: dict[str, int], k: int) -> float:
    """Share of the relevant documents found in the top k."""
    relevant = {d for d, r in relevance.items() if r > 0}
    if not relevant:
        return 0.0
    return len(relevant & set(ranked[:k])) / len(relevant)


def mean(values: Iterable[float]) -> float:
    values = list(values)
    return sum(values) / len(values) if values else float("nan")


def percentiles(values: Sequence[float], ps: Sequence[float] = PERCENTILES) -> dict[str, float]:
    """{"p50": ..., ...} with numpy's linear interpolation; NaN for an empty sample."""
    import numpy as np

    if len(values) == 0:
        return {f"p{p:g}": float("nan") for p in ps}
    arr = np.asarray(values, dtype=np.float64)
    return {f"p{p:g}": float(np.percentile(arr, p)) for p in ps}


def share_below(values: Sequence[float], threshold: float) -> float:
    """Fraction of ``values`` strictly under ``threshold``."""
    return sum(1 for v in values if v < threshold) / len(values) if values else float("nan")


# --------------------------------------------------------------------------- passages and labels


def doc_ranking(passage_doc_ids: Iterable[str]) -> list[str]:
    """Passage results -> documents: a document ranks where its first passage does; duplicates dropped."""
    return list(dict.fromkeys(passage_doc_ids))


def label_matches(label: str, passage_id: str) -> bool:
    """An eval label names a passage id ``doc@version#section`` it equals or extends at '@' or '#'."""
    return passage_id == label or passage_id.startswith(label + "@") or passage_id.startswith(label + "#")


# --------------------------------------------------------------------------- timing and memory


class Stopwatch:
    """Accumulates wall time over many ``with watch:`` blocks."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.calls = 0

    def __enter__(self) -> Stopwatch:
        self._start = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds += time.perf_counter() - self._start
        self.calls += 1


@contextmanager
def timed() -> Iterator[Stopwatch]:
    watch = Stopwatch()
    with watch:
        yield watch


def time_calls(fn: Callable[[], object], repeat: int) -> list[float]:
    """Wall seconds of ``repeat`` calls of ``fn``."""
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def peak_rss_mb() -> float:
    """Peak resident set size of this process so far, MiB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def timed_embedder(embedder: Any) -> Stopwatch:
    """Wrap ``embedder.embed`` on the instance so every call adds to the returned stopwatch."""
    watch = Stopwatch()
    original = embedder.embed

    def embed(*args: Any, **kwargs: Any) -> Any:
        with watch:
            return original(*args, **kwargs)

    embedder.embed = embed
    return watch


CROSS_DOMAIN = {
    # Off-topic questions written by people (bench/gate.py, bench/answers.py): each development
    # question set -> the tenant it is asked of. Each pair crosses domains (Python library or tool,
    # static site or docs theme, JavaScript formatter, git UI, Rust toolchain) so that no question
    # has an answer there; pairs within a domain (uv-docs/pdm, black/prettier, material/mkdocstrings)
    # are avoided: their questions can be half on-topic. Every set asks once, every tenant is asked.
    "attrs": "jekyll",
    "jekyll": "attrs",
    "prettier": "rustup",
    "rustup": "prettier",
    "lazygit": "docsy",
    "docsy": "lazygit",
    "black": "requests",
    "requests": "material",
    "starlette": "rustup",
    "pdm": "jekyll",
    "uv-docs": "docsy",
    "nox": "material",
    "myst": "lazygit",
    "mkdocstrings-python": "prettier",
    "material": "starlette",
}

# --------------------------------------------------------------------------- ragcli indexes


def bench_principal(tenant: str) -> dict[str, Any]:
    return {"user": BENCH_USER, "tenant": tenant, "groups": list(BENCH_GROUPS)}


def tenant_exists(index_dir: Path, tenant: str) -> bool:
    return (index_dir / tenant / "CURRENT").is_file()


def ensure_index(corpus: Path, tenant: str, index_dir: Path, out: Output | None = None) -> dict[str, Any] | None:
    """Ingest ``corpus`` into ``tenant`` unless that tenant's index already exists; the report or None."""
    from ragcli import ingest

    if tenant_exists(index_dir, tenant):
        if out:
            out.note(f"[dim]reusing index {index_dir / tenant}[/dim]")
        return None
    if out:
        out.note(f"[dim]ingesting {corpus} into tenant '{tenant}' at {index_dir} (this can take minutes)...[/dim]")
    report = ingest(corpus, tenant, index=index_dir, default_acl=list(BENCH_GROUPS))
    return report.model_dump(mode="json")


# --------------------------------------------------------------------------- bm25s reference


class Bm25sReference:
    """bm25s with PyStemmer's English stemmer and English stop words, k1=1.2, b=0.75."""

    def __init__(self, corpus: dict[str, dict[str, Any]], k1: float = 1.2, b: float = 0.75) -> None:
        import bm25s
        import Stemmer

        self._bm25s = bm25s
        self.stemmer = Stemmer.Stemmer("english")
        self.ids = list(corpus)
        tokens = bm25s.tokenize(
            [corpus_text(corpus[i]) for i in self.ids], stopwords="en", stemmer=self.stemmer, show_progress=False
        )
        self.model = bm25s.BM25(k1=k1, b=b)
        self.model.index(tokens, show_progress=False)

    def search(self, queries: Sequence[str], k: int) -> list[list[tuple[str, float]]]:
        """Top-k (doc_id, score) per query."""
        tokens = self._bm25s.tokenize(
            list(queries), stopwords="en", stemmer=self.stemmer, show_progress=False, return_ids=False
        )
        k = min(k, len(self.ids))
        docs, scores = self.model.retrieve(tokens, k=k, show_progress=False, n_threads=1)
        return [
            [(self.ids[int(d)], float(s)) for d, s in zip(row_d, row_s, strict=True)]
            for row_d, row_s in zip(docs, scores, strict=True)
        ]
