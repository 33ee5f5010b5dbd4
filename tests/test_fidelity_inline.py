"""Inline text as the rendered page shows it: a pipe in a table cell's code, struck-out and raised text written in
HTML, MyST's ``<project:...>`` autolinks and links without text, ``:doc:`` references to documents the folder lacks, and
reference-style links (``[experimental features]`` defined at the section's end).

Real snippets from bench/corpora (each folder's SOURCE names the commit and its licence), kept short:

- lazygit (https://github.com/jesseduffield/lazygit, MIT): a row of ``docs/keybindings/Keybindings_en.md``, the
  video link of ``README.md``;
- Material for MkDocs (https://github.com/squidfunk/mkdocs-material, MIT): the Critic result of
  ``docs/reference/formatting.md``;
- MyST-Parser (https://github.com/executablebooks/MyST-Parser, MIT): ``docs/intro.md``, ``docs/faq/index.md``,
  ``docs/syntax/code_and_apis.md`` and the labelled heading of ``docs/configuration.md`` they point at; the
  links without text of ``docs/configuration.md`` and ``docs/syntax/optional.md``, the autolinks of
  ``docs/syntax/cross-referencing.md``, and the headings of ``docs/docutils.md`` and ``docs/intro.md`` they name;
- rustup (https://github.com/rust-lang/rustup, MIT OR Apache-2.0): ``docs/concepts/channels.md``;
- attrs (https://github.com/python-attrs/attrs, MIT): ``docs/api-attr.rst``'s note; Black
  (https://github.com/psf/black, MIT): ``docs/integrations/editors.md``'s ``{doc}`` with a title.
"""

from __future__ import annotations

from pathlib import Path

from support.corpus import write
from test_chunking import make_doc

from ragcli.backends.local.evidence import readable, units
from ragcli.ingestion.chunking import chunk_document
from ragcli.ingestion.crossrefs import resolving
from ragcli.ingestion.dialects import unfold_dialects
from ragcli.ingestion.folder import open_folder
from ragcli.ingestion.html_markup import block_lines, inline_html
from ragcli.ingestion.references import scan
from ragcli.ingestion.rst import rst_to_markdown
from ragcli.text import table_cells

LAZYGIT_ROWS = """\
| Key | Action | Info |
|-----|--------|-------------|
| `` _ `` | Prev screen mode |  |
| `` \\| `` | Cycle diff renderers | Choose the next renderer in the list of configured diff renderers. |
| `` \\ `` | Cycle diff renderers (reverse) | Choose the previous renderer in the list of configured diff renderers. |
"""
LAZYGIT_VIDEO = '[<img src="https://i.imgur.com/sVEktDn.png">](https://youtu.be/CPLdltN7wgE)'
MATERIAL_CRITIC = """\
Text can be <del class="critic">deleted</del> and replacement text
<ins class="critic">added</ins>. This can also be combined into
<del class="critic">one</del><ins class="critic">a single</ins> operation.
<mark class="critic">Highlighting</mark> is also possible
<span class="critic comment">and comments can be added inline</span>.
"""
MYST_INTRO = """\
## Configuring MyST-Parser

The <project:configuration.md> section contains a complete list of configuration options for the MyST-Parser.
"""
MYST_FAQ = """\
### Suppress warnings

See <project:#myst-warnings> for this information.
"""
MYST_CONFIGURATION = """\
(sphinx/config-options)=
# Configuration

(howto/warnings)=
(myst-warnings)=
## Build Warnings

Below lists the MyST specific warnings that may be emitted during the build process.
"""
MYST_SEEALSO = "Configuration in Docutils, in the [](docutils.md) section."
MYST_OPTIONAL = "This can be disabled by setting `myst_suppress_warnings` (see [](myst-warnings))."
MYST_AUTOLINKS = """\
:Internal file -> heading reference: <project:../intro.md#-get-started>
:Downloadable file: <path:example.txt>
:Intersphinx reference: <inv:sphinx:std#index>
"""
MYST_DOCUTILS = "(myst-docutils)=\n\n# Single Page Builds\n"
MYST_INTRO_HEADINGS = "# 🚀 Get Started\n\n## Installation\n"
MYST_AUTODOC = "will automatically generate the full API documentation, as shown <project:/apidocs/index.rst>."
RUSTUP_NIGHTLY = """\
## Working with nightly Rust

`rustup` gives you easy access to the nightly compiler and its [experimental
features]. To add it just run `rustup toolchain install nightly`. See [toolchains] and `[toolchains]` (code).

Brackets the page does not define stay: [x], [AB-123].

```toml
[toolchains]
```

[experimental features]: https://doc.rust-lang.org/unstable-book/
[toolchains]: toolchains.md
"""
ATTRS_NOTE = """\
API Reference for the ``attr`` Namespace
========================================

.. note::

   These are the traditional APIs whose creation predates type annotations.

   See also :doc:`names`.
"""
BLACK_EDITORS = "spins up {doc}`Black's HTTP server </usage_and_configuration/black_as_a_server>`, to"


