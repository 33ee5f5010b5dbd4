"""The chunker, with the real tokenizer: size cap, nothing lost, structure kept, heading paths right."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import pairwise

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.paths import VOCAB_PATH

from ragcli.embedder import MAX_MODEL_TOKENS, SPECIAL_TOKENS
from ragcli.ingestion.chunking import chunk_document
from ragcli.ingestion.loaders import Document
from ragcli.passage import HEADING_SEPARATOR
from ragcli.text import split_sentences

SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)


def make_doc(
    text: str, *, title: str = "Doc Title", fmt: str = "markdown", doc_id: str = "doc", version: str = "v1"
) -> Document:
    return Document(
        doc_id=doc_id,
        title=title,
        version=version,
        acl=("everyone",),
        effective_from=None,
        superseded_on=None,
        source="/src/doc.md",
        source_url=None,
        text=text,
        format=fmt,  # type: ignore[arg-type]
        fingerprint="f" * 64,
    )


def _specials_the_tokenizer_adds() -> int:
    """[CLS] and [SEP], counted by the bundled tokenizer itself.

    Not ragcli's SPECIAL_TOKENS: the chunker reserves that constant, so a check using it
    would cancel out if it were ever wrong (0 would pass, and every passage would be cut by 2).
    """
    from tokenizers.implementations import BertWordPieceTokenizer

    return len(BertWordPieceTokenizer(str(VOCAB_PATH), lowercase=True).encode("").ids)


MODEL_SPECIALS = _specials_the_tokenizer_adds()


def test_the_chunker_reserves_what_the_tokenizer_adds():
    assert MODEL_SPECIALS == 2 and SPECIAL_TOKENS == MODEL_SPECIALS


def words_of(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def assert_within_cap(passages, count):
    for p in passages:
        text_tokens = count([p.text])[0]
        full_tokens = count([p.index_text])[0]
        assert text_tokens + MODEL_SPECIALS <= MAX_MODEL_TOKENS, (text_tokens, p.id)
        # The heading line is part of what the model embeds; with [CLS]/[SEP] it must still fit.
        assert full_tokens + MODEL_SPECIALS <= MAX_MODEL_TOKENS, (full_tokens, p.id)


# --------------------------------------------------------------------------- generated Markdown

word = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=9)
heading_text = st.lists(word, min_size=1, max_size=4).map(lambda ws: " ".join(ws).capitalize())


@dataclass
class Gen:
    """A generated Markdown document and what the chunker must do with it."""

    title: str
    text: str = ""
    # marker word -> expected heading path of the section holding it
    marker_paths: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # (kind, block text, heading path) of lists and code blocks
    whole_blocks: list[tuple[str, str, tuple[str, ...]]] = field(default_factory=list)
    # table header line -> its body rows
    tables: dict[str, list[str]] = field(default_factory=dict)


@st.composite
def blocks(draw, path: tuple[str, ...], gen: Gen, counter: list[int]) -> list[str]:
    out = []
    for _ in range(draw(st.integers(1, 3))):
        counter[0] += 1
        n = counter[0]
        marker = f"mk{n}z"
        gen.marker_paths[marker] = path
        kind = draw(st.sampled_from(["para", "para", "list", "code", "table"]))
        if kind == "para":
            sentences = draw(st.lists(st.lists(word, min_size=1, max_size=18), min_size=1, max_size=25))
            text = " ".join(" ".join(ws).capitalize() + "." for ws in sentences)
            out.append(f"{marker} {text}")
        elif kind == "list":
            items = draw(st.lists(st.lists(word, min_size=1, max_size=12).map(" ".join), min_size=1, max_size=30))
            # A different bullet for each block: CommonMark merges adjacent lists with the same bullet.
            bullet = "-*+"[n % 3]
            text = "\n".join(
                f"{bullet} {marker} {item}" if i == 0 else f"{bullet} {item}" for i, item in enumerate(items)
            )
            gen.whole_blocks.append(("list", text, path))
            out.append(text)
        elif kind == "code":
            lines = draw(st.lists(st.lists(word, min_size=1, max_size=8).map(" ".join), min_size=1, max_size=40))
            text = "```\n" + marker + "\n" + "\n".join(lines) + "\n```"
            gen.whole_blocks.append(("code", text, path))
            out.append(text)
        else:
            cols = draw(st.integers(2, 4))
            header = "| " + " | ".join(f"col{c} {marker}" for c in range(cols)) + " |"
            rows = []
            for r in range(draw(st.integers(1, 70))):
                cells = [f"r{n}x{r}"] + [
                    " ".join(draw(st.lists(word, min_size=1, max_size=3))) for _ in range(cols - 1)
                ]
                rows.append("| " + " | ".join(cells) + " |")
            gen.tables[header] = rows
            out.append("\n".join([header, "|" + "---|" * cols, *rows]))
    return out


@st.composite
def markdown_docs(draw) -> Gen:
    title = draw(heading_text)
    gen = Gen(title=title)
    counter = [0]
    parts: list[str] = []
    if draw(st.booleans()):
        parts.append(f"# {title}")  # an H1 repeating the title adds nothing to the path
    if draw(st.booleans()):
        parts += draw(blocks((), gen, counter))
    seen_h2: set[str] = set()
    for _ in range(draw(st.integers(0, 4))):
        # A top heading that repeats the title is left out of the path (markdown_sections): a generated
        # section heading differs from the title, so its path is its own.
        h2 = draw(heading_text.filter(lambda h: h not in seen_h2 and h.casefold() != title.casefold()))
        seen_h2.add(h2)
        parts.append(f"## {h2}")
        parts += draw(blocks((h2,), gen, counter))
        for _ in range(draw(st.integers(0, 2))):
            h3 = draw(heading_text)
            parts.append(f"### {h3}")
            parts += draw(blocks((h2, h3), gen, counter))
    if not gen.marker_paths:
        parts += draw(blocks((), gen, counter))
    gen.text = "\n\n".join(parts) + "\n"
    return gen


@pytest.mark.slow
@settings(SETTINGS, max_examples=30)
@given(gen=markdown_docs())
def test_generated_markdown_properties(embedder, gen: Gen):
    count = embedder.count_tokens
    doc = make_doc(gen.text, title=gen.title)
    passages = chunk_document(doc, "t", count)
    assert passages

    # 1. No passage is over the model's 256 tokens.
    assert_within_cap(passages, count)

    # 2. Nothing is lost: every word of the body is in some passage or heading path.
    kept = set()
    for p in passages:
        kept |= words_of(p.text) | words_of(" ".join(p.heading_path)) | words_of(p.title)
    assert words_of(gen.text) <= kept, sorted(words_of(gen.text) - kept)[:10]

    # 3. Heading paths: each marker lives only in passages of its own section.
    for marker, path in gen.marker_paths.items():
        holders = [p for p in passages if marker in words_of(p.text)]
        assert holders, marker
        assert {p.heading_path for p in holders} == {path}, (marker, path, [p.heading_path for p in holders])

    # 4. Lists and code blocks that fit are kept whole, in a passage of their section.
    for kind, block, path in gen.whole_blocks:
        label = HEADING_SEPARATOR.join((gen.title, *path))
        if count([f"{label}\n\n{block}"])[0] + MODEL_SPECIALS <= MAX_MODEL_TOKENS:
            assert any(block in p.text and p.heading_path == path for p in passages), (kind, block[:80])

    # 5. Table rows: every row appears, and always under its table's header row.
    for header, rows in gen.tables.items():
        for row in rows:
            holders = [p for p in passages if row in p.text.split("\n")]
            assert holders, row
            for p in holders:
                lines = p.text.split("\n")
                first_row = min(i for i, line in enumerate(lines) if line in rows)
                assert first_row >= 2 and lines[first_row - 2] == header, p.text[:200]

    # 6. IDs: unique, {doc_id}@{version}#{slug}, and the same on a second run.
    ids = [p.id for p in passages]
    assert len(set(ids)) == len(ids)
    assert all(re.fullmatch(r"doc@v1#[a-z0-9-]+", i) for i in ids), ids
    assert ids == [p.id for p in chunk_document(doc, "t", count)]


@pytest.mark.slow
@SETTINGS
@given(text=st.text(min_size=1, max_size=4000))
def test_any_plain_text_respects_the_cap_and_keeps_words(embedder, text):
    if not text.strip():
        return
    count = embedder.count_tokens
    passages = chunk_document(make_doc(text, fmt="text"), "t", count)
    assert_within_cap(passages, count)
    # A word that fits a passage is never cut: it is in some passage as it is.
    for w in set(text.split()):
        if count([w])[0] <= 200:
            assert any(w in p.text for p in passages), w
        else:
            assert any(w[:3] in p.text for p in passages), w[:20]


@pytest.mark.parametrize(
    "body",
    [
        "!" * 400 + "a" * 2000,  # dense punctuation first: a proportional cut is far too long
        "a" * 2000 + "!" * 400,
        ("x" * 30 + ".") * 80,
        " ".join(["日本語テキスト"] * 300),
        "word " * 1000,
    ],
    ids=["punct-then-letters", "letters-then-punct", "dotted-blob", "cjk", "many-words"],
)
def test_overlong_units_are_cut_under_the_cap(embedder, body):
    passages = chunk_document(make_doc(body, fmt="text"), "t", embedder.count_tokens)
    assert len(passages) > 1
    assert_within_cap(passages, embedder.count_tokens)
    assert "".join("".join(p.text.split()) for p in passages).count("!") >= body.count("!")


def test_long_table_is_split_by_rows_with_header_repeated(embedder):
    header = "| Code | Meaning | Owner |"
    rows = [f"| E{i:03d} | failure number {i} in the billing pipeline | team {i % 7} |" for i in range(120)]
    text = "## Error table\n\n" + "\n".join([header, "|------|---------|-------|", *rows]) + "\n\nAfter the table.\n"
    passages = [
        p for p in chunk_document(make_doc(text), "t", embedder.count_tokens) if p.heading_path == ("Error table",)
    ]
    table_parts = [p for p in passages if "| E" in p.text]
    assert len(table_parts) >= 3
    seen = []
    for p in table_parts:
        lines = p.text.split("\n")
        assert lines[0] == header and lines[1] == "|------|---------|-------|"
        body = [line for line in lines[2:] if line.startswith("| E")]
        assert all(line in rows for line in body)  # rows are never cut in the middle
        seen += body
    assert seen == rows  # every row once, in order
    assert_within_cap(passages, embedder.count_tokens)


def test_code_block_and_list_stay_whole_when_they_fit(embedder):
    code = "```python\n" + "\n".join(f"value_{i} = compute({i})  # step {i}" for i in range(12)) + "\n```"
    items = "\n".join(f"- step {i}: check the widget number {i}\n  with a continuation line" for i in range(8))
    prose = " ".join(f"Sentence number {i} talks about configuration details at some length." for i in range(40))
    text = f"## Setup\n\n{prose}\n\n{code}\n\n{prose}\n\n{items}\n\n{prose}\n"
    passages = chunk_document(make_doc(text), "t", embedder.count_tokens)
    assert len(passages) > 3
    assert sum(code in p.text for p in passages) == 1
    # The items' soft-wrapped continuation lines are joined onto their items (chunker v3).
    joined = "\n".join(f"- step {i}: check the widget number {i} with a continuation line" for i in range(8))
    assert sum(joined in p.text for p in passages) == 1
    assert_within_cap(passages, embedder.count_tokens)


def test_long_list_is_split_between_items(embedder):
    items = [f"- item {i}: " + " ".join(["detail"] * 20) for i in range(40)]
    passages = chunk_document(make_doc("## List\n\n" + "\n".join(items)), "t", embedder.count_tokens)
    assert len(passages) > 1
    for p in passages:
        assert all(line in items for line in p.text.split("\n")), p.text[:200]
    assert [line for p in passages for line in p.text.split("\n")] == items


@pytest.mark.parametrize("n", [24, 44, 58])
def test_a_long_code_block_is_cut_into_even_parts(embedder, n):
    """Cut greedily, a block a few lines over the cap left its last line alone in a passage (attrs' doctests: the
    ``TypeError`` a call raises, away from the call; 23 of the 119 blocks the development corpora cut). The parts
    are now as many as before and of even size, every line whole."""
    lines = [f"value_{i} = compute({i})  # step {i}" for i in range(n)]
    code = "```python\n" + "\n".join(lines) + "\n```"
    passages = chunk_document(make_doc("## Setup\n\n" + code + "\n"), "t", embedder.count_tokens)
    sizes = [sum(1 for line in p.text.split("\n") if line.startswith("value_")) for p in passages]
    assert len(sizes) > 1 and sum(sizes) == n, sizes
    assert min(sizes) >= max(sizes) - 6, sizes
    assert [line for p in passages for line in p.text.split("\n") if line.startswith("value_")] == lines
    assert all(p.text.count("```") == 2 for p in passages)
    assert_within_cap(passages, embedder.count_tokens)


def test_a_list_part_that_starts_inside_an_item_is_not_read_as_code(embedder):
    """pip's ``pip install`` examples (pypa/pip at 6d3092057, MIT, docs/html/cli/pip_install.rst): a long numbered
    list whose items hold a warning and tabs of code. A passage that starts inside an item held its lines
    indented four spaces, which alone read as an indented code block: the answer printed the warning as code.
    Those lines lose the item's indentation; the next item and the code keep their lines."""
    code = (
        "    ```shell\n    python -m pip install --extra-index-url http://my.package.repo/simple SomePackage\n    ```\n"
    )
    warning = (
        "    Warning: Using the --extra-index-url option to search for packages which are not in the main repository "
        "(for example, private packages) is unsafe. This is a class of security issue known as dependency "
        "confusion: an attacker can publish a package with the same name to a public index, which may then be "
        "chosen instead of your private package.\n\n"
    )
    items = []
    for n in range(1, 4):
        filler = " ".join(f"Example {n} explains one more way to install a package." for _ in range(18))
        items.append(
            f"{n}. Search an additional index, case {n}.\n\n    {filler}\n\n{warning}    Unix/macOS:\n\n{code}"
        )
    passages = chunk_document(make_doc("## Examples\n\n" + "\n".join(items)), "t", embedder.count_tokens)
    starts = [p.text.split("\n", 1)[0] for p in passages]
    assert sum(s.startswith("Warning: Using the --extra-index-url") for s in starts) >= 2, starts
    assert not [s for s in starts if s.startswith(" ")], starts
    shown = "\n".join(p.text for p in passages)
    assert shown.count("python -m pip install --extra-index-url") == 3 and "2. Search an additional index" in shown
    assert_within_cap(passages, embedder.count_tokens)


