"""PDF headings from the outline, and a folder that mixes every format: ingested in one CLI run, nothing
of a readable type skipped, and a fact from each format found by search."""

from __future__ import annotations

import datetime as dt
import io
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from support.cli import clean_env, cli, json_of, stderr_lines
from support.corpus import all_passages, load_source, make_pdf, markdown, write
from support.docx_files import docx_bytes, new_document
from support.paths import REPO

from ragcli.ingestion.chunking import chunk_document
from ragcli.ingestion.sources import SourceFile
from ragcli.principal import Principal, Scope
from ragcli.search import Retriever

EVERYONE = ("everyone",)
MANUAL_PAGES = [
    "This manual explains the appliance.",
    "1 Installation\nUnpack the appliance and connect the power cable.\n"
    "1.1 Linux\nUse apt to install the agent package.",
    "2 Maintenance\nReplace the air filter every six months.",
]
MANUAL_OUTLINE = [("Installation", 1, None), ("Linux", 1, 0), ("Maintenance", 2, None)]


def test_a_pdf_outline_gives_passages_their_heading_path(tmp_path, embedder) -> None:
    path = write(tmp_path / "manual.pdf", make_pdf(MANUAL_PAGES, outline=MANUAL_OUTLINE))
    doc = load_source(SourceFile(path.resolve(), "manual.pdf"), default_acl=EVERYONE)
    assert doc.title == "manual"  # the file name, as before: a PDF's first bookmark is a chapter, not its title
    passages = chunk_document(doc, "t", embedder.count_tokens)
    assert [(p.heading_path, p.text) for p in passages] == [
        ((), "This manual explains the appliance."),
        (("Installation",), "Unpack the appliance and connect the power cable."),
        (("Installation", "Linux"), "Use apt to install the agent package."),
        (("Maintenance",), "Replace the air filter every six months."),
    ]


def test_a_bookmark_whose_title_is_not_on_its_page_starts_at_the_top_of_that_page(tmp_path, embedder) -> None:
    pages = ["Cover page text.", "Reset the router by holding the button.", "Call support if it fails."]
    outline = [("Troubleshooting", 1, None), ("Escalation", 2, None)]
    path = write(tmp_path / "router.pdf", make_pdf(pages, outline=outline))
    doc = load_source(SourceFile(path.resolve(), "router.pdf"), default_acl=EVERYONE)
    passages = chunk_document(doc, "t", embedder.count_tokens)
    assert [(p.heading_path, p.text) for p in passages] == [
        ((), "Cover page text."),
        (("Troubleshooting",), "Reset the router by holding the button."),
        (("Escalation",), "Call support if it fails."),
    ]


def test_a_pdf_without_an_outline_gives_each_page_its_passages(tmp_path, embedder) -> None:
    path = write(tmp_path / "flat.pdf", make_pdf(["First page words.", "Second page words."]))
    doc = load_source(SourceFile(path.resolve(), "flat.pdf"), default_acl=EVERYONE)
    assert doc.text == "\f1\n\nFirst page words.\n\n\f2\n\nSecond page words.\n"  # page marks, read off by the chunker
    passages = chunk_document(doc, "t", embedder.count_tokens)
    assert [(p.heading_path, p.pages, p.text) for p in passages] == [
        ((), (1,), "First page words."),
        ((), (2,), "Second page words."),
    ]


# --------------------------------------------------------------------------- one folder, every format


def policy_docx() -> bytes:
    document = new_document(title="Travel Policy")
    document.add_heading("Per diem rates", level=1)
    table = document.add_table(rows=3, cols=2)
    for row, cells in enumerate([("City", "Daily rate"), ("Paris", "210 EUR"), ("Oslo", "180 EUR")]):
        for col, text in enumerate(cells):
            table.cell(row, col).text = text
    return docx_bytes(document)


@pytest.fixture(scope="module")
def mixed_index(tmp_path_factory):
    """One folder with every format, ingested by one CLI run."""
    base = tmp_path_factory.mktemp("mixed")
    docs, index = base / "docs", base / "index"
    write(docs / "travel-policy.docx", policy_docx())
    shutil.copy(REPO / "tests" / "data" / "rst" / "flask-installation.rst", docs / "flask.rst")
    shutil.copy(REPO / "tests" / "data" / "notebooks" / "running-code.ipynb", docs / "running-code.ipynb")
    write(docs / "price-list.csv", "Plan,Region,Monthly price\nPro,EU,49 EUR\nTeam,US,99 USD\n")
    write(docs / "rates.tsv", "Courier\tZone\tSurcharge\nNordpost\tZone 4\t12 EUR\n")
    write(docs / "manual.pdf", make_pdf(MANUAL_PAGES, outline=MANUAL_OUTLINE))
    write(docs / "notes.md", markdown(None, "# Notes\n\nThe wifi password rotates every Monday.\n"))
    write(docs / "diagram.png", b"\x89PNG")
    first = cli("ingest", docs, "--tenant", "t", "--index", index, "--acl", "everyone")
    again = cli("ingest", docs, "--tenant", "t", "--index", index, "--acl", "everyone", "--json")
    return first, again, index