def _row_statement(embedder, table: str, key: str) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    """The passage's line for the row whose Action is ``key``, and the statement of that row's unit."""
    (passage,) = chunk_document(make_doc("# Global keybindings\n\n" + table), "t", embedder.count_tokens)
    (unit,) = [u for u in units(passage) if u.kind == "row" and f"| {key} |" in u.quote]
    return unit.quote, unit.statement


def test_a_pipe_in_a_table_cells_code_is_that_code_not_the_cells_end(embedder) -> None:  # type: ignore[no-untyped-def]
    quote, statement = _row_statement(embedder, LAZYGIT_ROWS, "Cycle diff renderers")
    assert (
        quote
        == "| `` \\| `` | Cycle diff renderers | Choose the next renderer in the list of configured diff renderers. |"
    )
    assert statement.startswith("Key: |; Action: Cycle diff renderers; Info: Choose the next renderer"), statement
    assert table_cells(quote) == ["`` | ``", "Cycle diff renderers", quote.split(" | ")[-1].rstrip(" |")]
    # The same key written with HTML: in a row the escape stays (a bare pipe would end the cell), and shows "|".
    html_rows = LAZYGIT_ROWS.replace("`` \\| ``", "<code>\\|</code>")
    quote, statement = _row_statement(embedder, unfold_dialects(html_rows), "Cycle diff renderers")
    assert quote.startswith("| `\\|` | Cycle diff renderers |") and statement.startswith("Key: |; Action: Cycle"), quote
    # Outside a table, the element's Markdown escape is read: the code is "a | b".
    assert inline_html("Pipe it: <code>a \\| b</code>.") == "Pipe it: `a | b`."


def test_struck_out_text_keeps_its_mark_and_is_not_glued_to_what_replaces_it(embedder) -> None:  # type: ignore[no-untyped-def]
    (passage,) = chunk_document(make_doc(unfold_dialects(MATERIAL_CRITIC)), "t", embedder.count_tokens)
    assert "onea single" not in passage.text
    assert passage.text.startswith(
        "Text can be ~~deleted~~ and replacement text added. This can also be combined into ~~one~~a single "
        "operation. Highlighting is also possible and comments can be added inline."
    ), passage.text
    # Raised and lowered numbers stay digits, which a query's "CO2" (or "CO₂", NFKC) finds; two keys are two keys.
    assert inline_html("x<sup>2</sup> and H<sub>2</sub>O") == "x2 and H2O"
    # A struck-out block is its paragraphs, with no "~~" standing alone between them.
    assert block_lines("<div>\n<del><p>First para.</p><p>Second para.</p></del>\n</div>\n") == [
        "",
        "First para.",
        "",
        "Second para.",
        "",
    ]
    assert inline_html("Press <kbd>Ctrl</kbd><kbd>C</kbd>, or <kbd>Esc</kbd>.") == "Press Ctrl C, or Esc."


def _myst_folder(root: Path) -> Path:
    write(root / "intro.md", "# Get started\n\n" + MYST_INTRO)
    write(root / "faq" / "index.md", "# FAQ\n\n" + MYST_FAQ)
    write(root / "configuration.md", MYST_CONFIGURATION)
    return root


