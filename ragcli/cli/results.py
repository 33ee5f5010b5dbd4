"""Search results in every output format: ``--format table|json|jsonl|csv|md|files``, and ``--explain``.

``table`` is Rich on a terminal and tab-separated rows in a pipe; the others
are the same on both. Results go to stdout; the count line, the notes and "no
results" go to stderr, so a pipe carries only results. Every string that came
from a document (title, heading, text, file name) has its control characters
written out before it is printed.
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Callable
from contextlib import nullcontext
from typing import TYPE_CHECKING, Literal

from ..escape import markdown_text, path_argument, spreadsheet_cell
from ..readable import readable
from .console import (
    console,
    emit_json,
    footer,
    json_text,
    plain_output,
    plural,
    printable,
    safe,
    tsv,
    workflow_commands_stopped,
    write_out,
)

if TYPE_CHECKING:
    from rich.table import Table
    from rich.text import Text

    from ..passage import Passage
    from ..search import SearchResponse, SearchResult

Format = Literal["table", "json", "jsonl", "csv", "md", "files"]
FORMATS: tuple[Format, ...] = ("table", "json", "jsonl", "csv", "md", "files")
EXPLAINED: tuple[Format, ...] = ("table", "json")
"""Formats that can carry ``--explain``'s candidates."""

STATUS_LABELS = {
    "in_results": "in results",
    "cut_at_k": "cut at k",
    "more_from_document": "more from document",
    "under_floor": "[dim]under floor[/dim]",
    "topic_gate": "[dim]topic gate[/dim]",
    "weak_word_match": "[dim]weak word match[/dim]",
}


def render(response: SearchResponse, fmt: Format, *, explain: bool = False, nul: bool = False) -> None:
    """Print ``response`` in ``fmt``: results on stdout, the count and notes on stderr (``nul``: ``files`` with NULs).

    Under GitHub Actions, what is printed is document text, so it goes out with workflow commands stopped; JSON
    and JSONL need no markers (``console.json_text``), which would break ``jq``.
    """
    if fmt == "json":
        emit_json(response.to_wire(explain=explain))
        return
    with workflow_commands_stopped() if fmt != "jsonl" else nullcontext():
        for note in response.notes:
            footer(f"note: {note}")
        if fmt != "jsonl":
            footer(_count_line(response))
        if fmt == "files":
            _files(response, nul=nul)
        else:
            RENDERERS[fmt](response)
        if explain:
            _explain(response)


def _count_line(response: SearchResponse) -> str:
    p = response.scope.principal
    if not response.results:
        return f"no results for {p.user} in tenant {p.tenant} as of {response.as_of}"
    return f"{plural(len(response.results), 'result')} for {p.user} in {p.tenant} as of {response.as_of}"


# --------------------------------------------------------------------------- snippets

WORD = re.compile(r"\w+(?:[.\-/:]\w+)*")
"""A word as a reader sees it: ``syncing``, ``retry_backoff_ms``, ``v2.3.1``, ``well-known``."""
SNAP = 20
"""How far a snippet's edge moves to land between words instead of inside one."""


@functools.lru_cache(maxsize=4096)
def _stems(word: str) -> frozenset[str]:
    from ..text import query_terms

    return frozenset(query_terms(word))


def _matcher(query: str) -> Callable[[str], bool]:
    """Whether a word of the passage matches the query: the same stem (``syncing`` for ``sync``) or identifier."""
    from ..text import identifier_terms, query_terms

    stems = frozenset(query_terms(query))
    identifiers = frozenset(identifier_terms(query))
    return lambda word: word.lower() in identifiers or bool(_stems(word.lower()) & stems)


