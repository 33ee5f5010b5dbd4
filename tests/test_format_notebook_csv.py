"""Jupyter notebooks (real ones from the Jupyter Notebook docs in tests/data/notebooks) and CSV/TSV tables
reach Markdown-shaped passages: Markdown cells as Markdown, code cells as code blocks, outputs dropped;
table rows as ``Header: value`` items, split between rows."""

from __future__ import annotations

import json
import shutil

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.corpus import load_source, write
from support.paths import REPO

from ragcli.errors import DocumentRejected
from ragcli.ingestion.chunking import chunk_document
from ragcli.ingestion.sources import SourceFile

DATA = REPO / "tests" / "data" / "notebooks"
EVERYONE = ("everyone",)
NOTEBOOK_KEYS = ["nbformat", "nbformat_minor", "metadata", "cells", "worksheets", "cell_type", "source", "outputs"]
NOTEBOOK_KEYS += ["kernelspec", "language", "language_info", "name", "text", "input"]


def load(tmp_path, name, content, default_acl=EVERYONE):
    path = write(tmp_path / name, content)
    return load_source(SourceFile(path.resolve(), name), default_acl=default_acl)


def notebook(*cells: tuple[str, str], language: str = "python") -> str:
    return json.dumps(
        {
            "nbformat": 4,
            "nbformat_minor": 5,
            "metadata": {"kernelspec": {"name": "k", "display_name": "K", "language": language}},
            "cells": [
                {"cell_type": kind, "metadata": {}, "source": source, "id": f"c{n}"}
                | ({"outputs": [], "execution_count": None} if kind == "code" else {})
                for n, (kind, source) in enumerate(cells)
            ],
        }
    )


# --------------------------------------------------------------------------- notebooks


def test_real_notebook_cells_become_markdown_and_code_blocks(tmp_path, embedder) -> None:
    shutil.copy(DATA / "running-code.ipynb", tmp_path / "running-code.ipynb")
    doc = load_source(
        SourceFile((tmp_path / "running-code.ipynb").resolve(), "running-code.ipynb"), default_acl=EVERYONE
    )
    assert (doc.format, doc.title) == ("notebook", "Running Code")  # the first heading
    passages = chunk_document(doc, "t", embedder.count_tokens)
    by_path = {p.heading_path: p for p in passages}
    code_cells = by_path[("Code cells allow you to enter and run code",)]
    assert "```python\na = 10\n```\n\n```python\nprint(a)\n```" in code_cells.text
    assert "* `Alt-Enter` runs the current cell and inserts a new one below." in code_cells.text
    assert ("Managing the Kernel",) in by_path and ("Output is asynchronous",) in by_path
    # Outputs are dropped: this number is only ever printed by a cell, never written in one.
    assert "1048575" not in doc.text
    assert all(p.text.count("```") % 2 == 0 for p in passages)  # code blocks whole


def test_second_real_notebook_keeps_its_headings_and_code(tmp_path, embedder) -> None:
    shutil.copy(DATA / "importing-notebooks.ipynb", tmp_path / "importing.ipynb")
    doc = load_source(SourceFile((tmp_path / "importing.ipynb").resolve(), "importing.ipynb"), default_acl=EVERYONE)
    assert doc.title == "Importing Jupyter Notebooks as Modules"
    passages = chunk_document(doc, "t", embedder.count_tokens)
    loader = [p for p in passages if p.heading_path == ("Notebook Loader",)]
    assert loader and any("class NotebookLoader(object):" in p.text for p in loader)


def test_a_cell_with_an_open_fence_does_not_swallow_the_cells_after_it(tmp_path, embedder) -> None:
    text = notebook(
        ("markdown", "# Churn\n\nThe query we ran:\n\n```sql\nselect * from churn"),
        ("markdown", "## Findings\n\nChurn fell to 4.1 percent in March."),
        ("code", "df.groupby('month').churn.mean()"),
        ("raw", "\\begin{raw latex}"),
    )
    doc = load(tmp_path, "churn.ipynb", text)
    passages = chunk_document(doc, "t", embedder.count_tokens)
    findings = next(p for p in passages if p.heading_path == ("Findings",))
    assert findings.text.startswith("Churn fell to 4.1 percent in March.")
    assert "```python\ndf.groupby('month').churn.mean()\n```" in findings.text
    assert "raw latex" not in doc.text