# Longer than the 48-token overlap limit, so only the exception glue can keep the pair together.
RULE = (
    "Annual plans bought at full price through the self-serve checkout, the partner marketplace or the "
    "sales-assisted order flow are refundable within 30 days of the purchase date, provided the workspace "
    "has not exported more than ten gigabytes of data and no more than five seats were added in that period."
)
EXCEPTION = "Except plans bought during the winter sale, which are final."
PLAIN = "Plans bought during the winter sale are final."


def _together(embedder, second: str, filler_count: int) -> bool:
    filler = " ".join(
        f"Filler sentence {i} describes an unrelated policy detail in words." for i in range(filler_count)
    )
    text = f"## Refunds\n\n{filler} {RULE} {second} {filler}\n"
    passages = chunk_document(make_doc(text), "t", embedder.count_tokens)
    assert len(passages) > 1
    return any(RULE in p.text and second in p.text for p in passages)


def test_rule_and_its_exception_stay_in_one_passage(embedder):
    offsets = range(14, 34)
    assert all(_together(embedder, EXCEPTION, n) for n in offsets)
    # Control: the same sentence without "Except" is split from the rule at some offset,
    # so the check above would notice if exceptions were not glued.
    assert not all(_together(embedder, PLAIN, n) for n in offsets)


def test_heading_paths_and_title_h1(embedder):
    text = (
        "# Doc Title\n\nIntro.\n\n## Alpha\n\nA text.\n\n### Alpha One\n\nA1 text.\n\n#### Deep\n\nDeep text.\n\n"
        "## Beta\n\nB text.\n\n# Another Top\n\nTop text.\n\n### Skipped Level\n\nSkip text.\n"
    )
    got = {p.text: p.heading_path for p in chunk_document(make_doc(text), "t", embedder.count_tokens)}
    assert got == {
        "Intro.": (),
        "A text.": ("Alpha",),
        "A1 text.": ("Alpha", "Alpha One"),
        "Deep text.": ("Alpha", "Alpha One", "Deep"),
        "B text.": ("Beta",),
        "Top text.": ("Another Top",),
        "Skip text.": ("Another Top", "Skipped Level"),
    }


