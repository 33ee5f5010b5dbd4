"""Word files (.docx, built with python-docx in each test) reach the same passages as Markdown: headings by
style, numbered and bulleted lists, tables by rows with the header repeated; properties read like front
matter; tracked changes read as accepted."""

from __future__ import annotations

import datetime as dt
import zipfile

import pytest
from support.corpus import load_source, markdown, write
from support.docx_files import (
    add_multilevel_numbering,
    add_table_of_contents,
    add_tracked_changes,
    docx_bytes,
    new_document,
    number,
    set_custom_properties,
)

from ragcli.errors import DocumentRejected
from ragcli.ingestion.chunking import chunk_document
from ragcli.ingestion.sources import SourceFile

EVERYONE = ("everyone",)


def load(tmp_path, name, content, default_acl=EVERYONE, max_bytes=64 * 1024 * 1024):
    path = write(tmp_path / name, content)
    return load_source(SourceFile(path.resolve(), name), default_acl=default_acl, max_bytes=max_bytes)


def shape(passages):
    return [(p.heading_path, p.text) for p in passages]


def travel_policy():
    """The same document a team would write in Word: title, headings, lists, a rate table."""
    document = new_document(title="Travel Policy")
    document.add_paragraph("Travel Policy", style="Title")
    document.add_paragraph("This policy covers every business trip booked by staff.")
    document.add_heading("Booking", level=1)
    document.add_paragraph("Book trips through the travel desk at least 14 days ahead:")
    document.add_paragraph("Open a travel request in the portal.", style="List Number")
    document.add_paragraph("Attach the manager approval.", style="List Number")
    document.add_paragraph("Wait for the booking confirmation.", style="List Number")
    document.add_heading("Per diem rates", level=2)
    table = document.add_table(rows=3, cols=2)
    for row, cells in enumerate([("City", "Daily rate"), ("Paris", "210 EUR"), ("Oslo", "180 EUR")]):
        for col, text in enumerate(cells):
            table.cell(row, col).text = text
    document.add_heading("What is not refunded", level=1)
    document.add_paragraph("Minibar charges.", style="List Bullet")
    document.add_paragraph("Upgrades to business class.", style="List Bullet")
    document.add_paragraph("Upgrades paid with personal miles.", style="List Bullet 2")
    return document


TRAVEL_POLICY_MD = """# Travel Policy

This policy covers every business trip booked by staff.

# Booking

Book trips through the travel desk at least 14 days ahead:

1. Open a travel request in the portal.
2. Attach the manager approval.
3. Wait for the booking confirmation.

## Per diem rates

| City | Daily rate |
|---|---|
| Paris | 210 EUR |
| Oslo | 180 EUR |

# What is not refunded

- Minibar charges.
- Upgrades to business class.
  - Upgrades paid with personal miles.
"""


def test_docx_reaches_the_passages_of_the_same_document_in_markdown(tmp_path, embedder) -> None:
    word = load(tmp_path, "travel-policy.docx", docx_bytes(travel_policy()))
    md = load(tmp_path, "travel-policy.md", markdown({"title": "Travel Policy"}, TRAVEL_POLICY_MD))
    assert (word.format, word.title) == ("docx", "Travel Policy")
    word_passages = chunk_document(word, "t", embedder.count_tokens)
    md_passages = chunk_document(md, "t", embedder.count_tokens)
    assert shape(word_passages) == shape(md_passages)
    paths = {p.heading_path for p in word_passages}
    assert {("Booking",), ("Booking", "Per diem rates"), ("What is not refunded",)} <= paths
    rates = next(p for p in word_passages if p.heading_path == ("Booking", "Per diem rates"))
    assert "| City | Daily rate |\n|---|---|\n| Paris | 210 EUR |\n| Oslo | 180 EUR |" in rates.text


