"""Metadata keys mean the same in every format, and look-alike names are named (issue 33).

``ACL: [hr]`` in front matter was silently ignored (Markdown matched keys exactly, Word and reStructuredText
without case), so with ``--acl everyone`` the HR page went to everyone. Now a reserved key is read without case
or surrounding spaces everywhere, and two keys naming one field reject the document. An ACL entry or a group
holding an invisible or look-alike character is warned about at ingest and refused in a user file, with the
code point named.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import assert_one_error_line, cli
from support.corpus import load_source, write, write_user

from ragcli.errors import DocumentRejected
from ragcli.ingestion.sources import SourceFile

# file name -> content; each declares ACL, Title and ID in capitals (or with spaces), never in lowercase.
UPPER_CASE_KEYS = {
    "page.md": "---\nACL: [hr]\nTitle: Pay bands\nID: pay\n---\n\nThe pay bands for L3.\n",
    "toml.md": '+++\nAcl = ["hr"]\nTITLE = "Pay bands"\nId = "pay"\n+++\n\nThe pay bands for L3.\n',
    "json.md": '{\n"ACL": ["hr"], "Title": "Pay bands", "ID": "pay"\n}\n\nThe pay bands for L3.\n',
    "notes.txt": "The pay bands for L3.\n",
    "page.rst": ":ACL: hr\n:Title: Pay bands\n:ID: pay\n\nThe pay bands for L3.\n",
}
SIDECARS = {"notes.txt": "' ACL ': [hr]\nTitle: Pay bands\nID: pay\n"}


@pytest.mark.parametrize("name", sorted(UPPER_CASE_KEYS))
def test_a_reserved_key_in_any_case_is_read_as_it(tmp_path: Path, name: str) -> None:
    write(tmp_path / name, UPPER_CASE_KEYS[name])
    if name in SIDECARS:
        write(tmp_path / "notes.meta.yaml", SIDECARS[name])
    doc = load_source(SourceFile(tmp_path / name, name), default_acl=("everyone",))
    assert (doc.acl, doc.title, doc.doc_id) == (("hr",), "Pay bands", "pay")


def test_a_jsonl_line_reads_reserved_keys_in_any_case(tmp_path: Path) -> None:
    from ragcli.ingestion.loaders import jsonl_document

    doc = jsonl_document(
        '{"ID": "pay", "ACL": ["hr"], "Title": "Pay bands", "text": "The pay bands."}',
        source="c.jsonl:1",
        relative="c.jsonl",
        default_acl=("everyone",),
    )
    assert (doc.acl, doc.title, doc.doc_id) == (("hr",), "Pay bands", "pay")


@pytest.mark.parametrize(
    "content",
    [
        "---\nacl: [hr]\nACL: [everyone]\n---\n\nText.\n",
        '+++\nacl = ["hr"]\nACL = ["everyone"]\n+++\n\nText.\n',
        '{\n"acl": ["hr"], "ACL": ["everyone"]\n}\n\nText.\n',
    ],
)
def test_two_keys_naming_one_field_reject_the_document_naming_both(tmp_path: Path, content: str) -> None:
    write(tmp_path / "page.md", content)
    with pytest.raises(DocumentRejected) as caught:
        load_source(SourceFile(tmp_path / "page.md", "page.md"), default_acl=("everyone",))
    assert "'acl' and 'ACL' both name 'acl'" in caught.value.reason


@pytest.mark.slow
def test_ingest_serves_an_upper_case_acl_only_to_its_group(tmp_path: Path) -> None:
    """The finding end to end: ``ACL: [hr]`` with ``--acl everyone`` is an HR page, not a page for everyone."""
    docs, index = tmp_path / "docs", tmp_path / "index"
    write(docs / "pay.md", UPPER_CASE_KEYS["page.md"])
    proc = cli("ingest", docs, "--tenant", "t", "--index", index, "--acl", "everyone")
    assert proc.returncode == 0, proc.stderr
    for groups, found in (([], False), (["hr"], True)):
        user = write_user(tmp_path / f"u{len(groups)}.json", "u", "t", groups)
        hits = cli("search", "pay bands", "--as", user, "--index", index, "--json")
        assert bool(json.loads(hits.stdout)["results"]) is found, (groups, hits.stdout[-500:])


@pytest.mark.slow
@pytest.mark.parametrize(
    ("entry", "code_point"),
    [("hr\u200b", "U+200B ZERO WIDTH SPACE"), ("t\u0435am", "U+0435 CYRILLIC SMALL LETTER IE")],
)
def test_a_look_alike_acl_entry_is_warned_about_naming_the_code_point(
    tmp_path: Path, entry: str, code_point: str
) -> None:
    docs, index = tmp_path / "docs", tmp_path / "index"
    write(docs / "pay.md", f"---\nacl: [{json.dumps(entry)}]\n---\n\nThe pay bands.\n")
    proc = cli("ingest", docs, "--tenant", "t", "--index", index, "--json")
    assert proc.returncode == 0, proc.stderr
    messages = [w["message"] for w in json.loads(proc.stdout)["warnings"]]
    assert any(code_point in m for m in messages), messages


@pytest.mark.slow
@pytest.mark.parametrize(
    ("field", "value", "code_point"),
    [
        ("groups", ["t\u0435am"], "U+0435 CYRILLIC SMALL LETTER IE"),
        ("groups", ["hr\u200b"], "U+200B ZERO WIDTH SPACE"),
        ("user", "\uff41lice", "U+FF41 FULLWIDTH LATIN SMALL LETTER A"),
    ],
)
def test_a_user_file_with_a_look_alike_name_is_refused_naming_it(
    tmp_path: Path, field: str, value: object, code_point: str
) -> None:
    data: dict[str, object] = {"user": "alice", "tenant": "t", "groups": []}
    data[field] = value
    user = tmp_path / "user.json"
    user.write_text(json.dumps(data), encoding="utf-8")
    proc = cli("search", "pay", "--as", user, "--index", tmp_path / "index")
    assert_one_error_line(proc, code_point)


def test_names_in_one_script_are_not_look_alikes() -> None:
    from ragcli.principal import suspicious_character

    for name in ("hr", "hr team", "Müller", "бухгалтерия", "日本語チーム", "user:o'brien"):
        assert suspicious_character(name) is None, name
