"""PDFs as teams keep them: pages on every passage and citation, ruled tables as rows under their header,
scanned pages through Tesseract (and, without it, a note that says what was not read).

Real PDFs built in the tests (tests/support/pdf_files.py), real pdfplumber, real Tesseract, real CLI
subprocesses; one module fixture ingests the folder twice, with OCR and with no ``tesseract`` on PATH.
"""

from __future__ import annotations

import io
import json
import re
import textwrap
from pathlib import Path

import pytest
from support.cli import cli, cli_many, json_of, search_json
from support.corpus import load_source, write
from support.pdf_files import Page, Table, joined, make_pdf, scanned

from ragcli.errors import DocumentRejected
from ragcli.ingestion.chunking import chunk_document
from ragcli.ingestion.pdf import garbled, read_pdf
from ragcli.ingestion.pdf_ocr import OcrLimits, missing
from ragcli.ingestion.sources import SourceFile

EVERYONE = ("everyone",)
needs_ocr = pytest.mark.skipif(missing() is not None, reason=f"OCR not available: {missing()}")

MANUAL_PAGES = [
    "This manual explains the appliance.",
    "1 Installation\nUnpack the appliance and connect the power cable.",
    "Linux\nUse apt to install the vexilla agent package.",
    "2 Maintenance\nReplace the air filter every six months.",
]
MANUAL_OUTLINE = [("Installation", 1, None), ("Linux", 2, 0), ("Maintenance", 3, None)]

TIERS = [
    ("Tier", "Monthly fee", "Seats"),
    ("Tier 1", "10 EUR", "5"),
    ("Tier 2", "25 EUR", "20"),
    ("Tier 3", "60 EUR", "100"),
    ("Tier 4", "90 EUR", "250"),
    ("Tier 5", "140 EUR", "500"),
]

SCANNED_TEXT = (
    "The quarterly audit found that the backup server in Lisbon was restored within forty minutes. "
    "Every invoice above five thousand euros needs approval from the finance manager before payment. "
    "Visitors must sign the register at the front desk and wear their badge at all times."
)


def manual_pdf() -> bytes:
    return make_pdf(MANUAL_PAGES, outline=MANUAL_OUTLINE)


def pricing_pdf() -> bytes:
    intro = ["Subscription tiers", "Each subscription tier is billed per month."]
    return make_pdf(["Pricing handbook for partner resellers.", Page(lines=intro, tables=[Table(TIERS, top=140)])])


def scan_pdf() -> bytes:
    """A text page, then the same kind of page as a 300-dpi scan: pixels only, no text layer."""
    cover = make_pdf(["Audit summary for the Lisbon office."])
    return joined(cover, scanned(make_pdf(["\n".join(textwrap.wrap(SCANNED_TEXT, 70))]), dpi=300))


def words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def recall(found: str, known: str) -> float:
    seen = set(words(found))
    expected = words(known)
    return sum(w in seen for w in expected) / len(expected)


# --------------------------------------------------------------------------- the library: pages, tables, limits


def test_outline_headings_and_page_numbers_both_reach_the_passages(tmp_path, embedder) -> None:
    path = write(tmp_path / "manual.pdf", manual_pdf())
    doc = load_source(SourceFile(path.resolve(), "manual.pdf"), default_acl=EVERYONE)
    passages = chunk_document(doc, "t", embedder.count_tokens)
    assert [(p.heading_path, p.pages, p.text) for p in passages] == [
        ((), (1,), "This manual explains the appliance."),
        (("Installation",), (2,), "Unpack the appliance and connect the power cable."),
        (("Installation", "Linux"), (3,), "Use apt to install the vexilla agent package."),
        (("Maintenance",), (4,), "Replace the air filter every six months."),
    ]
    assert doc.pdf is not None and doc.pdf.count == 4 and not doc.pdf.unread
    last = passages[-1]
    assert last.location == "manual.pdf, p. 4" and last.shown_source == "manual.pdf#page=4"