def test_a_long_word_table_is_split_by_rows_with_the_header_in_every_part(tmp_path, embedder) -> None:
    document = new_document(title="Price list")
    document.add_heading("Prices by region", level=1)
    table = document.add_table(rows=61, cols=3)
    for col, text in enumerate(("Region", "Plan", "Monthly price")):
        table.cell(0, col).text = text
    for row in range(1, 61):
        for col, text in enumerate((f"Region {row:02d}", "Business plan with support", f"{100 + row} EUR")):
            table.cell(row, col).text = text
    doc = load(tmp_path, "prices.docx", docx_bytes(document))
    parts = chunk_document(doc, "t", embedder.count_tokens)
    assert len(parts) > 1
    for part in parts:
        assert part.heading_path == ("Prices by region",)
        assert part.text.startswith("| Region | Plan | Monthly price |\n|---|---|---|\n| Region ")
    rows = [line for p in parts for line in p.text.split("\n")[2:]]
    assert rows == [f"| Region {n:02d} | Business plan with support | {100 + n} EUR |" for n in range(1, 61)]


def test_word_properties_are_metadata_like_front_matter(tmp_path) -> None:
    document = travel_policy()
    set_custom_properties(
        document,
        {
            "acl": ("lpwstr", "finance, user:carol"),
            "Effective_From": ("lpwstr", "2026-09-01"),
            "superseded_on": ("filetime", "2027-01-01T00:00:00Z"),
            "version": ("lpwstr", "4.10"),
            "Department": ("lpwstr", "Finance"),  # not a metadata key: ignored
        },
    )
    doc = load(tmp_path, "travel.docx", docx_bytes(document), default_acl=())
    assert doc.title == "Travel Policy"
    assert doc.acl == ("finance", "user:carol")
    assert doc.effective_from == dt.date(2026, 9, 1)
    assert doc.superseded_on == dt.date(2027, 1, 1)
    assert doc.declared_version == "4.10"  # text stays text: not the number 4.1
    assert "Department" not in doc.text and "finance" not in doc.text


def test_a_sidecar_still_wins_over_word_properties(tmp_path) -> None:
    document = travel_policy()
    set_custom_properties(document, {"acl": ("lpwstr", "finance"), "version": ("lpwstr", "3")})
    write(tmp_path / "travel.meta.yaml", "acl: [travel-desk]\ntitle: Travel rules\n")
    doc = load(tmp_path, "travel.docx", docx_bytes(document))
    assert (doc.acl, doc.declared_version, doc.title) == (("travel-desk",), "3", "Travel rules")


@pytest.mark.parametrize(
    ("props", "reason"),
    [
        ({"effective_from": ("lpwstr", "1 September 2026")}, "effective_from"),
        ({"acl": ("lpwstr", "finance,,hr")}, "acl"),
        ({"effective_from": ("filetime", "2026-08-31T22:00:00Z")}, "set it as Text"),
        ({"acl": ("lpwstr", "a"), "ACL": ("lpwstr", "b")}, "given twice"),
        ({"effective_from": ("lpwstr", "2027-01-01"), "superseded_on": ("lpwstr", "2026-01-01")}, "superseded_on"),
    ],
)
def test_wrong_word_properties_reject_the_document_with_the_field(tmp_path, props, reason) -> None:
    document = travel_policy()
    set_custom_properties(document, props)
    with pytest.raises(DocumentRejected) as caught:
        load(tmp_path, "travel.docx", docx_bytes(document))
    assert reason in caught.value.reason


def test_tracked_changes_read_as_accepted(tmp_path) -> None:
    document = new_document(title="Expenses")
    add_tracked_changes(
        document.add_paragraph(),
        kept="Receipts are due within ",
        inserted="30 days",
        deleted="90 days",
        moved_away=" (see the old appendix)",
    )
    doc = load(tmp_path, "expenses.docx", docx_bytes(document))
    assert "Receipts are due within 30 days" in doc.text
    assert "90 days" not in doc.text and "old appendix" not in doc.text


