"""One parse per Markdown document, and token counts added up: the same sections and passages as before.

The chunker parses a document once (``markdown.unwrapped`` moves the parse's line maps to the joined
lines instead of parsing the joined text again) and adds token counts over whitespace joins when the
tokenizer allows it (``sizing.Counts``). Both are held against the slow reference on every Markdown
page of the bench corpora, with the real tokenizer, and on the texts where joining lines could open
a new block.

A page's title is read on its first lines (``markdown.first_h1``), held against the whole page's
parse on the bench corpora and on generated pages.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_chunking import make_doc

from ragcli.ingestion.chunking import chunk_document
from ragcli.ingestion.dialects import unfold_dialects
from ragcli.ingestion.markdown import (
    _first_h1,
    expand_mkdocs,
    first_h1,
    markdown_sections,
    parse_markdown,
    unwrapped,
)
from ragcli.ingestion.metadata import split_front_matter
from ragcli.text import unix_newlines

CORPORA = Path(__file__).resolve().parents[1] / "bench" / "corpora"
PAGES = sorted(CORPORA.rglob("*.md"))


def _shape(tokens: list) -> list[tuple[str, int, tuple[int, ...] | None, str]]:
    """What the chunker reads of a parse: every token's type, level and line map, and a heading's content (a
    paragraph's is its lines, still unjoined in the moved parse: the chunker reads them from the joined text)."""
    shape = []
    for i, t in enumerate(tokens):
        heading = i > 0 and tokens[i - 1].type == "heading_open"
        shape.append((t.type, t.level, tuple(t.map) if t.map else None, t.content if heading else ""))
    return shape


def _check_against_a_second_parse(text: str) -> None:
    doc = unwrapped(parse_markdown(text))
    again = parse_markdown(doc.text)
    assert _shape(doc.tokens) == _shape(again.tokens)
    assert _references(doc.env) == _references(again.env)


def _references(env: dict) -> dict[str, tuple[str, str]]:
    """The link references inline parsing reads (their line maps are not read)."""
    return {label: (ref["href"], ref["title"]) for label, ref in env.get("references", {}).items()}


def test_the_bench_corpora_have_pages() -> None:
    assert len(PAGES) > 300


@pytest.mark.parametrize("page", PAGES[::3], ids=lambda p: str(p.relative_to(CORPORA)))
def test_moved_line_maps_are_the_parse_of_the_joined_text(page: Path) -> None:
    _check_against_a_second_parse(expand_mkdocs(unfold_dialects(unix_newlines(page.read_text(encoding="utf-8")))))


@pytest.mark.parametrize(
    "text",
    [
        "[x]: <a\nb>\n\n# After",  # joined, a link reference definition
        "[foo\nbar]: <a\nb>\npara",
        "<span\nclass='x'>\n# Head\n",  # joined, an HTML block that runs to the blank line
        "x | y\nz  \n--|--\n",  # joined before a hard break, then a table
        "- a\n  b\n  > c\n  d\n\n1. e\nf  \ng\n",
        "> a\nb\n> c\n\n    code\nnot code\n",
        "para\nwith [ref] link\n\n[ref]: /url\n\n# Heading [ref]\n",
    ],
)
def test_texts_where_joining_could_open_a_block(text: str) -> None:
    _check_against_a_second_parse(text)


_LINE = st.sampled_from(
    ["word", "two words", "  indented", "    code", "- item", "1. one", "> quote", "# Head", "Head", "===", "---",
     "| a | b |", "|---|---|", "a | b", "--|--", "[r]: /u", "[r]: <a", "b>", "<div>", "<span", "x>", "```", "",
     "trailing  ", "back\\", "![img](x)", "[link][r]", "  - nested", "   continued", "> - quoted item", "> |---|",
     "***", "<!-- c -->", "-->", "\ttab", "2) two", "+ plus", "~~~", ": colon", "  |---|---|", "> > deep"]
)  # fmt: skip


@settings(max_examples=800, deadline=None)
@given(st.lists(_LINE, min_size=1, max_size=14))
def test_generated_lines_parse_as_the_joined_text(lines: list[str]) -> None:
    _check_against_a_second_parse("\n".join(lines))


def test_a_heading_reads_its_link_references() -> None:
    text = "# Using [the API][api]\n\n[api]: https://example.org\n"
    assert first_h1(text) == "Using the API"
    sections = markdown_sections(text + "\n## See [the API][api]\n\nBody.\n", "Using the API")
    assert sections[0].path == ("See the API",)


def test_the_bundled_tokenizer_counts_add_up(embedder) -> None:
    assert embedder.counts_add_up
    rng = random.Random(3)
    words = ["uv", "pip", "install", "résumé", "naïve", "中文", "x86_64", "--flag", "a.b.c", "(1)!", "::", "🙂"]
    for _ in range(200):
        parts = [" ".join(rng.choices(words, k=rng.randint(0, 6))) for _ in range(rng.randint(1, 4))]
        joined = rng.choice([" ", "\n", "\n\n"]).join(parts)
        assert embedder.count_tokens([joined])[0] == sum(embedder.count_tokens(parts))


@pytest.mark.parametrize("page", PAGES[::4], ids=lambda p: str(p.relative_to(CORPORA)))
def test_added_up_counts_cut_the_same_passages(embedder, page: Path) -> None:
    doc = make_doc(page.read_text(encoding="utf-8"), title=page.stem)
    summed = chunk_document(doc, "t", embedder.count_tokens, counts_add_up=True)
    counted = chunk_document(doc, "t", embedder.count_tokens, counts_add_up=False)
    assert [(p.id, p.text, p.carried) for p in summed] == [(p.id, p.text, p.carried) for p in counted]


# --------------------------------------------------------------------------- titles on first lines


def _whole_page_h1(text: str) -> str | None:
    found = _first_h1(parse_markdown(unix_newlines(text)))
    return None if found is None else found[0]


def test_a_title_read_on_first_lines_is_the_whole_page_title() -> None:
    for page in PAGES:
        _, body = split_front_matter(page.read_text("utf-8"), str(page))
        assert first_h1(body) == _whole_page_h1(body), page


@pytest.mark.parametrize(
    "text, title",
    [
        ("```\n# in code\n```\n\nText\n\n# Real\n", "Real"),
        ("# a | b\n--|--\n\n# Real", "Real"),  # a table's header, known by its next line
        ("# [Guide][g]\n\n[g]: /guide\n", "Guide"),  # a reference defined further on
        ('[r]: /u "a title\n===\nthat runs on"\n\n# Real', "Real"),
        ("#\n\n# Real", "Real"),  # an H1 with no text is no title
        ("Set\next\n===\n", "Set ext"),
        ("## Lower\n", None),
    ],
)
def test_titles_where_the_first_lines_are_not_enough(text: str, title: str | None) -> None:
    assert first_h1(text) == _whole_page_h1(text) == title


@settings(max_examples=400, deadline=None)
@given(st.lists(_LINE, min_size=1, max_size=14))
def test_generated_titles_are_the_whole_page_title(lines: list[str]) -> None:
    text = "\n".join(lines)
    assert first_h1(text) == _whole_page_h1(text)
