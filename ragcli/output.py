"""What people see: Rich tables and progress bars, and the JSON shapes scripts read.

Kept apart from the commands so that each command stays a few lines and the
JSON contracts live in one place.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .ingest import IngestReport
    from .retriever import SearchResponse
    from .store import Audit

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

console = Console(soft_wrap=False)
err_console = Console(stderr=True)


# --------------------------------------------------------------------------- ingest


@contextmanager
def ingest_progress(enabled: bool) -> Iterator[Any]:
    """Rich progress bars for files parsed and passages embedded (only on a terminal)."""
    from .ingest import Progress

    if not enabled or not err_console.is_terminal:
        yield Progress()
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress as Bars, TaskProgressColumn, TextColumn, TimeRemainingColumn

    bars = Bars(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TaskProgressColumn(show_speed=True),
        TimeRemainingColumn(),
        console=err_console,
        transient=True,
    )

    class _Hooks(Progress):
        files_task: Any = None
        embed_task: Any = None

        def files(self, total: int) -> None:
            self.files_task = bars.add_task("parsing files", total=total)

        def file_done(self) -> None:
            bars.advance(self.files_task)

        def embedding(self, total: int) -> None:
            if total:
                self.embed_task = bars.add_task("embedding passages", total=total)

        def embedded(self, count: int) -> None:
            bars.advance(self.embed_task, count)

    with bars:
        yield _Hooks()


def ingest_summary(report: IngestReport) -> None:
    table = Table(title=f"ingest: tenant {report.tenant}", show_header=True, title_justify="left")
    for col in ("added", "updated", "unchanged", "deleted", "rejected", "passages", "embedded", "seconds"):
        table.add_column(col, justify="right")
    table.add_row(
        str(report.added),
        str(report.updated),
        str(report.unchanged),
        str(report.deleted),
        str(len(report.rejected)),
        str(report.passages),
        str(report.embedded),
        f"{report.seconds:.1f}",
    )
    console.print(table)
    if not report.published:
        console.print("[dim]nothing changed; the published index was kept[/dim]")


# --------------------------------------------------------------------------- status


def human_bytes(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return str(n)


def status_table(audits: list[Audit]) -> None:
    table = Table(title="ragcli index", title_justify="left")
    for col, just in (
        ("tenant", "left"),
        ("docs", "right"),
        ("passages", "right"),
        ("model", "left"),
        ("chunker", "right"),
        ("size", "right"),
        ("last ingest", "left"),
        ("orphans", "right"),
        ("stale", "right"),
    ):
        table.add_column(col, justify=just)  # type: ignore[arg-type]
    for a in audits:
        table.add_row(
            a.tenant,
            str(a.documents),
            str(a.passages),
            f"{a.model_id} ({a.model_sha256[:12]})",
            f"v{a.chunker_version}",
            human_bytes(a.disk_bytes),
            a.created,
            _flag(a.orphan_vectors),
            _flag(a.stale_entries),
        )
    console.print(table)


def _flag(n: int) -> str:
    return "0" if n == 0 else f"[bold red]{n}[/bold red]"


# --------------------------------------------------------------------------- search


def search_json(response: SearchResponse, *, explain: bool = False) -> dict[str, Any]:
    data: dict[str, Any] = {
        "query": response.query,
        "tenant": response.principal.tenant,
        "user": response.principal.user,
        "as_of": response.as_of.isoformat(),
        "results": [
            {
                "rank": r.rank,
                "id": r.passage.id,
                "doc_id": r.passage.doc_id,
                "title": r.passage.title,
                "heading_path": list(r.passage.heading_path),
                "source": r.passage.source_url or r.passage.source,
                "text": r.passage.text,
                "score": round(r.score, 6),
                "bm25": {"rank": r.bm25.rank, "score": round(r.bm25.score, 4)} if r.bm25 else None,
                "dense": {"rank": r.dense.rank, "score": round(r.dense.score, 4)} if r.dense else None,
            }
            for r in response.results
        ],
    }
    if response.notes:
        data["notes"] = response.notes
    if explain:
        data["explain"] = explain_json(response)
    return data


def explain_json(response: SearchResponse) -> dict[str, Any]:
    cfg = response.config
    return {
        "mode": cfg.mode,
        "floors": {"bm25": cfg.bm25_floor, "dense": cfg.dense_floor},
        "topic_gate": cfg.topic_gate,
        "rrf_k": cfg.rrf_k,
        "candidates": cfg.candidates,
        "bm25": [{"id": c.id, "rank": c.rank, "score": round(c.score, 4), "kept": c.kept} for c in response.bm25_candidates],
        "dense": [{"id": c.id, "rank": c.rank, "score": round(c.score, 4), "kept": c.kept} for c in response.dense_candidates],
        "timings_ms": {k: round(v, 2) for k, v in response.timings_ms.items()},
        "generation": response.generation,
    }


def snippet(text: str, query: str, width: int = 220) -> Text:
    """A window of ``text`` around the first query term, with the terms highlighted."""
    terms = [t for t in re.findall(r"\w[\w.\-]*\w|\w", query.lower()) if len(t) > 2]
    flat = " ".join(text.split())
    lower = flat.lower()
    starts = [lower.find(t) for t in terms if lower.find(t) >= 0]
    begin = max(0, min(starts) - 60) if starts else 0
    window = flat[begin : begin + width]
    out = Text(("…" if begin else "") + window + ("…" if begin + width < len(flat) else ""))
    for term in terms:
        out.highlight_words([term], style="bold yellow", case_sensitive=False)
    return out


def search_table(response: SearchResponse, *, explain: bool = False) -> None:
    p = response.principal
    for note in response.notes:
        err_console.print(f"[yellow]note:[/yellow] {escape(note)}")
    if not response.results:
        console.print(f"no results for [bold]{escape(p.user)}[/bold] in tenant [bold]{escape(p.tenant)}[/bold] as of {response.as_of}")
    else:
        table = Table(
            title=f"{len(response.results)} results for {escape(p.user)} in {escape(p.tenant)} as of {response.as_of}",
            title_justify="left",
            show_lines=True,
        )
        table.add_column("#", justify="right")
        table.add_column("passage", overflow="fold", max_width=38)
        table.add_column("title › section", overflow="fold", max_width=34)
        table.add_column("snippet", overflow="fold")
        table.add_column("source", overflow="fold", max_width=30)
        for r in response.results:
            table.add_row(
                str(r.rank),
                escape(r.passage.id),
                escape(r.passage.heading_label),
                snippet(r.passage.text, response.query),
                escape(r.passage.source_url or r.passage.source),
            )
        console.print(table)
    if explain:
        _explain_tables(response)


def _explain_tables(response: SearchResponse) -> None:
    cfg = response.config
    console.print(f"mode {cfg.mode}; floors: bm25 > {cfg.bm25_floor}, dense >= {cfg.dense_floor}; RRF k = {cfg.rrf_k}; {cfg.candidates} candidates per ranker")
    for name, cands in (("BM25", response.bm25_candidates), ("dense", response.dense_candidates)):
        table = Table(title=f"{name} candidates", title_justify="left")
        table.add_column("rank", justify="right")
        table.add_column("passage", overflow="fold")
        table.add_column("score", justify="right")
        table.add_column("kept")
        for c in cands[:20]:
            table.add_row(str(c.rank), escape(c.id), f"{c.score:.4f}", "yes" if c.kept else "[dim]under floor[/dim]")
        console.print(table)
    fused = Table(title="fusion", title_justify="left")
    for col in ("rank", "passage", "rrf", "bm25 rank", "dense rank"):
        fused.add_column(col)
    for r in response.results:
        fused.add_row(str(r.rank), escape(r.id), f"{r.score:.5f}", str(r.bm25.rank) if r.bm25 else "-", str(r.dense.rank) if r.dense else "-")
    console.print(fused)



# --------------------------------------------------------------------------- ask


def answer_text(outcome: Any) -> None:
    """An answer as prose with numbered markers and a source list; an abstention as one sentence."""
    if outcome.disposition == "answered":
        console.print(escape(outcome.answer))
        console.print()
        for i, p in enumerate(outcome.sources, start=1):
            console.print(f"[bold][{i}][/bold] {escape(p.id)} — {escape(p.heading_label)} — {escape(p.source_url or p.source)}")
    else:
        console.print(escape(outcome.message))
        console.print(f"[dim]reason: {outcome.reason}[/dim]")
    console.print(f"[dim]model: {escape(outcome.model)} · searches: {outcome.searches} · request {outcome.request_id}[/dim]")


# --------------------------------------------------------------------------- eval


@contextmanager
def case_progress(total: int, enabled: bool) -> Iterator[Any]:
    if not enabled or not err_console.is_terminal:
        yield lambda: None
        return
    from rich.progress import Progress as Bars

    with Bars(console=err_console, transient=True) as bars:
        task = bars.add_task("evaluating", total=total)
        yield lambda: bars.advance(task)


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.4f}"
    return escape(str(value))


def eval_tables(data: dict[str, Any]) -> None:
    summary = Table(title=f"eval: {data['cases']} cases, k = {data['k']}", title_justify="left")
    summary.add_column("metric")
    summary.add_column("value", justify="right")
    for name, value in data["retrieval"].items():
        summary.add_row(name, _fmt(value))
    summary.add_row("permission violations", _fmt(data["permission_violations"]))
    for key in ("disposition_accuracy", "reason_accuracy", "citation_pass_rate", "searches_per_case", "tokens_per_case", "cost_usd_per_case"):
        if key in data:
            summary.add_row(key.replace("_", " "), _fmt(data[key]))
    for stage, pcts in data["latency_ms"].items():
        summary.add_row(f"{stage} latency p50 / p95 (ms)", f"{pcts['p50']:.1f} / {pcts['p95']:.1f}")
    console.print(summary)

    gates = Table(title="gates", title_justify="left")
    for col in ("gate", "threshold", "value", "result"):
        gates.add_column(col)
    for name, gate in data["gates"].items():
        gates.add_row(name, _fmt(gate["threshold"]), _fmt(gate["value"]), "[green]pass[/green]" if gate["passed"] else "[bold red]FAIL[/bold red]")
    console.print(gates)

    if data["failures"]:
        failures = Table(title=f"{len(data['failures'])} failing checks", title_justify="left", show_lines=True)
        for col in ("case", "kind", "question", "expected", "got"):
            failures.add_column(col, overflow="fold")
        for f in data["failures"][:50]:
            failures.add_row(escape(str(f["id"])), f["kind"], escape(f["question"][:80]), _fmt(f["expected"]), _fmt(f["got"]))
        console.print(failures)