def test_multilevel_numbering_bullets_and_a_table_of_contents(tmp_path, embedder) -> None:
    document = new_document(title="Onboarding")
    add_table_of_contents(document, ["Onboarding ........ 1", "First week ........ 2"])
    add_multilevel_numbering(document, 40, ["decimal", "bullet"])
    document.add_heading("First week", level=1)
    for text, level in [("Collect the laptop.", 0), ("Check the charger.", 1), ("Meet the team.", 0)]:
        number(document.add_paragraph(text, style="List Paragraph"), 40, level)
    doc = load(tmp_path, "onboarding.docx", docx_bytes(document))
    assert "1. Collect the laptop.\n   - Check the charger.\n2. Meet the team." in doc.text
    assert "........" not in doc.text  # the table of contents is navigation, not content
    (passage,) = chunk_document(doc, "t", embedder.count_tokens)
    assert passage.heading_path == ("First week",)


def test_title_is_the_core_title_then_the_title_paragraph_then_the_file_name(tmp_path) -> None:
    styled = new_document()
    styled.add_paragraph("Security Handbook", style="Title")
    styled.add_paragraph("Lock your screen.")
    plain = new_document()
    plain.add_paragraph("Lock your screen.")
    assert load(tmp_path, "a.docx", docx_bytes(styled)).title == "Security Handbook"
    assert load(tmp_path, "b.docx", docx_bytes(plain)).title == "b"


def test_text_that_looks_like_markdown_stays_text(tmp_path, embedder) -> None:
    document = new_document(title="Notes")
    document.add_heading("Shell", level=1)
    for text in ("# not a heading", "- not a list", "1. not a list", "| not | a table |", "```"):
        document.add_paragraph(text)
    doc = load(tmp_path, "notes.docx", docx_bytes(document))
    passages = chunk_document(doc, "t", embedder.count_tokens)
    assert {p.heading_path for p in passages} == {("Shell",)}
    assert "\\# not a heading" in passages[0].text and "1\\. not a list" in passages[0].text


def test_a_file_that_is_not_a_word_archive_is_rejected(tmp_path) -> None:
    with pytest.raises(DocumentRejected, match="not a Word document"):
        load(tmp_path, "fake.docx", b"PK\x03\x04 this is not a zip archive at all")


def test_an_archive_unpacking_past_the_size_limit_is_rejected_before_it_is_read(tmp_path) -> None:
    raw = docx_bytes(travel_policy())
    path = tmp_path / "bomb.docx"
    write(path, raw)
    with zipfile.ZipFile(path, "a", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("word/media/padding.bin", b"\0" * 4_000_000)  # compresses to a few KB
    assert path.stat().st_size < 1_000_000
    with pytest.raises(DocumentRejected, match="unpacks to"):
        load_source(SourceFile(path.resolve(), "bomb.docx"), default_acl=EVERYONE, max_bytes=1_000_000)


@pytest.mark.slow
def test_damaged_word_parts_are_rejected_never_a_traceback() -> None:
    """Seeded damage to the XML parts of a real Word file: each result is Markdown or a rejection with a reason."""
    import io
    import random

    from ragcli.ingestion.docx import docx_to_markdown

    document = travel_policy()
    set_custom_properties(document, {"acl": ("lpwstr", "finance"), "version": ("lpwstr", "2")})
    with zipfile.ZipFile(io.BytesIO(docx_bytes(document))) as archive:
        parts = {info.filename: archive.read(info) for info in archive.infolist()}
    rng = random.Random(25)
    for _ in range(120):
        damaged = dict(parts)
        name = rng.choice(sorted(n for n in parts if n.endswith((".xml", ".rels"))))
        data = bytearray(damaged[name])
        if rng.random() < 0.5:
            for _ in range(rng.randint(1, 4)):
                data[rng.randrange(len(data))] = rng.randrange(256)
        else:
            start = rng.randrange(len(data))
            del data[start : start + rng.randint(1, 300)]
        damaged[name] = bytes(data)
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as archive:
            for part, content in damaged.items():
                archive.writestr(part, content)
        try:
            assert isinstance(docx_to_markdown(buf.getvalue(), "fuzz.docx", 10**8)[1], str)
        except DocumentRejected as rejected:
            assert rejected.reason
