"""Code is printed as the document has it, in every text format: Hypothesis writes code full of
brackets, backslashes, pipes, backticks, ``*_`` and tabs into a real folder, ingests it, and holds
``search --format table|md|csv|files`` (in a pipe and on a terminal) and ``ask`` (in a pipe and on a
terminal) against ``--json``, all through real CLI subprocesses.

The one-line formats (a table cell, a CSV cell) collapse runs of whitespace into one space, which is
what makes them one line; every other character of the code must come through."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from support.cli import cli_many, cli_tty
from support.corpus import markdown, write, write_user

from ragcli.readable import readable

CODE_CHARS = "ab_xy01 \t[]()\\|`'\"*:<>{}#!.,=-"
SPAN_CHARS = CODE_CHARS.replace("`", "").replace("\t", "")

code_line = st.text(st.sampled_from(CODE_CHARS), min_size=1, max_size=36).filter(
    lambda s: s.strip() and not s.lstrip().startswith(("```", "~~~"))
)
code_span = st.text(st.sampled_from(SPAN_CHARS), min_size=1, max_size=16).filter(lambda s: s.strip() == s and s)
ANIMALS = ("zebrafish", "okapi", "narwhal", "axolotl")
"""One page per example in one folder, each named for its animal: one ingest and one run of each search format
check them all (each row found by its source), and ``ask`` is asked about each animal."""
SEARCH = "print the error type"


def flat(text: str) -> str:
    return " ".join(text.split())


def screen(tty_out: str) -> str:
    """What a terminal shows: styles (matched words are bold yellow) and carriage returns removed, one line."""
    return flat(re.sub(r"\x1b\[[0-9;]*m", "", tty_out.replace("\r", "")))


def _question(animal: str) -> str:
    return f"How do I print the {animal} error type?"


def _folder(root: Path, examples: list[tuple[list[str], str]], embedder) -> Path:  # type: ignore[no-untyped-def]
    from ragcli import ingest

    for animal, (lines, span) in zip(ANIMALS, examples, strict=False):
        body = "\n".join(lines)
        write(
            root / "docs" / f"{animal}.md",
            markdown(
                {"acl": ["everyone"]},
                f"# {animal.title()}\n\nTo print the {animal} error type, with `{span}` set, run this:\n\n"
                f"```python\n{body}\n```\n",
            ),
        )
    report = ingest(root / "docs", "t", index=root / "index", embedder=embedder, default_acl=["everyone"])
    assert report.published and not report.documents.rejected, report.documents.rejected
    write_user(root / "u.json", "u", "t", ["everyone"])
    return root


def _check(root: Path, examples: list[tuple[list[str], str]]) -> None:
    common = ["--as", root / "u.json", "--index", root / "index"]
    search = ["search", SEARCH, "-k", str(len(examples)), *common]
    animals = ANIMALS[: len(examples)]
    asks = [[["ask", _question(a), *common, "--json"], ["ask", _question(a), *common]] for a in animals]
    as_json, table, md, as_csv, files, *answers = cli_many(
        [
            [*search, "--json"],
            [*search, "--format", "table"],
            [*search, "--format", "md"],
            [*search, "--format", "csv"],
            [*search, "--format", "files"],
            *(command for pair in asks for command in pair),
        ]
    )
    for proc in (as_json, table, md, as_csv, files):
        assert proc.returncode == 0, proc.stderr
    results = {r["source"].removesuffix(".md"): r for r in json.loads(as_json.stdout)["results"]}
    assert sorted(results) == sorted(animals), "every page is found by the one search"
    # A row's snippet, by the page it is from: a table row is tab-separated, an md row's snippet is its last cell.
    table_rows = {row.split("\t")[-1]: row.split("\t")[3] for row in table.stdout.splitlines()[1:]}
    md_rows = {
        row.split(" | ")[3]: row.rsplit(" | ", 1)[1].removesuffix(" |").replace("\\|", "|")
        for row in md.stdout.splitlines()[2:]
    }
    csv_rows = {row["source"]: row["snippet"] for row in csv.DictReader(io.StringIO(as_csv.stdout))}
    assert sorted(files.stdout.splitlines()) == sorted(f"{a}.md" for a in animals)
    tty = cli_tty(*search, columns=400)
    assert tty.returncode == 0, tty.stderr
    shown_on_tty = screen(tty.stdout)
    for animal, (lines, span) in zip(animals, examples, strict=True):
        # The index holds the code as written: every line of it, whole, in the passage.
        assert "\n".join(lines) in results[animal]["text"]
        wanted = [flat(line) for line in lines] + [f"`{span}`"]
        source = f"{animal}.md"
        shown = {"table": table_rows[source], "md": md_rows[source], "csv": csv_rows[source]}
        for fmt, snippet in shown.items():
            for piece in wanted:
                assert _holds(fmt, snippet, piece), (fmt, animal, piece)
        for piece in wanted:
            assert flat(piece) in shown_on_tty, ("terminal", animal, piece)
    pairs = zip(answers[::2], answers[1::2], strict=True)
    for animal, (lines, _), (ask_json, ask) in zip(animals, examples, pairs, strict=True):
        _check_ask(root, animal, json.loads(ask_json.stdout), ask, lines)


def _holds(fmt: str, snippet: str, piece: str) -> bool:
    """A one-line snippet shows ``piece`` with its whitespace runs collapsed; md bolds the matched words, so it is
    compared without bold markers on both sides (a code line may be ``**``)."""
    if fmt == "md":
        return flat(piece).replace("**", "") in snippet.replace("**", "")
    return flat(piece) in snippet


def _check_ask(root: Path, animal: str, answer: dict, piped, lines: list[str]) -> None:  # type: ignore[no-untyped-def,type-arg]
    """``ask`` prints each claim's statement as ``--json`` gives it, code lines intact (tabs too)."""
    if answer["disposition"] != "answered":
        assert piped.returncode == 1
        return
    assert piped.returncode == 0, piped.stderr
    for claim in answer["claims"]:
        assert readable(claim["statement"], escapes=False) in piped.stdout
    # Whole lines: a code line such as "| " is also a piece of prose ("with | set"). A claim's quote ends at its
    # last visible character, so a code line's trailing blanks are not part of it.
    quoted = {q for c in answer["claims"] for q in c["statement"].split("\n")}
    for line in lines:
        if line.rstrip() in quoted:
            assert line.rstrip() in piped.stdout.splitlines()
    tty = cli_tty("ask", _question(animal), "--as", root / "u.json", "--index", root / "index", columns=400)
    for claim in answer["claims"]:
        for line in claim["statement"].splitlines():
            if line.strip():
                assert flat(line) in screen(tty.stdout)