@pytest.mark.parametrize(
    ("content", "reason"),
    [("{not json", "not valid JSON"), ('{"cells": "no"}', "Jupyter notebook"), ("[1, 2]", "Jupyter notebook")],
)
def test_a_file_that_is_not_a_notebook_is_rejected(tmp_path, content, reason) -> None:
    with pytest.raises(DocumentRejected, match=reason):
        load(tmp_path, "x.ipynb", content)


def test_notebook_metadata_comes_from_its_sidecar(tmp_path) -> None:
    write(tmp_path / "churn.meta.yaml", "acl: [data-team]\nversion: '2'\n")
    doc = load(tmp_path, "churn.ipynb", notebook(("markdown", "# Churn\n\nChurn fell.")), default_acl=())
    assert (doc.acl, doc.declared_version, doc.title) == (("data-team",), "2", "Churn")


# --------------------------------------------------------------------------- CSV and TSV


def test_csv_rows_become_header_value_items_titled_by_the_file_name(tmp_path, embedder) -> None:
    content = 'Plan,Region,Monthly price,Notes\nPro,EU,49 EUR,\n"Team, large",US,99 USD,"billed\nyearly"\n'
    doc = load(tmp_path, "price-list.csv", content)
    assert (doc.format, doc.title) == ("csv", "price-list")
    (passage,) = chunk_document(doc, "t", embedder.count_tokens)
    assert passage.heading_path == ()
    assert passage.text == (
        "- Plan: Pro; Region: EU; Monthly price: 49 EUR\n"
        "- Plan: Team, large; Region: US; Monthly price: 99 USD; Notes: billed yearly"
    )


def test_a_large_csv_is_split_between_rows_each_row_whole(tmp_path, embedder) -> None:
    rows = [f"SKU-{n:04d},Replacement battery pack model {n},{10 + n % 7}.50 EUR,Warehouse {n % 3}" for n in range(300)]
    doc = load(tmp_path, "parts.csv", "SKU,Description,Unit price,Stock location\n" + "\n".join(rows) + "\n")
    passages = chunk_document(doc, "t", embedder.count_tokens)
    assert len(passages) > 5
    lines = [line for p in passages for line in p.text.split("\n")]
    assert lines == [
        f"- SKU: SKU-{n:04d}; Description: Replacement battery pack model {n}; Unit price: {10 + n % 7}.50 EUR; "
        f"Stock location: Warehouse {n % 3}"
        for n in range(300)
    ]
    assert [p.section for p in passages[:3]] == ["top", "top-2", "top-3"]


def test_tsv_and_semicolon_csv(tmp_path) -> None:
    tsv = load(tmp_path, "rates.tsv", "City\tDaily rate\nOslo\t180 EUR\n")
    assert tsv.format == "tsv" and "- City: Oslo; Daily rate: 180 EUR" in tsv.text
    excel = load(tmp_path, "preise.csv", "Plan;Preis\nPro;49,00 EUR\n")
    assert "- Plan: Pro; Preis: 49,00 EUR" in excel.text


def test_a_csv_with_only_a_header_has_nothing_to_index(tmp_path) -> None:
    with pytest.raises(DocumentRejected, match="no text to index"):
        load(tmp_path, "empty.csv", "Plan,Price\n\n")


def test_a_cell_over_the_csv_field_limit_is_rejected_not_cut(tmp_path) -> None:
    with pytest.raises(DocumentRejected, match="CSV could not be parsed"):
        load(tmp_path, "huge.csv", 'a,b\n"' + "x" * 200_000 + '",1\n')


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8) | st.sampled_from(["markdown", "code", "raw"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(NOTEBOOK_KEYS), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.sampled_from(NOTEBOOK_KEYS), JSON_VALUES, max_size=5))
def test_any_json_as_a_notebook_converts_or_is_rejected_with_a_reason(value) -> None:
    from ragcli.ingestion.notebook import notebook_to_markdown

    try:
        assert isinstance(notebook_to_markdown(json.dumps(value), "fuzz.ipynb"), str)
    except DocumentRejected as rejected:
        assert rejected.reason


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet='a,;"\n\t#|- 1\ré', max_size=80))
def test_any_text_as_csv_converts_or_is_rejected_with_a_reason(text) -> None:
    from ragcli.ingestion.csv import csv_to_markdown

    try:
        assert isinstance(csv_to_markdown(text, "fuzz.csv"), str)
    except DocumentRejected as rejected:
        assert rejected.reason
