"""A hostile file costs one rejection, never the ingest (issue 33).

Each file here stopped a whole ingest before: a Word list numbered ``1'`` (an
invalid ElementPath predicate: SyntaxError, a traceback, nothing published, a
revoked reader still reading), a Word file whose deflated body is damaged
(``zlib.error``), a 220 KB Word file unpacking to 1.7 million paragraphs, a
4 MB CSV of 2 million rows. Now each is one ``error: rejected`` line (or, for
the numbering, read as it is), the rest of the folder is published, and a
parser that runs past its CPU or wall-time limit in its worker process is
stopped and named.
"""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

import pytest
from support.cli import cli, result_ids, stderr_lines
from support.corpus import write_markdown, write_user
from support.docx_files import W, docx_bytes, new_document

TENANT = "hostile"


def _numbered_with_quote() -> bytes:
    """A Word list paragraph whose numbering id holds a quote, as an attacker would write it."""
    from docx.oxml import parse_xml

    document = new_document("Quoted list")
    paragraph = document.add_paragraph("The quoted list item about walruses.", style="List Number")
    paragraph._p.get_or_add_pPr().append(
        parse_xml(f'<w:numPr xmlns:w="{W}"><w:ilvl w:val="0"/><w:numId w:val="1\'"/></w:numPr>')
    )
    return docx_bytes(document)


def _damaged_deflate() -> bytes:
    """A valid Word file with bytes of its deflated body overwritten (zlib fails while the archive looks fine)."""
    raw = bytearray(docx_bytes(_long_document(40)))
    with zipfile.ZipFile(io.BytesIO(bytes(raw))) as archive:
        info = archive.getinfo("word/document.xml")
    name_len = int.from_bytes(raw[info.header_offset + 26 : info.header_offset + 28], "little")
    extra_len = int.from_bytes(raw[info.header_offset + 28 : info.header_offset + 30], "little")
    start = info.header_offset + 30 + name_len + extra_len
    raw[start + 8 : start + 40] = b"\xff" * 32
    return bytes(raw)


def _long_document(paragraphs: int) -> object:
    document = new_document("Long")
    for n in range(paragraphs):
        document.add_paragraph(f"Paragraph {n} of a long document about the storage of archived invoices.")
    return document


def stall_docx(paragraphs: int) -> bytes:
    """A small archive whose body unpacks to ``paragraphs`` one-letter paragraphs (35 bytes each)."""
    base = zipfile.ZipFile(io.BytesIO(docx_bytes(new_document("Stall"))))
    body = (
        f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="{W}"><w:body>'.encode()
        + b"<w:p><w:r><w:t>a</w:t></w:r></w:p>" * paragraphs
        + b"</w:body></w:document>"
    )
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for info in base.infolist():
            archive.writestr(info.filename, body if info.filename == "word/document.xml" else base.read(info))
    return out.getvalue()


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    write_markdown(folder / "policy.md", {"id": "policy", "acl": ["hr"]}, "The pelican policy is for HR only.\n")
    write_markdown(folder / "guide.md", {"id": "guide"}, "The zebra guide is for everyone.\n")
    return folder


