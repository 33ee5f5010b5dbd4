"""``ragcli search``: ranked passages the user may see, as a table or JSON."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ..search.config import BM25_FLOOR, BM25_ONLY_MIN_TERMS, CANDIDATES, DENSE_FLOOR, MODES, TOP_K, parse_mode
from .console import console, emit_json, err_console, plain_output, plural, tsv
from .options import DEFAULT_INDEX, AsOfOpt, AsOpt, IndexOpt, JsonOpt

if TYPE_CHECKING:
    from rich.table import Table
    from rich.text import Text

    from ..passage import Passage
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
    query: Annotated[
        str,
        typer.Argument(
            metavar="QUERY", help="What to look for. Plain text: query syntax is not interpreted.", show_default=False
        ),
    ],
    as_file: AsOpt,
    as_of: AsOfOpt = None,
    k: Annotated[int, typer.Option("-k", metavar="N", help="How many results.", min=1, max=1000)] = TOP_K,
    mode: Annotated[
        str, typer.Option("--mode", metavar="[" + "|".join(MODES) + "]", help="Rankers to use.")
    ] = "hybrid",
    candidates: Annotated[
        int, typer.Option("--candidates", metavar="N", help="Candidates per ranker before fusion.", min=1, max=10000)
    ] = CANDIDATES,
    bm25_floor: Annotated[
        float, typer.Option("--bm25-floor", metavar="SCORE", help="Drop BM25 hits at or under this score.")
    ] = BM25_FLOOR,
    dense_floor: Annotated[
        float, typer.Option("--dense-floor", metavar="COSINE", help="Drop dense hits under this cosine.")
    ] = DENSE_FLOOR,
    bm25_only_min_terms: Annotated[
        int,
        typer.Option(
            "--bm25-only-min-terms",
            metavar="N",
            help="Hybrid mode: a word match not close in meaning must share this many of a longer query's words "
            "(1 keeps all).",
            min=1,
        ),
    ] = BM25_ONLY_MIN_TERMS,
    topic_gate: Annotated[
        bool,
        typer.Option(
            "--topic-gate/--no-topic-gate",
            help="Hybrid mode: when no passage is close in meaning and the query names nothing specific (identifier, "
            "flag, rare word), drop BM25's word matches as off-topic.",
        ),
    ] = True,
    explain: Annotated[
        bool, typer.Option("--explain", help="Show each ranker's candidates, the floors and the fusion.")
    ] = False,
    index: IndexOpt = DEFAULT_INDEX,
    as_json: JsonOpt = False,
) -> None:
    """Search the documents the user may see (BM25 + dense, fused with RRF).

    Exit 0 with results, 1 with none (like grep), 2 on bad input.
    """
    from ..search import Retriever, SearchConfig
    from .options import resolve_scope

    scope = resolve_scope(as_file, as_of)
    config = SearchConfig(
        k=k,
        candidates=candidates,
        mode=parse_mode(mode),
        bm25_floor=bm25_floor,
        dense_floor=dense_floor,
        bm25_only_min_terms=bm25_only_min_terms,
        topic_gate=topic_gate,
    )
    response = Retriever(Path(index), config=config).search(scope, query)
    if as_json:
        emit_json(response.to_wire(explain=explain))
    else:
        _table(response, explain=explain)
    raise typer.Exit(0 if response.results else 1)


WORD = re.compile(r"\w+(?:[.\-/:]\w+)*")
"""A word as a reader sees it: ``syncing``, ``retry_backoff_ms``, ``v2.3.1``, ``well-known``."""
SNAP = 20
"""How far a snippet's edge moves to land between words instead of inside one."""


@functools.lru_cache(maxsize=4096)
def _stems(word: str) -> frozenset[str]:
    from ..text import query_terms

    return frozenset(query_terms(word))


def _matcher(query: str) -> Callable[[str], bool]:
    """Whether a word of the passage matches the query: the same
    stem (``syncing`` for ``sync``) or the same identifier."""
    from ..text import identifier_terms, query_terms

    stems = frozenset(query_terms(query))
    identifiers = frozenset(identifier_terms(query))
    return lambda word: word.lower() in identifiers or bool(_stems(word.lower()) & stems)


def snippet(text: str, query: str, width: int = 220) -> Text:
    """A window of ``text`` centred on the first word matching the query, matching words highlighted whole.

    A word matches when it has a query term's stem (``refunded`` for "refund")
    or is one of the query's identifiers: never a prefix inside another word
    (``sync`` is not marked in ``async``).
    """
    from rich.text import Text

    flat = " ".join(text.split())
    matches = _matcher(query)
    spans = [(m.start(), m.end()) for m in WORD.finditer(flat) if matches(m.group())]
    begin, end = _window(flat, spans[0] if spans else None, width)
    prefix = "…" if begin else ""
    out = Text(prefix + flat[begin:end] + ("…" if end < len(flat) else ""))
    for start, stop in spans:
        if begin <= start and stop <= end:
            out.stylize("bold yellow", start - begin + len(prefix), stop - begin + len(prefix))
    return out


