"""Every loader fuzzed with real files mutated (issue 33): a hostile file costs one rejection, never the ingest.

Each format starts from a real sample (a rustup docs page, Flask's rst, a Jupyter notebook, a Word file with
lists, a table, tracked changes and properties, a PDF with an outline...). Hypothesis mutates it: truncation,
bit flips, quotes and brackets dropped into attribute values, a slice repeated, nesting made deep; for a Word
file inside its XML parts too (re-zipped), so the mutation reaches the XML parsers and not only the zip reader.

The promise held: ``parsing.parse`` (the boundary every ingested file goes through) gives a Document or a
rejection for every input, never an exception; and an ingest of a folder of mutated files through the CLI
exits 0 or 2, without a traceback, with the one good file published. The quick set runs a small fixed
budget; ``-m slow`` runs FUZZ_SLOW_EXAMPLES (default 2,000) per format and prints what came out.
"""

from __future__ import annotations

import collections
import io
import json
import os
import zipfile
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.cli import cli
from support.corpus import make_pdf, write_markdown
from support.docx_files import (
    add_multilevel_numbering,
    add_table_of_contents,
    add_tracked_changes,
    docx_bytes,
    new_document,
    number,
    set_custom_properties,
)

from ragcli.ingestion.loaders import Document
from ragcli.ingestion.parsing import ParseTask, Refused, parse
from ragcli.ingestion.sources import SourceData, SourceFile

