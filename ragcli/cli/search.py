"""``ragcli search``: ranked passages the user may see, as a table or JSON."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from .console import console, emit_json, err_console
from .options import DEFAULT_INDEX, AsOfOpt, AsOpt, IndexOpt, JsonOpt

if TYPE_CHECKING:
    from rich.text import Text

    from ..search import SearchResponse

EPILOG = "Example: ragcli search 'rate limit tier 2' --as user.json --json"
STATUS_LABELS = {
    "in_results": "in results",
    "cut_at_k": "cut at k",
    "under_floor": "[dim]under floor[/dim]",
    "topic_gate": "[dim]topic gate[/dim]",
    "weak_word_match": "[dim]weak word match[/dim]",
}


def search(
    query: Annotated[str, typer.Argument(help="What to look for. Plain text: query syntax is not interpreted.", show_default=False)],
    as_file: AsOpt,
    as_of: AsOfOpt = None,
    k: Annotated[int, typer.Option("-k", help="How many results.", min=1, max=1000)] = 10,
    mode: Annotated[str, typer.Option("--mode", metavar="[hybrid|bm25|dense]", help="Rankers to use.")] = "hybrid",
    candidates: Annotated[int, typer.Option("--candidates", help="Candidates per ranker before fusion.", min=1, max=10000)] = 50,
    bm25_floor: Annotated[Optional[float], typer.Option("--bm25-floor", help="Drop BM25 hits at or under this score. [default: 0.0]", show_default=False)] = None,
    dense_floor: Annotated[Optional[float], typer.Option("--dense-floor", help="Drop dense hits under this cosine. [default: 0.3]", show_default=False)] = None,
    bm25_only_min_terms: Annotated[
        int,
        typer.Option("--bm25-only-min-terms", help="Hybrid mode: a word match not close in meaning must share this many of a longer query's words (1 keeps all).", min=1),
    ] = 2,
    topic_gate: Annotated[
        bool,
        typer.Option("--topic-gate/--no-topic-gate", help="Hybrid mode: when no passage is close in meaning and the query names nothing specific (identifier, flag, rare word), drop BM25's word matches as off-topic."),
    ] = True,
    explain: Annotated[bool, typer.Option("--explain", help="Show each ranker's candidates, the floors and the fusion.")] = False,
    index: IndexOpt = DEFAULT_INDEX,
    as_json: JsonOpt = False,
) -> None:
    """Search the documents the user may see (BM25 + dense, fused with RRF).

    Exit 0 with results, 1 with none (like grep), 2 on bad input.
    """
    from ..search import Retriever, SearchConfig
    from .options import resolve_scope

    scope = resolve_scope(as_file, as_of)
    defaults = SearchConfig()
    config = SearchConfig(
        k=k,
        candidates=candidates,
        mode=mode,  # type: ignore[arg-type]
        bm25_floor=defaults.bm25_floor if bm25_floor is None else bm25_floor,
        dense_floor=defaults.dense_floor if dense_floor is None else dense_floor,
        bm25_only_min_terms=bm25_only_min_terms,
        topic_gate=topic_gate,
    )
    response = Retriever(Path(index), config=config).search(scope, query)
    if as_json:
        emit_json(response.to_wire(explain=explain))
    else:
        _table(response, explain=explain)
    raise typer.Exit(0 if response.results else 1)


def snippet(text: str, query: str, width: int = 220) -> Text:
    """A window of ``text`` around the first query term, with the terms highlighted."""
    from rich.text import Text

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


def _table(response: SearchResponse, *, explain: bool = False) -> None:
    from rich.markup import escape
    from rich.table import Table

    p = response.scope.principal
    for note in response.notes:
        err_console().print(f"[yellow]note:[/yellow] {escape(note)}")
    if not response.results:
        console().print(f"no results for [bold]{escape(p.user)}[/bold] in tenant [bold]{escape(p.tenant)}[/bold] as of {response.as_of}")
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
            table.add_row(str(r.rank), escape(r.passage.id), escape(r.passage.heading_label), snippet(r.passage.text, response.query), escape(r.passage.shown_source))
        console().print(table)
    if explain:
        _explain(response)


def _explain(response: SearchResponse) -> None:
    from rich.markup import escape
    from rich.table import Table

    cfg = response.config
    console().print(
        f"mode {cfg.mode}; floors: bm25 > {cfg.bm25_floor}, dense >= {cfg.dense_floor}, a word match not close in meaning shares >= "
        f"{cfg.bm25_only_min_terms} query words; RRF k = {cfg.rrf_k}; {cfg.candidates} candidates per ranker"
    )
    for name, cands in (("BM25", response.bm25_candidates), ("dense", response.dense_candidates)):
        table = Table(title=f"{name} candidates", title_justify="left")
        table.add_column("rank", justify="right")
        table.add_column("passage", overflow="fold")
        table.add_column("score", justify="right")
        table.add_column("outcome")
        for c in cands[:20]:
            table.add_row(str(c.rank), escape(c.id), f"{c.score:.4f}", STATUS_LABELS[c.status])
        console().print(table)
    fused = Table(title="fusion", title_justify="left")
    for col in ("rank", "passage", "rrf", "bm25 rank", "dense rank"):
        fused.add_column(col)
    for r in response.results:
        fused.add_row(str(r.rank), escape(r.id), f"{r.score:.5f}", str(r.bm25.rank) if r.bm25 else "-", str(r.dense.rank) if r.dense else "-")
    console().print(fused)
