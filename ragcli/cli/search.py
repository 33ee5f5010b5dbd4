"""``ragcli search``: ranked passages the user may see, in the format asked for (see ``results``)."""

from __future__ import annotations

from typing import Annotated

import typer

from ..search.config import (
    BM25_FLOOR,
    BM25_ONLY_MIN_TERMS,
    CANDIDATES,
    DENSE_FLOOR,
    MODES,
    PER_DOC,
    TOP_K,
    parse_mode,
)
from .options import DEFAULT_INDEX, AsOfOpt, AsOpt, IndexOpt
from .results import EXPLAINED, FORMATS, Format

EPILOG = (
    "Examples: ragcli search 'rate limit tier 2' --as user.json --json; "
    "ragcli search 'retry policy' --as user.json --format files -0 | xargs -0 grep -n retry; "
    "a query that starts with a dash goes after --: ragcli search --as user.json -- --frozen"
)


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
    per_doc: Annotated[
        int,
        typer.Option(
            "--per-doc",
            metavar="N",
            help="At most N passages of one document in the results (0 = no limit); the rest are counted on its "
            "first result.",
            min=0,
        ),
    ] = PER_DOC,
    explain: Annotated[
        bool, typer.Option("--explain", help="Show each ranker's candidates, the floors and the fusion.")
    ] = False,
    output_format: Annotated[
        str | None,
        typer.Option(
            "--format",
            "-f",
            metavar="[" + "|".join(FORMATS) + "]",
            help="table (Rich on a terminal, tab-separated in a pipe), json, jsonl (one result a line), csv, md "
            "(a Markdown table), files (each result's document file, relative to the ingested folder, once a line). "
            "Default: table.",
            show_default=False,
        ),
    ] = None,
    print0: Annotated[
        bool,
        typer.Option(
            "--print0",
            "-0",
            help="With --format files: end each path with a NUL, not a newline, for xargs -0 (names with spaces "
            "or newlines pass whole).",
        ),
    ] = False,
    index: IndexOpt = DEFAULT_INDEX,
    as_json: Annotated[bool, typer.Option("--json", help="Same as --format json.", show_default=False)] = False,
) -> None:
    """Search the documents the user may see (BM25 + dense, fused with RRF).

    Results go to stdout, the count and notes to stderr. A query that starts
    with a dash goes after --. Exit 0 with results, 1 with none (like grep),
    2 on bad input.
    """
    from ..errors import InputError
    from ..search import Retriever, SearchConfig
    from .options import resolve_scope
    from .results import render

    fmt = _format(output_format, as_json, explain)
    if print0 and fmt != "files":
        raise InputError(f"-0/--print0 needs --format files, not {fmt}")
    scope = resolve_scope(as_file, as_of)
    config = SearchConfig(
        k=k,
        candidates=candidates,
        mode=parse_mode(mode),
        bm25_floor=bm25_floor,
        dense_floor=dense_floor,
        bm25_only_min_terms=bm25_only_min_terms,
        topic_gate=topic_gate,
        per_doc=per_doc,
    )
    response = Retriever(index, config=config).search(scope, query)
    render(response, fmt, explain=explain, nul=print0)
    raise typer.Exit(0 if response.results else 1)


def _format(given: str | None, as_json: bool, explain: bool) -> Format:
    """The output format from ``--format`` and its alias ``--json``; usage errors name the flag."""
    from ..errors import InputError

    if given is not None and given not in FORMATS:
        raise InputError(f"--format {given!r}: use one of {', '.join(FORMATS)}")
    if as_json and given not in (None, "json"):
        raise InputError(f"--json is --format json; it cannot be combined with --format {given}")
    chosen = "json" if as_json else (given or "table")
    fmt = next(f for f in FORMATS if f == chosen)
    if explain and fmt not in EXPLAINED:
        raise InputError(f"--explain needs --format table or json, not {fmt}")
    return fmt