def test_a_ruled_table_is_rows_under_its_header(tmp_path, embedder) -> None:
    path = write(tmp_path / "pricing.pdf", pricing_pdf())
    doc = load_source(SourceFile(path.resolve(), "pricing.pdf"), default_acl=EVERYONE)
    assert "| Tier | Monthly fee | Seats |\n|---|---|---|\n| Tier 1 | 10 EUR | 5 |" in doc.text
    assert doc.pdf is not None and doc.pdf.tables == 1
    passages = chunk_document(doc, "t", embedder.count_tokens)
    table = next(p for p in passages if "| Tier 2 | 25 EUR | 20 |" in p.text)
    assert table.pages == (2,) and not table.ocr
    assert "Tier Monthly fee Seats" not in table.text  # not the flattened words pypdf would give


def test_a_table_running_on_without_its_header_keeps_the_first_pages_header(tmp_path, embedder) -> None:
    first = Page(lines=["Fees by tier:"], tables=[Table(TIERS[:4], top=140)])
    rest = Page(lines=["3"], tables=[Table(TIERS[4:], top=72)])  # a page number, then the rows that run on
    path = write(tmp_path / "fees.pdf", make_pdf(["Cover.", first, rest]))
    doc = load_source(SourceFile(path.resolve(), "fees.pdf"), default_acl=EVERYONE)
    passages = chunk_document(doc, "t", embedder.count_tokens)
    runs_on = next(p for p in passages if "Tier 5" in p.text)
    assert runs_on.pages == (3,) and runs_on.text.startswith("| Tier |")  # the page number is not text
    assert "| Tier | Monthly fee | Seats |\n|---|---|---|\n| Tier 4 | 90 EUR | 250 |\n| Tier 5 | 140 EUR | 500 |" in (
        runs_on.text
    )
    # A new table whose own header differs is left as it is.
    other = Page(tables=[Table([("City", "Rate"), ("Oslo", "180 EUR")], top=72, col_width=120)])
    path = write(tmp_path / "two.pdf", make_pdf([first, other]))
    doc = load_source(SourceFile(path.resolve(), "two.pdf"), default_acl=EVERYONE)
    assert "| City | Rate |\n|---|---|\n| Oslo | 180 EUR |" in doc.text


def test_a_pdf_whose_outline_loops_is_rejected(tmp_path) -> None:
    from pypdf import PdfWriter
    from pypdf.generic import NameObject

    writer = PdfWriter(clone_from=io.BytesIO(manual_pdf()))
    outlines = writer._root_object["/Outlines"]
    last = outlines["/Last"].get_object()
    last[NameObject("/Next")] = outlines["/First"]  # the last bookmark's "next" is the first again
    buf = io.BytesIO()
    writer.write(buf)
    path = write(tmp_path / "loop.pdf", buf.getvalue())
    with pytest.raises(DocumentRejected, match="outline .*loops"):
        load_source(SourceFile(path.resolve(), "loop.pdf"), default_acl=EVERYONE)


def _bomb_pdf(width: int, height: int) -> bytes:
    """One page showing an image that declares ``width`` x ``height`` pixels (its data is a few bytes)."""
    from pypdf import PdfWriter
    from pypdf.generic import ArrayObject, DecodedStreamObject, DictionaryObject, NameObject, NumberObject

    writer = PdfWriter()
    page = writer.add_blank_page(612, 792)
    image = DecodedStreamObject()
    image.set_data(b"\x00" * 64)
    image.update(
        {
            NameObject("/Type"): NameObject("/XObject"),
            NameObject("/Subtype"): NameObject("/Image"),
            NameObject("/Width"): NumberObject(width),
            NameObject("/Height"): NumberObject(height),
            NameObject("/ColorSpace"): NameObject("/DeviceGray"),
            NameObject("/BitsPerComponent"): NumberObject(8),
        }
    )
    ref = writer._add_object(image)
    page[NameObject("/Resources")] = DictionaryObject(
        {
            NameObject("/XObject"): DictionaryObject({NameObject("/Im0"): ref}),
            NameObject("/ProcSet"): ArrayObject([NameObject("/PDF"), NameObject("/ImageB")]),
        }
    )
    content = DecodedStreamObject()
    content.set_data(b"q 612 0 0 792 0 0 cm /Im0 Do Q")
    page[NameObject("/Contents")] = writer._add_object(content)
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()