def test_a_subscript_pair_in_code_is_not_a_reference_link() -> None:
    text = "Get it:\n\n```python\nprint(repr(exc.errors()[0]['type']))\n```\n\nSee [the docs][d] and `a[0][1]`."
    shown = readable(text)
    assert "print(repr(exc.errors()[0]['type']))" in shown
    assert "`a[0][1]`" in shown and "See the docs and" in shown
    assert readable("grid[i][j] and errors()[0]['type']") == "grid[i][j] and errors()[0]['type']"
    assert readable("[Fastway](https://x.example/cdn), <https://y.example>") == "Fastway, https://y.example"


def test_a_link_whose_text_is_code_reads_as_that_code() -> None:
    # pypa/hatch docs/config/environment/overview.md (MIT): reference pages link a command's name, as code.
    text = (
        "The `description` option is purely informational and is displayed in the output of the "
        "[`env show`](../../cli/reference.md#hatch-env-show) command:"
    )
    shown = readable(text)
    assert shown.endswith("displayed in the output of the `env show` command:"), shown
    assert readable("[`a` and `b`](u.md), [`ref`][r] and [x](y)") == "`a` and `b`, `ref` and x"
    # Link syntax inside a code span is code: kept as written.
    assert readable("Write ``[`a`](b)`` for that.") == "Write ``[`a`](b)`` for that."
    # astral-sh/uv docs/concepts/build-backend.md (MIT/Apache-2.0): a table's name as the link's code. Its brackets
    # ended the link's text, and the answer printed "add uv_build to the [[build-system]](../concepts/...) section".
    text = "add `uv_build` to the [`[build-system]`](../concepts/projects/config.md#build-systems) section"
    assert readable(text) == "add `uv_build` to the `[build-system]` section"
    assert readable("the [[x] table](t.md) and ![a [b] c](i.png)") == "the [x] table and a [b] c"
    assert readable("[foo \\[bar](u) and [``a`b``](v)") == "foo \\[bar and ``a`b``"  # an escaped bracket is text


_LINKISH = st.sampled_from(["[", "]", "](u.md)", "][r]", "(", ")", " see ", "x"])


@settings(max_examples=300, deadline=None, derandomize=True)
@given(pieces=st.lists(_LINKISH | code_span.map(lambda span: f"`{span}`"), min_size=1, max_size=12))
@example(pieces=["[a ", "`b](c)`", " d"])
@example(pieces=["[", "`env show`", "](u.md)"])
@example(pieces=["[[", "``](u)``", "](u)`"])  # a link rewritten first joined the span's backticks to the stray one
def test_every_code_span_comes_out_as_written_whatever_link_syntax_is_around_it(pieces: list[str]) -> None:
    """Code spans bind before links: whatever brackets surround or cut into them, each is printed as written."""
    from ragcli.escape import CODE_SPAN

    text = "".join(pieces)
    shown = readable(text)
    for span in CODE_SPAN.finditer(text):
        assert span.group() in shown, (text, shown)