def snippet(text: str, query: str, width: int = 220) -> Text:
    """A window of ``text`` centred on the first word matching the query, matching words highlighted whole.

    Markdown links read as their text (``[project dependencies](../x.md)`` is
    ``project dependencies``) and code as the page has it (``readable.readable``), and
    the words are matched in what is shown. A
    word matches when it has a query term's stem (``refunded`` for "refund") or
    is one of the query's identifiers: never a prefix inside another word
    (``sync`` is not marked in ``async``).
    """
    from rich.text import Text

    flat = safe(" ".join(readable(text).split()))
    matches = _matcher(query)
    spans = [(m.start(), m.end()) for m in WORD.finditer(flat) if matches(m.group())]
    begin, end = _window(flat, spans[0] if spans else None, width)
    prefix = "…" if begin else ""
    out = Text(prefix + flat[begin:end] + ("…" if end < len(flat) else ""))
    for start, stop in spans:
        if begin <= start and stop <= end:
            out.stylize("bold yellow", start - begin + len(prefix), stop - begin + len(prefix))
    return out


def result_snippet(result: SearchResult, query: str) -> Text:
    """The snippet of a result: what its passage adds (not the introduction it carries from the part before)."""
    return snippet(result.passage.own_text, query)


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


def more_note(result: SearchResult) -> str:
    """``(2 more from this document)`` on a document's first result when the per-document limit left some out."""
    n = result.more_from_document
    return f"({n} more from this document)" if n else ""


# --------------------------------------------------------------------------- formats


def _table(response: SearchResponse) -> None:
    if not response.results:
        return
    if plain_output():
        rows = [
            [
                r.rank,
                r.id,
                r.passage.heading_label,
                _with_more(result_snippet(r, response.query), r),
                r.passage.location,
            ]
            for r in response.results
        ]
        tsv(["rank", "passage", "title › section", "snippet", "source"], rows)
        return
    console().print(_rich_table(response))


def _with_more(text: Text, result: SearchResult) -> str:
    return " ".join(filter(None, (text.plain, more_note(result))))


def _rich_table(response: SearchResponse) -> Table:
    """One block per result: the passage ID on its own line (never cut), title › section and source
    dimmed under it, then the snippet; the text takes the whole width left of the rank."""
    from rich.table import Table
    from rich.text import Text

    table = Table.grid(padding=(0, 1), expand=True)
    table.add_column(justify="right", no_wrap=True)
    table.add_column(overflow="fold", ratio=1)
    for i, r in enumerate(response.results):
        body = Text()
        body.append(safe(r.id), style="bold cyan")  # a style on Text() itself would colour the whole block
        if r.more_from_document:
            body.append(" " + more_note(r), style="dim")
        body.append("\n" + safe(r.passage.heading_label + " — " + r.passage.location), style="dim")
        body.append("\n")
        body.append_text(result_snippet(r, response.query))
        if i:
            table.add_row("", "")
        table.add_row(Text(str(r.rank), style="bold"), body)
    return table


def _jsonl(response: SearchResponse) -> None:
    """One result object a line, the ``--json`` result shape."""
    results = response.to_wire().results
    if results:
        write_out("\n".join(json_text(r.model_dump_json()) for r in results))


CSV_COLUMNS = ("rank", "id", "doc_id", "title", "section", "source", "score", "more_from_document", "snippet")


