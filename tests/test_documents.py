"""Loading files into Documents: formats, metadata, defaults and rejections (real files in tmp_path)."""

from __future__ import annotations

import datetime as dt
import json
import re

import pytest
from support.corpus import make_pdf, markdown, read_source, write

from ragcli.errors import DocumentRejected
from ragcli.ingestion.chunking import chunk_document
from ragcli.ingestion.folder import discover, open_folder
from ragcli.ingestion.html import html_to_markdown
from ragcli.ingestion.loaders import Document, load_file, load_jsonl
from ragcli.ingestion.sources import SourceFile
from ragcli.text import slugify

EVERYONE = ("everyone",)


def load_all(root, default_acl=EVERYONE, salt=""):
    """discover + load every file under root: {relative path (or path:line): Document | DocumentRejected}."""
    out: dict[str, Document | DocumentRejected] = {}
    with open_folder(root) as folder:
        found = folder.discover()
        out.update({r.source: r for r in found.rejected})
        for src in found.files:
            try:
                data = folder.read(src, 64 * 1024 * 1024)
                if src.path.suffix == ".jsonl":
                    for item in load_jsonl(src, data, default_acl=default_acl, salt=salt):
                        key = item.source if isinstance(item, DocumentRejected) else f"{src.relative}::{item.doc_id}"
                        out[key] = item
                    continue
                out[src.relative] = load_file(src, data, default_acl=default_acl, salt=salt)
            except DocumentRejected as rej:
                out[src.relative] = rej
    return out


def load_one(root, rel, content, default_acl=EVERYONE, salt=""):
    path = write(root / rel, content)
    src = SourceFile(path.resolve(), rel)
    return load_file(src, read_source(src), default_acl=default_acl, salt=salt)


# --------------------------------------------------------------------------- formats


def test_markdown_front_matter_is_metadata_not_text(tmp_path):
    meta = {
        "id": "refund-rules",
        "title": "Refund Rules",
        "version": "2026-09",
        "acl": ["support", "user:carol"],
        "effective_from": "2026-09-01",
        "superseded_on": "2027-01-01",
        "source_url": "https://docs.example/refunds",
    }
    doc = load_one(
        tmp_path,
        "billing/refunds.md",
        markdown(meta, "# Refund Rules\n\nAnnual plans are refundable within 30 days.\n"),
    )
    assert doc.doc_id == "refund-rules"
    assert doc.title == "Refund Rules"
    assert doc.declared_version == "2026-09" and re.fullmatch(r"2026-09\.[0-9a-f]{6}", doc.version)
    assert doc.acl == ("support", "user:carol")
    assert doc.effective_from == dt.date(2026, 9, 1)
    assert doc.superseded_on == dt.date(2027, 1, 1)
    assert doc.source_url == "https://docs.example/refunds"
    assert doc.format == "markdown"
    assert doc.source == str((tmp_path / "billing/refunds.md").resolve())
    assert doc.path == "billing/refunds.md"  # relative to the ingested folder: what people and models are shown
    assert "Annual plans are refundable within 30 days." in doc.text
    assert "acl" not in doc.text and "source_url" not in doc.text and "---" not in doc.text


def test_yaml_dates_and_numeric_ids_become_strings(tmp_path):
    # Unquoted YAML dates and numbers are read as date/int; ids and versions are strings.
    text = "---\nid: 1234\nversion: 2026-09-01\nacl: [everyone]\neffective_from: 2026-09-01\n---\nBody words here.\n"
    doc = load_one(tmp_path, "n.md", text)
    assert doc.doc_id == "1234"
    assert doc.declared_version == "2026-09-01" and doc.version.startswith("2026-09-01.")
    assert doc.effective_from == dt.date(2026, 9, 1)