REPO = Path(__file__).resolve().parents[1]
QUICK = settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), database=None)
SLOW_EXAMPLES = int(os.environ.get("FUZZ_SLOW_EXAMPLES", "2000"))
SLOW = settings(max_examples=SLOW_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
INSERTS = [b"'", b'"', b"[", b"]", b"<", b">", b"&", b"{", b"}", b"\\", b"\x00", b"-1", b"99999999999999", b"&x;"]
NESTING = {
    "docx": b"<w:sdt><w:sdtContent>",
    "html": b"<div><table><tr><td>",
    "markdown": b"> - ",
    "rst": b"   * ",
    "notebook": b'{"a":[',
    "jsonl": b"[",
    "pdf": b"<< /Kids [",
    "csv": b'"',
    "tsv": b"\t",
    "text": b"\n",
}


def _docx_sample() -> bytes:
    document = new_document("Travel policy")
    document.add_heading("Meals", 1)
    document.add_paragraph("Meals are refunded up to forty euros a day.")
    document.add_paragraph("Keep the receipt", style="List Number")
    document.add_paragraph("Ask your manager", style="List Bullet")
    add_multilevel_numbering(document, 7, ["decimal", "bullet"])
    number(document.add_paragraph("Nested item"), 7, 1)
    table = document.add_table(rows=2, cols=2)
    table.cell(0, 0).text, table.cell(0, 1).text, table.cell(1, 0).text = "City", "Limit", "Paris"
    add_tracked_changes(document.add_paragraph(), "kept ", "inserted ", "deleted ")
    add_table_of_contents(document, ["Meals"])
    set_custom_properties(document, {"acl": ("lpwstr", "hr, finance"), "effective_from": ("lpwstr", "2026-01-01")})
    return docx_bytes(document)


@cache
def samples() -> dict[str, tuple[str, bytes]]:
    """Format -> (file name, a real sample file's bytes)."""
    page = next(iter(sorted((REPO / "bench/corpora/rustup/docs").rglob("*.md"))))
    html = (
        "<!doctype html><html><head><title>Travel</title><style>p{}</style></head><body>"
        "<h1>Travel</h1><p class='x' data-a=\"1\">Meals are <b>refunded</b>.</p><ul><li>One</li><li>Two</li></ul>"
        "<table><tr><th>City</th><th>Limit</th></tr><tr><td>Paris</td><td>40</td></tr></table></body></html>"
    )
    csv = 'City,Limit,Note\nParis,40,"with, comma"\nBerlin,35,"quoted ""word"""\n'
    jsonl = "".join(
        json.dumps({"_id": f"d{n}", "title": f"Doc {n}", "text": f"Text of document {n}.", "acl": ["hr"]}) + "\n"
        for n in range(3)
    )
    return {
        "markdown": ("page.md", page.read_bytes()),
        "text": ("notes.txt", b"Plain notes about travel.\n\nSecond paragraph.\n"),
        "html": ("page.html", html.encode()),
        "pdf": ("report.pdf", make_pdf(["Page one about travel.", "Page two about meals."], [("Travel", 0, None)])),
        "docx": ("policy.docx", _docx_sample()),
        "rst": ("deploy.rst", (REPO / "tests/data/rst/flask-deploying.rst").read_bytes()),
        "notebook": ("code.ipynb", (REPO / "tests/data/notebooks/running-code.ipynb").read_bytes()),
        "csv": ("table.csv", csv.encode()),
        "tsv": ("table.tsv", csv.replace(",", "\t").encode()),
        "jsonl": ("corpus.jsonl", jsonl.encode()),
    }


FORMATS = sorted(samples())


# Built once: a strategy built inside a draw is checked again on every example (a third of the fuzz's time).
_EDIT_COUNT = st.integers(1, 4)
_EDIT_KIND = st.sampled_from(("truncate", "flip", "insert", "repeat", "nest"))
_BIT = st.integers(0, 7)
_INSERT = st.sampled_from(tuple(INSERTS))
_REPEATED = st.integers(1, 200)
_TIMES = st.integers(2, 50)
_NESTED = st.integers(10, 3000)


def _edits(draw: st.DrawFn, raw: bytes, fmt: str) -> bytes:
    """One mutation of ``raw``: a few edits, each a truncation, bit flip, insertion, repetition or deep nesting."""
    data = bytearray(raw)
    for _ in range(draw(_EDIT_COUNT)):
        if not data:
            break
        kind = draw(_EDIT_KIND)
        at = draw(st.integers(0, len(data) - 1))
        if kind == "truncate":
            del data[at:]
        elif kind == "flip":
            data[at] ^= 1 << draw(_BIT)
        elif kind == "insert":
            data[at:at] = draw(_INSERT)
        elif kind == "repeat":
            end = min(len(data), at + draw(_REPEATED))
            data[at:at] = data[at:end] * draw(_TIMES)
        else:
            data[at:at] = NESTING[fmt] * draw(_NESTED)
    return bytes(data)


@st.composite
def mutated(draw: st.DrawFn, fmt: str) -> bytes:
    """A mutated sample; a Word file is mutated inside its XML parts as often as in its zip bytes."""
    raw = samples()[fmt][1]
    if fmt != "docx" or draw(st.booleans()):
        return _edits(draw, raw, fmt)
    with zipfile.ZipFile(io.BytesIO(raw)) as archive:
        parts = {info.filename: archive.read(info) for info in archive.infolist()}
    xml_parts = sorted(name for name in parts if name.endswith(".xml"))
    for name in draw(st.lists(st.sampled_from(xml_parts), min_size=1, max_size=3, unique=True)):
        parts[name] = _edits(draw, parts[name], fmt)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in parts.items():
            archive.writestr(name, data)
    return out.getvalue()


def _parse(fmt: str, raw: bytes) -> list[Document | Refused]:
    name = samples()[fmt][0]
    src = SourceFile(Path("/fuzz") / name, name)
    return parse(ParseTask(src, SourceData(raw), ("everyone",), "", 64 * 1024 * 1024))


def _check(fmt: str, raw: bytes, outcomes: collections.Counter[str] | None = None) -> None:
    """The boundary's promise: a list of Documents and rejections, whatever the bytes."""
    result = _parse(fmt, raw)  # an exception here is the failure
    assert result and all(isinstance(item, Document | Refused) for item in result)
    if outcomes is not None:
        for item in result:
            outcomes["document" if isinstance(item, Document) else _kind(item.reason)] += 1


def _kind(reason: str) -> str:
    """Rejections grouped: 'parser failed' ones are exceptions no loader foresaw (caught only by the boundary)."""
    if "parser failed on it" not in reason:
        return "rejected"
    return "unforeseen, caught by the boundary: " + reason.partition("(")[2].partition(")")[0]


def _property(fmt: str, budget: settings, outcomes: collections.Counter[str] | None = None) -> Callable[[], None]:
    @budget
    @given(raw=mutated(fmt))
    def run(raw: bytes) -> None:
        _check(fmt, raw, outcomes)

    return run


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_mutated_file_is_a_document_or_a_rejection(fmt: str) -> None:
    _check(fmt, samples()[fmt][1])  # the sample itself loads
    assert isinstance(_parse(fmt, samples()[fmt][1])[0], Document)
    _property(fmt, QUICK)()


@pytest.mark.slow
@pytest.mark.parametrize("fmt", FORMATS)
def test_every_mutated_file_is_a_document_or_a_rejection_at_scale(fmt: str, capsys: pytest.CaptureFixture[str]) -> None:
    outcomes: collections.Counter[str] = collections.Counter()
    _property(fmt, SLOW, outcomes)()
    with capsys.disabled():
        print(f"\nfuzz {fmt}: {sum(outcomes.values())} items from {SLOW_EXAMPLES} files: {dict(outcomes)}")


@pytest.mark.slow
def test_an_ingest_of_mutated_files_publishes_the_good_one(tmp_path: Path) -> None:
    """Through the CLI and its worker processes: three mutations of every format beside one good page."""
    import random

    rng = random.Random(33)
    folder = tmp_path / "docs"
    write_markdown(folder / "good.md", {"id": "good"}, "The one good zebra page of this folder.\n")
    for fmt in FORMATS:
        name, raw = samples()[fmt]
        for n in range(3):
            data = bytearray(raw)
            at = rng.randrange(len(data))
            if n == 0:
                del data[at:]
            elif n == 1:
                for _ in range(8):
                    data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
            else:
                data[at:at] = NESTING[fmt] * 2000
            (folder / f"m{n}-{fmt}-{name}").write_bytes(bytes(data))
    proc = cli("ingest", folder, "--tenant", "fuzz", "--index", tmp_path / "index", "--acl", "everyone", "--json")
    assert proc.returncode in (0, 2) and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    report = json.loads(proc.stdout)
    assert report["generation"] and report["documents"]["added"] >= 1
    rejected = {Path(r["path"]).name.split(":")[0] for r in report["documents"]["rejected"]}
    assert "good.md" not in rejected