def _csv(response: SearchResponse) -> None:
    """RFC 4180 CSV with a header; every cell on one line, control characters written out, and a cell that a
    spreadsheet would run as a formula (``=HYPERLINK(...)``) given a leading ``'`` (``escape.spreadsheet_cell``)."""
    import csv

    writer = csv.writer(sys.stdout, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for r in response.results:
        p = r.passage
        cells = [r.rank, r.id, p.doc_id, p.title, " › ".join(p.heading_path), p.shown_source, f"{r.score:.6f}"]
        cells += [r.more_from_document, result_snippet(r, response.query).plain]
        writer.writerow([spreadsheet_cell(printable(" ".join(str(c).split()))) for c in cells])


def _md(response: SearchResponse) -> None:
    """A Markdown table (for a pull request, an agent, ``$GITHUB_STEP_SUMMARY``); matched words in bold."""
    if not response.results:
        return
    lines = ["| rank | passage | title › section | source | snippet |", "|---:|---|---|---|---|"]
    for r in response.results:
        passage = f"`{_md_cell(r.id)}`" + (f" {more_note(r)}" if r.more_from_document else "")
        cells = [str(r.rank), passage, _md_cell(r.passage.heading_label), _md_cell(r.passage.location)]
        cells.append(_md_snippet(result_snippet(r, response.query)))
        lines.append("| " + " | ".join(cells) + " |")
    write_out("\n".join(lines))


def _md_cell(text: str) -> str:
    """One table cell: one line, HTML shown as text, pipes escaped, control characters written out."""
    return markdown_text(printable(" ".join(text.split())))


def _md_snippet(text: Text) -> str:
    """The snippet with its highlighted words in bold (whole words; not inside a code span, where bold is literal)."""
    plain = text.plain
    out, at = [], 0
    for span in sorted(text.spans, key=lambda s: s.start):
        if plain.count("`", 0, span.start) % 2:
            continue
        out += [_md_text(plain[at : span.start]), f"**{_md_text(plain[span.start : span.end])}**"]
        at = span.end
    out.append(_md_text(plain[at:]))
    return "".join(out)


def _md_text(text: str) -> str:
    return markdown_text(printable(text))


def document_file(passage: Passage) -> str:
    """The file a passage came from, relative to the ingested folder (never its ``source_url``), no JSONL line."""
    path = passage.path or passage.source
    head, _, line_no = path.rpartition(":")
    return head if head and line_no.isdigit() else path


def _files(response: SearchResponse, *, nul: bool = False) -> None:
    """Each result's document file once, in rank order, one a line: for ``xargs``, ``$EDITOR``, ``grep``.

    A path beginning with ``-`` is written ``./-name`` (never read as an option). ``nul`` (``-0``) ends each
    path with NUL instead, for ``xargs -0``: names with spaces or newlines pass whole, written as they are
    unless stdout is a terminal.
    """
    files = [path_argument(f) for f in dict.fromkeys(document_file(r.passage) for r in response.results)]
    if nul:
        sys.stdout.write("".join((f if not sys.stdout.isatty() else printable(f)) + "\0" for f in files))
    elif files:
        write_out("\n".join(printable(f) for f in files))


RENDERERS: dict[str, Callable[[SearchResponse], None]] = {
    "table": _table,
    "jsonl": _jsonl,
    "csv": _csv,
    "md": _md,
    "files": _files,
}


# --------------------------------------------------------------------------- --explain


def _explain(response: SearchResponse) -> None:
    cfg = response.config
    limit = f"at most {cfg.per_doc} per document" if cfg.per_doc else "no per-document limit"
    if cfg.ranks_documents:
        limit += ", each document's best passage scored by the document's ranks"
    summary = (
        f"mode {cfg.mode}; floors: bm25 > {cfg.bm25_floor}, dense >= {cfg.dense_floor}, a word match not close in "
        f"meaning shares >= {cfg.bm25_only_min_terms} query words; RRF k = {cfg.rrf_k}; {cfg.candidates} candidates "
        f"per ranker; {limit}"
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
        write_out(f"\n# {summary}")
        for title, header, rows in sections:
            write_out(f"\n# {title}")
            tsv(header, rows)
        return
    from rich.markup import escape
    from rich.table import Table

    console().print(escape(summary))
    for title, header, rows in sections:
        table = Table(title=title, title_justify="left")
        for col in header:
            table.add_column(
                col,
                overflow="fold" if col == "passage" else "ellipsis",
                justify="left" if col in ("passage", "outcome") else "right",
            )
        for row in rows:
            cells = [escape(safe(c)) for c in row]
            if header[-1] == "outcome":
                cells[-1] = STATUS_LABELS[row[-1].replace(" ", "_")]
            table.add_row(*cells)
        console().print(table)