def test_long_prose_splits_on_sentences_with_overlap(embedder):
    sentences = [f"Sentence {i} explains one more part of the deployment process." for i in range(80)]
    passages = chunk_document(make_doc(" ".join(sentences), fmt="text"), "t", embedder.count_tokens)
    assert len(passages) > 2
    for p in passages:
        assert split_sentences(p.text)[0] in sentences  # parts start at a sentence boundary
    for before, after in pairwise(passages):
        assert split_sentences(after.text)[0] == split_sentences(before.text)[-1]  # one-sentence overlap
    assert_within_cap(passages, embedder.count_tokens)


def test_split_sentences():
    assert split_sentences("First one. Second one! Third? 4th starts with a digit. e.g. lower") == [
        "First one.",
        "Second one!",
        "Third?",
        "4th starts with a digit. e.g. lower",
    ]


def test_section_ids_with_parts(embedder):
    prose = " ".join(f"Sentence {i} explains one more part of the deployment process." for i in range(60))
    passages = chunk_document(make_doc(f"## Deploy\n\n{prose}\n\n## Deploy 2\n\nShort.\n"), "t", embedder.count_tokens)
    sections = [p.section for p in passages]
    assert sections[0] == "deploy" and sections[1] == "deploy-2"
    # "Deploy 2"'s own slug is taken by part 2 of "Deploy": it must not collide.
    assert len(set(sections)) == len(sections)
    assert passages[-1].text == "Short." and passages[-1].section != "deploy-2"