@needs_ocr
def test_an_image_stream_bomb_is_rejected_before_anything_is_decoded(tmp_path) -> None:
    path = write(tmp_path / "bomb.pdf", _bomb_pdf(200_000, 200_000))
    with pytest.raises(DocumentRejected, match="decompression bomb"):
        load_source(SourceFile(path.resolve(), "bomb.pdf"), default_acl=EVERYONE)


@needs_ocr
@pytest.mark.slow
def test_ocr_stops_at_the_page_limit_and_says_which_pages_are_unread() -> None:
    page = scanned(make_pdf(["Second scanned page about the garden shed."]), dpi=150)
    pdf = joined(
        make_pdf(["A text page."]), scanned(make_pdf(["First scanned page about the kitchen."]), dpi=150), page
    )
    read = read_pdf(pdf, "two-scans.pdf", OcrLimits(pages=1))
    assert read.pages.ocr == (2,) and read.pages.unread == (3,) and read.pages.unread_because == "pages"
    assert "kitchen" in read.text.lower() and "garden" not in read.text.lower()


@needs_ocr
def test_ocr_spent_its_time_limit_leaves_the_pages_unread() -> None:
    pdf = joined(make_pdf(["A text page."]), scanned(make_pdf(["A scanned page."]), dpi=100))
    read = read_pdf(pdf, "late.pdf", OcrLimits(seconds=0.0))  # no time left: no page is started
    assert read.pages.ocr == () and read.pages.unread == (2,) and read.pages.unread_because == "seconds"
    assert "A text page." in read.text


def test_page_numbers_and_hyphenated_line_breaks_do_not_reach_the_text(tmp_path, embedder) -> None:
    pages = [
        "Page 1 of 2\nReplace the filter of the ventila-\ntion unit yearly.\n1",
        "Keep the self-\nService desk open.\n2",
    ]
    path = write(tmp_path / "hy.pdf", make_pdf(pages))
    doc = load_source(SourceFile(path.resolve(), "hy.pdf"), default_acl=EVERYONE)
    texts = [p.text for p in chunk_document(doc, "t", embedder.count_tokens)]
    assert texts == ["Replace the filter of the ventilation unit yearly.", "Keep the self- Service desk open."]


def test_a_text_layer_of_unmapped_glyphs_counts_as_no_text() -> None:
    assert garbled("(cid:12)(cid:7)(cid:44) (cid:3)(cid:9)(cid:10) (cid:11)(cid:12)")
    assert garbled(" ".join(["\ufffd" * 6] * 5))
    assert not garbled("Replace the air filter every six months, or sooner in dusty rooms.")
    assert not garbled("Tier 1 10 EUR 5 Tier 2 25 EUR 20 Tier 3 60 EUR 100")
    assert not garbled("")


# --------------------------------------------------------------------------- the CLI, end to end


@pytest.fixture(scope="module")
def runs(tmp_path_factory):  # type: ignore[no-untyped-def]
    """The folder ingested with OCR and without (no ``tesseract`` on PATH), then searches, asks and status."""
    root = tmp_path_factory.mktemp("pdf")
    docs = root / "docs"
    write(docs / "manual.pdf", manual_pdf())
    write(docs / "pricing.pdf", pricing_pdf())
    write(docs / "scan.pdf", scan_pdf())
    user = write(root / "user.json", json.dumps({"user": "pat", "tenant": "t", "groups": ["everyone"]}))
    empty_path = root / "no-tools"
    empty_path.mkdir()
    with_ocr, without = root / "ocr", root / "plain"
    ingests = cli_many(
        [
            ["ingest", docs, "--tenant", "t", "--index", with_ocr, "--acl", "everyone", "--json"],
            ["ingest", docs, "--tenant", "t", "--index", without, "--acl", "everyone", "--json"],
            ["ingest", docs, "--tenant", "t2", "--index", root / "text", "--acl", "everyone"],
        ],
        envs=[None, {"PATH": str(empty_path)}, {"PATH": str(empty_path)}],
    )
    out = {"ingest": ingests[0], "ingest_no_ocr": ingests[1], "ingest_text": ingests[2]}
    user2 = write(root / "user2.json", json.dumps({"user": "pat", "tenant": "t2", "groups": ["everyone"]}))
    trace = root / "trace.jsonl"
    commands = {
        "search": ["search", "air filter replacement", "--as", user, "--index", with_ocr, "--json"],
        "search_text": ["search", "air filter replacement", "--as", user, "--index", with_ocr],
        "search_scan": ["search", "backup server Lisbon restored", "--as", user, "--index", with_ocr, "--json"],
        "search_fee": ["search", "monthly fee tier 2", "--as", user, "--index", with_ocr, "--json"],
        "ask": ["ask", "How often should the air filter be replaced?", "--as", user, "--index", with_ocr]
        + ["--model", "local", "--json", "--trace", trace],
        "ask_text": ["ask", "How often should the air filter be replaced?", "--as", user, "--index", with_ocr]
        + ["--model", "local"],
        "ask_fee": ["ask", "What is the fee for tier 2?", "--as", user, "--index", with_ocr, "--model", "local"],
        "ask_fee_json": ["ask", "What is the fee for tier 2?", "--as", user, "--index", with_ocr]
        + ["--model", "local", "--json"],
        "ask_scan": ["ask", "How quickly was the backup server in Lisbon restored?", "--as", user]
        + ["--index", with_ocr, "--model", "local", "--json"],
        "status_no_ocr": ["status", "--index", without, "--json"],
        "status_no_ocr_text": ["status", "--index", without],
        "search_no_ocr": ["search", "backup server Lisbon restored", "--as", user, "--index", without, "--json"],
        "search_text_index": ["search", "Audit summary Lisbon", "--as", user2, "--index", root / "text", "--json"],
    }
    results = cli_many(list(commands.values()))
    out.update(zip(commands, results, strict=True))
    out["trace"], out["docs"], out["without"] = trace, docs, without  # type: ignore[assignment]
    return out