def test_a_myst_project_autolink_shows_its_targets_title(tmp_path: Path) -> None:
    root = _myst_folder(tmp_path / "docs")
    with open_folder(root) as folder:
        table = scan(folder, folder.discover().files, 1 << 20)
    with resolving(table.titles_for("intro.md")):
        assert "The Configuration section contains" in unfold_dialects(MYST_INTRO)
    with resolving(table.titles_for("faq/index.md")):
        assert "See Build Warnings for this information." in unfold_dialects(MYST_FAQ)
    # Without the target's title: the target made readable, never the raw autolink.
    assert "See Myst warnings for this information." in unfold_dialects(MYST_FAQ)
    assert unfold_dialects(MYST_AUTODOC).endswith("documentation, as shown Apidocs.")
    assert "<project:" not in unfold_dialects("<project:../intro.md#-get-started>, <project:#a>")
    assert unfold_dialects("See <project:../intro.md#-get-started>.") == "See Get started."
    assert unfold_dialects("`<project:#dest>` is code") == "`<project:#dest>` is code"
    # A link's destination in angle brackets is the link's, not an autolink: its text is what shows.
    assert "[the intro](<project:intro.md>)" in unfold_dialects("See [the intro](<project:intro.md>).")


def test_a_myst_link_without_text_shows_its_targets_title(tmp_path: Path) -> None:
    root = _myst_folder(tmp_path / "docs")
    write(root / "docutils.md", MYST_DOCUTILS)
    write(root / "intro.md", MYST_INTRO_HEADINGS)
    write(root / "see.md", f"# See also\n\n{MYST_SEEALSO}\n\n{MYST_OPTIONAL}\n")
    write(root / "syntax" / "refs.md", "# Refs\n\n" + MYST_AUTOLINKS)
    with open_folder(root) as folder:
        table = scan(folder, folder.discover().files, 1 << 20)
    with resolving(table.titles_for("see.md")):
        assert unfold_dialects(MYST_SEEALSO) == "Configuration in Docutils, in the Single Page Builds section."
        assert unfold_dialects(MYST_OPTIONAL).endswith("(see Build Warnings).")
    with resolving(table.titles_for("syntax/refs.md")):
        # Another page's heading, found by the anchor MyST gives it ("🚀 Get Started" is #-get-started).
        assert unfold_dialects(MYST_AUTOLINKS).split("\n")[:3] == [
            ":Internal file -> heading reference: 🚀 Get Started",
            ":Downloadable file: example.txt",
            ":Intersphinx reference: index",
        ]
    # Without the folder's titles: the target made readable; a URL shows itself; an image and code are left alone.
    assert unfold_dialects(MYST_SEEALSO) == "Configuration in Docutils, in the Docutils section."
    assert unfold_dialects("(see [](myst-warnings))") == "(see Myst warnings)"
    left_alone = "![](img.png) `[](x.md)`"
    assert unfold_dialects(f"[](https://example.com) {left_alone}") == f"https://example.com {left_alone}"
    # A link around an HTML image shows the image, no text: nothing is left of it (lazygit's README).
    assert unfold_dialects(LAZYGIT_VIDEO) == ""


def test_a_reference_link_the_page_defines_reads_as_its_text(embedder) -> None:  # type: ignore[no-untyped-def]
    (passage,) = chunk_document(make_doc(RUSTUP_NIGHTLY), "t", embedder.count_tokens)
    first, rest = passage.text.split("\n", 1)
    assert first == (
        "`rustup` gives you easy access to the nightly compiler and its experimental features. To add it just run "
        "`rustup toolchain install nightly`. See toolchains and `[toolchains]` (code)."
    )
    assert "Brackets the page does not define stay: [x], [AB-123]." in rest
    assert "```toml\n[toolchains]\n```" in rest  # code is code
    assert readable(first).startswith(
        "rustup gives you easy access to the nightly compiler and its experimental features."
    )