# ----------------------------------------------------------------------- real documentation: wraps, admonitions, intros

WRAPPED = """# Guide

## Locking

While the lockfile is created automatically, the lockfile may also be explicitly created or
updated using `uv lock`, which resolves every dependency of the project and writes the result to
disk. Second sentence here.

- A list item that is long enough to wrap onto a second line in the source
  file, like real documentation does.

A line with a hard break  
stays on two lines.
"""


def test_soft_wrapped_prose_is_joined_and_hard_breaks_kept(embedder):
    (passage,) = chunk_document(make_doc(WRAPPED, title="Guide"), "t", embedder.count_tokens)
    lines = passage.text.split("\n")
    assert (
        "While the lockfile is created automatically, the lockfile may also be explicitly created or updated using "
        "`uv lock`, which resolves every dependency of the project and writes the result to disk. Second sentence here."
        in lines
    )
    assert (
        "- A list item that is long enough to wrap onto a second line in the source file, like real documentation does."
        in lines
    )
    assert "A line with a hard break  " in lines and "stays on two lines." in lines


ADMONITIONS = """# Page

## Notes

!!! note

    The `--frozen` flag uses the lockfile
    without checking it.

!!! tip "Faster installs"

    Use the cache.

=== "macOS and Linux"

    ```console
    $ curl -LsSf https://astral.sh/uv/install.sh | sh
    ```

=== "Windows"

    ```console
    $ powershell -c "irm https://astral.sh/uv/install.ps1 | iex"
    ```

```console
!!! note
```
"""


