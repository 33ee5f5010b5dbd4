"""The ``ragcli`` command: parse flags, call the library, print Rich or JSON.

Exit codes, for scripts:
    0  success (search found results, ask answered, eval gates passed)
    1  a clean "no": search found nothing, ask abstained, an eval gate failed
    2  bad input or a broken index: one ``error:`` line on stderr
  130  interrupted (Ctrl-C); the published index is untouched
"""

from __future__ import annotations

import datetime as dt
import json
import sys
from pathlib import Path
from typing import Annotated, Any, NoReturn, Optional

import typer

from .errors import InputError, RagcliError

app = typer.Typer(
    name="ragcli",
    help=(
        "Answer questions from your team's documents with checked citations, "
        "showing each person only the passages they may see."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
)

IndexOpt = Annotated[
    Optional[Path],
    typer.Option("--index", help="Index directory (one subfolder per tenant). Default: $RAGCLI_INDEX or ./.ragcli.", show_default=False),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout instead of tables.")]
AsOpt = Annotated[Path, typer.Option("--as", help="User file: {\"user\", \"tenant\", \"groups\"}. The only source of tenant and groups.", show_default=False)]
AsOfOpt = Annotated[Optional[str], typer.Option("--as-of", help="Date (YYYY-MM-DD) for document validity. Default: today.", show_default=False)]


def parse_date(value: str | None, *, flag: str = "--as-of") -> dt.date:
    if value is None:
        return dt.date.today()
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise InputError(f"{flag} {value!r} is not a date: use YYYY-MM-DD") from None


def _emit_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")


def _printable(text: str) -> str:
    """One line, no terminal control sequences: a file name may hold a newline or an ESC."""
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)


def _fail(message: str, code: int = 2) -> NoReturn:
    sys.stderr.write(f"error: {message}\n")
    raise typer.Exit(code)


# --------------------------------------------------------------------------- ingest


@app.command(epilog="Example: ragcli ingest ./docs --tenant acme --acl everyone")
def ingest(
    path: Annotated[Path, typer.Argument(help="Folder (or one file) to ingest: .md .markdown .txt .html .pdf .jsonl.", show_default=False)],
    tenant: Annotated[str, typer.Option("--tenant", "-t", help="Tenant to ingest into (a-z, 0-9, '_', '-').", show_default=False)],
    acl: Annotated[Optional[list[str]], typer.Option("--acl", help="ACL group for documents that name none (repeatable). 'everyone' = all users of the tenant.")] = None,
    max_file_size: Annotated[int, typer.Option("--max-file-size", help="Reject files larger than this many MiB.")] = 64,
    index: IndexOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Index documents for a tenant: cut them into passages, embed them, publish atomically.

    Unchanged files are skipped; files removed from PATH are removed from the
    index; a file that fails to load is reported and keeps its old version.
    Exit 0, or 2 when any file was rejected (the rest is still committed).
    """
    from . import output
    from .ingest import ingest as run_ingest

    with output.ingest_progress(enabled=not as_json) as progress:
        report = run_ingest(path, tenant, index=index, default_acl=acl or (), max_file_bytes=max_file_size * 1024 * 1024, progress=progress)
    if as_json:
        _emit_json(report.to_json())
    else:
        output.ingest_summary(report)
    for rejected in report.rejected:
        sys.stderr.write(f"error: rejected {_printable(rejected.path)}: {_printable(rejected.reason)}\n")
    if report.rejected:
        raise typer.Exit(2)


# --------------------------------------------------------------------------- status


@app.command(epilog="Example: ragcli status --tenant acme --json")
def status(
    tenant: Annotated[Optional[str], typer.Option("--tenant", "-t", help="Only this tenant.", show_default=False)] = None,
    index: IndexOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Show each tenant's index: documents, passages, model, chunker, size, last ingest, and integrity counts.

    Exit 2 if an index is damaged (the message names the tenant and the fix).
    """
    from . import output
    from .principal import validate_tenant
    from .embedder import Embedder
    from .store import TenantIndex, audit, index_root, list_tenants

    tenants = [validate_tenant(tenant)] if tenant is not None else list_tenants(index)
    if not tenants:
        _fail(f"no tenants indexed under {index_root(index)}; run: ragcli ingest PATH --tenant NAME")
    embedder = Embedder()
    audits = []
    for name in tenants:
        with TenantIndex.open(index, name) as opened:
            audits.append(audit(opened))
            opened.check_model(embedder.model_id, embedder.sha256)
    if as_json:
        _emit_json({"index": str(index_root(index)), "tenants": [a.to_json() for a in audits]})
    else:
        output.status_table(audits)
    if any(a.orphan_vectors or a.stale_entries for a in audits):
        _fail("index has orphan vectors or stale entries; re-ingest the tenant")


# --------------------------------------------------------------------------- search


@app.command(epilog="Example: ragcli search 'rate limit tier 2' --as user.json --json")
def search(
    query: Annotated[str, typer.Argument(help="What to look for. Plain text: query syntax is not interpreted.", show_default=False)],
    as_file: AsOpt,
    as_of: AsOfOpt = None,
    k: Annotated[int, typer.Option("-k", help="How many results.", min=1, max=1000)] = 10,
    mode: Annotated[str, typer.Option("--mode", help="hybrid, bm25 or dense.")] = "hybrid",
    candidates: Annotated[int, typer.Option("--candidates", help="Candidates per ranker before fusion.", min=1, max=10000)] = 50,
    bm25_floor: Annotated[Optional[float], typer.Option("--bm25-floor", help="Drop BM25 hits at or under this score.", show_default=False)] = None,
    dense_floor: Annotated[Optional[float], typer.Option("--dense-floor", help="Drop dense hits under this cosine.", show_default=False)] = None,
    topic_gate: Annotated[
        bool,
        typer.Option("--topic-gate/--no-topic-gate", help="Hybrid mode: return nothing when no passage clears the dense floor and the query names no identifier."),
    ] = True,
    explain: Annotated[bool, typer.Option("--explain", help="Show each ranker's candidates, the floors and the fusion.")] = False,
    index: IndexOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Search the documents the user may see (BM25 + dense, fused with RRF).

    Exit 0 with results, 1 with none (like grep), 2 on bad input.
    """
    from . import output
    from .principal import load_principal
    from .retriever import Retriever, SearchConfig

    principal = load_principal(as_file)
    day = parse_date(as_of)
    if mode not in ("hybrid", "bm25", "dense"):
        raise InputError(f"--mode {mode!r}: use hybrid, bm25 or dense")
    defaults = SearchConfig()
    config = SearchConfig(
        k=k,
        candidates=candidates,
        mode=mode,  # type: ignore[arg-type]
        bm25_floor=defaults.bm25_floor if bm25_floor is None else bm25_floor,
        dense_floor=defaults.dense_floor if dense_floor is None else dense_floor,
        topic_gate=topic_gate,
    )
    retriever = Retriever(index, config=config)
    response = retriever.search(principal, query, as_of=day)
    if as_json:
        _emit_json(output.search_json(response, explain=explain))
    else:
        output.search_table(response, explain=explain)
    raise typer.Exit(0 if response.results else 1)


# --------------------------------------------------------------------------- ask


@app.command(epilog="Example: ragcli ask 'how long do we have to refund an annual plan?' --as user.json --trace ask.jsonl")
def ask(
    question: Annotated[str, typer.Argument(help="The question, in plain words.", show_default=False)],
    as_file: AsOpt,
    as_of: AsOfOpt = None,
    model: Annotated[
        Optional[str],
        typer.Option("--model", "-m", help="local, anthropic or anthropic:MODEL_NAME. Default: $RAGCLI_MODEL, else anthropic if ANTHROPIC_API_KEY is set, else local.", show_default=False),
    ] = None,
    max_searches: Annotated[int, typer.Option("--max-searches", help="Searches the model may run, the first included.", min=1, max=10)] = 3,
    max_turns: Annotated[int, typer.Option("--max-turns", help="Model calls at most.", min=1, max=20)] = 6,
    max_tokens: Annotated[int, typer.Option("--max-tokens", help="Total model tokens at most (input + output + cache).", min=1000)] = 200_000,
    timeout: Annotated[float, typer.Option("--timeout", help="Wall-clock seconds at most for the whole answer.", min=1)] = 120.0,
    retry_on_empty: Annotated[bool, typer.Option("--retry-on-empty/--no-retry-on-empty", help="Let the anthropic model rewrite a query whose first search found nothing (one extra call).")] = True,
    trace: Annotated[Optional[Path], typer.Option("--trace", help="Append one JSON line about this run (passage IDs only, never text).", show_default=False)] = None,
    index: IndexOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Answer a question from the documents the user may see, with checked citations.

    The model may search again (up to --max-searches) and must finish with
    claims whose quotes code checks against the cited passages, or abstain.
    Exit 0 answered, 1 abstained, 2 error.
    """
    from . import output
    from .answer import Limits, ask as run_ask
    from .models import resolve_model
    from .principal import load_principal
    from .retriever import Retriever
    from .trace import append_trace

    principal = load_principal(as_file)
    day = parse_date(as_of)
    question = question.encode("utf-8", "replace").decode("utf-8")  # undecodable argv bytes arrive as lone surrogates
    retriever = Retriever(index)
    backend = resolve_model(model, embedder=retriever.embedder)
    limits = Limits(max_searches=max_searches, max_turns=max_turns, max_tokens=max_tokens, timeout_s=timeout, retry_on_empty=retry_on_empty)
    outcome = run_ask(question, principal, retriever, backend, as_of=day, limits=limits)
    if trace is not None:
        append_trace(trace, outcome.trace)
    if as_json:
        _emit_json(outcome.to_json())
    else:
        output.answer_text(outcome)
    raise typer.Exit(0 if outcome.disposition == "answered" else 1)


# --------------------------------------------------------------------------- eval


@app.command("eval", epilog="Example: ragcli eval questions.jsonl --min-recall 0.9 --json --output report.json")
def eval_command(
    questions: Annotated[Path, typer.Argument(help="Question file (JSONL): id, question, as|principal, as_of, expect, reason, relevant, forbidden.", show_default=False)],
    k: Annotated[int, typer.Option("-k", help="Cut-off for recall@k, precision@k and nDCG@k.", min=1, max=1000)] = 10,
    with_ask: Annotated[bool, typer.Option("--ask", help="Also run the answer loop per case: disposition, reasons, citations, cost.")] = False,
    model: Annotated[Optional[str], typer.Option("--model", "-m", help="Model for --ask (as in ragcli ask).", show_default=False)] = None,
    max_searches: Annotated[int, typer.Option("--max-searches", help="Searches per case with --ask.", min=1, max=10)] = 3,
    min_recall: Annotated[Optional[float], typer.Option("--min-recall", help="Gate: mean recall@k at least this.", show_default=False)] = None,
    min_mrr: Annotated[Optional[float], typer.Option("--min-mrr", help="Gate: MRR at least this.", show_default=False)] = None,
    min_ndcg: Annotated[Optional[float], typer.Option("--min-ndcg", help="Gate: mean nDCG@k at least this.", show_default=False)] = None,
    min_disposition: Annotated[Optional[float], typer.Option("--min-disposition", help="Gate (with --ask): disposition accuracy at least this.", show_default=False)] = None,
    max_violations: Annotated[int, typer.Option("--max-violations", help="Gate: permission violations at most this.", min=0)] = 0,
    output_file: Annotated[Optional[Path], typer.Option("--output", "-o", help="Also write the JSON report to this file.", show_default=False)] = None,
    index: IndexOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Score retrieval, permissions and (with --ask) answers on a labelled question file.

    Exit 0 when every gate passes, 1 when any fails, 2 on bad input. This is
    what a CI script calls.
    """
    from . import output
    from .answer import Limits
    from .evaluation import Gates, evaluate, load_cases
    from .models import resolve_model
    from .retriever import Retriever

    cases = load_cases(questions)
    retriever = Retriever(index)
    backend = resolve_model(model, embedder=retriever.embedder) if with_ask else None
    gates = Gates(min_recall=min_recall, min_mrr=min_mrr, min_ndcg=min_ndcg, min_disposition=min_disposition, max_violations=max_violations)
    with output.case_progress(len(cases), enabled=not as_json) as tick:
        report = evaluate(cases, retriever, k=k, model=backend, limits=Limits(max_searches=max_searches), gates=gates, progress=tick)
    data = report.to_json()
    if output_file is not None:
        try:
            output_file.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        except OSError as exc:
            raise InputError(f"cannot write {output_file}: {exc.strerror or exc}") from None
    if as_json:
        _emit_json(data)
    else:
        output.eval_tables(data)
    raise typer.Exit(0 if report.passed else 1)


# --------------------------------------------------------------------------- entry point


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; every RagcliError or usage error becomes one ``error:`` line and exit 2."""
    try:
        # Without standalone mode the parser returns an Exit's code instead of exiting.
        result = app(args=argv, standalone_mode=False)
    except RagcliError as exc:
        sys.stderr.write(f"error: {exc.message}\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write("error: interrupted; the published index is unchanged\n")
        return 130
    except BrokenPipeError:
        return 1
    except Exception as exc:
        # Typer ships its own copy of click, so its exception classes are
        # matched by shape rather than imported from a private module.
        if type(exc).__name__ == "Abort":
            sys.stderr.write("error: interrupted; the published index is unchanged\n")
            return 130
        if hasattr(exc, "format_message"):
            sys.stderr.write(f"error: {_usage_message(exc)}\n")
            return 2
        if type(exc).__name__ == "Exit" and isinstance(getattr(exc, "exit_code", None), int):
            return int(exc.exit_code)  # type: ignore[attr-defined]
        raise
    if result == 130:  # typer turns Ctrl-C into a silent return of 130
        sys.stderr.write("error: interrupted; the published index is unchanged\n")
    return result if isinstance(result, int) else 0


def _usage_message(exc: Exception) -> str:
    message = " ".join(exc.format_message().split())  # type: ignore[attr-defined]
    param = getattr(exc, "param", None)
    name = getattr(param, "opts", None) or ([param.name] if getattr(param, "name", None) else None)
    ctx = getattr(exc, "ctx", None)
    command = getattr(ctx, "command_path", "ragcli") if ctx is not None else "ragcli"
    if name and name[0] not in message:
        message = f"{name[0]}: {message}"
    return f"{message} (see: {command} --help)"


def run() -> None:
    sys.exit(main())


if __name__ == "__main__":
    run()
