"""What search prints: sources relative to the ingested folder, readable snippets, every --format, and queries
that look like options. All through the real CLI."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from support.cli import assert_one_error_line, cli, json_of
from support.corpus import markdown, write, write_user

CONFIG_LINES = "\n".join(f"setting_{i:03d} = {i}  # tuned for the walrus cluster in region {i % 7}" for i in range(90))


@pytest.fixture(scope="module")
def corpus(tmp_path_factory, embedder):  # type: ignore[no-untyped-def]
    from ragcli import ingest

    root = tmp_path_factory.mktemp("search-output")
    docs = root / "docs"
    write(
        docs / "guides" / "setup.md",
        markdown(
            {"acl": ["everyone"]},
            "# Setup\n\n## Dependencies\n\n"
            "Add your [project dependencies](../../concepts/projects/dependencies.md#adding) to `pyproject.toml`"
            " before the first sync, and see [the lockfile][lock] for pinning.\n\n"
            "## Flags\n\nPass --no-dev to leave the development dependencies out of the environment.\n",
        ),
    )
    write(
        docs / "guides" / "cluster.md",
        markdown(
            {"acl": ["everyone"], "source_url": "https://docs.example.com/cluster"},
            f"# Cluster\n\n## Tuning\n\nUse this walrus cluster configuration:\n\n```toml\n{CONFIG_LINES}\n```\n",
        ),
    )
    rows = [{"_id": f"n{i}", "title": f"Note {i}", "text": f"Walrus note {i} about the tusk budget."} for i in range(3)]
    write(docs / "notes" / "corpus.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
    report = ingest(docs, "t", index=root / "index", embedder=embedder, default_acl=["everyone"])
    assert report.published and not report.documents.rejected, report.documents.rejected
    write_user(root / "u.json", "u", "t")
    return root


def _search(corpus: Path, *args: object, cwd: Path | None = None):  # type: ignore[no-untyped-def]
    return cli("search", *args, "--as", corpus / "u.json", "--index", corpus / "index", cwd=cwd)


# --------------------------------------------------------------------------- sources and snippets


@pytest.mark.slow
def test_sources_are_relative_to_the_ingested_folder_wherever_the_command_runs(corpus: Path) -> None:
    for cwd in (corpus, Path("/")):
        proc = _search(corpus, "project dependencies pyproject", "-k", "1", "--mode", "bm25", cwd=cwd)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.splitlines()[1].split("\t")[4] == "guides/setup.md"
    data = json_of(_search(corpus, "project dependencies pyproject", "-k", "1", "--mode", "bm25", "--json"))
    [result] = data["results"]
    assert result["source"] == "guides/setup.md"
    assert result["source_path"] == str(corpus / "docs" / "guides" / "setup.md")  # absolute, under its own key
    jsonl = json_of(_search(corpus, "tusk budget note", "--mode", "bm25", "--json"))["results"]
    assert {r["source"] for r in jsonl if r["doc_id"].startswith("n")} == {f"notes/corpus.jsonl:{n}" for n in (1, 2, 3)}


@pytest.mark.slow
def test_snippets_show_link_text_and_still_highlight_the_words(corpus: Path) -> None:
    proc = _search(corpus, "project dependencies", "-k", "1", "--mode", "bm25")
    snippet = proc.stdout.splitlines()[1].split("\t")[3]
    assert snippet.startswith("Add your project dependencies to `pyproject.toml`"), snippet
    assert "](" not in snippet and "[lock]" not in snippet and "the lockfile for pinning" in snippet
    md = _search(corpus, "project dependencies", "-k", "1", "--mode", "bm25", "--format", "md").stdout
    assert "Add your **project** **dependencies** to" in md  # the highlight lands on the words shown


def test_a_split_block_part_shows_its_own_content_not_the_repeated_introduction(corpus: Path) -> None:
    data = json_of(_search(corpus, "setting_080 walrus cluster", "--mode", "bm25", "--json", "--per-doc", "0"))
    parts = [r for r in data["results"] if r["doc_id"] == "guides-cluster"]
    later = [r for r in parts if r["id"].endswith(("tuning-2", "tuning-3"))]
    assert later, [r["id"] for r in parts]
    for part in later:
        assert part["text"].startswith("Use this walrus cluster configuration:")  # carried, for the rankers
    table = _search(corpus, "setting_080 walrus cluster", "--mode", "bm25", "--per-doc", "0").stdout
    rows = {row.split("\t")[1]: row.split("\t")[3] for row in table.splitlines()[1:]}
    for part in later:
        assert rows[part["id"]].startswith("```toml setting_"), rows[part["id"]]  # the part's own lines


# --------------------------------------------------------------------------- --format


@pytest.mark.slow
def test_every_format_holds_the_same_results(corpus: Path) -> None:
    query = ("walrus", "--mode", "bm25", "-k", "5")
    results = json_of(_search(corpus, *query, "--json"))["results"]
    assert json_of(_search(corpus, *query, "--format", "json"))["results"] == results  # --json is the alias
    ids = [r["id"] for r in results]

    jsonl = _search(corpus, *query, "--format", "jsonl")
    assert [json.loads(line) for line in jsonl.stdout.splitlines()] == results

    rows = list(csv.DictReader(io.StringIO(_search(corpus, *query, "--format", "csv").stdout)))
    assert [r["id"] for r in rows] == ids and rows[0]["source"] == results[0]["source"]
    assert set(rows[0]) == {
        "rank",
        "id",
        "doc_id",
        "title",
        "section",
        "source",
        "score",
        "more_from_document",
        "snippet",
    }

    md = _search(corpus, *query, "--format", "md").stdout.splitlines()
    assert md[0] == "| rank | passage | title › section | source | snippet |" and len(md) == 2 + len(ids)
    assert all(f"`{pid}`" in row for pid, row in zip(ids, md[2:], strict=True))

    files = _search(corpus, *query, "--format", "files")
    shown = files.stdout.splitlines()
    expected = list(dict.fromkeys(_file_of(r) for r in results))
    assert shown == expected
    assert "https://" not in files.stdout and all(not line.startswith("/") for line in shown)
    assert files.stderr.startswith("5 results for u in t")  # the count is on stderr, never in the list


def _file_of(result: dict[str, object]) -> str:
    """The document file relative to the ingested folder, from the absolute path (never the source URL)."""
    path = str(result["source_path"])
    head, _, tail = path.rpartition(":")
    absolute = head if tail.isdigit() else path
    return absolute.split("/docs/", 1)[1]


@pytest.mark.slow
def test_files_are_never_the_source_url(corpus: Path) -> None:
    proc = _search(corpus, "walrus cluster configuration", "--mode", "bm25", "-k", "1", "--format", "files")
    assert proc.stdout == "guides/cluster.md\n"
    url = json_of(_search(corpus, "walrus cluster configuration", "--mode", "bm25", "-k", "1", "--json"))
    assert url["results"][0]["source"] == "https://docs.example.com/cluster"


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (("--format", "xml"), ("--format 'xml'", "table, json, jsonl, csv, md, files")),
        (("--json", "--format", "csv"), ("--json is --format json",)),
        (("--format", "files", "--explain"), ("--explain needs --format table or json",)),
    ],
)
def test_format_usage_errors(corpus: Path, args: tuple[str, ...], needles: tuple[str, ...]) -> None:
    assert_one_error_line(_search(corpus, "walrus", *args), *needles)


# --------------------------------------------------------------------------- queries that look like options


@pytest.mark.slow
def test_a_query_that_looks_like_an_option_gets_the_double_dash_hint(corpus: Path) -> None:
    user = corpus / "u.json"
    proc = cli("search", "--no-dev", "--as", user)
    assert_one_error_line(proc, f'to search for "--no-dev", put -- before it: ragcli search --as {user} -- --no-dev')
    fixed = cli("search", "--as", user, "--index", corpus / "index", "--mode", "bm25", "--", "--no-dev")
    assert fixed.returncode == 0 and "setup@" in fixed.stdout, fixed.stderr  # the hint's command works
    asked = cli("ask", "--frozen", "--as", user)
    assert_one_error_line(asked, 'to ask "--frozen", put -- before it: ragcli ask --as')


def test_an_option_spelled_with_two_dashes_suggests_the_short_one(corpus: Path) -> None:
    proc = cli("search", "walrus", "--as", corpus / "u.json", "--k", "3")
    assert_one_error_line(proc, "No such option: --k; did you mean -k?")
    typo = cli("search", "walrus", "--as", corpus / "u.json", "--jsno")
    assert_one_error_line(typo, "did you mean --json?")


def test_an_empty_question_is_called_a_question(corpus: Path) -> None:
    proc = cli("ask", "   ", "--as", corpus / "u.json", "--index", corpus / "index")
    line = assert_one_error_line(proc, "empty question")
    assert "words to search for" not in line
    assert_one_error_line(cli("search", " ", "--as", corpus / "u.json", "--index", corpus / "index"), "empty query")