def test_defaults_doc_id_is_slugified_relative_path_and_title_first_heading(tmp_path):
    body = (
        "Some intro line.\n\n```bash\n# install the deps first\npip install x\n```\n\n"
        "# Getting Started, Really!\n\nText.\n"
    )
    write(tmp_path / "Guides/Getting Started (v2).md", markdown({"acl": ["everyone"]}, body))
    docs = load_all(tmp_path)
    doc = docs["Guides/Getting Started (v2).md"]
    assert isinstance(doc, Document), doc
    assert doc.doc_id == "guides-getting-started-v2"
    assert doc.doc_id == slugify("Guides/Getting Started (v2)")
    # The first real H1, not a "# comment" inside a code block.
    assert doc.title == "Getting Started, Really!"


def test_title_falls_back_to_the_file_name_made_readable_without_heading(tmp_path):
    doc = load_one(tmp_path, "plain-notes.md", markdown({"acl": ["everyone"]}, "Just a paragraph, no heading.\n"))
    assert doc.title == "Plain notes"


def test_setext_heading_is_a_title(tmp_path):
    doc = load_one(tmp_path, "s.md", markdown({"acl": ["everyone"]}, "Setext Title\n============\n\nBody.\n"))
    assert doc.title == "Setext Title"


def test_version_is_effective_from_else_short_content_hash(tmp_path):
    dated = load_one(
        tmp_path, "a.md", markdown({"acl": ["everyone"], "effective_from": "2026-03-01"}, "# A\n\nAlpha.\n")
    )
    assert re.fullmatch(r"2026-03-01\.[0-9a-f]{6}", dated.version) and dated.declared_version == "2026-03-01"

    first = load_one(tmp_path, "b.md", markdown({"acl": ["everyone"]}, "# B\n\nBravo.\n"))
    assert re.fullmatch(r"[0-9a-f]{10}", first.version)
    # Same content, same version: wherever it lives, whatever the ingest's defaults and salt.
    again = load_one(
        tmp_path / "elsewhere",
        "b.md",
        markdown({"acl": ["everyone"]}, "# B\n\nBravo.\n"),
        default_acl=("x",),
        salt="other",
    )
    assert again.version == first.version
    changed = load_one(tmp_path, "b.md", markdown({"acl": ["everyone"]}, "# B\n\nBravo changed.\n"))
    assert changed.version != first.version


def test_plain_text_takes_metadata_from_sidecar(tmp_path):
    write(tmp_path / "notes.txt", "Quarterly numbers look fine.\n\nSecond paragraph here.\n")
    write(tmp_path / "notes.meta.yaml", "id: q-notes\ntitle: Quarterly Notes\nacl: [finance]\nversion: q3\n")
    write(tmp_path / "bare.txt", "A text file without a sidecar.\n")
    files, rejected = discover(tmp_path)
    assert rejected == []
    # The sidecar is metadata, never a document of its own.
    assert sorted(f.relative for f in files) == ["bare.txt", "notes.txt"]
    docs = load_all(tmp_path, default_acl=("staff",))
    notes = docs["notes.txt"]
    assert notes.version.startswith("q3.")
    assert (notes.doc_id, notes.title, notes.acl, notes.declared_version, notes.format) == (
        "q-notes",
        "Quarterly Notes",
        ("finance",),
        "q3",
        "text",
    )
    assert "Quarterly numbers look fine." in notes.text
    bare = docs["bare.txt"]
    assert (bare.doc_id, bare.title, bare.acl) == ("bare", "bare", ("staff",))


def test_sidecar_changes_the_fingerprint(tmp_path):
    write(tmp_path / "n.txt", "Same body.\n")
    write(tmp_path / "n.meta.yaml", "acl: [a]\n")
    before = load_all(tmp_path)["n.txt"]
    write(tmp_path / "n.meta.yaml", "acl: [b]\n")
    after = load_all(tmp_path)["n.txt"]
    assert before.text == after.text
    assert before.fingerprint != after.fingerprint
    assert after.acl == ("b",)


