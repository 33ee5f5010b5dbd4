"""At most N passages of one document in the results, the rest counted: through the real CLI."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.cli import assert_one_error_line, cli, json_of
from support.corpus import markdown, write, write_user

QUERY = "walrus tusk polishing schedule"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory, embedder):  # type: ignore[no-untyped-def]
    """One handbook whose six sections all match the query, and three short pages that match it less."""
    from ragcli import ingest

    root = tmp_path_factory.mktemp("per-doc")
    sections = "".join(
        f"## Wing {i}\n\nThe walrus tusk polishing schedule for wing {i} runs every {i + 1} weeks, "
        f"and the walrus keepers of wing {i} log each tusk polishing.\n\n"
        for i in range(6)
    )
    write(root / "docs" / "handbook.md", markdown({"acl": ["everyone"]}, f"# Walrus handbook\n\n{sections}"))
    for i, text in enumerate(
        ("Tusk polishing uses a soft cloth.", "The walrus pool is cleaned on Fridays.", "Schedules are posted.")
    ):
        write(root / "docs" / f"page-{i}.md", markdown({"acl": ["everyone"]}, f"# Page {i}\n\n{text}\n"))
    report = ingest(root / "docs", "t", index=root / "index", embedder=embedder)
    assert report.published and not report.documents.rejected
    write_user(root / "u.json", "u", "t")
    return root


def _search(root: Path, *args: object):  # type: ignore[no-untyped-def]
    return cli("search", QUERY, "--as", root / "u.json", "--index", root / "index", "-k", "5", *args)


@pytest.mark.slow
def test_at_most_two_passages_of_one_document_and_the_rest_counted(corpus: Path) -> None:
    unlimited = json_of(_search(corpus, "--json", "--per-doc", "0"))["results"]
    assert [r["doc_id"] for r in unlimited].count("handbook") >= 4  # the handbook alone would fill the results

    data = json_of(_search(corpus, "--json"))
    results = data["results"]
    handbook = [r for r in results if r["doc_id"] == "handbook"]
    assert len(handbook) == 2 and len(results) == 5
    assert {r["doc_id"] for r in results} > {"handbook"}  # other documents got the freed places
    first, second = handbook
    assert first["more_from_document"] >= 2 and second["more_from_document"] == 0
    assert all(r["more_from_document"] == 0 for r in results if r["doc_id"] != "handbook")
    # The two kept are the handbook's best two, in the order they had without the limit.
    assert [r["id"] for r in handbook] == [r["id"] for r in unlimited if r["doc_id"] == "handbook"][:2]

    table = _search(corpus).stdout.splitlines()
    row = next(line.split("\t") for line in table[1:] if line.split("\t")[1] == first["id"])
    assert row[3].endswith(f"({first['more_from_document']} more from this document)")

    three = json_of(_search(corpus, "--json", "--per-doc", "3"))["results"]
    assert [r["doc_id"] for r in three].count("handbook") == 3


def test_explain_names_the_passages_the_limit_left_out(corpus: Path) -> None:
    data = json_of(_search(corpus, "--json", "--explain"))
    e = data["explain"]
    assert e["per_doc"] == 2
    left_out = {c["id"] for c in e["bm25"] + e["dense"] if c["status"] == "more_from_document"}
    first = next(r for r in data["results"] if r["doc_id"] == "handbook")
    assert len(left_out) == first["more_from_document"] and all(pid.startswith("handbook@") for pid in left_out)
    assert all(c["kept"] for c in e["bm25"] + e["dense"] if c["status"] == "more_from_document")
    plain = _search(corpus, "--explain").stdout
    assert "at most 2 per document, each document's best passage scored by the document's ranks" in plain
    assert "\tmore from document" in plain


def test_a_negative_limit_is_a_usage_error(corpus: Path) -> None:
    assert_one_error_line(_search(corpus, "--per-doc", "-1"), "--per-doc")