def test_admonitions_and_tabs_become_labelled_prose_and_code(embedder):
    text = "\n\n".join(p.text for p in chunk_document(make_doc(ADMONITIONS, title="Page"), "t", embedder.count_tokens))
    assert "Note: The `--frozen` flag uses the lockfile without checking it." in text
    assert "Faster installs: Use the cache." in text
    # A tab's label introduces its code block, which is still a fenced block (not indented "code").
    assert "macOS and Linux:\n\n```console\n$ curl -LsSf https://astral.sh/uv/install.sh | sh\n```" in text
    assert "Windows:\n\n```console\n$ powershell" in text
    assert "```console\n!!! note\n```" in text  # a marker inside a code block is code


def test_a_tab_with_an_empty_title_keeps_its_content_unlabelled(embedder):
    doc = make_doc('# Install\n\n=== ""\n\n    Run the installer.\n', title="Page")
    text = "\n\n".join(p.text for p in chunk_document(doc, "t", embedder.count_tokens))
    assert "Run the installer." in text


def _intro_doc(filler_sentences: int, code_lines: int) -> str:
    filler = " ".join(
        f"Filler sentence number {i} talks about caching and resolution in some detail."
        for i in range(filler_sentences)
    )
    code = "\n".join(f'classifiers = ["Private :: Do Not Upload {i}"]' for i in range(code_lines))
    return (
        f"# Pub\n\n## Publishing\n\n{filler}\n\n"
        f"If you have internal packages, you can mark them as private:\n\n```toml\n{code}\n```\n\nAfter the block.\n"
    )