def _ok(proc):  # type: ignore[no-untyped-def]
    assert proc.returncode == 0, (proc.args[3:], proc.stdout[-1500:], proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr
    return proc


@pytest.mark.slow
def test_search_cites_the_page_in_json_and_text(runs) -> None:
    top = search_json(runs["search"])["results"][0]
    assert top["doc_id"] == "manual" and top["pages"] == [4] and top["ocr"] is False
    assert top["heading_path"] == ["Maintenance"] and top["source"] == "manual.pdf#page=4"
    text = _ok(runs["search_text"]).stdout
    assert "manual.pdf, p. 4" in text


@pytest.mark.slow
def test_ask_local_cites_the_page_in_json_text_and_trace(runs) -> None:
    answer = json_of(_ok(runs["ask"]))
    assert answer["disposition"] == "answered", answer
    assert "six months" in answer["answer"]
    assert answer["sources"][0]["pages"] == [4] and answer["sources"][0]["source"] == "manual.pdf#page=4"
    assert all(claim["pages"] == [4] for claim in answer["claims"])
    assert "manual.pdf, p. 4" in _ok(runs["ask_text"]).stdout
    trace = json.loads(Path(runs["trace"]).read_text().splitlines()[-1])
    assert trace["checks"] and all(check["pages"] == [4] for check in trace["checks"])


@pytest.mark.slow
def test_a_fee_only_a_table_row_states_is_answered_with_its_page(runs) -> None:
    fee = search_json(runs["search_fee"])["results"][0]
    assert fee["doc_id"] == "pricing" and "| Tier 2 | 25 EUR | 20 |" in fee["text"] and fee["pages"] == [2]
    answer = json_of(_ok(runs["ask_fee_json"]))
    assert answer["disposition"] == "answered", answer
    assert "25 EUR" in answer["answer"]
    assert answer["sources"][0]["pages"] == [2]
    assert "pricing.pdf, p. 2" in _ok(runs["ask_fee"]).stdout


@needs_ocr
@pytest.mark.slow
def test_a_scanned_page_is_read_by_ocr_marked_and_cited(runs) -> None:
    report = json_of(_ok(runs["ingest"]))
    assert report["pdf"]["ocr_available"] is True and report["pdf"]["ocr_pages"] == 1
    assert report["pdf"]["page_limit"] == OcrLimits().pages and report["pdf"]["seconds_limit"] == OcrLimits().seconds
    assert report["pdf"]["unread"] == []
    top = search_json(runs["search_scan"])["results"][0]
    assert top["doc_id"] == "scan" and top["pages"] == [2] and top["ocr"] is True
    assert recall(top["text"], SCANNED_TEXT) >= 0.95, top["text"]
    assert "restored within forty minutes" in top["text"]
    answer = json_of(_ok(runs["ask_scan"]))
    assert answer["disposition"] == "answered", answer
    assert "forty minutes" in answer["answer"]
    assert answer["sources"][0]["pages"] == [2] and answer["sources"][0]["ocr"] is True


@pytest.mark.slow
def test_without_tesseract_ingest_says_which_pages_had_no_text_and_how_to_read_them(runs) -> None:
    plain = runs["ingest_text"]
    assert plain.returncode == runs["ingest"].returncode == 0  # the exit code does not change
    notes = [line for line in plain.stderr.splitlines() if "no text" in line]
    assert notes == [
        "note: no text read from 1 PDF page of 1 document (no text layer: scans?): scan.pdf (p. 2); "
        "OCR is not available "
        "(the tesseract program is not on PATH); to read them, pip install 'ragcli[ocr]' and apt-get install "
        "tesseract-ocr (or your system's Tesseract package)"
    ]
    report = json_of(_ok(runs["ingest_no_ocr"]))
    assert report["pdf"]["ocr_available"] is False and report["pdf"]["ocr_pages"] == 0
    assert report["pdf"]["unread"] == [{"path": report["pdf"]["unread"][0]["path"], "pages": [2], "reason": "no_ocr"}]
    assert report["pdf"]["unread"][0]["path"].endswith("scan.pdf")
    # The text page of the same document is indexed; the scanned sentence is not.
    cover = search_json(runs["search_text_index"])["results"]
    assert cover and cover[0]["doc_id"] == "scan" and cover[0]["pages"] == [1]
    found = search_json(runs["search_no_ocr"])["results"]
    assert not any("forty minutes" in r["text"] for r in found)
    tenant = json_of(_ok(runs["status_no_ocr"]))["tenants"][0]
    assert tenant["pdf_pages_unread"] == 1 and tenant["pdf_pages_ocr"] == 0
    assert [Path(d).name for d in tenant["pdf_documents_unread"]] == ["scan.pdf"]
    assert "1 PDF page of 1 document had no text to index" in _ok(runs["status_no_ocr_text"]).stderr


@needs_ocr
@pytest.mark.slow
def test_once_ocr_is_available_the_next_ingest_reads_the_unread_scan(runs, tmp_path) -> None:
    import shutil

    index = tmp_path / "index"
    shutil.copytree(runs["without"], index)
    docs = runs["docs"]
    again = json_of(_ok(cli("ingest", docs, "--tenant", "t", "--index", index, "--acl", "everyone", "--json")))
    assert again["documents"]["updated"] == 1 and again["documents"]["unchanged"] == 2
    assert again["pdf"]["ocr_pages"] == 1 and again["pdf"]["unread"] == []


def test_an_index_cut_by_the_previous_chunker_is_rebuilt_with_a_note(tmp_path, embedder) -> None:
    """An index of chunker v6 has PDF passages without pages: the next ingest re-reads everything and says why."""
    from support.corpus import current_name

    from ragcli import ingest
    from ragcli.index.manifest import Manifest, seal_of
    from ragcli.ingestion.chunking import CHUNKER_VERSION

    docs, index = tmp_path / "docs", tmp_path / "index"
    write(docs / "manual.pdf", manual_pdf())
    first = ingest(docs, "t", index=index, default_acl=["everyone"], embedder=embedder)
    assert first.rebuilt is None
    manifest_path = index / "t" / str(current_name(index, "t")) / "manifest.json"
    manifest = Manifest.model_validate_json(manifest_path.read_bytes())
    manifest.chunker_version = CHUNKER_VERSION - 1  # as the ragcli before PDF pages wrote it
    manifest.seal = seal_of(manifest)
    manifest_path.write_text(manifest.model_dump_json())
    again = ingest(docs, "t", index=index, default_acl=["everyone"], embedder=embedder)
    assert again.published and again.documents.updated == 1
    assert again.rebuilt == (
        f"the index was cut by chunker v{CHUNKER_VERSION - 1}, this ragcli cuts with v{CHUNKER_VERSION}: "
        "every document is read, cut and embedded again"
    )
    assert ingest(docs, "t", index=index, default_acl=["everyone"], embedder=embedder).rebuilt is None