def test_a_character_reference_in_prose_reads_as_its_character_and_stays_as_written_in_code() -> None:
    # bench/corpora/jekyll/docs/pagination.md (MIT): "With many websites &mdash; especially blogs &mdash; ..."
    text = "With many websites &mdash; especially blogs &mdash; it's common.\n\n`a &amp; b` and ?x=1&copy=2"
    assert readable(text) == "With many websites — especially blogs — it's common.\n\n`a &amp; b` and ?x=1&copy=2"
    assert readable("```html\n<p>&nbsp;&lt;b&gt;</p>\n```") == "```html\n<p>&nbsp;&lt;b&gt;</p>\n```"


def test_a_lines_escaped_start_reads_as_the_line_and_other_backslashes_stay() -> None:
    # pytest's doc/en/historical-notes.rst (MIT): a "1. Marks overwrite each other." paragraph that is no list item,
    # which the reStructuredText reader writes as "1\\." so that Markdown does not read a list. A backslash elsewhere
    # may be the text's own (a Windows path, a plain-text file), and code is never touched.
    text = (
        "1\\. Marks overwrite each other. Use \\*args in C:\\Users\\me\\.ssh here.\n\\# Not a heading\n\n"
        "| a \\| b | c |\n\n`1\\.` and\n\n```\n1\\. code\n```"
    )
    assert readable(text) == (
        "1. Marks overwrite each other. Use \\*args in C:\\Users\\me\\.ssh here.\n# Not a heading\n\n"
        "| a \\| b | c |\n\n`1\\.` and\n\n```\n1\\. code\n```"
    )
    assert readable("1\\. Marks", escapes=False) == "1\\. Marks"


@settings(max_examples=60, deadline=None, derandomize=True)
@given(lines=st.lists(code_line, min_size=1, max_size=4), span=code_span)
@example(lines=["print(repr(exc.errors()[0]['type']))", "x = [a][b] | [c](d)"], span="a[0][1]")
def test_the_renderer_keeps_code_whole(lines, span) -> None:  # type: ignore[no-untyped-def]
    """In process, many examples: every line of a fenced block comes out of ``readable`` as it went in, and a
    snippet (one line) holds it with only its runs of whitespace collapsed; a code span is kept too."""
    from ragcli.cli.results import snippet

    text = f"See [the docs](x.md) with `{span}` set:\n\n```python\n" + "\n".join(lines) + "\n```"
    shown = readable(text)
    assert shown.split("\n")[3 : 3 + len(lines)] == lines
    assert f"`{span}`" in shown and shown.startswith("See the docs with")
    one_line = snippet(text, "docs", width=10_000).plain
    assert all(flat(line) in one_line for line in lines) and flat(f"`{span}`") in one_line


def example_pages(min_size: int) -> st.SearchStrategy[list[tuple[list[str], str]]]:
    """Up to four pages (one per animal), each a code block of up to three lines and a code span."""
    page = st.tuples(st.lists(code_line, min_size=1, max_size=3), code_span)
    return st.lists(page, min_size=min_size, max_size=len(ANIMALS))


@pytest.mark.slow
@settings(max_examples=1, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pages=example_pages(1))
@example(
    pages=[
        (["print(repr(exc.errors()[0]['type']))", "x = [a][b] | c\t*_d_*"], "a[0][1]"),
        (["**", "<img src=x> & <"], "0"),  # bold markers and HTML in code: md keeps both as written
        (["[`a`](b) = [`c`][d]", "[e `f](g)` h"], "x"),  # link syntax around code spans, in code
        (["| "], "|"),  # a code line that is also a piece of the prose ("with | set")
    ]
)
# A backslash in a code span is no escape in any output (an ask statement has no backticks: it printed ":").
@example(pages=[(["0"], "\\:")])
def test_code_prints_intact_in_every_text_format(tmp_path_factory, embedder, pages) -> None:  # type: ignore[no-untyped-def]
    root = _folder(tmp_path_factory.mktemp("fidelity"), pages, embedder)
    _check(root, pages)


@pytest.mark.slow
@settings(max_examples=3, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pages=example_pages(len(ANIMALS)))
def test_code_prints_intact_in_every_text_format_many(tmp_path_factory, embedder, pages) -> None:  # type: ignore[no-untyped-def]
    """Three folders of four pages each: as many generated code blocks as twelve folders of one page."""
    root = _folder(tmp_path_factory.mktemp("fidelity"), pages, embedder)
    _check(root, pages)
