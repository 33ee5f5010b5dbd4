"""Hostile and malformed input: refused with one clear line, nothing already indexed is lost.

Files that cannot be used are each reported (``error: rejected PATH: reason``,
exit 2) and keep their previously indexed version; tenant names, user files,
eval files and queries that are malformed are refused with one ``error:``
line and exit 2; queries full of syntax or control characters are just text.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import random
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
from support.cli import assert_one_error_line, cli, cli_many, search_json, stderr_lines
from support.corpus import all_passages, passage_ids, write_markdown, write_user
from support.fixtures import shared_embedder

from ragcli import Scope

TENANT = "hostco"
AS_OF = dt.date(2026, 6, 1)

# One word per good document: a search for it finds exactly that document.
GOOD = {
    "zebra": ("good-zebra", "Zebra crossings are painted on the office car park every spring."),
    "walrus": ("good-walrus", "The walrus report lists the quarterly budget of the support team."),
    "pelican": ("good-pelican", "Pelican cases protect the backup drives during travel to the archive."),
}


@dataclass
class Base:
    folder: Path
    index: Path
    ids: set[str]
    texts: dict[str, str]
    user_file: Path
    outside: Path
    work: Path
    """One folder path that every file test reuses in turn (index keys are absolute paths)."""
    work_index: Path
    """The good documents of ``work``, indexed: copied for each test, so nothing is embedded again."""


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Base:
    from ragcli import ingest

    tmp = tmp_path_factory.mktemp("hostile")
    folder = tmp / "docs"
    for word, (doc_id, text) in GOOD.items():
        write_markdown(folder / f"{word}.md", {"id": doc_id, "version": "1", "title": word.title()}, text + "\n")
    index = tmp / "index"
    report = ingest(folder, TENANT, index=index, default_acl=["everyone"], embedder=shared_embedder())
    assert report.published and not report.documents.rejected
    ids = passage_ids(index, TENANT)
    assert {i.split("@")[0] for i in ids} == {d for d, _ in GOOD.values()}
    outside = tmp / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("The quokka launch code is hidden here.\n", encoding="utf-8")
    (outside / "more").mkdir()
    (outside / "more" / "deep.md").write_text("Quokka directory content.\n", encoding="utf-8")
    work = tmp / "work"
    shutil.copytree(folder, work)
    work_index = tmp / "work-index"
    ingest(work, TENANT, index=work_index, default_acl=["everyone"], embedder=shared_embedder())
    assert _texts(work_index) == _texts(index)
    return Base(
        folder, index, ids, _texts(index), write_user(tmp / "kim.json", "kim", TENANT), outside, work, work_index
    )


def _texts(index: Path) -> dict[str, str]:
    # passage_ids opens the published generation checksum-verified; the texts are read
    # straight from its passages.jsonl, and both must list the same passages.
    ids = passage_ids(index, TENANT)
    texts = {p.id: p.text for p in all_passages(index, TENANT)}
    assert set(texts) == ids, set(texts) ^ ids
    return texts


def _copy(base: Base, tmp_path: Path) -> tuple[Path, Path]:
    """The work folder reset to the good documents, and a fresh copy of their index."""
    shutil.rmtree(base.work)
    shutil.copytree(base.folder, base.work)
    index = tmp_path / "index"
    shutil.copytree(base.work_index, index)
    return base.work, index


def _garbage(n: int, seed: int = 7) -> bytes:
    rng = random.Random(seed)
    return bytes(rng.randrange(256) for _ in range(n))


# name -> (file name, content, needle in the reason)
HOSTILE_FILES: dict[str, tuple[str, bytes, str]] = {
    "invalid_utf8": ("latin1.md", "Caf\xe9 quokka menu".encode("latin-1"), "utf-8"),
    "binary_as_markdown": ("image.md", b"\x89PNG\r\n\x1a\n\x00\x00quokka" + _garbage(300), "binary"),
    "empty": ("empty.md", b"", "empty"),
    "only_whitespace": ("blank.md", b" \n\t\n  \n", "empty"),
    "broken_yaml": ("broken.md", b"---\nid: [unclosed quokka\ntitle: x\n---\n\nBody text.\n", "yaml"),
    "yaml_not_a_mapping": ("list.md", b"---\n- quokka\n- b\n---\n\nBody text.\n", "mapping"),
    "acl_as_string": ("aclstr.md", b"---\nacl: hr\n---\n\nQuokka salary text.\n", "acl"),
    "acl_empty_entry": ("aclempty.md", b"---\nacl: ['']\n---\n\nQuokka text.\n", "acl"),
    "date_not_a_date": ("date.md", b"---\neffective_from: next tuesday\n---\n\nQuokka text.\n", "effective_from"),
    "date_impossible": ("feb30.md", b"---\neffective_from: 2026-02-30\n---\n\nQuokka text.\n", "yaml"),
    "dates_reversed": (
        "reversed.md",
        b"---\neffective_from: 2026-05-01\nsuperseded_on: 2026-01-01\n---\n\nQuokka.\n",
        "superseded_on",
    ),
    "id_with_separator": ("badid.md", b"---\nid: 'a b@c'\n---\n\nQuokka text.\n", "id"),
    "pdf_garbage": ("report.pdf", _garbage(2000), "pdf"),
    "pdf_header_then_garbage": ("scan.pdf", b"%PDF-1.7\n1 0 obj\n<< /Type /Catalog" + _garbage(500, 3), "pdf"),
    "jsonl_line_not_json": (
        "corpus.jsonl",
        b'{"id": "ok-line", "text": "A fine line about the zebra."}\n{not json quokka\n',
        "json",
    ),
    "jsonl_acl_string": ("acl.jsonl", b'{"id": "q", "text": "Quokka", "acl": "hr"}\n', "acl"),
    "broken_sidecar": ("notes.txt", b"Quokka notes in plain text.\n", "yaml"),
    "jsonl_lone_surrogate": ("surrogate.jsonl", b'{"id": "q", "text": "Quokka \\ud800 text"}\n', "surrogate"),
    "jsonl_nested_too_deep": (
        "deep.jsonl",
        b'{"id": "q", "text": "quokka", "x": ' + b"[" * 50_000 + b"]" * 50_000 + b"}\n",
        "nested",
    ),
    "yaml_lone_surrogate": ("surrogate.md", b'---\ntitle: "Quokka \\ud800"\n---\n\nQuokka text.\n', "surrogate"),
}


def _add_hostile(folder: Path, name: str, base: Base) -> Path:
    file_name, content, _ = HOSTILE_FILES[name]
    path = folder / file_name
    path.write_bytes(content)
    if name == "broken_sidecar":  # the sidecar is the broken file, and it is the one named
        path = folder / "notes.meta.yaml"
        path.write_bytes(b"acl: [unclosed\n")
    return path


@pytest.mark.parametrize("name", sorted(HOSTILE_FILES))
def test_hostile_file_is_rejected_and_nothing_is_lost(base: Base, tmp_path: Path, name: str) -> None:
    from ragcli import ingest

    folder, index = _copy(base, tmp_path)
    path = _add_hostile(folder, name, base)
    report = ingest(folder, TENANT, index=index, default_acl=["everyone"], embedder=shared_embedder())
    needle = HOSTILE_FILES[name][2]
    assert len(report.documents.rejected) == 1, report.documents.rejected
    (rejected,) = report.documents.rejected
    assert rejected.path == str(path) or rejected.path.startswith(f"{path}:"), rejected
    assert needle in rejected.reason.lower(), rejected.reason
    texts = _texts(index)
    for pid, text in base.texts.items():  # every earlier passage is still there, unchanged
        assert texts.get(pid) == text, pid
    assert all("quokka" not in t.lower() for t in texts.values())
    added = {pid.split("@")[0] for pid in set(texts) - base.ids}
    assert added == ({"ok-line"} if name == "jsonl_line_not_json" else set())  # the good line of that file only


def test_file_over_the_size_limit_is_rejected(base: Base, tmp_path: Path) -> None:
    from ragcli import ingest

    folder, index = _copy(base, tmp_path)
    big = folder / "huge.md"
    big.write_text("quokka " * 200_000, encoding="utf-8")  # 1.4 MB
    report = ingest(
        folder, TENANT, index=index, default_acl=["everyone"], embedder=shared_embedder(), max_file_bytes=1024 * 1024
    )
    assert [(r.path, "limit" in r.reason) for r in report.documents.rejected] == [(str(big), True)]
    assert _texts(index) == base.texts


def test_a_good_file_turned_bad_is_withdrawn_or_kept_on_request(base: Base, tmp_path: Path) -> None:
    from ragcli import ingest

    for damage in (b"\xff\xfe not utf-8", b"---\nacl: [unclosed\n---\n\nNew quokka text.\n", b""):
        for keep in (False, True):
            folder, index = _copy(base, tmp_path / f"damage{len(damage)}-{keep}")
            (folder / "walrus.md").write_bytes(damage)
            report = ingest(
                folder, TENANT, index=index, default_acl=["everyone"], embedder=shared_embedder(), keep_on_error=keep
            )
            assert [r.path for r in report.documents.rejected] == [str(folder / "walrus.md")]
            assert report.documents.deleted == 0
            if keep:
                assert _texts(index) == base.texts and report.documents.withdrawn == []
            else:  # fail closed: the rejected version may have narrowed who may read it
                assert [w.doc_id for w in report.documents.withdrawn] == ["good-walrus"]
                assert _texts(index) == {k: v for k, v in base.texts.items() if not k.startswith("good-walrus@")}


def test_a_file_claiming_an_indexed_documents_id_is_an_error_naming_both(base: Base, tmp_path: Path) -> None:
    folder, index = _copy(base, tmp_path)
    (folder / "aaa-clone.md").write_bytes(b"---\nid: good-zebra\nversion: '1'\n---\n\nQuokka impostor text.\n")
    proc = cli("ingest", folder, "--tenant", TENANT, "--index", index, "--acl", "everyone")
    assert_one_error_line(proc, "two files map to document 'good-zebra' version 1: aaa-clone.md and zebra.md")
    assert _texts(index) == base.texts  # nothing published


def test_symlinks_out_of_the_folder_are_not_followed(base: Base, tmp_path: Path) -> None:
    from ragcli import ingest

    folder, index = _copy(base, tmp_path)
    link = folder / "shortcut.txt"
    link.symlink_to(base.outside / "secret.txt")
    (folder / "linked-dir").symlink_to(base.outside / "more", target_is_directory=True)
    report = ingest(folder, TENANT, index=index, default_acl=["everyone"], embedder=shared_embedder())
    assert [(r.path, "symlink" in r.reason) for r in report.documents.rejected] == [(str(link), True)]
    texts = _texts(index)
    assert all("quokka" not in t.lower() for t in texts.values())
    for pid, text in base.texts.items():
        assert texts.get(pid) == text


def test_script_and_style_text_of_html_is_never_searchable(base: Base, tmp_path: Path) -> None:
    from ragcli import ingest
    from ragcli.principal import load_principal
    from ragcli.search import Retriever, SearchConfig

    folder, index = _copy(base, tmp_path)
    (folder / "page.html").write_text(
        "<html><head><title>Ocelot page</title><script>var quokkascript = 'steal cookies';</script>"
        "<style>.quokkastyle { color: red }</style></head><body><h1>Ocelot</h1>"
        "<p>The ocelot section is visible.</p><noscript>quokkanoscript</noscript>"
        "<script type='text/template'>quokkatemplate</script><svg><text>quokkasvg</text></svg></body></html>",
        encoding="utf-8",
    )
    report = ingest(folder, TENANT, index=index, default_acl=["everyone"], embedder=shared_embedder())
    assert not report.documents.rejected and report.documents.added == 1
    texts = _texts(index)
    assert any("ocelot section is visible" in t for t in texts.values())
    assert all("quokka" not in t.lower() and "cookies" not in t for t in texts.values())
    kim = load_principal(base.user_file)
    retriever = Retriever(index, embedder=shared_embedder())
    try:
        for word in ("quokkascript", "quokkastyle", "quokkanoscript", "quokkatemplate", "quokkasvg", "cookies"):
            assert retriever.search(Scope.of(kim), word, config=SearchConfig(mode="bm25")).ids == [], word
        hybrid = retriever.search(Scope.of(kim, AS_OF), "steal cookies quokkascript")
        assert all("quokka" not in r.passage.text.lower() for r in hybrid.results)
        assert [
            r.passage.doc_id
            for r in retriever.search(Scope.of(kim), "ocelot", config=SearchConfig(mode="bm25")).results
        ] == ["page"]
    finally:
        retriever.close()


@pytest.mark.slow
def test_cli_reports_rejected_files_grouped_by_reason(base: Base, tmp_path: Path) -> None:
    folder, index = _copy(base, tmp_path)
    expected = {str(_add_hostile(folder, name, base)) for name in HOSTILE_FILES}
    (folder / "huge.md").write_text("quokka " * 200_000, encoding="utf-8")
    (folder / "walrus.md").write_bytes(b"\xff\xfe was fine, now broken")
    (folder / "shortcut.md").symlink_to(base.outside / "secret.txt")
    odd = folder / "evil\nerror: forged line\x1b[31m.md"  # a file name is data too
    odd.write_bytes(b"\xff not utf-8")
    os.mkfifo(folder / "pipe.md")  # reading it would block forever
    (folder / "dangling.md").symlink_to(folder / "gone.md")
    expected |= {str(folder / n) for n in ("huge.md", "walrus.md", "shortcut.md", "pipe.md", "dangling.md")} | {
        str(odd)
    }

    proc = cli(
        "ingest",
        folder,
        "--tenant",
        TENANT,
        "--index",
        index,
        "--acl",
        "everyone",
        "--max-file-size",
        "1",
        "--json",
        timeout=120,
    )
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = stderr_lines(proc)
    withdrawn = [line for line in lines if line.startswith("error: withdrew ")]
    assert withdrawn == [
        "error: withdrew 1 document whose new version was rejected: good-walrus (walrus.md); they are not "
        "searchable until fixed (--keep-on-error keeps the old version)"
    ]
    lines = [line for line in lines if line not in withdrawn]
    assert all(line.startswith("error: rejected ") for line in lines), lines
    assert "\x1b" not in proc.stderr
    reported = json.loads(proc.stdout)["documents"]["rejected"]
    paths = {r["path"] if r["path"] in expected else r["path"].rsplit(":", 1)[0] for r in reported}  # JSONL: path:line
    assert paths == expected
    # One line per distinct reason (identical ones grouped with a count), then one summary line.
    assert len(lines) == len({r["reason"] for r in reported}) + 1, lines
    assert lines[-1].startswith(f"error: rejected {len(paths)} of ") and lines[-1].endswith("the rest was indexed"), (
        lines[-1]
    )
    assert not any(line.startswith("error: forged") for line in lines)
    texts = _texts(index)
    for pid, text in base.texts.items():  # walrus.md broke: its document is withdrawn, the rest stays
        assert texts.get(pid) == (None if pid.startswith("good-walrus@") else text)
    assert all("quokka" not in t.lower() for t in texts.values())
    found = cli("search", "walrus budget", "--as", base.user_file, "--index", index, "--json", "--mode", "bm25")
    assert [r["doc_id"] for r in search_json(found)["results"]] == []


# --------------------------------------------------------------------------- tenant names
# Every bad value is checked in-process (cheap); a representative set also
# through real CLI processes, where the only extra is the one-line error.

BAD_TENANTS = [
    "a/b",
    "..",
    "../escape",
    "/tmp/abs",
    "Acme",
    "has space",
    "x" * 65,
    "",
    "-dash",
    ".hidden",
    "tab\tname",
    "émoji",
    "a\x00b",
]
CLI_BAD_TENANTS = ["../escape", "/tmp/abs", "Has Space", "x" * 65]


@pytest.mark.slow
def test_bad_tenant_names_are_refused_everywhere(base: Base, tmp_path: Path) -> None:
    from ragcli import TenantIndex, ingest
    from ragcli.errors import InputError
    from ragcli.index.writer import write_lock
    from ragcli.principal import load_principal, validate_tenant

    index = tmp_path / "index"
    index.mkdir()
    for name in BAD_TENANTS:
        with pytest.raises(InputError, match="invalid tenant name"):
            ingest(base.folder, name, index=index, default_acl=["everyone"], embedder=shared_embedder())
        with pytest.raises(InputError, match="invalid tenant name"):
            TenantIndex.open(index, name)
        with pytest.raises(InputError, match="invalid tenant name"):
            with write_lock(index, name):
                pass
        user = tmp_path / "user.json"
        user.write_text(json.dumps({"user": "kim", "tenant": name}), encoding="utf-8")
        with pytest.raises(InputError, match="tenant"):
            load_principal(user)
    assert validate_tenant("x" * 64) == "x" * 64  # the longest valid name is accepted

    commands = []
    for name in CLI_BAD_TENANTS:
        commands.append(["ingest", base.folder, "--tenant", name, "--acl", "everyone", "--index", index])
    for i, name in enumerate(CLI_BAD_TENANTS[:2]):
        user = write_user(tmp_path / f"user{i}.json", "kim", name)
        commands.append(["search", "zebra", "--as", user, "--index", index])
    commands.append(["status", "--tenant", "../escape", "--index", index])
    for proc in cli_many(commands, parallel=4):
        assert_one_error_line(proc, "tenant")
    assert list(index.iterdir()) == []  # nothing was created, inside the index or beside it
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix != ".json") == ["index"]


# --------------------------------------------------------------------------- user files

BAD_USER_FILES = {
    "not_json": b"{user: kim, tenant: hostco",
    "not_utf8": b'{"user": "k\xffm", "tenant": "hostco"}',
    "top_level_list": b'["kim", "hostco"]',
    "empty": b"",
    "user_not_string": json.dumps({"user": 42, "tenant": TENANT}).encode(),
    "groups_not_a_list": json.dumps({"user": "kim", "tenant": TENANT, "groups": "hr"}).encode(),
    "groups_of_numbers": json.dumps({"user": "kim", "tenant": TENANT, "groups": [1, 2]}).encode(),
    "groups_an_object": json.dumps({"user": "kim", "tenant": TENANT, "groups": {"hr": True}}).encode(),
    "missing_tenant": json.dumps({"user": "kim", "groups": []}).encode(),
    "missing_user": json.dumps({"tenant": TENANT}).encode(),
    "unknown_field": json.dumps({"user": "kim", "tenant": TENANT, "admin": True}).encode(),
    "huge_user_name": json.dumps({"user": "k" * 10_000, "tenant": TENANT}).encode(),
    "huge_group_name": json.dumps({"user": "kim", "tenant": TENANT, "groups": ["g" * 10_000]}).encode(),
    "too_many_groups": json.dumps({"user": "kim", "tenant": TENANT, "groups": [f"g{i}" for i in range(300)]}).encode(),
    "file_over_64k": json.dumps({"user": "kim", "tenant": TENANT, "pad": "x" * 70_000}).encode(),
    "blank_user": json.dumps({"user": "   ", "tenant": TENANT}).encode(),
    "tenant_not_string": json.dumps({"user": "kim", "tenant": ["hostco"]}).encode(),
    "nested_too_deep": b"[" * 30_000 + b"]" * 30_000,
    "lone_surrogate": b'{"user": "kim\\ud800", "tenant": "hostco"}',
}
CLI_USER_FILES = ["not_json", "missing_tenant", "huge_user_name", "groups_not_a_list"]


@pytest.mark.slow
def test_malformed_user_files_are_refused(base: Base, tmp_path: Path) -> None:
    from ragcli.errors import InputError
    from ragcli.principal import load_principal

    paths = {}
    for name, content in BAD_USER_FILES.items():
        paths[name] = tmp_path / f"{name}.json"
        paths[name].write_bytes(content)
        with pytest.raises(InputError) as raised:
            load_principal(paths[name])
        assert f"{name}.json" in str(raised.value) and len(str(raised.value)) < 600, (name, str(raised.value)[:800])
    for missing in (tmp_path / "missing.json", tmp_path):  # no file; a directory
        with pytest.raises(InputError, match="cannot read user file"):
            load_principal(missing)

    unknown = write_user(tmp_path / "unknown.json", "kim", "nosuchtenant")
    commands = [["search", "zebra", "--as", paths[name], "--index", base.index] for name in CLI_USER_FILES]
    commands.append(["search", "zebra", "--as", unknown, "--index", base.index])
    for name, proc in zip([*CLI_USER_FILES, "unknown_tenant"], cli_many(commands, parallel=4), strict=True):
        line = assert_one_error_line(proc)
        assert proc.stdout == "", (name, proc.stdout)
        assert len(line) < 600, (name, line)  # a 10 kB value is not echoed back whole
        assert ("unknown tenant 'nosuchtenant'" if name == "unknown_tenant" else f"{name}.json") in line, (name, line)


# --------------------------------------------------------------------------- eval files

BAD_EVAL_LINES = {
    "not_json": "{question: zebra",
    "a_list": json.dumps(["zebra"]),
    "question_missing": json.dumps({"as": "kim.json"}),
    "question_not_text": json.dumps({"question": ["zebra"], "as": "kim.json"}),
    "question_empty": json.dumps({"question": "", "as": "kim.json"}),
    "relevant_not_list": json.dumps({"question": "zebra", "as": "kim.json", "relevant": "good-zebra"}),
    "as_of_not_date": json.dumps({"question": "zebra", "as": "kim.json", "as_of": "yesterday"}),
    "expect_unknown": json.dumps({"question": "zebra", "as": "kim.json", "expect": "maybe"}),
    "reason_unknown": json.dumps({"question": "zebra", "as": "kim.json", "reason": "felt_like_it"}),
    "unknown_principal_file": json.dumps({"question": "zebra", "as": "nobody.json"}),
    "principal_file_is_dir": json.dumps({"question": "zebra", "as": "."}),
    "principal_path_with_nul": json.dumps({"question": "zebra", "as": "kim\u0000.json"}),
    "both_as_and_principal": json.dumps(
        {"question": "zebra", "as": "kim.json", "principal": {"user": "k", "tenant": TENANT}}
    ),
    "neither_as_nor_principal": json.dumps({"question": "zebra"}),
    "inline_principal_bad_tenant": json.dumps({"question": "zebra", "principal": {"user": "k", "tenant": "../x"}}),
    "nested_too_deep": "[" * 50_000 + "]" * 50_000,
    "inline_principal_groups_string": json.dumps(
        {"question": "zebra", "principal": {"user": "k", "tenant": TENANT, "groups": "hr"}}
    ),
}
CLI_EVAL_LINES = ["not_json", "question_missing", "unknown_principal_file"]
GOOD_EVAL_LINE = json.dumps({"id": "ok", "question": "zebra crossing", "as": "kim.json", "relevant": ["good-zebra"]})


@pytest.mark.slow
def test_malformed_eval_files_name_the_bad_line(base: Base, tmp_path: Path) -> None:
    from ragcli.errors import InputError
    from ragcli.eval import load_cases

    write_user(tmp_path / "kim.json", "kim", TENANT)
    paths = {}
    for name, line in BAD_EVAL_LINES.items():
        paths[name] = tmp_path / f"{name}.jsonl"
        paths[name].write_text(
            f"{GOOD_EVAL_LINE}\n\n{line}\n{GOOD_EVAL_LINE}\n", encoding="utf-8"
        )  # bad case on line 3
        with pytest.raises(InputError) as raised:
            load_cases(paths[name])
        assert f"{name}.jsonl:3" in str(raised.value), (name, str(raised.value))
    ok = tmp_path / "ok.jsonl"
    ok.write_text(f"{GOOD_EVAL_LINE}\n{GOOD_EVAL_LINE}\n", encoding="utf-8")
    assert len(load_cases(ok)) == 2  # the same file without the bad line loads
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n", encoding="utf-8")
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(b"\xff\xfe\x00\x01")
    for path in (empty, binary, tmp_path / "nope.jsonl", tmp_path):
        with pytest.raises(InputError):
            load_cases(path)

    commands = [["eval", paths[name], "--index", base.index] for name in CLI_EVAL_LINES]
    commands.append(["eval", tmp_path / "nope.jsonl", "--index", base.index])
    results = cli_many(commands, parallel=4)
    for name, proc in zip(CLI_EVAL_LINES, results[:-1], strict=True):
        line = assert_one_error_line(proc)
        assert f"{name}.jsonl:3" in line, (name, line)
    assert_one_error_line(results[-1], "nope.jsonl")


# --------------------------------------------------------------------------- queries


@pytest.mark.slow
def test_malformed_queries_through_the_cli(base: Base) -> None:
    def search(query: str, *extra: object) -> list[object]:
        return [
            "search",
            query,
            "--as",
            base.user_file,
            "--index",
            base.index,
            "--json",
            "--as-of",
            AS_OF.isoformat(),
            *extra,
        ]

    long_query = " ".join(["zebra crossing"] * 800)[:10_000]
    syntax = (
        'tenant:other AND zebra OR (walrus) "pelican" +must -not field:value^9 wild* fuzz~2 [a TO z] {x} \\ ! '
        "&& || '1'='1' --"
    )
    control = "zebra\x1b[31m crossing\x1b[0m\x07\x7f\u200b\u202e walrus\r\n"
    undecodable = b"zebra caf\xe9 \xff\xfe crossing"  # not UTF-8: arrives as lone surrogates in argv
    empty, long_result, syntax_result, control_result, raw_search, raw_ask = cli_many(
        [
            search(" \t\x01\x02 "),
            search(long_query),
            search(syntax),
            search(control),
            search(undecodable),  # type: ignore[arg-type]
            ["ask", undecodable, "--as", base.user_file, "--index", base.index, "--model", "local", "--json"],
        ],
        parallel=4,
    )
    for proc in (raw_search, raw_ask):
        assert proc.returncode in (0, 1), (proc.returncode, proc.stderr[-2000:])
        assert not proc.stderr.strip(), proc.stderr[-2000:]
    assert [r["doc_id"] for r in search_json(raw_search)["results"]][:1] == ["good-zebra"]
    assert json.loads(raw_ask.stdout)["disposition"] in ("answered", "abstained")
    assert_one_error_line(empty, "empty query")
    data = search_json(long_result)
    assert any("cut" in note for note in data.get("notes", [])), data.get("notes")
    assert 0 < len(data["query"]) <= 1000
    assert {r["doc_id"] for r in data["results"]} == {"good-zebra"}
    for proc in (syntax_result, control_result):
        data = search_json(proc)  # exit 0 or 1 with JSON, nothing on stderr
        assert not proc.stderr.strip(), proc.stderr
        assert {r["doc_id"] for r in data["results"]} <= {d for d, _ in GOOD.values()}
        assert "\x1b" not in proc.stdout.replace("\\u001b", "")


QUERIES_THAT_ARE_JUST_TEXT = [
    'tenant:other AND zebra OR (walrus) "pelican" +must -not field:value^9 wild* fuzz~2 [a TO z] {x} \\ / ! && || ::',
    "zebra' OR '1'='1'; DROP TABLE passages; --",
    "*",
    "?",
    "acl:everyone user:kim valid_from:[* TO *] row:0",
    "zebra " + "(" * 200 + ")" * 200,
    "zebra\x00crossing\x00",
    "\ud800 lone surrogate zebra \udfff",
    "zebra\x1b[31m crossing\x1b[0m",
    "zebra\u200b\u202ewalrus",
    "ﬁle ｚｅｂｒａ",
    "zebra " * 5000,
]


def test_queries_are_only_text_through_the_library(base: Base) -> None:
    from ragcli.errors import InputError
    from ragcli.principal import load_principal
    from ragcli.search import Retriever, SearchConfig

    kim = load_principal(base.user_file)
    allowed = {d for d, _ in GOOD.values()}
    retriever = Retriever(base.index, embedder=shared_embedder())
    try:
        for mode in ("hybrid", "bm25", "dense"):
            config = SearchConfig(mode=mode)  # type: ignore[arg-type]
            for query in QUERIES_THAT_ARE_JUST_TEXT:
                response = retriever.search(Scope.of(kim, AS_OF), query, config=config)
                assert {r.passage.doc_id for r in response.results} <= allowed
                assert len(response.query) <= 1000 and "\x00" not in response.query
            for empty in ("", "\x00\x00", "\u200b", "\x1b", " \n\t"):
                with pytest.raises(InputError, match="empty query"):
                    retriever.search(Scope.of(kim), empty, config=config)
        found = retriever.search(Scope.of(kim, AS_OF), "zebra\x00crossing", config=SearchConfig(mode="bm25"))
        assert [r.passage.doc_id for r in found.results] == ["good-zebra"]
        stars = retriever.search(Scope.of(kim, AS_OF), "*", config=SearchConfig(mode="bm25"))
        assert stars.results == []  # a wildcard is not a query that matches everything
    finally:
        retriever.close()


@pytest.mark.slow
def test_query_syntax_cannot_reach_another_tenant(base: Base, tmp_path: Path) -> None:
    from ragcli import ingest
    from ragcli.principal import load_principal
    from ragcli.search import Retriever, SearchConfig

    index = tmp_path / "index"
    shutil.copytree(base.index, index)
    other = tmp_path / "other"
    write_markdown(
        other / "secret.md",
        {"id": "other-secret", "acl": ["everyone"]},
        "Zebra quokka merger plans of the other tenant.\n",
    )
    ingest(other, "otherco", index=index, embedder=shared_embedder())
    queries = [
        "tenant:otherco quokka",
        "quokka merger",
        'tenant:"otherco" OR acl:everyone quokka',
        "../otherco quokka zebra",
        "otherco",
    ]
    kim = load_principal(base.user_file)
    retriever = Retriever(index, embedder=shared_embedder())
    try:
        for query in queries:
            for mode in ("hybrid", "bm25", "dense"):
                response = retriever.search(Scope.of(kim, AS_OF), query, config=SearchConfig(mode=mode))  # type: ignore[arg-type]
                assert all(
                    r.passage.tenant == TENANT and not r.passage.doc_id.startswith("other") for r in response.results
                )
    finally:
        retriever.close()
    results = cli_many(
        [
            [
                "search",
                "tenant:otherco quokka merger zebra",
                "--as",
                base.user_file,
                "--index",
                index,
                "--json",
                "--mode",
                m,
            ]
            for m in ("bm25", "hybrid")
        ],
        parallel=2,
    )
    for mode, proc in zip(("bm25", "hybrid"), results, strict=True):
        data = search_json(proc)
        assert data["tenant"] == TENANT
        assert all("quokka" not in r["text"].lower() for r in data["results"]), data
        if mode == "bm25":
            assert [r["doc_id"] for r in data["results"]][:1] == ["good-zebra"], data
        else:
            # Nothing here is close in meaning and the query names nothing this tenant holds
            # ("tenant:otherco" is only text): the topic gate drops the one-word match.
            assert data["results"] == [] and any("off-topic" in note for note in data["notes"]), data
    assert os.path.isdir(index / "otherco")