HTML = """<!doctype html>
<html><head><title>  Widget   Guide </title>
<style>.secretstyle { color: red }</style>
<script>var leakedtoken = "zzscriptsecret";</script>
</head>
<body>
<nav>Home</nav>
<h1>Widget Guide</h1>
<p>Widgets are configured with the <b>widget.yaml</b> file.</p>
<h2>Limits</h2>
<ul><li>At most 5 widgets.</li><li>Names up to 40 characters.</li></ul>
<table><tr><th>Plan</th><th>Widgets</th></tr><tr><td>Free</td><td>1</td></tr><tr><td>Pro</td><td>5</td></tr></table>
<noscript>zznoscriptsecret</noscript>
<pre>widgets:
  - name: first</pre>
<script type="text/javascript">document.write("zzscriptsecret2")</script>
</body></html>
"""


def test_html_script_and_style_text_is_dropped(tmp_path):
    doc = load_one(tmp_path, "guide.html", HTML)
    assert doc.format == "html"
    assert doc.title == "Widget Guide"  # from <title>, whitespace collapsed
    for secret in ("zzscriptsecret", "leakedtoken", "secretstyle", "zznoscriptsecret", "zzscriptsecret2"):
        assert secret not in doc.text
    assert "# Widget Guide" in doc.text and "## Limits" in doc.text
    assert "- At most 5 widgets." in doc.text
    assert "| Plan | Widgets |" in doc.text and "| Pro | 5 |" in doc.text
    assert "```\nwidgets:\n  - name: first\n```" in doc.text


def test_html_cells_without_closing_tags_keep_all_text():
    # </td> and </tr> (even <tr>) are optional in HTML; the text after such a table must survive.
    _, text = html_to_markdown("<table><td>a1<td>b1<tr><td>a2<td>b2</table><p>after the table</p>")
    assert "| a1 | b1 |" in text and "| a2 | b2 |" in text
    assert "after the table" in text


def test_pdf_text_is_extracted_page_by_page(tmp_path, embedder):
    pdf = make_pdf(["Quarterly zephyr report for the board", "Second page covers quokka migration"])
    write(tmp_path / "report.pdf", pdf)
    write(tmp_path / "report.meta.yaml", "acl: [execs]\n")
    doc = load_all(tmp_path)["report.pdf"]
    assert isinstance(doc, Document), doc
    assert doc.format == "pdf" and doc.acl == ("execs",) and doc.title == "report"
    assert "Quarterly zephyr report for the board" in doc.text
    assert "Second page covers quokka migration" in doc.text
    passages = chunk_document(doc, "t", embedder.count_tokens)
    by_page = {p.pages: p.text for p in passages}
    assert by_page == {
        (1,): "Quarterly zephyr report for the board",
        (2,): "Second page covers quokka migration",
    }


def test_damaged_pdf_is_rejected(tmp_path):
    write(tmp_path / "broken.pdf", make_pdf(["fine text"])[:200])
    write(tmp_path / "broken.meta.yaml", "acl: [a]\n")
    rej = load_all(tmp_path)["broken.pdf"]
    assert isinstance(rej, DocumentRejected)
    assert "PDF" in rej.reason


