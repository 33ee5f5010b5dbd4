"""Property-based fuzzing of every parser that takes outside input.

The property is the same everywhere: whatever the input, the function either
returns normally or raises one of ragcli's own RagcliError subclasses (which
the CLI prints as one ``error:`` line). Any other exception would be a
traceback for the user, so it fails the test. Where cheap, the test also
checks that what comes back still holds the function's promise.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from support.fixtures import shared_embedder

from ragcli.errors import RagcliError

FUZZ = settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck), database=None)
FEW = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), database=None)


def _tokens(*pieces: str, size: int = 60) -> st.SearchStrategy[str]:
    """Text assembled from meaningful fragments plus arbitrary characters."""
    return st.lists(st.one_of(st.sampled_from(pieces), st.text(max_size=4)), max_size=size).map("".join)


# Any code point, lone surrogates included: a "\ud800" escape in JSON or YAML decodes to one.
any_text = st.text(st.characters(exclude_categories=()), max_size=12)
json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=12) | any_text
json_values = st.recursive(
    json_scalars, lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=8), c, max_size=3), max_leaves=12
)
yaml_values = st.recursive(
    json_scalars | st.dates() | st.datetimes(),
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=8), c, max_size=3),
    max_leaves=8,
)


def _only_ragcli_errors(call, *args, **kwargs):  # type: ignore[no-untyped-def]
    try:
        return call(*args, **kwargs)
    except RagcliError:
        return None


# --------------------------------------------------------------------------- documents

YAML_PIECES = (
    "---\n",
    "id: ",
    "acl: ",
    "version: ",
    "title: ",
    "effective_from: ",
    "superseded_on: ",
    "source_url: ",
    "[",
    "]",
    "{",
    "}",
    ": ",
    "- ",
    "&a ",
    "*a",
    "!!python/object:os.system ",
    "!!binary ",
    "? ",
    "|\n",
    ">\n",
    "2026-02-30",
    "2026-01-01",
    "2026-01-01 10:00:00",
    "1e999",
    "0x1F",
    "~",
    "null",
    "yes",
    "\t",
    "\n",
    "'",
    '"',
    "#",
    '"\\ud800"',
    '"\\udc80x"',
    '"\\x00"',
)


@pytest.mark.slow
@FUZZ
@given(_tokens(*YAML_PIECES, "body text\n", "# Heading\n"))
@example("---\nacl: &a [*a]\n---\nbody")
@example('---\ntitle: "bad \\ud800"\nacl: ["\\udc00"]\n---\nbody')
@example("---\n" + "[" * 2000 + "\n---\nbody")
@example("---\neffective_from: 2026-02-30\n---\n")
@example("---\n!!python/object/apply:os.system ['echo pwned']\n---\n")
def test_front_matter_and_metadata(text: str) -> None:
    from ragcli.ingestion.metadata import split_front_matter, validate_metadata

    parsed = _only_ragcli_errors(split_front_matter, text, "fuzz.md")
    if parsed is not None:
        meta, body = parsed
        assert isinstance(meta, dict) and isinstance(body, str)
        _only_ragcli_errors(validate_metadata, meta, "fuzz.md")


@FUZZ
@given(
    st.dictionaries(
        st.sampled_from(["id", "title", "version", "acl", "effective_from", "superseded_on", "source_url", "other"]),
        yaml_values,
    )
)
@pytest.mark.slow
@example({"acl": "hr"})
@example({"effective_from": dt.date(2026, 5, 1), "superseded_on": dt.date(2026, 1, 1)})
@example({"id": True})
@example({"title": "a\ud800", "acl": ["\udfff"]})
def test_validate_metadata_on_arbitrary_values(data: dict[str, object]) -> None:
    from ragcli.ingestion.metadata import validate_metadata

    meta = _only_ragcli_errors(validate_metadata, data, "fuzz")
    if meta is not None:
        # What passes validation is what the rest of the code relies on.
        assert meta.acl is None or (
            isinstance(meta.acl, list) and all(isinstance(a, str) and a.strip() for a in meta.acl)
        )
        for text in (meta.id, meta.title, meta.version, meta.source_url, *(meta.acl or ())):
            # Encodable: the chunker, tokenizer and index can take it (raises on a lone surrogate).
            # Compared with bytes, not truth: an empty title is valid and encodes to b"".
            assert text is None or isinstance(text.encode("utf-8"), bytes)
        for field in (meta.id, meta.version):
            assert field is None or (isinstance(field, str) and field and not set(field) & {"@", "#", " "})
        if meta.effective_from and meta.superseded_on:
            assert meta.effective_from < meta.superseded_on


MARKDOWN_PIECES = (
    "# ",
    "## ",
    "###### ",
    "\n",
    "\n\n",
    "- ",
    "* ",
    "1. ",
    "> ",
    "```\n",
    "~~~\n",
    "    code\n",
    "| a | b |\n",
    "|---|---|\n",
    "| 1 | 2 |\n",
    "<div>",
    "</div>",
    "---\n",
    "***\n",
    "[link](x)",
    "Sentence one. ",
    "Except when not. ",
    "ERR_4021 ",
    "\f",
    "\t",
    "word " * 30,
    "x" * 300,
    "!" * 50,
    "漢字" * 20,
)


@FEW
@given(_tokens(*MARKDOWN_PIECES, size=80), st.sampled_from(["markdown", "text", "html", "pdf"]), st.text(max_size=30))
@example("| a |\n|---|\n" + "| " + "cell " * 400 + "|\n", "markdown", "t")
@example("- a\n" + "  - b\n" * 300, "markdown", "t")
@example("#" * 7 + " not a heading\n", "markdown", "")
@example("\r0\r0", "markdown", "")  # markdown-it's lines end at a lone carriage return too
def test_chunk_document_on_arbitrary_text(text: str, fmt: str, title: str) -> None:
    from ragcli.ingestion.chunking import chunk_document
    from ragcli.ingestion.loaders import Document

    doc = Document(
        doc_id="fuzz-doc",
        title=title.strip() or "Fuzz",
        version="1",
        declared_version="1",
        acl=("everyone",),
        effective_from=None,
        superseded_on=None,
        source="fuzz.md",
        source_url=None,
        text=text,
        format=fmt,
        fingerprint="f",  # type: ignore[arg-type]
    )
    passages = _only_ragcli_errors(chunk_document, doc, "fuzzco", shared_embedder().count_tokens)
    if passages is not None:
        ids = [p.id for p in passages]
        assert len(ids) == len(set(ids)), ids  # passage IDs are unique within a document
        assert all(p.id.startswith("fuzz-doc@1#") and p.acl == ("everyone",) and p.tenant == "fuzzco" for p in passages)
        assert all(p.text.strip() for p in passages)


HTML_PIECES = (
    "<html>",
    "<head>",
    "<title>",
    "</title>",
    "<script>",
    "</script>",
    "<style>",
    "</style>",
    "<h1>",
    "</h1>",
    "<h7>",
    "<p>",
    "<table>",
    "<tr>",
    "<td>",
    "<th>",
    "</table>",
    "<ul>",
    "<li>",
    "<pre>",
    "</pre>",
    "<!--",
    "-->",
    "<![CDATA[",
    "]]>",
    "<!",
    "<?",
    "&amp;",
    "&#0;",
    "&#x110000;",
    "&#99999999;",
    "&bogus;",
    "<svg>",
    "<a href='",
    "'>",
    "</",
    ">",
    "<",
    "\x00",
    "text",
)


@FUZZ
@given(st.one_of(_tokens(*HTML_PIECES), st.text(st.characters(exclude_categories=()), max_size=80)))
@example("<![if x")
@example("<![<html>")  # Python's parser asserts on it ("expected name token")
@example("<script>never closed zzsecret")
@example("<td>cell outside a table</td><tr><td>a")
def test_html_to_markdown_on_arbitrary_text(html: str) -> None:
    from ragcli.ingestion.html import html_to_markdown

    result = _only_ragcli_errors(html_to_markdown, html)
    if result is not None:
        title, text = result
        assert isinstance(title, str) and isinstance(text, str)
        if (
            "<script>" in html
            and "zzsecret" in html
            and html.index("<script>") < html.index("zzsecret")
            and "</script>" not in html
        ):
            assert "zzsecret" not in text


# --------------------------------------------------------------------------- principals and eval cases

names = st.text(min_size=1, max_size=20).filter(str.strip)
good_tenants = st.from_regex(r"[a-z0-9][a-z0-9_-]{0,20}", fullmatch=True)
bad_tenants = st.sampled_from(["../x", "A", "a" * 65, "a b", "", "acme\x00", "-acme", "acme/x"])
# Well-formed principals, half of them with one field broken (a bad tenant, a blank or
# overlong group, an unknown key), beside arbitrary JSON: valid ones come often enough
# that the checks on an accepted principal run on many inputs, not only the rejections.
principal_shaped = st.fixed_dictionaries(
    {"user": names | st.sampled_from(["  kim  ", "", "   ", "k" * 257]), "tenant": good_tenants | bad_tenants},
    optional={"groups": st.lists(names | st.sampled_from(["", "  ", "g" * 257]), max_size=5), "admin": json_values},
)
# Valid names are of one script: a user file refuses an invisible or mixed-script name (U+200B, a Cyrillic е).
plain_names = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._@ -]{0,19}", fullmatch=True) | st.from_regex(
    r"[а-яё][а-яё0-9._-]{0,19}", fullmatch=True
)
valid_principals = st.fixed_dictionaries(
    {"user": plain_names, "tenant": good_tenants}, optional={"groups": st.lists(plain_names, max_size=5)}
)
principal_objects = st.one_of(
    valid_principals,
    principal_shaped,
    json_values,
    st.fixed_dictionaries(
        {},
        optional={
            "user": json_values | st.text(max_size=300),
            "tenant": json_values | st.sampled_from(["acme", "../x", "A", "a" * 65, "a b", "", "acme\x00"]),
            "groups": json_values | st.lists(st.text(max_size=20), max_size=5),
            "admin": json_values,
        },
    ),
)

# How many inputs each property test accepted in its last run: a property whose inputs are all
# rejected never runs its checks on an accepted value, and passes whatever the code does.
ACCEPTED: dict[str, int] = {}


def _accepts_some(name: str, prop, minimum: int, **fixtures) -> None:  # type: ignore[no-untyped-def]
    """Run the Hypothesis property ``prop`` and check that at least ``minimum`` inputs were accepted."""
    ACCEPTED[name] = 0
    prop(**fixtures)
    assert ACCEPTED[name] >= minimum, (
        f"{name}: only {ACCEPTED[name]} accepted inputs; the checks on an accepted value hardly ran"
    )


@FUZZ
@given(data=principal_objects)
@example(data={"user": "kim", "tenant": "acme", "groups": "hr"})
@example(data={"user": "kim", "tenant": "acme", "groups": [["nested"]]})
@example(data={"user": "k" * 10_000, "tenant": "acme"})
@example(data={"user": "k\ud800", "tenant": "acme", "groups": ["\udc00"]})
@example(data={"user": "kim", "tenant": "acme", "groups": ["support", "hr"]})  # valid
@example(data={"user": " kim ", "tenant": "a-1_b", "groups": [" hr ", "everyone"]})  # valid, padded
@example(data={"user": "kim", "tenant": "acme"})  # valid, no groups
def _principal_property(data: object) -> None:
    from ragcli.principal import TENANT_PATTERN, parse_principal

    principal = _only_ragcli_errors(parse_principal, data)
    if principal is not None:
        import re

        assert isinstance(data, dict)
        ACCEPTED["principal"] += 1
        assert re.fullmatch(TENANT_PATTERN, principal.tenant) and principal.tenant == data["tenant"]
        # Surrounding spaces are dropped (what counts as one differs from str.strip at \x1c-\x1f: compare stripped).
        assert principal.user.strip() == data["user"].strip() and principal.user == principal.user.strip(" \t\n")
        assert 0 < len(principal.user) <= 256
        assert tuple(g.strip() for g in principal.groups) == tuple(g.strip() for g in data.get("groups", ()))
        assert all(isinstance(g, str) and 0 < len(g) <= 256 for g in principal.groups)
        assert principal.acl_tokens() == {*principal.groups, "everyone", f"user:{principal.user}"}


def test_parse_principal_on_arbitrary_objects() -> None:
    _accepts_some("principal", _principal_property, 10)


CASE_PIECES = (
    '{"question": "',
    '", ',
    '"as": "',
    '"principal": ',
    '{"user": "u", "tenant": "acme"}',
    '"as_of": "',
    "2026-01-01",
    '"expect": "answer"',
    '"reason": "nope"',
    '"relevant": ["a"]',
    '"forbidden": 3',
    '"id": 1e999',
    "}",
    "{",
    "[",
    "]",
    "users.json",
    "../",
    "/etc/passwd",
    "\\u0000",
    "\\ud800",
    "null",
    ",",
    ":",
)


REASONS = ["no_visible_evidence", "citation_check_failed", "model_abstained", "invalid_decision", "budget_exhausted"]
valid_case_objects = st.fixed_dictionaries(
    {"question": st.text(min_size=1, max_size=40)},
    optional={
        "id": st.text(max_size=8) | st.integers(0, 10**6),
        "as_of": st.dates(dt.date(2000, 1, 1), dt.date(2100, 1, 1)).map(dt.date.isoformat),
        "expect": st.sampled_from(["answer", "abstain"]),
        "reason": st.sampled_from(REASONS),
        "relevant": st.lists(st.text(max_size=10), max_size=3),
        "forbidden": st.lists(st.text(max_size=10), max_size=3),
        "answer_contains": st.lists(st.text(min_size=1, max_size=10), max_size=3),
    },
).flatmap(
    lambda case: st.sampled_from(
        [
            {**case, "as": "users.json"},
            {**case, "principal": {"user": "u", "tenant": "acme"}},
            {**case, "principal": {"user": "v", "tenant": "acme", "groups": ["g"]}},
        ]
    )
)
valid_case_lines = valid_case_objects.map(json.dumps)
# One key broken or added: still mostly JSON objects with a question, so rejections are for a reason.
broken_case_lines = valid_case_objects.flatmap(
    lambda case: st.sampled_from(
        [
            {**case, "as": "users.json", "principal": {"user": "u", "tenant": "acme"}},
            {**case, "question": ""},
            {**case, "relevent": ["a"]},
            {**case, "as_of": "2026-02-30"},
            {**case, "expect": "maybe"},
            {k: v for k, v in case.items() if k not in ("as", "principal")},
        ]
    )
).map(json.dumps)
case_lines = st.one_of(valid_case_lines, broken_case_lines, _tokens(*CASE_PIECES, size=25))


@FUZZ
@given(
    lines=st.one_of(st.lists(valid_case_lines, min_size=1, max_size=4), st.lists(case_lines, min_size=1, max_size=4))
)
@example(lines=['{"question": "q", "as": "a\\u0000b"}'])
@example(lines=['{"question": "q", "as": ""}'])
@example(lines=['{"question": "q", "principal": {"user": "u", "tenant": "acme", "groups": "g"}}'])
@example(lines=['{"question": "\\ud800", "principal": {"user": "u", "tenant": "acme"}}'])
@example(lines=['{"question": "q", "as": "\\ud800.json"}'])
@example(lines=["[" * 50_000 + "]" * 50_000])
@example(lines=['{"question": "q", "principal": ' + "[" * 50_000 + "]" * 50_000 + "}"])
@example(
    lines=[
        '{"id": "v1", "question": "What does ERR_4021 mean?", "as": "users.json", "as_of": "2026-11-29", "expect": '
        '"answer", "relevant": ["error-codes"]}'
    ]
)  # valid
@example(
    lines=[
        '{"question": "q", "principal": {"user": "u", "tenant": "acme"}, "expect": "abstain", "reason": '
        '"no_visible_evidence"}',
        '{"question": "r", "as": "users.json"}',
    ]
)  # valid
def _eval_case_property(tmp_path_factory, lines: list[str]) -> None:  # type: ignore[no-untyped-def]
    from ragcli.eval import load_cases
    from ragcli.eval.cases import PrincipalSources, parse_case

    folder = tmp_path_factory.mktemp("cases")
    (folder / "users.json").write_text(json.dumps({"user": "u", "tenant": "acme"}), encoding="utf-8")
    path = folder / "q.jsonl"
    path.write_text("\n".join(lines).replace("\r", "") + "\n", encoding="utf-8", errors="surrogatepass")
    today = dt.date(2026, 1, 1)
    # The parser, not the policy, is under test here: inline principals are allowed (see test_eval.py for the rule).
    sources = PrincipalSources.of(path, None, allow_inline=True)
    for n, line in enumerate(lines, start=1):
        case = _only_ragcli_errors(parse_case, line, path=path, lineno=n, principals={}, today=today, sources=sources)
        if case is not None:
            ACCEPTED["eval_case_line"] += 1
            _check_case(case, json.loads(line), n, today)
    cases = _only_ragcli_errors(load_cases, path, today=today, allow_inline_principals=True)
    if cases is not None:
        ACCEPTED["eval_case"] += 1
        assert len(cases) == len([line for line in lines if line.strip()])
        for case in cases:
            _check_case(case, json.loads(lines[case.line - 1]), case.line, today)


def _check_case(case, data: dict, lineno: int, today: dt.date) -> None:  # type: ignore[no-untyped-def]
    """An accepted case holds what its line said: nothing dropped, swapped or defaulted wrongly."""
    principal = data.get("principal") or {"user": "u", "tenant": "acme"}
    assert (case.principal.user, case.principal.tenant, case.principal.groups) == (
        principal["user"],
        "acme",
        tuple(principal.get("groups", ())),
    )
    assert case.question == data["question"] and case.question
    assert case.id == (str(data["id"]) if "id" in data else f"line{lineno}") and case.line == lineno
    assert case.scope.as_of == (dt.date.fromisoformat(data["as_of"]) if "as_of" in data else today)
    assert (case.expect, case.reason) == (data.get("expect"), data.get("reason"))
    assert (case.relevant, case.forbidden, case.answer_contains) == tuple(
        tuple(data.get(k, ())) for k in ("relevant", "forbidden", "answer_contains")
    )


def test_eval_case_lines(tmp_path_factory) -> None:  # type: ignore[no-untyped-def]
    ACCEPTED["eval_case_line"] = 0
    _accepts_some("eval_case", _eval_case_property, 20, tmp_path_factory=tmp_path_factory)
    assert ACCEPTED["eval_case_line"] >= 40, ACCEPTED


@FEW
@given(st.binary(max_size=200))
def test_load_cases_on_arbitrary_bytes(tmp_path_factory, raw: bytes) -> None:  # type: ignore[no-untyped-def]
    from ragcli.eval import load_cases

    path = Path(tmp_path_factory.mktemp("raw")) / "q.jsonl"
    path.write_bytes(raw)
    _only_ragcli_errors(load_cases, path)


# --------------------------------------------------------------------------- queries

QUERY_PIECES = (
    "tenant:",
    "acl:",
    "AND ",
    "OR ",
    "NOT ",
    '"',
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "*",
    "?",
    "~",
    "^2",
    "\\",
    "/",
    ":",
    "+",
    "-",
    "ERR_4021",
    "v2.3.1",
    "ORB-7731",
    "retry_backoff_ms",
    "a" * 60,
    "x" * 90,
    "\x00",
    "\u200b",
    "\ud800",
    "ﬁ",
    "İ",
    "ß",
)


@pytest.fixture(scope="module")
def bm25_schema(tmp_path_factory):  # type: ignore[no-untyped-def]
    """The schema of a real (empty) BM25 index, as search passes it to text_query."""
    from ragcli.index.bm25 import open_bm25

    return open_bm25(tmp_path_factory.mktemp("bm25")).schema


@FUZZ
@given(
    text=st.one_of(
        st.text(max_size=200), st.text(st.characters(exclude_categories=()), max_size=60), _tokens(*QUERY_PIECES)
    )
)
@example(text="x" * 100_000)
@example(text="\ud800\udc00\udfff")
def test_build_text_query_and_clean_query(bm25_schema, text: str) -> None:  # type: ignore[no-untyped-def]
    from ragcli.index.bm25 import text_query as build_text_query
    from ragcli.search.query import MAX_QUERY_CHARS, clean_query

    schema = bm25_schema
    cleaned = _only_ragcli_errors(clean_query, text)
    if cleaned is not None:
        query, notes = cleaned
        assert query and len(query) <= MAX_QUERY_CHARS
        assert not any(c in query for c in "\x00\n\t\u200b") and query == query.strip()
        assert not any(0xD800 <= ord(c) <= 0xDFFF for c in query)
        build_text_query(schema, query)  # what search really passes on: must not raise at all
    # Raw text too, as a library caller might pass it (any valid Unicode string; search
    # itself only ever passes cleaned text, and cleaning removes lone surrogates).
    if not any(0xD800 <= ord(c) <= 0xDFFF for c in text):
        _only_ragcli_errors(build_text_query, schema, text)


doc_ids = st.from_regex(r"[A-Za-z0-9_.:-]{1,20}", fullmatch=True) | st.integers(0, 10**9)
valid_records = st.fixed_dictionaries(
    {"text": st.text(min_size=1, max_size=60).filter(str.strip)},
    optional={
        "title": st.text(max_size=30),
        "acl": st.lists(names, min_size=1, max_size=4),
        "version": st.from_regex(r"[a-z0-9.-]{1,10}", fullmatch=True),
        "effective_from": st.dates(dt.date(2000, 1, 1), dt.date(2100, 1, 1)).map(dt.date.isoformat),
        "metadata": json_values,  # a BEIR line's own keys are ignored
    },
).flatmap(
    lambda rec: doc_ids.flatmap(
        lambda i: st.sampled_from([{**rec, "id": i}, {**rec, "_id": i}, {**rec, "id": i, "_id": "other"}])
    )
)
jsonl_soup = st.lists(
    st.sampled_from(["{", "[", '"a":', "1", ",", "]", "}", '"\\ud800"', '"text"', ":", " "]), max_size=40
).map("".join)


@FEW
@given(
    line=st.one_of(
        valid_records.map(lambda r: json.dumps(r, ensure_ascii=False)), valid_records.map(json.dumps), jsonl_soup
    )
)
@example(line="[" * 60_000 + "]" * 60_000)
@example(line='{"id": "x", "text": "\\ud800 lone"}')
@example(line='{"id": "x", "text": "ok", "title": "\\udc00"}')
@example(line='{"id": "x", "text": ' + "[" * 60_000 + "]" * 60_000 + "}")
@example(line='{"_id": "doc1", "title": "A title", "text": "Body text.", "metadata": {}}')  # valid (BEIR)
@example(line='{"id": 42, "text": "Body", "acl": ["hr", "hr", "everyone"]}')  # valid
def _jsonl_property(line: str) -> None:
    from ragcli.ingestion.loaders import jsonl_document

    doc = _only_ragcli_errors(
        jsonl_document, line, source="fuzz.jsonl:1", relative="fuzz.jsonl", default_acl=("everyone",), salt=""
    )
    if doc is not None:
        ACCEPTED["jsonl"] += 1
        record = json.loads(line)
        doc.text.encode("utf-8")
        doc.title.encode("utf-8")
        assert doc.text == record["text"]
        assert doc.doc_id == str(record["id"] if "id" in record else record["_id"])
        assert doc.acl == tuple(dict.fromkeys(record.get("acl", ["everyone"])))
        assert doc.title == " ".join(doc.title.split()) and 0 < len(doc.title) <= 300
        if (record.get("title") or "").strip():
            assert doc.title == " ".join(record["title"].split())[:300]
        if "version" in record:
            assert doc.declared_version == record["version"]
            assert doc.version.startswith(record["version"] + ".")  # and the text's hash


def test_jsonl_corpus_lines() -> None:
    _accepts_some("jsonl", _jsonl_property, 15)


@FEW
@given(st.binary(max_size=300))
@example(b"[" * 60_000)
@example(b'{"user": "k\\ud800", "tenant": "acme"}')
def test_load_principal_on_arbitrary_bytes(tmp_path_factory, raw: bytes) -> None:  # type: ignore[no-untyped-def]
    from ragcli.principal import load_principal

    path = Path(tmp_path_factory.mktemp("user")) / "user.json"
    path.write_bytes(raw)
    _only_ragcli_errors(load_principal, path)
