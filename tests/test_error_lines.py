"""The ``error:`` line of a bad user file, manifest or trace line, held word for word.

These records became ``checked`` records (pydantic-core without pydantic, issue 36) after years as pydantic
models; every line below is the one the models printed, recorded from the code before the change (one
exception, marked at its case). A change of wording fails here instead of surprising a script that greps it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from support.cli import invoke, stderr_lines
from support.paths import USERS

ALICE = USERS / "alice.json"

USER_FILES = [
    (b"{", " is not valid JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"),
    (b"", " is not valid JSON: Expecting value: line 1 column 1 (char 0)"),
    (b"[]", ": expected a JSON object with user, tenant and groups"),
    (b'{"user": "a", "tenant": "acme", "tenant": "globex"}', ": key 'tenant' appears twice; remove one"),
    (
        b'{"user": "\xff"}',
        " is not valid JSON: 'utf-8' codec can't decode byte 0xff in position 10: invalid start byte",
    ),
    (b'{"user": 7, "tenant": "acme", "admin": true}', ": field 'user' must be text (got 7)"),
    (b'{"user": "a", "tenant": "acme", "admin": true}', ": unknown key 'admin'"),
    (b'{"user": "a", "tenant": "acme", "grops": []}', ": unknown key 'grops' (did you mean 'groups'?)"),
    (b'{"tenant": "acme"}', ": field 'user' is required"),
    (
        b'{"user": "a", "tenant": "../etc"}',
        ": field 'tenant' is not a valid tenant name: use 1-64 characters of a-z, 0-9, '_' or '-', starting with a "
        "letter or digit (got '../etc')",
    ),
    (b'{"user": "a", "tenant": "acme", "as_of": "today"}', ": field 'as_of' must be an object (got 'today')"),
    (
        b'{"user": "a", "tenant": "acme", "as_of": {"max": "2026-02-30"}}',
        ": field 'as_of.max' '2026-02-30' is not a real date (got '2026-02-30')",
    ),
    (b'{"user": "a", "tenant": "acme", "as_of": {"until": "today"}}', ": unknown key 'until'"),
    (b'{"user": "a", "tenant": "acme", "groups": "hr"}', ": field 'groups' must be a list (got 'hr')"),
    (b'{"user": "a", "tenant": "acme", "groups": ["hr", 1]}', ": field 'groups.1' must be text (got 1)"),
    (
        '{"user": "a", "tenant": "acme", "groups": ["t\u0435am"]}'.encode(),
        ": field 'groups.0' holds U+0435 CYRILLIC SMALL LETTER IE, which makes it look like another name; type it "
        "plainly (got 't\u0435am')",
    ),
    (b'{"user": "  ", "tenant": "acme"}', ": field 'user' must not be empty (got ' ')"),
    (
        b'{"user": "a", "tenant": "acme", "groups": [' + b'"g",' * 256 + b'"g"]}',
        ": field 'groups' must have at most 256 items (got ['g', 'g', 'g', 'g', 'g', 'g', 'g', 'g', 'g', 'g', 'g', "
        "'...)",
    ),
]


@pytest.mark.parametrize("raw, said", USER_FILES, ids=range(len(USER_FILES)))
def test_a_bad_user_file_says_what_it_always_said(capsys, tmp_path: Path, raw: bytes, said: str) -> None:
    user = tmp_path / "u.json"
    user.write_bytes(raw)
    proc = invoke(capsys, "search", "refund", "--as", user, "--index", tmp_path / "index", "--json")
    assert (proc.returncode, stderr_lines(proc)) == (2, [f"error: user file {user}{said}"])


def test_a_user_file_bound_says_what_it_always_said(capsys, tmp_path: Path) -> None:
    user = tmp_path / "u.json"
    user.write_text('{"user": "alice", "tenant": "acme", "as_of": {"max": "2020-01-01"}}', encoding="utf-8")
    proc = invoke(capsys, "search", "refund", "--as", user, "--as-of", "2026-12-01", "--index", tmp_path)
    assert stderr_lines(proc) == ["error: as-of date 2026-12-01 is after 2020-01-01, the latest the user file allows"]


GENERATION = "gen-20260101T000000-aaaaaaaa"
MANIFEST: dict[str, Any] = {
    "format": 4,
    "tenant": "acme",
    "generation": GENERATION,
    "created": "2026-01-01T00:00:00+00:00",
    "chunker_version": 8,
    "model": {"id": "m", "sha256": "0" * 64, "dim": 384, "pooling": "mean"},
    "passages": 2,
    "groups": ["everyone"],
    "documents": 1,
    "checksums": {"bm25": [1, 2]},
    "units_version": None,
    "units": None,
    "root": "/docs",
}
DAMAGED = "error: index of tenant 'acme' is damaged: {}; re-ingest to rebuild it (ragcli ingest PATH --tenant acme)"
NOT_VALID = DAMAGED.format("manifest.json is not a valid manifest")
LEGACY = {**{k: v for k, v in MANIFEST.items() if k != "root"}, "format": 1}
DOCUMENT = {"key": "/d.md", "doc_id": "d", "version": "1", "source": "d.md", "fingerprint": "f", "passage_ids": ["p"]}


def _sealed(manifest: dict[str, Any]) -> dict[str, Any]:
    canonical = json.dumps(manifest, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return {**manifest, "seal": hashlib.sha256(canonical.encode("utf-8")).hexdigest()}


def _changed(**fields: Any) -> dict[str, Any]:
    return _sealed({k: v for k, v in {**MANIFEST, **fields}.items() if v is not KeyError})


MANIFESTS: list[tuple[object, str]] = [
    (b"{", NOT_VALID),
    (b"", NOT_VALID),
    (b"[]", NOT_VALID),
    (_changed(passages=KeyError), NOT_VALID),
    (_changed(extra=1), NOT_VALID),
    (_changed(passages="one"), NOT_VALID),
    (_changed(model="m"), NOT_VALID),
    (_changed(model={"id": "m", "sha256": "0", "pooling": "mean"}), NOT_VALID),
    (_changed(model={"id": "m", "sha256": "0", "dim": 384, "pooling": "mean", "x": 1}), NOT_VALID),
    (_changed(groups="everyone"), NOT_VALID),
    (_changed(checksums={"bm25": "x"}), NOT_VALID),
    (_changed(root=5), NOT_VALID),
    (_changed(format=99), "error: index of tenant 'acme' has format 99, this ragcli reads 4; re-ingest"),
    (_changed(tenant="globex"), DAMAGED.format("manifest names tenant 'globex'")),
    ({**_changed(), "seal": "0" * 64}, DAMAGED.format("manifest.json does not match its seal")),
    ({**_changed(), "passages": True}, DAMAGED.format("manifest.json does not match its seal")),  # read as 1
    ({**LEGACY, "documents": [{}]}, NOT_VALID),
    ({**LEGACY, "documents": "d"}, NOT_VALID),
    ({**LEGACY, "documents": [DOCUMENT], "zzz": 1}, NOT_VALID),
    ({**LEGACY, "documents": [{**DOCUMENT, "pdf": {"pages": 1, "unread_because": "x"}}]}, NOT_VALID),
    (
        {**LEGACY, "documents": [DOCUMENT], "format": 7},
        "error: index of tenant 'acme' has format 7, this ragcli reads 4; re-ingest",
    ),
]


@pytest.mark.parametrize("manifest, line", MANIFESTS, ids=range(len(MANIFESTS)))
def test_a_bad_manifest_says_what_it_always_said(capsys, tmp_path: Path, manifest: object, line: str) -> None:
    generation = tmp_path / "acme" / GENERATION
    generation.mkdir(parents=True)
    (tmp_path / "acme" / "CURRENT").write_text(GENERATION, encoding="utf-8")
    raw = manifest if isinstance(manifest, bytes) else json.dumps(manifest).encode("utf-8")
    (generation / "manifest.json").write_bytes(raw)
    proc = invoke(capsys, "search", "refund", "--as", ALICE, "--index", tmp_path, "--mode", "bm25", "--json")
    assert (proc.returncode, stderr_lines(proc)) == (2, [line])


TRACE: dict[str, Any] = {
    "request_id": "0" * 32,
    "time": "2026-12-01T00:00:00.000+00:00",
    "user": "alice",
    "tenant": "acme",
    "groups": ["support"],
    "as_of": "2026-12-01",
    "model": "local",
    "prompt_version": "p",
    "generation": GENERATION,
    "search_config": {"k": 10},
    "searches": [{"query": "q", "bm25": [["a", 1, 1.0]], "dense": [], "selected": ["a"], "new": ["a"], "ms": 1.0}],
    "decisions": [{"turn": 1, "offered": ["search"], "tool": "search", "valid": True, "kind": "search"}],
}
NOT_A_TRACE = "error: not a trace line: the trace line: "


def _trace(**fields: Any) -> str:
    return json.dumps({k: v for k, v in {**TRACE, **fields}.items() if v is not KeyError})


TRACES = [
    ("{", "error: the trace line: not valid JSON (Expecting property name enclosed in double quotes)"),
    (_trace(user=KeyError), NOT_A_TRACE + "field 'user' is required"),
    (_trace(as_of="2026-13-01"), NOT_A_TRACE + "field 'as_of' must be a date (YYYY-MM-DD) (got '2026-13-01')"),
    (_trace(searches="x"), NOT_A_TRACE + "field 'searches' must be a list (got 'x')"),
    (_trace(searches=[1]), NOT_A_TRACE + "field 'searches.0' must be an object (got 1)"),
    (
        _trace(searches=[{**TRACE["searches"][0], "bm25": [["a", "b", 1.0]]}]),
        NOT_A_TRACE + "field 'searches.0.bm25.0.1' must be a whole number (got 'b')",
    ),
    # Was "field 'usage' Input should be a dictionary or an instance of Usage (got 'x')": pydantic's words for a
    # plain dataclass, which the formatter did not know; every other field not given an object says this.
    (_trace(usage="x"), NOT_A_TRACE + "field 'usage' must be an object (got 'x')"),
    (_trace(usage={"input_tokens": "x"}), NOT_A_TRACE + "field 'usage.input_tokens' must be a whole number (got 'x')"),
    (_trace(latency_ms=[]), NOT_A_TRACE + "field 'latency_ms' must be an object (got [])"),
    (
        _trace(decisions=[{**TRACE["decisions"][0], "kind": "bogus"}]),
        NOT_A_TRACE + "field 'decisions.0.kind' must be one of 'search', 'claims', 'abstain', 'parts' or 'grade' "
        "(got 'bogus')",
    ),
    (_trace(embedding_model={"id": "x"}), NOT_A_TRACE + "field 'embedding_model.sha256' is required"),
    (_trace(checks=[{"claim": "x"}]), NOT_A_TRACE + "field 'checks.0.claim' must be a whole number (got 'x')"),
    (
        _trace(generation=None),
        "error: the trace line: this trace was written before traces recorded the index generation; it cannot be "
        "replayed",
    ),
]


@pytest.mark.parametrize("line, said", TRACES, ids=range(len(TRACES)))
def test_a_bad_trace_line_says_what_it_always_said(capsys, tmp_path: Path, line: str, said: str) -> None:
    proc = invoke(capsys, "trace", "replay", line, "--as", ALICE, "--index", tmp_path)
    assert (proc.returncode, stderr_lines(proc)) == (2, [said])