def test_jsonl_corpus_one_document_per_line(tmp_path):
    lines = [
        {"_id": "doc1", "title": "First", "text": "The first document body."},
        {"_id": 42, "title": "", "text": "A numeric id becomes a string."},
        {"id": "doc3", "_id": "ignored", "text": "Explicit id wins.", "acl": ["x"], "version": "v9"},
        "this line is not json",
        {"_id": "notext"},
        {"text": "no id at all"},
        {"_id": "badacl", "text": "t", "acl": "everyone"},
        ["not", "an", "object"],
    ]
    body = "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines) + "\n\n"
    write(tmp_path / "corpus.jsonl", body)
    docs = load_all(tmp_path)
    path = str((tmp_path / "corpus.jsonl").resolve())
    d1 = docs["corpus.jsonl::doc1"]
    assert d1.path == "corpus.jsonl:1"  # relative to the ingested folder: what people and models are shown
    assert (d1.title, d1.text, d1.acl, d1.source, d1.format) == (
        "First",
        "The first document body.",
        EVERYONE,
        f"{path}:1",
        "text",
    )
    assert docs["corpus.jsonl::42"].doc_id == "42"
    assert docs["corpus.jsonl::42"].title == "corpus"  # empty title: falls back to the file stem
    d3 = docs["corpus.jsonl::doc3"]
    assert (d3.acl, d3.declared_version) == (("x",), "v9")
    rejected = {k: v.reason for k, v in docs.items() if isinstance(v, DocumentRejected)}
    assert set(rejected) == {f"{path}:{n}" for n in (4, 5, 6, 7, 8)}
    assert "JSON" in rejected[f"{path}:4"]
    assert "text" in rejected[f"{path}:5"]
    assert "id" in rejected[f"{path}:6"]
    assert "acl" in rejected[f"{path}:7"]
    assert "object" in rejected[f"{path}:8"]


# --------------------------------------------------------------------------- rejections

BAD_FILES = [
    ("bad-utf8.md", b"---\nacl: [everyone]\n---\n# T\n\ncaf\xe9 au lait\n", "not valid UTF-8"),
    ("nul.md", b"# Title\n\nsome\x00binary\n", "NUL"),
    ("empty.md", b"", "empty"),
    ("blank.txt", b"  \n\n \t\n", "empty"),
    ("broken-yaml.md", b"---\nacl: [everyone\ntitle: x: y\n---\n# T\n\nbody\n", "broken YAML"),
    ("acl-string.md", b"---\nacl: everyone\n---\n# T\n\nbody\n", "acl"),
    ("not-a-date.md", b"---\nacl: [everyone]\neffective_from: next tuesday\n---\n# T\n\nbody\n", "effective_from"),
    (
        "impossible-date.md",
        b"---\nacl: [everyone]\neffective_from: 2026-02-30\n---\n# T\n\nbody\n",
        "day is out of range",
    ),
    (
        "impossible-date-quoted.md",
        b"---\nacl: [everyone]\nsuperseded_on: '2026-02-30'\n---\n# T\n\nbody\n",
        "superseded_on",
    ),
    (
        "date-order.md",
        b"---\nacl: [everyone]\neffective_from: 2026-09-01\nsuperseded_on: 2026-01-01\n---\n# T\n\nbody\n",
        "superseded_on must be after effective_from",
    ),
    (
        "same-day.md",
        b"---\nacl: [everyone]\neffective_from: 2026-09-01\nsuperseded_on: 2026-09-01\n---\n# T\n\nbody\n",
        "superseded_on must be after",
    ),
    ("empty-acl.md", b"---\nacl: []\n---\n# T\n\nbody\n", "no ACL"),
    ("blank-acl-entry.md", b"---\nacl: ['  ']\n---\n# T\n\nbody\n", "acl"),
    ("front-matter-list.md", b"---\n- a\n- b\n---\n# T\n\nbody\n", "mapping"),
    ("id-with-space.md", b"---\nid: two words\nacl: [a]\n---\nbody\n", "'id'"),
    ("id-with-at.md", b"---\nid: a@b\nacl: [a]\n---\nbody\n", "'id'"),
    ("deep-yaml.md", b"---\nacl: " + b"[" * 3000 + b"\n---\nbody\n", "YAML"),
]