def _ingest(folder: Path, index: Path, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    import json

    proc = cli("ingest", folder, "--tenant", TENANT, "--index", index, "--acl", "everyone", "--json", env=env)
    assert proc.returncode in (0, 2), proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    return proc, json.loads(proc.stdout)


def _rejections(proc) -> list[str]:  # type: ignore[no-untyped-def]
    """The per-file lines (not the summary, ``error: rejected 2 of 9 files``)."""
    summary = re.compile(r"^error: rejected \d+ of \d+ files")
    return [line for line in stderr_lines(proc) if line.startswith("error: rejected ") and not summary.match(line)]


def test_through_the_library_each_hostile_file_costs_one_rejection(tmp_path: Path) -> None:
    """The quick check: ``ingest()`` with its worker processes, three files that each stopped an ingest on fd186c9."""
    from support.fixtures import shared_embedder

    from ragcli import ingest

    folder = _folder(tmp_path)
    (folder / "list.docx").write_bytes(_numbered_with_quote())
    (folder / "damaged.docx").write_bytes(_damaged_deflate())
    # CPython's html.parser asserts on a marked section without a name; ragcli drops it as a browser does.
    (folder / "page.html").write_bytes(b"<html><body><p>Intro</p><![<div><table>text</table></body></html>")
    report = ingest(folder, TENANT, index=tmp_path / "index", default_acl=["everyone"], embedder=shared_embedder())
    assert sorted(Path(r.path).name for r in report.documents.rejected) == ["damaged.docx"]
    assert report.documents.added == 4 and report.published


@pytest.mark.slow
def test_a_quote_in_word_numbering_is_read_and_a_narrowed_acl_still_lands(tmp_path: Path) -> None:
    """The serious one: on fd186c9 this file made every ingest of its folder a traceback, so a narrowed ACL
    never replaced the wider one already published."""
    folder = _folder(tmp_path)
    index = tmp_path / "index"
    write_markdown(folder / "policy.md", {"id": "policy", "acl": ["everyone"]}, "The pelican policy, for all.\n")
    _ingest(folder, index)
    write_markdown(folder / "policy.md", {"id": "policy", "acl": ["hr"]}, "The pelican policy is for HR only.\n")
    (folder / "list.docx").write_bytes(_numbered_with_quote())
    proc, report = _ingest(folder, index)
    assert proc.returncode == 0 and report["documents"]["rejected"] == []
    assert (report["documents"]["added"], report["documents"]["updated"]) == (1, 1)
    reader = write_user(tmp_path / "reader.json", "reader", TENANT, ["everyone"])
    hits = cli("search", "walruses", "--as", reader, "--index", index, "--json")
    assert [i.split("@")[0] for i in result_ids(hits)] == ["list"], hits.stdout[-1000:]
    narrowed = cli("search", "pelican policy", "--as", reader, "--index", index, "--json")
    assert "policy" not in {i.split("@")[0] for i in result_ids(narrowed)}, narrowed.stdout[-1000:]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "content", "needle"),
    [
        ("damaged.docx", _damaged_deflate, "zlib"),
    ],
)
def test_an_unforeseen_parser_error_costs_its_file_only(tmp_path: Path, name: str, content, needle: str) -> None:  # type: ignore[no-untyped-def]
    """zlib.error from a damaged deflate stream: no loader foresaw it; on fd186c9 it was a traceback, exit 1,
    nothing published. (An ``AssertionError`` from html.parser was the second case; the HTML loader now drops
    the marked section that raised it, as a browser does.)"""
    folder = _folder(tmp_path)
    (folder / name).write_bytes(content())
    proc, report = _ingest(folder, tmp_path / "index")
    assert proc.returncode == 2
    (line,) = _rejections(proc)
    assert line.startswith(f"error: rejected {name}: ") and needle in line, line
    assert report["documents"]["added"] == 2 and report["generation"]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "content", "needle"),
    [
        ("stall.docx", lambda: stall_docx(150_000), "150,000 paragraphs, over the limit of 100,000"),
        ("rows.csv", lambda: b"a\n" + b"1\n" * 1_999_999, "2,000,000 rows, over the limit of 100,000"),
    ],
)
def test_work_is_bounded_per_document_with_the_count_in_the_line(tmp_path: Path, name: str, content, needle) -> None:  # type: ignore[no-untyped-def]
    folder = _folder(tmp_path)
    (folder / name).write_bytes(content())
    proc, report = _ingest(folder, tmp_path / "index")
    (line,) = _rejections(proc)
    assert line.startswith(f"error: rejected {name}: ") and needle in line, line
    assert report["documents"]["added"] == 2 and report["generation"]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("env", "needle"),
    [
        ({"RAGCLI_PARSE_CPU_SECONDS": "1"}, "over 1 s of cpu time"),
        ({"RAGCLI_PARSE_WALL_SECONDS": "1"}, "over 1 s of wall time"),
    ],
)
def test_a_parser_past_its_limit_is_stopped_and_named(tmp_path: Path, env: dict[str, str], needle: str) -> None:
    """The 60 MB body under the paragraph bound's count takes seconds of CPU: a 1 s limit stops the worker
    (SIGXCPU, or killed by the pool at its deadline), and a new worker parses the rest."""
    folder = _folder(tmp_path)
    (folder / "stall.docx").write_bytes(stall_docx(1_700_000))
    for n in range(3):  # after the stopped worker: files a replacement worker must parse
        write_markdown(folder / f"after{n}.md", {"id": f"after{n}"}, f"The walrus note number {n}.\n")
    proc, report = _ingest(folder, tmp_path / "index", env)
    (line,) = _rejections(proc)
    assert line.startswith("error: rejected stall.docx: ") and needle in line.lower(), line
    assert report["documents"]["added"] == 5 and report["generation"]
    limits = report["limits"]
    assert limits["workers"] == 2 and str(limits["cpu_seconds" if "CPU" in next(iter(env)) else "wall_seconds"]) == "1"


@pytest.mark.slow
def test_parsing_in_this_process_keeps_the_same_boundary(tmp_path: Path) -> None:
    """RAGCLI_PARSE_WORKERS=0 (no limits can be enforced there) still turns a parser's exception into a rejection."""
    folder = _folder(tmp_path)
    (folder / "damaged.docx").write_bytes(_damaged_deflate())
    proc, report = _ingest(folder, tmp_path / "index", {"RAGCLI_PARSE_WORKERS": "0"})
    (line,) = _rejections(proc)
    assert "damaged.docx" in line and report["documents"]["added"] == 2
    assert report["limits"]["workers"] == 0


@pytest.mark.slow
def test_a_parse_limit_that_is_not_a_number_is_one_error_line(tmp_path: Path) -> None:
    from support.cli import assert_one_error_line

    proc = cli(
        "ingest",
        _folder(tmp_path),
        "--tenant",
        TENANT,
        "--index",
        tmp_path / "i",
        env={"RAGCLI_PARSE_MEMORY_MB": "lots"},
    )
    assert_one_error_line(proc, "RAGCLI_PARSE_MEMORY_MB")
