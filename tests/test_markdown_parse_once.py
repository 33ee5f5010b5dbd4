"""One parse per Markdown document, and token counts added up: the same sections and passages as before.

The chunker parses a document once (``markdown.unwrapped`` moves the parse's line maps to the joined
lines instead of parsing the joined text again) and adds token counts over whitespace joins when the
tokenizer allows it (``sizing.Counts``). Both are held against the slow reference on every Markdown
page of the bench corpora, with the real tokenizer, and on the texts where joining lines could open
a new block.

A passage's units are cut from the blocks the chunker read off that one parse (``layout``,
``Passage.blocks``) instead of parsing the passage again; they are held against the parse of each
passage's text (``structure.parsed_blocks``, what ``unit_spans`` reads at ask time) on the bench
corpora and on generated documents cut small. A page's title is read on its first lines
(``markdown.first_h1``), held against the whole page's parse the same way.
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
from ragcli.passage import Passage
from ragcli.structure import parsed_blocks
from ragcli.text import unix_newlines
from ragcli.units import spans_in, unit_spans

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


# --------------------------------------------------------------------------- units from the one parse


def _known(passages: list[Passage]) -> int:
    """How many passages carry their blocks; each that does carries the blocks (and so the units) of its text."""
    for p in passages:
        if p.blocks is not None:
            assert list(p.blocks) == parsed_blocks(p.text), (p.id, p.text)
            assert spans_in(p.text, p.blocks) == unit_spans(p.text), p.id
    return sum(p.blocks is not None for p in passages)


def test_passages_carry_the_blocks_of_their_text(embedder) -> None:
    known = total = 0
    for page in PAGES[::2]:
        passages = chunk_document(
            make_doc(page.read_text(encoding="utf-8"), title=page.stem), "t", embedder.count_tokens
        )
        known, total = known + _known(passages), total + len(passages)
    assert total > 2000 and known / total > 0.85  # parts cut through an item or a line are parsed again


def _words(texts: list[str]) -> list[int]:
    return [len(t.split()) for t in texts]


_PIECE = st.sampled_from(
    ["word", "  indented", "    code", "- item", "* star", "+ plus", "1. one", "2) two", "> quote", "# Head", "===",
     "---", "***", "| a | b |", "|---|---|", "a | b", "--|--", "[r]: /u", "<div>", "</div>", "<!-- c", "-->", "```",
     "```py", "~~~", "", "", "", "  - nested", "   continued", "> - quoted", "\ttab", "- | x |", " - one space",
     "    ```", "  ```", "-", "1.", "**bold** text", "[link][r] text", "  2. deep", "   "]
)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(_PIECE, st.integers(0, 9)), min_size=1, max_size=30), st.integers(20, 60))
def test_generated_documents_cut_small_carry_the_blocks_of_their_text(
    lines: list[tuple[str, int]], budget: int
) -> None:
    """Lines of every kind of block, long enough to be cut into parts by rows, lines, items and words."""
    text = "\n".join(start + " w" * n if start else "" for start, n in lines)
    _known(chunk_document(make_doc(text), "t", _words, max_tokens=budget, counts_add_up=True))


@pytest.mark.parametrize(
    "text",
    [
        "Intro:\n\n- a\n- b\n\n  indented goes on in b\n\n- c",
        "- a\n\n---\n\n- b\n\n* c\n\n1. d\n\n2. e\n\n3) f",
        "    code\n\n  not code\n\n    code\n\n        more code",
        "```\nopen fence\n\nText.",
        "<!--\nopen comment\n\nText.",
        "- a\n  ```\n  code\n\nText.",
        "| a | b |\n|---|---|\n" + "\n".join(f"| {n} | {n} |" for n in range(40)) + "\n\nAfter.",
        "- a\n\n[r]: /u\n\n- b\n- c\n\nText",  # two lists of the document, one list of the passage
        "1. a\n\n[r]: /u\n\n3. b\n\n[q]: /v\n\n4) c",
        "- a\n\n[r]: /u\n\n * b\n\n[q]: /v\n\n+ c\n\n[s]: /w\n\n-\n  d",
    ],
)
def test_blocks_where_a_blank_line_may_not_end_a_block(text: str) -> None:
    """A list or indented code may go on after a blank line (a list takes in a next list of its kind), a fence or
    HTML block left open runs to the end."""
    _known(chunk_document(make_doc(text), "t", _words, max_tokens=24, counts_add_up=True))


def test_a_line_of_spaces_after_a_block_is_not_in_it() -> None:
    """A list's line map takes in a line of spaces after it; the block (and its passage) ends at its last line that
    is not blank, as the parse of the passage's text ends it."""
    text = "To install it:\n\n1. Run the installer.\n2. Restart.\n   \n## Next\n\nText."
    passages = chunk_document(make_doc(text), "t", _words, counts_add_up=True)
    assert passages[0].text == "To install it:\n\n1. Run the installer.\n2. Restart."
    assert _known(passages) == len(passages)


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