@pytest.mark.parametrize(("name", "content", "reason"), BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_untrustworthy_files_are_rejected_with_their_reason(tmp_path, name, content, reason):
    write(tmp_path / name, content)
    result = load_all(tmp_path)[name]
    assert isinstance(result, DocumentRejected), result
    assert reason.lower() in result.reason.lower()
    assert str((tmp_path / name).resolve()) in str(result)  # the message names the file
    assert "\n" not in str(result)


def test_document_without_acl_is_rejected_unless_a_default_is_given(tmp_path):
    write(tmp_path / "open.md", "# Open\n\nNo front matter at all.\n")
    rej = load_all(tmp_path, default_acl=())["open.md"]
    assert isinstance(rej, DocumentRejected)
    assert "no ACL" in rej.reason and "--acl" in rej.reason
    doc = load_all(tmp_path, default_acl=("support", "support", "ops"))["open.md"]
    assert doc.acl == ("support", "ops")  # de-duplicated, order kept


def test_broken_sidecar_rejects_its_file(tmp_path):
    write(tmp_path / "n.txt", "Body.\n")
    write(tmp_path / "n.meta.yaml", "acl: [a\n")
    rej = load_all(tmp_path)["n.txt"]
    assert isinstance(rej, DocumentRejected)
    assert "n.meta.yaml" in rej.source and "YAML" in rej.reason


def test_oversized_file_is_rejected_before_reading(tmp_path):
    path = write(tmp_path / "big.md", markdown({"acl": ["a"]}, "# Big\n\n" + "word " * 400))
    with pytest.raises(DocumentRejected, match="over the 1,000-byte limit"):
        read_source(SourceFile(path.resolve(), "big.md"), max_bytes=1000)


def test_symlink_leaving_the_folder_is_not_followed(tmp_path):
    outside = write(tmp_path / "outside" / "secret.md", markdown({"acl": ["everyone"]}, "# Secret\n\nzzoutside\n"))
    root = tmp_path / "root"
    write(root / "ok.md", markdown({"acl": ["everyone"]}, "# Ok\n\nfine\n"))
    (root / "link.md").symlink_to(outside)
    (root / "inside.md").symlink_to(root / "ok.md")  # a link that stays in the folder is followed
    loaded = load_all(root)
    assert isinstance(loaded["ok.md"], Document) and isinstance(loaded["inside.md"], Document)
    assert isinstance(loaded["link.md"], DocumentRejected) and "symlink" in loaded["link.md"].reason


def test_unsupported_and_hidden_files_are_ignored(tmp_path):
    write(tmp_path / "image.png", b"\x89PNG")
    write(tmp_path / ".hidden.md", "# h\n")
    write(tmp_path / ".git" / "notes.md", "# g\n")
    write(tmp_path / "doc.MD", "# upper\n")
    files, _ = discover(tmp_path)
    assert [f.relative for f in files] == ["doc.MD"]


# --------------------------------------------------------------------------- passage ids


def test_passage_ids_are_doc_version_section_and_stable(tmp_path, embedder):
    body = (
        "# Handbook\n\nIntro paragraph.\n\n## Setup\n\nInstall it.\n\n### Linux\n\nUse apt.\n\n"
        "## Usage\n\nRun it.\n\n### Linux\n\nSame heading again.\n"
    )
    write(tmp_path / "handbook.md", markdown({"acl": ["everyone"]}, body))
    first = chunk_document(load_all(tmp_path)["handbook.md"], "t", embedder.count_tokens)
    second = chunk_document(load_all(tmp_path)["handbook.md"], "t", embedder.count_tokens)
    ids = [p.id for p in first]
    assert ids == [p.id for p in second]
    doc = load_all(tmp_path)["handbook.md"]
    assert all(re.fullmatch(rf"handbook@{doc.version}#[a-z0-9-]+", i) for i in ids), ids
    assert len(set(ids)) == len(ids)
    sections = {p.heading_path: p.section for p in first}
    assert sections[()] == "top"
    assert sections[("Setup",)] == "setup"
    assert sections[("Setup", "Linux")] == "linux"
    # The second "Linux" section may not reuse the first one's id.
    assert sections[("Usage", "Linux")] == "usage-linux"
