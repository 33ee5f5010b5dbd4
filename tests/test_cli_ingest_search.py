"""The ``ragcli`` command as a user runs it: real subprocesses, exit codes, one-line errors, JSON shapes."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from support.cli import assert_one_error_line, clean_env, cli, cli_many, invoke, json_of
from support.corpus import all_passages, markdown, write
from support.paths import SAMPLE, USERS

from ragcli import ingest
from ragcli.embedder import VOCAB_PATH
from ragcli.search import SearchConfig

ALICE = USERS / "alice.json"
NOW = "2026-11-29"
BAD_TENANTS = ["../x", "/abs", "A B", "a/b", "", "x" * 65]

REPORT_KEYS = {
    "tenant",
    "left_out",
    "limits",
    "root",
    "documents",
    "passages",
    "embedded",
    "seconds",
    "generation",
    "skipped",
    "empty",
    "index",
    "warnings",
}
RESULT_KEYS = {
    "rank",
    "id",
    "doc_id",
    "title",
    "heading_path",
    "source",
    "source_path",
    "pages",
    "ocr",
    "text",
    "score",
    "bm25",
    "dense",
    "more_from_document",
}


def small_corpus(root: Path) -> Path:
    write(
        root / "faq.md",
        markdown(
            {"id": "faq", "title": "FAQ", "acl": ["everyone"]},
            "# FAQ\n\n## Passwords\n\nReset your password from the login page.\n\n## Billing\n\n"
            "Invoices are sent on the first day of the month.\n",
        ),
    )
    write(
        root / "ops" / "runbook.md",
        markdown({"acl": ["sre"]}, "# Runbook\n\nRestart the flux capacitor with `fluxctl restart`.\n"),
    )
    write(root / "open.txt", "Office hours are nine to five.\n")
    return root


def user_file(tmp_path: Path, data, name: str = "user.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


# --------------------------------------------------------------------------- ingest


@pytest.mark.slow
def test_ingest_search_status_round_trip(tmp_path, embedder):
    docs, index = small_corpus(tmp_path / "docs"), tmp_path / "index"
    exe = shutil.which("ragcli")
    first = cli("ingest", docs, "--tenant", "t", "--index", index, "--json", "--acl", "everyone")
    assert first.returncode == 0, first.stderr
    report = json_of(first)
    assert set(report) == REPORT_KEYS
    assert set(report["documents"]) == {"added", "updated", "unchanged", "deleted", "rejected", "withdrawn"}
    assert report["tenant"] == "t" and report["documents"]["added"] == 3 and report["documents"]["rejected"] == []
    assert report["passages"] == report["embedded"] == 4
    assert report["generation"].startswith("gen-")

    # Passage ids are the same in a separate process and a separate index.
    ingest(docs, "t", index=tmp_path / "in-process", embedder=embedder, default_acl=["everyone"])
    assert [p.id for p in all_passages(index, "t")] == [p.id for p in all_passages(tmp_path / "in-process", "t")]

    # The console script is the same program; an unchanged folder embeds nothing.
    args = ["ingest", str(docs), "--tenant", "t", "--index", str(index), "--json", "--acl", "everyone"]
    if exe:
        again = subprocess.run([exe, *args], capture_output=True, text=True, env=clean_env(None), timeout=120)
    else:
        again = cli(*args)
    assert again.returncode == 0, again.stderr
    assert json_of(again)["embedded"] == 0 and json_of(again)["documents"]["unchanged"] == 3

    sre = user_file(tmp_path, {"user": "sam", "tenant": "t", "groups": ["sre"]})
    nobody = user_file(tmp_path, {"user": "nobody", "tenant": "t", "groups": []}, "nobody.json")
    found, hidden, status = cli_many(
        [
            ["search", "fluxctl restart", "--as", sre, "--index", index, "--json"],
            ["search", "fluxctl restart", "--as", nobody, "--index", index, "--json", "--mode", "bm25"],
            ["status", "--index", index, "--json"],
        ]
    )
    assert found.returncode == 0, found.stderr
    assert json_of(found)["results"][0]["doc_id"] == "ops-runbook"
    assert hidden.returncode == 1 and json_of(hidden)["results"] == []
    assert status.returncode == 0, status.stderr
    tenant = json_of(status)["tenants"][0]
    assert (
        tenant["tenant"],
        tenant["documents"],
        tenant["passages"],
        tenant["orphan_vectors"],
        tenant["stale_entries"],
    ) == ("t", 3, 4, 0, 0)


@pytest.mark.slow
def test_ingest_reports_rejections_exit_2_and_commits_the_rest(tmp_path):
    docs, index = small_corpus(tmp_path / "docs"), tmp_path / "index"
    assert cli("ingest", docs, "--tenant", "t", "--index", index, "--acl", "everyone").returncode == 0
    write(docs / "faq.md", "---\nid: faq\nacl: [everyone\n---\n# FAQ\n\nBroken now.\n")
    write(docs / "open.txt", "Office hours are now ten to six.\n")
    write(docs / "bad.md", b"\xff\xfe binary junk")
    proc = cli("ingest", docs, "--tenant", "t", "--index", index, "--json", "--acl", "everyone")
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    # One line per reason, then the summary, then what was withdrawn.
    assert len(lines) == 4 and all(line.startswith("error: rejected ") for line in lines[:3])
    assert any("faq.md" in line and "YAML" in line for line in lines)
    assert any("bad.md" in line and "UTF-8" in line for line in lines)
    assert lines[2] == "error: rejected 2 of 4 files (2 reasons); the rest was indexed"
    assert lines[3].startswith("error: withdrew 1 document whose new version was rejected: faq (faq.md)")
    report = json_of(proc)
    assert report["documents"]["updated"] == 1 and len(report["documents"]["rejected"]) == 2
    assert report["documents"]["withdrawn"] == [{"doc_id": "faq", "path": str((docs / "faq.md").resolve())}]
    texts: dict[str, str] = {}
    for p in all_passages(index, "t"):
        texts[p.doc_id] = (texts.get(p.doc_id, "") + "\n" + p.text).strip()
    assert texts["open"] == "Office hours are now ten to six."  # committed
    assert "faq" not in texts  # fail closed: the broken file's document is withdrawn, not kept
    assert "bad" not in texts


@pytest.mark.slow
def test_ingest_acl_default_and_documents_without_acl(tmp_path, capsys):
    docs = tmp_path / "docs"
    write(docs / "open.md", "# Open\n\nNo front matter here.\n")
    write(docs / "own.md", markdown({"acl": ["hr"]}, "# Own\n\nHas an ACL.\n"))
    with_acl = cli("ingest", docs, "--tenant", "t", "--index", tmp_path / "i2", "--acl", "support", "--acl", "ops")
    without = invoke(capsys, "ingest", docs, "--tenant", "t", "--index", tmp_path / "i1")
    line = assert_one_error_line(without, "rejected", "open.md", "no ACL", "--acl")
    assert "own.md" not in line
    assert with_acl.returncode == 0, with_acl.stderr
    assert {p.doc_id: p.acl for p in all_passages(tmp_path / "i2", "t")} == {"open": ("support", "ops"), "own": ("hr",)}


@pytest.mark.slow
def test_bad_tenant_names_are_one_error_line(tmp_path, capsys):
    docs = small_corpus(tmp_path / "docs")
    index = tmp_path / "index"
    for bad in BAD_TENANTS:
        assert_one_error_line(invoke(capsys, "ingest", docs, "--tenant", bad, "--index", index), "invalid tenant name")
        if bad:  # `status --tenant ""` means "all tenants" (reported as a cli.py bug)
            assert_one_error_line(invoke(capsys, "status", "--tenant", bad, "--index", index), "invalid tenant name")
    procs = cli_many(
        [["ingest", docs, "--tenant", bad, "--index", index] for bad in ("../x", "", "x" * 65)]
        + [["status", "--tenant", "/abs", "--index", index]]
    )
    for proc in procs:
        assert_one_error_line(proc, "invalid tenant name")
    assert not index.exists() or list(index.iterdir()) == []
    assert not (tmp_path / "x").exists() and not Path("/abs").exists()


def test_ingest_input_errors(tmp_path, capsys):
    assert_one_error_line(cli("ingest", tmp_path / "missing", "--tenant", "t"), "path not found")
    for args in (
        [tmp_path, "--tenant", "t", "--max-file-size", "x"],
        [tmp_path],  # no --tenant
        ["--tenant", "t"],  # no path
    ):
        assert_one_error_line(invoke(capsys, "ingest", *args))


# --------------------------------------------------------------------------- status


def test_status_json_shape(sample_index):
    proc = cli("status", "--index", sample_index.root, "--json")
    assert proc.returncode == 0, proc.stderr
    data = json_of(proc)
    assert set(data) == {"index", "tenants"} and data["index"] == str(sample_index.root)
    assert [t["tenant"] for t in data["tenants"]] == ["acme", "globex"]
    for t in data["tenants"]:
        assert set(t) == {
            "tenant",
            "generation",
            "last_ingest",
            "documents",
            "passages",
            "model",
            "chunker_version",
            "disk_bytes",
            "orphan_vectors",
            "stale_entries",
            "warnings",
            "pdf_pages_unread",
            "pdf_pages_ocr",
            "pdf_documents_unread",
        }
        assert t["warnings"] == []  # the index is owner-only
        assert (
            set(t["model"]) == {"id", "sha256", "dim"} and t["model"]["dim"] == 384 and len(t["model"]["sha256"]) == 64
        )
        assert t["orphan_vectors"] == 0 and t["stale_entries"] == 0
        assert t["passages"] == sample_index.reports[t["tenant"]].passages and t["disk_bytes"] > 0
        assert t["generation"] == sample_index.reports[t["tenant"]].generation
    assert {t["tenant"]: t["documents"] for t in data["tenants"]} == {"acme": 18, "globex": 10}


def test_status_errors(tmp_path, sample_index, capsys):
    assert_one_error_line(
        cli("status", "--index", tmp_path / "nothing-here"), "no tenant is indexed", "nothing-here", "ragcli ingest"
    )
    assert_one_error_line(
        invoke(capsys, "status", "--index", sample_index.root, "--tenant", "initech"), "unknown tenant 'initech'"
    )
    one = invoke(capsys, "status", "--index", sample_index.root, "--tenant", "globex", "--json")
    assert one.returncode == 0 and [t["tenant"] for t in json_of(one)["tenants"]] == ["globex"]


# --------------------------------------------------------------------------- search


def _check_result_shape(result: dict) -> None:
    assert set(result) == RESULT_KEYS
    assert isinstance(result["rank"], int) and isinstance(result["score"], float)
    assert isinstance(result["heading_path"], list) and all(isinstance(h, str) for h in result["heading_path"])
    assert result["id"].startswith(result["doc_id"] + "@") and "#" in result["id"]
    assert result["text"] and result["title"] and result["source"]
    assert result["bm25"] is not None or result["dense"] is not None
    for ranker in ("bm25", "dense"):
        hit = result[ranker]
        assert hit is None or (
            set(hit) == {"rank", "score"} and isinstance(hit["rank"], int) and isinstance(hit["score"], float)
        )


@pytest.mark.slow
def test_search_json_shape_and_explain(sample_index):
    plain, explained, env_index = cli_many(
        [
            ["search", "ERR_4021", "--as", ALICE, "--index", sample_index.root, "--as-of", NOW, "--json", "-k", "5"],
            [
                "search",
                "refund window",
                "--as",
                ALICE,
                "--index",
                sample_index.root,
                "--as-of",
                NOW,
                "--json",
                "--explain",
            ],
            ["search", "ERR_4021", "--as", ALICE, "--as-of", NOW, "--json", "-k", "5", "--mode", "bm25"],
        ],
        env={"RAGCLI_INDEX": str(sample_index.root)},
    )
    assert plain.returncode == 0, plain.stderr
    data = json_of(plain)
    assert set(data) == {"query", "tenant", "user", "as_of", "results"}
    assert (data["query"], data["tenant"], data["user"], data["as_of"]) == ("ERR_4021", "acme", "alice", NOW)
    assert 1 <= len(data["results"]) <= 5
    assert [r["rank"] for r in data["results"]] == list(range(1, len(data["results"]) + 1))
    for r in data["results"]:
        _check_result_shape(r)
    top = data["results"][0]
    assert top["id"].endswith("#err-4021") and top["heading_path"] == ["Details", "ERR_4021"]
    assert top["source"] == "https://docs.acme.example/api/errors"  # source_url when the document has one
    assert top["bm25"]["rank"] == 1 and top["dense"]["rank"] == 1

    assert explained.returncode == 0, explained.stderr
    ex = json_of(explained)
    assert set(ex) == {"query", "tenant", "user", "as_of", "results", "explain"}
    e = ex["explain"]
    assert {"mode", "floors", "rrf_k", "candidates", "bm25", "dense"} <= set(e)
    defaults = SearchConfig()
    assert e["mode"] == "hybrid" and e["rrf_k"] == defaults.rrf_k and e["candidates"] == defaults.candidates
    assert e["floors"] == {
        "bm25": defaults.bm25_floor,
        "dense": defaults.dense_floor,
        "bm25_only_min_terms": defaults.bm25_only_min_terms,
    }
    assert e["bm25"] and e["dense"]
    for cand in e["bm25"] + e["dense"]:
        assert set(cand) == {"id", "rank", "score", "kept", "status"}
        assert cand["kept"] == (cand["status"] in ("in_results", "cut_at_k", "more_from_document"))
    in_results = {c["id"] for c in e["bm25"] + e["dense"] if c["status"] == "in_results"}
    assert in_results == {r["id"] for r in ex["results"]}
    floor = e["floors"]["dense"]
    assert all(c["kept"] == (c["score"] >= floor) for c in e["dense"] if abs(c["score"] - floor) > 1e-3)
    assert any(not c["kept"] for c in e["dense"])  # the floor really cut something
    kept = {c["id"] for c in e["bm25"] + e["dense"] if c["kept"]}
    assert {r["id"] for r in ex["results"]} <= kept

    # RAGCLI_INDEX is honoured when --index is not given.
    assert env_index.returncode == 0, env_index.stderr
    assert json_of(env_index)["results"][0]["id"] == top["id"]


def _acme_source(source: str) -> bool:
    return "acme.example/" in source or source.startswith(str(SAMPLE / "acme") + "/")


@pytest.mark.slow
def test_search_results_stay_in_the_principals_tenant(sample_index):
    alice, gina = cli_many(
        [
            [
                "search",
                "tenant:globex refund window",
                "--as",
                ALICE,
                "--index",
                sample_index.root,
                "--as-of",
                NOW,
                "--json",
            ],
            [
                "search",
                "refund policy annual plans",
                "--as",
                USERS / "gina.json",
                "--index",
                sample_index.root,
                "--as-of",
                NOW,
                "--json",
                "-k",
                "20",
            ],
        ]
    )
    assert alice.returncode == 0, alice.stderr
    assert json_of(alice)["tenant"] == "acme"
    results = json_of(alice)["results"]
    assert results and all(_acme_source(r["source_path"]) for r in results)
    assert results[0]["doc_id"] == "refunds-policy" and re.match(
        r"refunds-policy@2026-09\.[0-9a-f]{6}#", results[0]["id"]
    )
    assert gina.returncode == 0, gina.stderr
    assert json_of(gina)["tenant"] == "globex"
    results = json_of(gina)["results"]
    assert results and not any(_acme_source(r["source_path"]) for r in results)
    assert all(r["source_path"].startswith(str(SAMPLE / "globex") + "/") for r in results)


@pytest.mark.slow
def test_search_exit_codes(sample_index, tmp_path, capsys):
    idx = sample_index.root
    mongolia, empty, bad_k = cli_many(
        [
            ["search", "What is the capital of Mongolia?", "--as", ALICE, "--index", idx, "--json"],
            ["search", "", "--as", ALICE, "--index", idx],
            ["search", "refund", "--as", ALICE, "--index", idx, "-k", "0"],
        ]
    )
    bad_day = invoke(capsys, "search", "refund", "--as", ALICE, "--index", idx, "--as-of", "yesterday")
    syntax = invoke(
        capsys,
        "search",
        'AND OR NOT " ( ) [ ] { } : * - ^ ~ \\ / [unbalanced',
        "--as",
        ALICE,
        "--index",
        idx,
        "--json",
        "--mode",
        "bm25",
    )
    assert mongolia.returncode == 1 and json_of(mongolia)["results"] == [] and mongolia.stderr == ""
    assert_one_error_line(empty, "empty query")
    assert_one_error_line(bad_day, "--as-of", "YYYY-MM-DD")
    assert_one_error_line(bad_k, "-k")
    assert syntax.returncode in (0, 1) and "Traceback" not in syntax.stderr
    json_of(syntax)

    sourdough = invoke(capsys, "search", "best sourdough bread recipe", "--as", ALICE, "--index", idx)
    assert (
        sourdough.returncode == 1 and "no results" in sourdough.stderr and sourdough.stdout == ""
    )  # a pipe gets no non-row line
    blank = invoke(capsys, "search", "   \t ", "--as", ALICE, "--index", idx, "--json")
    assert_one_error_line(blank, "empty query")
    assert blank.stdout == ""
    assert_one_error_line(
        invoke(capsys, "search", "refund", "--as", ALICE, "--index", idx, "--as-of", "2026-02-30"), "--as-of"
    )
    assert_one_error_line(
        invoke(capsys, "search", "refund", "--as", ALICE, "--index", idx, "--mode", "fuzzy"), "--mode"
    )
    assert_one_error_line(invoke(capsys, "search", "refund", "--index", idx), "--as")
    assert_one_error_line(
        invoke(capsys, "search", "refund", "--as", ALICE, "--index", tmp_path / "empty"), "unknown tenant 'acme'"
    )
    assert_one_error_line(
        invoke(capsys, "search", "refund", "--as", ALICE, "--index", idx, "--candidates", "0"), "--candidates"
    )
    assert_one_error_line(invoke(capsys, "bogus-command"), "bogus-command")


PRINCIPAL_ERRORS = {
    "not-json": ("{user: alice", "not valid JSON"),
    "not-utf8": (b"\xff\xfe{}", "not valid JSON"),
    "array": ([{"user": "alice", "tenant": "acme"}], "JSON object"),
    "groups-string": ({"user": "alice", "tenant": "acme", "groups": "support"}, "groups"),
    "user-number": ({"user": 42, "tenant": "acme", "groups": []}, "user"),
    "group-number": ({"user": "alice", "tenant": "acme", "groups": [1]}, "groups"),
    "missing-tenant": ({"user": "alice", "groups": ["support"]}, "tenant"),
    "missing-user": ({"tenant": "acme"}, "user"),
    "empty-user": ({"user": "  ", "tenant": "acme"}, "user"),
    "unknown-tenant": ({"user": "alice", "tenant": "initech"}, "unknown tenant 'initech'"),
    "tenant-path": ({"user": "alice", "tenant": "../acme"}, "tenant"),
    "tenant-upper": ({"user": "alice", "tenant": "ACME"}, "tenant"),
    "tenant-long": ({"user": "alice", "tenant": "a" * 65}, "tenant"),
    "extra-field": ({"user": "alice", "tenant": "acme", "admin": True}, "admin"),
    "long-user": ({"user": "a" * 10_000, "tenant": "acme"}, "user"),
    "long-group": ({"user": "alice", "tenant": "acme", "groups": ["g" * 300]}, "groups"),
    "many-groups": ({"user": "alice", "tenant": "acme", "groups": [f"g{i}" for i in range(300)]}, "groups"),
    "huge-file": ({"user": "alice", "tenant": "acme", "pad": "x" * 70_000}, "64 KiB"),
    "missing-file": (None, "cannot read user file"),
}


@pytest.mark.slow
def test_principal_file_errors_are_one_error_line(sample_index, tmp_path, capsys):
    paths = {}
    for name, (data, _) in PRINCIPAL_ERRORS.items():
        path = paths[name] = tmp_path / f"{name}.json"
        if isinstance(data, bytes):
            path.write_bytes(data)
        elif data is not None:
            path.write_text(data if isinstance(data, str) else json.dumps(data))
    for name, (_, needle) in PRINCIPAL_ERRORS.items():
        proc = invoke(capsys, "search", "refund", "--as", paths[name], "--index", sample_index.root, "--mode", "bm25")
        line = assert_one_error_line(proc, needle)
        assert len(line) < 600, (name, len(line))  # a 10,000-character value is not echoed back
        assert proc.stdout == "", name
    # The same contract through real processes, for a few of them.
    some = ["not-json", "groups-string", "unknown-tenant", "long-user"]
    procs = cli_many([["search", "refund", "--as", paths[name], "--index", sample_index.root] for name in some])
    for name, proc in zip(some, procs, strict=True):
        assert_one_error_line(proc, PRINCIPAL_ERRORS[name][1])
        assert proc.stdout == ""


@pytest.mark.slow
def test_model_mismatch_tells_to_re_ingest(sample_index, other_model, capsys, monkeypatch):
    env = {"RAGCLI_EMBED_MODEL": str(other_model), "RAGCLI_EMBED_TOKENIZER": str(VOCAB_PATH)}
    hybrid, bm25, status = cli_many(
        [
            ["search", "refund window", "--as", ALICE, "--index", sample_index.root],
            ["search", "refund window", "--as", ALICE, "--index", sample_index.root, "--mode", "bm25", "--json"],
            ["status", "--index", sample_index.root],
        ],
        env=env,
    )
    for proc in (hybrid, status):
        assert_one_error_line(proc, "re-ingest")
    assert bm25.returncode == 0 and json_of(bm25)["results"]  # BM25 never touches the vectors
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    dense = invoke(
        capsys, "search", "refund window", "--as", ALICE, "--index", sample_index.root, "--mode", "dense", "--json"
    )
    assert_one_error_line(dense, "re-ingest")
    assert dense.stdout == ""
    monkeypatch.delenv("RAGCLI_EMBED_TOKENIZER")
    assert_one_error_line(
        invoke(capsys, "search", "refund", "--as", ALICE, "--index", sample_index.root), "RAGCLI_EMBED_TOKENIZER"
    )


def test_cli_runner_quick_checks(sample_index):
    from typer.testing import CliRunner

    from ragcli.cli.app import app

    runner = CliRunner()
    helped = runner.invoke(app, ["--help"])
    assert helped.exit_code == 0
    for command in ("ingest", "search", "status"):
        assert command in helped.output
    found = runner.invoke(
        app,
        [
            "search",
            "ORB-7731",
            "--as",
            str(ALICE),
            "--index",
            str(sample_index.root),
            "--mode",
            "bm25",
            "--json",
            "--as-of",
            NOW,
        ],
    )
    assert found.exit_code == 0, found.output
    assert json.loads(found.stdout)["results"][0]["id"].endswith("#orb-7731")


@pytest.mark.slow
def test_search_table_output(sample_index):
    proc = cli("search", "ERR_4021", "--as", ALICE, "--index", sample_index.root, "--as-of", NOW, "-k", "3")
    assert proc.returncode == 0, proc.stderr
    assert "error-codes@" in proc.stdout and "ERR_4021" in proc.stdout
    assert "3 results for alice in acme" in proc.stderr  # in a pipe stdout holds only the header and rows