def test_link_definitions_under_a_list_show_nothing(embedder) -> None:  # type: ignore[no-untyped-def]
    # squidfunk/mkdocs-material docs/getting-started.md (MIT): Material writes its link targets indented under a
    # list, inside its last item, and "[GitHub Actions]:" ends a sentence before a code block. Search printed
    # "[Docker image]: https://hub..." in its snippet; an answer, "A complete example workflow for [GitHub Actions]:".
    from ragcli.readable import readable as rendered

    page = (
        "# Getting started\n\nThe following plugins are bundled with the [Docker image]:\n\n"
        "- [mkdocs-minify-plugin]\n- [mkdocs-redirects]\n\n"
        "  [Docker image]: https://hub.docker.com/r/squidfunk/mkdocs-material/\n"
        "  [mkdocs-minify-plugin]: https://github.com/byrnereese/mkdocs-minify-plugin\n"
        "  [mkdocs-redirects]: https://github.com/datarobot/mkdocs-redirects\n\n"
        "Warning: The Docker container is intended for local previewing purposes only.\n"
    )
    (passage,) = chunk_document(make_doc(page), "t", embedder.count_tokens)
    assert "bundled with the Docker image:\n\n- mkdocs-minify-plugin\n- mkdocs-redirects" in passage.text
    assert "  [Docker image]: https://hub.docker.com/r/squidfunk/mkdocs-material/" in passage.text  # as written
    shown = rendered(passage.text)
    assert "https://" not in shown and "Warning: The Docker container" in shown, shown
    assert rendered("- a\n- b\n\n  [a]: https://x/a\n\nText [b]: and more.") == "- a\n- b\n\nText [b]: and more."
    # A plain-text file's own "[1]: url" line (a passage holds no top-level definition of a Markdown page) is text.
    assert (
        rendered("See [1].\n\n[1]: https://example.com/a\n\nEnd.") == "See [1].\n\n[1]: https://example.com/a\n\nEnd."
    )
    # Code indented four spaces is code; a definition in a quote or over two lines stays as written at ingest.
    assert (
        rendered("Example:\n\n    [a]: https://x.example/a\n\nEnd.")
        == "Example:\n\n    [a]: https://x.example/a\n\nEnd."
    )
    from ragcli.ingestion.link_refs import references_as_text

    refs = {"A": {"href": "https://x.example/a"}, "X": {"href": "x.md"}}
    for line in ("> [a]: https://x.example/a", "  [a]:", "- [x]: done", '  [a]: u "say \\"hi\\""'):
        assert references_as_text([line], refs) == [line]
    assert references_as_text(["see [a] and [x]: here"], refs) == ["see a and x: here"]
    # An admonition whose title is a link reads "Title: ...": a sentence, not a definition (Material's versioning page).
    assert references_as_text(["[a]: mike is built around one idea"], refs) == ["a: mike is built around one idea"]


def test_a_long_lists_link_definitions_do_not_run_into_a_line_of_text(embedder) -> None:  # type: ignore[no-untyped-def]
    # squidfunk/mkdocs-material docs/blog/posts/insiders-now-free-for-everyone.md (MIT): 43 features, each a link
    # defined under the list. Cut to fit, the definitions were read as prose and ran into one line: a passage
    # showed "[Optimize plugin]: ../../plugins/optimize.md [Navigation path]: ../../setup/...".
    names = [f"Feature {n}: a premium capability" for n in range(43)]
    page = (
        "# Insiders\n\n## Available features\n\nAll these features are now available to everyone:\n\n"
        + "".join(f"- [x] [{name}]\n" for name in names)
        + "\n\n\n"
        + "".join(f"  [{name}]: ../../plugins/feature-{n}.md#a-long-anchor-name\n" for n, name in enumerate(names))
    )
    passages = chunk_document(make_doc(page), "t", embedder.count_tokens)
    assert len(passages) > 1  # the list is cut
    assert not any("]: ../" in p.text for p in passages), [p.text for p in passages if "]: ../" in p.text]
    assert any("- [x] Feature 42: a premium capability" in p.text for p in passages)


def test_a_doc_reference_to_a_document_the_folder_lacks_reads_as_its_name() -> None:
    shown = rst_to_markdown(ATTRS_NOTE, "api-attr.rst")[1]
    assert "See also Names." in shown and ":doc:" not in shown and "`names`" not in shown, shown
    assert unfold_dialects(BLACK_EDITORS) == "spins up Black's HTTP server, to"
    untitled = unfold_dialects("{doc}`/usage_and_configuration/black_as_a_server`, {doc}`../guides/index`")
    assert untitled == "Black as a server, Guides"