@pytest.mark.parametrize("filler", [0, 5, 12, 20])
def test_an_introducing_sentence_stays_with_its_block(embedder, filler):
    passages = chunk_document(make_doc(_intro_doc(filler, 3), title="Pub"), "t", embedder.count_tokens)
    holders = [p for p in passages if "you can mark them as private:" in p.text]
    assert len(holders) == 1 and 'classifiers = ["Private :: Do Not Upload 0"]' in holders[0].text
    assert not any(p.text.rstrip().endswith(":") for p in passages)
    assert not any(p.text.lstrip().startswith("```") for p in passages)
    assert_within_cap(passages, embedder.count_tokens)


def test_a_split_block_repeats_its_introduction_and_stays_fenced(embedder):
    passages = chunk_document(make_doc(_intro_doc(2, 60), title="Pub"), "t", embedder.count_tokens)
    parts = [p for p in passages if "Do Not Upload" in p.text]
    assert len(parts) >= 3
    for p in parts:
        assert "If you have internal packages, you can mark them as private:\n\n```toml\n" in p.text, p.text[:200]
        assert sum(1 for line in p.text.split("\n") if line.startswith("```")) == 2  # opened and closed in every part
    # Every code line is kept, each once.
    lines = [line for p in parts for line in p.text.split("\n") if line.startswith("classifiers")]
    assert sorted(lines) == sorted(f'classifiers = ["Private :: Do Not Upload {i}"]' for i in range(60))
    assert_within_cap(passages, embedder.count_tokens)


# tox's "Injected environment variables" (tox-dev/tox at ccb12fc2, docs/reference/config.rst, MIT), as ragcli reads it.
INJECTED = """## Injected environment variables

tox automatically injects several environment variables into the test environment when running commands. These are \
always set regardless of the `pass_env` or `set_env` configuration and cannot be overridden by the user.

| Variable | Description |
|---|---|
| `TOX_ENV_NAME` | The name of the current tox environment (e.g. `3.12`, `lint`). |
| `TOX_WORK_DIR` | The tox working directory (by default `.tox` under the project root). |
| `TOX_ENV_DIR` | The directory of the current tox environment (e.g. `.tox/3.12`). |
| `PYTHONIOENCODING` | Always set to `utf-8` to ensure consistent encoding for standard I/O. |
| `PIP_USER` | Always set to `0` to prevent pip from attempting `--user` installs inside virtualenvs, which would fail \
because user site-packages aren't visible. Only set when using `virtualenv`-based environments. |
| `TOX_PACKAGE` | The path(s) to the built package artifact(s), joined by `os.pathsep` if there are multiple. Only set \
in run environments where a package has been built. See Reference the built package path in commands for usage \
examples. |
| `VIRTUAL_ENV` | The path to the virtual environment directory. Only set when using `virtualenv`-based environments \
(the default). |
| `__TOX_ENVIRONMENT_VARIABLE_ORIGINAL_CI` | The value of the `CI` environment variable from the host. Only set when \
the `CI` variable is present in the host environment. |
"""


def test_a_paragraph_leads_the_first_part_of_the_table_after_it(embedder):
    """The table is too long for a passage: before, its introduction was a passage of its own and the table's
    first rows had no sentence saying what they are. A paragraph not ending in ':' leads the first part only."""
    passages = chunk_document(make_doc(INJECTED), "t", embedder.count_tokens)
    assert len(passages) >= 2
    first, *rest = passages
    assert first.text.startswith("tox automatically injects") and "| `TOX_ENV_NAME` |" in first.text
    assert not any("tox automatically injects" in p.text for p in rest)
    assert all(p.text.startswith("| Variable | Description |") for p in rest)