@pytest.mark.slow  # the module's folder is ingested twice by the CLI (about 5 s)
def test_a_mixed_folder_ingests_in_one_run_and_skips_only_unreadable_types(mixed_index) -> None:
    first, again, index = mixed_index
    assert first.returncode == 0, first.stderr
    assert stderr_lines(first) == ["note: skipped 1 .png file: unsupported type"]
    assert again.returncode == 0, again.stderr
    report = json_of(again)  # the second run: every file of every format recognised as unchanged
    assert report["documents"]["unchanged"] == 7 and report["documents"]["rejected"] == []
    assert report["skipped"] == {".png": 1}
    docs = {p.doc_id for p in all_passages(index, "t")}
    assert docs == {"travel-policy", "flask", "running-code", "price-list", "rates", "manual", "notes"}


@pytest.mark.parametrize(
    ("query", "doc_id", "quote"),
    [
        ("Oslo daily rate per diem", "travel-policy", "| Oslo | 180 EUR |"),
        ("which Python version does Flask support", "flask", "Flask supports Python 3.10 and newer"),
        ("code runs in a separate process called the kernel", "running-code", "Code is run in a separate process"),
        ("monthly price of the Team plan in the US", "price-list", "Plan: Team; Region: US; Monthly price: 99 USD"),
        ("Nordpost courier surcharge for zone 4", "rates", "Courier: Nordpost; Zone: Zone 4; Surcharge: 12 EUR"),
        ("install the agent package with apt on Linux", "manual", "Use apt to install the agent package."),
    ],
)
def test_a_fact_in_each_format_is_found_by_search(mixed_index, embedder, query, doc_id, quote) -> None:
    *_, index = mixed_index
    retriever = Retriever(index, embedder=embedder)
    try:
        response = retriever.search(Scope.of(Principal(user="u", tenant="t", groups=()), dt.date(2026, 11, 29)), query)
    finally:
        retriever.close()
    assert response.results[0].id.startswith(f"{doc_id}@"), response.ids
    assert any(quote in r.passage.text for r in response.results[:3]), response.ids


def test_the_format_libraries_load_only_when_a_file_needs_them() -> None:
    code = (
        "import sys, ragcli.cli.app, ragcli.ingestion.pipeline; "
        "print(sorted(m for m in ('docx', 'docutils', 'nbformat', 'lxml', 'pypdf') if m in sys.modules))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=clean_env(), timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"  # CLI start-up time is measured: no format library on the way


def _zip(entries: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buf.getvalue()


def _entity_bomb_docx() -> bytes:
    """A Word file whose document.xml declares nested entities that would expand to gigabytes."""
    document = new_document()
    document.add_paragraph("QUOKKA")
    with zipfile.ZipFile(io.BytesIO(docx_bytes(document))) as archive:
        parts = {info.filename: archive.read(info) for info in archive.infolist()}
    entities = '<!ENTITY a "quokkaquokka">' + "".join(
        f'<!ENTITY {name} "{("&" + prev + ";") * 10}">' for prev, name in zip("abcdefg", "bcdefgh", strict=True)
    )
    head, rest = parts["word/document.xml"].split(b"?>", 1)
    parts["word/document.xml"] = (
        head + f"?><!DOCTYPE w:document [{entities}]>".encode() + rest.replace(b"QUOKKA", b"&h;")
    )
    return _zip(parts)


# file name -> (content, needle in the reason); every file names "quokka", which must never be indexed.
HOSTILE = {
    "garbage.docx": (b"PK\x03\x04quokka" + bytes(range(256)) * 4, "not a word document"),
    "not-word.docx": (_zip({"quokka.txt": b"quokka"}), "word document could not be read"),
    "entity-bomb.docx": (_entity_bomb_docx(), "word document could not be read"),
    "broken.ipynb": (b'{"cells": [quokka', "not valid json"),
    "binary.ipynb": (b"\x00quokka", "binary"),
    "latin1.rst": ("Caf\xe9 quokka\n".encode("latin-1"), "utf-8"),
    "acl.rst": (b":acl: hr,\n\nQuokka text.\n", "acl"),
    "binary.csv": (b"a,b\n\x00quokka,1\n", "binary"),
}


def test_bad_files_of_every_new_format_are_rejected_with_a_reason_and_nothing_else_is_lost(tmp_path, embedder) -> None:
    from ragcli import ingest

    docs = tmp_path / "docs"
    write(docs / "good.md", markdown({"acl": ["everyone"]}, "# Good\n\nThe pelican archive holds the backup drives.\n"))
    for name, (content, _) in HOSTILE.items():
        write(docs / name, content)
    report = ingest(docs, "t", index=tmp_path / "index", default_acl=["everyone"], embedder=embedder)
    reasons = {Path(r.path).name: r.reason.lower() for r in report.documents.rejected}
    assert set(reasons) == set(HOSTILE)
    for name, (_, needle) in HOSTILE.items():
        assert needle in reasons[name], (name, reasons[name])
    passages = all_passages(tmp_path / "index", "t")
    assert {p.doc_id for p in passages} == {"good"}
    assert not any("quokka" in p.text.lower() for p in passages)


def test_a_pdf_with_an_outline_but_no_text_has_nothing_to_index(tmp_path) -> None:
    from ragcli.errors import DocumentRejected

    path = write(tmp_path / "scan.pdf", make_pdf(["", ""], outline=[("Chapter one", 0, None)]))
    with pytest.raises(DocumentRejected, match="no text to index"):
        load_source(SourceFile(path.resolve(), "scan.pdf"), default_acl=EVERYONE)