def _window(flat: str, focus: tuple[int, int] | None, width: int) -> tuple[int, int]:
    """``[begin, end)`` of at most ``width`` characters around ``focus``, with its edges between words."""
    if len(flat) <= width:
        return 0, len(flat)
    if focus is None:
        begin = 0
    else:
        centre = (focus[0] + focus[1]) // 2
        begin = min(max(0, centre - width // 2), len(flat) - width)
        if begin > 0:
            space = flat.find(" ", begin, min(begin + SNAP, focus[0]))
            begin = space + 1 if space >= 0 else begin
    end = min(len(flat), begin + width)
    if end < len(flat):
        space = flat.rfind(" ", max(begin, end - SNAP, focus[1] if focus else begin), end)
        end = space if space > begin else end
    return begin, end


def shown_source(passage: Passage) -> str:
    """Where to look, short: a URL as it is, a file relative to the working directory (or ``~``) when under it."""
    if passage.source_url:
        return passage.source_url
    path = Path(passage.source)
    for base, label in ((Path.cwd(), ""), (Path.home(), "~/")):
        try:
            return label + path.relative_to(base).as_posix()
        except ValueError:
            continue
    return passage.source


def _table(response: SearchResponse, *, explain: bool = False) -> None:
    from rich.markup import escape

    p = response.scope.principal
    title = f"{plural(len(response.results), 'result')} for {p.user} in {p.tenant} as of {response.as_of}"
    for note in response.notes:
        err_console().print(f"[yellow]note:[/yellow] {escape(note)}")
    if plain_output():
        if response.results:
            err_console().print(escape(title), highlight=False)
            rows = [
                [r.rank, r.id, r.passage.heading_label, snippet(r.passage.text, response.query), r.passage.shown_source]
                for r in response.results
            ]
            tsv(["rank", "passage", "title › section", "snippet", "source"], rows)
        else:
            err_console().print(
                f"no results for {escape(p.user)} in tenant {escape(p.tenant)} as of {response.as_of}", highlight=False
            )
    elif not response.results:
        console().print(
            f"no results for [bold]{escape(p.user)}[/bold] in tenant [bold]{escape(p.tenant)}[/bold] as of "
            f"{response.as_of}"
        )
    else:
        console().print(_rich_table(response, escape(title)))
    if explain:
        _explain(response)


def _rich_table(response: SearchResponse, title: str) -> Table:
    """One block per result: the passage ID on its own line (never cut), title › section and source
    dimmed under it, then the snippet; the text takes the whole width left of the rank."""
    from rich.table import Table
    from rich.text import Text

    table = Table.grid(padding=(0, 1), expand=True)
    table.title = title
    table.title_justify = "left"
    table.add_column(justify="right", no_wrap=True)
    table.add_column(overflow="fold", ratio=1)
    for i, r in enumerate(response.results):
        body = Text()
        body.append(r.id, style="bold cyan")  # a style on Text() itself would colour the whole block
        body.append("\n" + r.passage.heading_label + " — " + shown_source(r.passage), style="dim")
        body.append("\n")
        body.append_text(snippet(r.passage.text, response.query))
        if i:
            table.add_row("", "")
        table.add_row(Text(str(r.rank), style="bold"), body)
    return table


def _explain(response: SearchResponse) -> None:
    cfg = response.config
    summary = (
        f"mode {cfg.mode}; floors: bm25 > {cfg.bm25_floor}, dense >= {cfg.dense_floor}, "
        f"a word match not close in meaning shares >= {cfg.bm25_only_min_terms} query words; "
        f"RRF k = {cfg.rrf_k}; {cfg.candidates} candidates per ranker"
    )
    sections: list[tuple[str, list[str], list[list[str]]]] = []
    for name, cands in (("BM25", response.bm25_candidates), ("dense", response.dense_candidates)):
        rows = [[str(c.rank), c.id, f"{c.score:.4f}", c.status.replace("_", " ")] for c in cands[:20]]
        sections.append((f"{name} candidates", ["rank", "passage", "score", "outcome"], rows))
    fused = [
        [
            str(r.rank),
            r.id,
            f"{r.score:.5f}",
            str(r.bm25.rank) if r.bm25 else "-",
            str(r.dense.rank) if r.dense else "-",
        ]
        for r in response.results
    ]
    sections.append(("fusion", ["rank", "passage", "rrf", "bm25 rank", "dense rank"], fused))
    if plain_output():
        import sys

        sys.stdout.write(f"\n# {summary}\n")
        for title, header, rows in sections:
            sys.stdout.write(f"\n# {title}\n")
            tsv(header, rows)
        return
    from rich.markup import escape
    from rich.table import Table

    console().print(summary)
    for title, header, rows in sections:
        table = Table(title=title, title_justify="left")
        for col in header:
            table.add_column(
                col,
                overflow="fold" if col == "passage" else "ellipsis",
                justify="left" if col in ("passage", "outcome") else "right",
            )
        for row in rows:
            cells = [escape(c) for c in row]
            if header[-1] == "outcome":
                cells[-1] = STATUS_LABELS[row[-1].replace(" ", "_")]
            table.add_row(*cells)
        console().print(table)
