"""What a person reads is what the page says: titles, headings, code inside containers, and doc-site plugin
markup (Material for MkDocs, pymdownx, mkdocstrings, Sphinx) read as the rendered site shows them.

Real pages where there are real pages (their sources and licences are in tests/data/README.md): Material for
MkDocs and lazygit from bench/corpora, FastAPI's MkDocs pages and an excerpt of Django's Sphinx tutorial in
tests/data. The other cases are crafted, each in the shape its documentation gives."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support.corpus import markdown, read_source, write
from test_chunking import make_doc

from ragcli.ingestion.chunking import chunk_document
from ragcli.ingestion.dialects import unfold_dialects
from ragcli.ingestion.loaders import load_file, title_from_path
from ragcli.ingestion.rst import rst_to_markdown
from ragcli.ingestion.sources import SourceFile

DATA = Path(__file__).parent / "data"
CORPORA = Path(__file__).parent.parent / "bench" / "corpora"
PLUGIN_MARKUP = re.compile(
    r"^\s*/{3,}|\{\s*[.#][\w-]+[^}]*\}|\{\w+=\"|#\s*\(\d+\)!|^:::\s+[\w.]+|--8<--|(?<![\w:`]):[a-z_]+:(?![\w`])",
    re.MULTILINE,
)
"""What the fidelity bench counts as plugin markup left in a passage (bench/fidelity.py has the same rule)."""


def _load(tmp_path: Path, rel: str, content: str):  # type: ignore[no-untyped-def]
    path = write(tmp_path / rel, content)
    src = SourceFile(path.resolve(), rel)
    return load_file(src, read_source(src), default_acl=("everyone",))


def _passages(embedder, text: str, title: str = "Doc Title"):  # type: ignore[no-untyped-def]
    return chunk_document(make_doc(text, title=title), "t", embedder.count_tokens)


# --------------------------------------------------------------------------- titles and headings


def test_a_page_without_h1_is_titled_by_its_file_name_and_its_sections_are_siblings(tmp_path, embedder) -> None:
    body = (
        "Intro about fields.\n\n## The annotated pattern\n\nUse Annotated.\n\n"
        '## Implementing [`get_schema`](x.md) <a name="implementing-get-schema"></a>\n\nDo it.\n\n'
        "## Default values {#defaults}\n\nDefaults here.\n"
    )
    doc = _load(tmp_path, "concepts/fields.md", markdown({"acl": ["everyone"]}, body))
    assert doc.title == "Fields"  # never "The annotated pattern"
    passages = chunk_document(doc, "t", embedder.count_tokens)
    paths = [p.heading_path for p in passages]
    assert (
        ("Implementing get_schema",) in paths and ("Default values",) in paths and ("The annotated pattern",) in paths
    )
    ids = [p.section for p in passages]
    assert "implementing-get-schema" in ids and not any("a-name" in i for i in ids), ids


def test_front_matter_title_then_h1_then_the_file_name(tmp_path) -> None:
    assert (
        _load(tmp_path, "a.md", markdown({"acl": ["everyone"], "title": "Given"}, "# Heading\n\nx\n")).title == "Given"
    )
    assert _load(tmp_path, "b.md", markdown({"acl": ["everyone"]}, "# The [Guide](x.md) :material-star:\n")).title == (
        "The Guide"
    )
    assert _load(
        tmp_path, "getting-started/index.md", markdown({"acl": ["everyone"]}, "## Only a lower one\n")
    ).title == ("Getting started")
    assert title_from_path("keybindings/Custom_Keybindings.md") == "Custom Keybindings"


def test_a_real_page_whose_first_heading_is_h2(tmp_path, embedder) -> None:
    """lazygit's Custom_Keybindings.md opens with ``## Custom Keybindings``: that is the title, said once."""
    rel = "keybindings/Custom_Keybindings.md"
    text = (CORPORA / "lazygit" / "docs" / "docs" / rel).read_text(encoding="utf-8")
    doc = _load(tmp_path, rel, markdown({"acl": ["everyone"]}, text))
    assert doc.title == "Custom Keybindings"
    paths = {p.heading_path for p in chunk_document(doc, "t", embedder.count_tokens)}
    assert ("Modifiers",) in paths and not any(p[:1] == ("Custom Keybindings",) for p in paths), paths


# --------------------------------------------------------------------------- code inside containers

LONG_CODE = "\n".join(f"setting_{i:03d} = compute(value, {i}, 'walrus')  # tuned for region {i % 7}" for i in range(60))


def _indented(text: str, prefix: str) -> str:
    return "\n".join(prefix + line if line else line for line in text.split("\n"))


@pytest.mark.parametrize(
    "page",
    [
        "1. Install the validator:\n\n    ```python\n" + _indented(LONG_CODE, "    ") + "\n    ```\n",
        '- Pick one:\n\n    === "Python"\n\n        ```python\n' + _indented(LONG_CODE, "        ") + "\n        ```\n",
        '!!! note "Careful"\n\n    ```python\n' + _indented(LONG_CODE, "    ") + "\n    ```\n",
        "> ```python\n" + _indented(LONG_CODE, "> ") + "\n> ```\n",
    ],
    ids=["list-item", "tab-in-list-item", "admonition", "blockquote"],
)
def test_long_code_in_a_container_keeps_every_line_whole(embedder, page) -> None:
    passages = _passages(embedder, "# Crafted\n\n" + page)
    assert len(passages) > 1
    lines = ["\n".join(_strip(p.text)) for p in passages]
    for line in LONG_CODE.split("\n"):
        assert any(line in text.split("\n") for text in lines), line
    for p in passages:  # every part still reads as code: fenced again
        code = [s for s in _strip(p.text) if s.startswith("setting_")]
        if code:
            assert "```python" in _strip(p.text) and _strip(p.text)[-1] == "```", p.text


def _strip(text: str) -> list[str]:
    return [re.sub(r"^[ \t]*(?:>[ \t]?)*", "", line).strip() for line in text.split("\n")]


# --------------------------------------------------------------------------- Material, pymdownx, mkdocstrings


def test_material_code_annotations_and_attribute_lists(embedder) -> None:
    """Material's blog announcement: ``# (1)!`` in a YAML block, ``{ .sh .no-copy }`` on a fence."""
    text = (CORPORA / "material" / "docs" / "blog" / "posts" / "blog-support-just-landed.md").read_text("utf-8")
    out = "\n\n".join(p.text for p in _passages(embedder, text))
    assert "      blog_dir: .\n" in out and "(1)!" not in out
    assert "```sh\n.\n├─ docs/" in out and "{ .sh" not in out
    # The annotation's text stays, as prose after its block.
    assert "This is the important part" in out


def test_material_caption_block_and_emoji(embedder) -> None:
    # Material's images page shows the caption syntax as an example: in a code block, where it stays.
    text = (CORPORA / "material" / "docs" / "reference" / "images.md").read_text("utf-8")
    assert "/// caption\nImage caption\n///\n```" in unfold_dialects(text)
    out = unfold_dialects(
        '![Image title](https://dummyimage.com/600x400/){ width="300" }\n/// caption\nImage caption\n///\n'
    )
    assert "///" not in out and "Image caption" in out and "width" not in out
    assert unfold_dialects("Works :white_check_mark: and :x: but `:x:` is code.") == (
        "Works \u2705 and \u274c but `:x:` is code."
    )
    assert unfold_dialects("See :ref:`x` and 10:30:00.") == "See :ref:`x` and 10:30:00."


def test_pymdownx_blocks_tabs_and_includes_in_a_fastapi_page(embedder) -> None:
    """FastAPI's tutorial: ``/// info`` … ``///``, ``//// tab | Python 3.10+`` around an include-only block."""
    text = (DATA / "mkdocs" / "fastapi-body.md").read_text("utf-8")
    passages = _passages(embedder, text)
    out = "\n\n".join(p.text for p in passages)
    assert "Info: To send data, you should use one of" in out
    assert "Tip: If you use" in out and "Note: FastAPI will know" in out
    assert "///" not in out and "{!>" not in out and "hl_lines" not in out
    assert "Python 3.10+:" not in out  # a tab whose code is only an include shows nothing
    assert '```JSON\n{\n    "name": "Foo",' in out


def test_version_blocks_and_options() -> None:
    page = (
        "/// version-added | v2.10\nThe `strict` flag.\n///\n\n"
        "/// admonition | Watch out\n    type: warning\nThe body.\n///\n\n"
        "/// version-changed | Changed in 1.9.0\n\nNew arguments.\n\n///\n\n"
        '```python {lint="skip" test="skip"}\nx = 1  # (1)!\n```\n'
    )
    out = unfold_dialects(page)
    assert "Added in v2.10: The `strict` flag." in out
    assert "Watch out: The body." in out and "type: warning" not in out
    assert "Changed in 1.9.0: New arguments." in out
    assert "```python\nx = 1\n```" in out


def test_mkdocstrings_stub_is_skipped_and_a_directive_in_a_page_dropped(tmp_path, embedder) -> None:
    from ragcli import ingest

    docs = tmp_path / "docs"
    write(docs / "reference" / "apirouter.md", (DATA / "mkdocs" / "fastapi-apirouter.md").read_text("utf-8"))
    stub = "# `fastapi.routing`\n\n::: fastapi.routing\n    options:\n      show_root_heading: true\n"
    write(docs / "reference" / "routing.md", stub)
    report = ingest(docs, "t", index=tmp_path / "index", embedder=embedder, default_acl=["everyone"])
    assert [Path(e).name for e in report.empty] == ["routing.md"], report.empty
    from ragcli.cli.ingest import report_skipped

    notes: list[str] = []
    report_skipped(report, notes.append)
    assert any("API reference generated from code" in n and "routing.md" in n for n in notes), notes

    page = chunk_document(
        _load(tmp_path, "apirouter.md", (DATA / "mkdocs" / "fastapi-apirouter.md").read_text("utf-8")),
        "t",
        embedder.count_tokens,
    )
    text = "\n".join(p.text for p in page)
    assert "from fastapi import APIRouter" in text and ":::" not in text and "include_router" not in text


STARLETTE_API = """
??? abstract "API Reference"
    ::: starlette.applications.Starlette
        options:
            parameter_headings: false
            show_root_heading: true
            heading_level: 3
            filters:
                - "__init__"

Starlette includes an application class `Starlette` that nicely ties together all of
its other functionality.
"""  # bench/corpora/starlette/docs/applications.md (BSD-3-Clause)


def test_mkdocstrings_directive_inside_an_admonition_goes_with_its_admonition(embedder) -> None:
    """The collapsed "API Reference" box shows only the API reference generated from code: nothing of it is read,
    its title included, and the page starts with its first paragraph."""
    passages = _passages(embedder, STARLETTE_API)
    assert passages[0].text.startswith("Starlette includes an application class `Starlette` that nicely ties")
    out = "\n".join(p.text for p in passages)
    assert "API Reference" not in out and ":::" not in out and "options" not in out and "heading_level" not in out
    # In a list item or next to other content, the directive goes and the rest stays.
    page = "- Item:\n\n    ::: pkg.mod\n        options:\n          a: 1\n\n    More.\n\n"
    page += '!!! note "N"\n    Keep.\n\n    ::: a.b\n'
    out = unfold_dialects(page)
    assert "::: " not in out and "a: 1" not in out and "    More." in out and '!!! note "N"\n    Keep.' in out


def test_no_plugin_markup_is_left_in_the_fastapi_and_material_pages(embedder) -> None:
    pages = [DATA / "mkdocs" / "fastapi-body.md", DATA / "mkdocs" / "fastapi-apirouter.md"]
    pages += sorted((CORPORA / "material" / "docs" / "blog" / "posts").glob("*.md"))
    for page in pages:
        for p in _passages(embedder, page.read_text("utf-8")):
            found = [m.group() for m in PLUGIN_MARKUP.finditer(p.text) if not _in_code(p.text, m.start())]
            assert not found, (page.name, found, p.text[:300])


def _in_code(text: str, at: int) -> bool:
    before = text[:at]
    return before.count("```") % 2 == 1 or before.count("`") % 2 == 1


# --------------------------------------------------------------------------- HTML in Markdown

HTML_TAG = re.compile(r"</?[A-Za-z][\w-]*(?:\s[^<>]*)?/?>|<!--")


def _prose(text: str) -> str:
    """``text`` without its fenced code and code spans: where a tag may not be left."""
    return re.sub(r"(`+).+?\1", "", re.sub(r"(?ms)^[ \t]*```.*?^[ \t]*```", "", text))


JEKYLL_NOTE_AND_TABLE = """<div class="note warning">
  <h5>UTF-8 Character Encoding Warning</h5>
  <p>
    If you use UTF-8 encoding, make sure that no <code>BOM</code> header
    characters exist in your files or very, very bad things will happen to
    Jekyll. This is especially relevant if you’re running
    <a href="{{ '/docs/installation/windows/' | relative_url }}">Jekyll on Windows</a>.
  </p>
</div>

<div class="mobile-side-scroller">
<table>
  <thead>
    <tr>
      <th>Variable</th>
      <th>Description</th>
    </tr>
  </thead>
  <tbody>
    <tr>
      <td>
        <p><code>layout</code></p>
      </td>
      <td>
        <p>

          If set, this specifies the layout file to use. Use the layout file
          name without the file extension. Layout files must be placed in the
          <code>_layouts</code> directory.

        </p>
      </td>
    </tr>
    <tr>
      <td>
        <p><code>published</code></p>
      </td>
      <td>
        <p>
          Set to false if you don’t want a specific post to show up when the
          site is generated.
        </p>
      </td>
    </tr>
  </tbody>
</table>
</div>
"""  # bench/corpora/jekyll/docs/front-matter.md (MIT), the table cut to two rows


def test_jekyll_html_notes_and_tables_read_as_their_text(embedder) -> None:
    """kramdown reads an HTML block to its closing tag, blank lines inside included: the note is a title and a
    paragraph, the table a table (its cells' paragraphs joined), ``<code>`` a code span; nothing reads as code
    that was not (the indented lines after a blank line in a ``<p>`` are the cell's text)."""
    passages = _passages(embedder, JEKYLL_NOTE_AND_TABLE)
    out = "\n\n".join(p.text for p in passages)
    assert not HTML_TAG.search(out), out
    assert "UTF-8 Character Encoding Warning\n\nIf you use UTF-8 encoding, make sure that no `BOM` header" in out
    assert "This is especially relevant if you’re running Jekyll on Windows." in out
    assert (
        "| Variable | Description |\n|---|---|\n| `layout` | If set, this specifies the layout file to use. Use "
        "the layout file name without the file extension. Layout files must be placed in the `_layouts` directory. |\n"
        "| `published` | Set to false if you don’t want a specific post to show up when the site is generated. |"
    ) in out


MKDOCSTRINGS_PREVIEW = """/// admonition | Preview
    type: preview

//// tab | Ignore init summary, trim doctest flags
<h2><code>PrintOK</code></h2>
<p>Class docstring.</p>
<h3><code>__init__</code></h3>
<p>Examples:</p>

```pycon
>>> PrintOK()
ok
```
////
///

**Name**    | **Description**
----------- | ---------------
""" + (
    '`threshold` | <span style="display: inline-block; min-width: 400px;">Threshold for something.</span><br>'
    '**TYPE:** [`int`][] <span style="float: right;"><b>DEFAULT:</b> <i>required</i></span>\n'
)  # bench/corpora/mkdocstrings-python/docs/usage/configuration/docstrings.md (ISC), two previews


def test_mkdocstrings_html_previews_read_as_the_rendered_page(embedder) -> None:
    out = "\n\n".join(p.text for p in _passages(embedder, MKDOCSTRINGS_PREVIEW))
    assert not HTML_TAG.search(_prose(out)), out
    assert "`PrintOK`\n\nClass docstring.\n\n`__init__`\n\nExamples:\n\n```pycon\n>>> PrintOK()\nok\n```" in out
    assert "`threshold` | Threshold for something. **TYPE:** [`int`][] DEFAULT: required" in out


def test_inline_html_reads_as_its_text_and_html_in_code_stays() -> None:
    """Material's pages (bench/corpora/material, MIT): ``<small>``, ``<u>``, ``<br/>`` and an escaped comment in
    ``<code>``; Black's ``<details>`` (bench/corpora/black, MIT); MyST's inline ``<img>`` (bench/corpora/myst, MIT,
    no ``alt``: nothing to read); ``<kbd>`` and an ``<img>`` with ``alt`` crafted. In code, HTML is as written."""
    page = (
        "- [Context] <small>optional</small>\n\n"  # docs/contributing/reporting-a-bug.md
        "__Keep track of all <u>search terms</u> and <u>relevant links</u>, you'll need them in the bug report.__\n\n"
        "* [Basics](blogs/basic.md) (20 min) <br/>\n  covers the basics of setting up a blog.\n"  # tutorials/index.md
        "* [Custom cards](social/custom.md) (15 min)<br/>\n  shows you how to design your own custom social cards.\n\n"
        "Default: <code>&lt;!-- more --&gt;</code>\n\n"  # docs/plugins/blog.md (its badge macro, as read)
        "<details>\n<summary>Example <code>pyproject.toml</code></summary>\n\n```toml\n[tool.black]\n```\n\n"
        "</details>\n\n"  # black docs/usage_and_configuration/the_basics.md
        'I\'m an inline image: <img src="img/fun-fish.png" height="20px">\n\n'  # myst docs/syntax/optional.md
        'Press <kbd>Ctrl</kbd>+<kbd>C</kbd> to see <img src="x.png" alt="the walrus">.\n\n'
        "Write `<br>` or <!-- a comment -->\n\n```html\n<p>some <b>text</b></p>\n```\n"
    )
    out = plain_blocks(page)
    assert "- [Context] optional" in out
    assert "__Keep track of all search terms and relevant links, you'll need them in the bug report.__" in out
    assert "* [Basics](blogs/basic.md) (20 min) covers the basics of setting up a blog." in out
    assert "(15 min) shows you how to design" in out
    assert "Default: `<!-- more -->`" in out
    assert "Example `pyproject.toml`:\n\n```toml\n[tool.black]\n```" in out
    assert "I'm an inline image:" in out and "fun-fish" not in out
    assert "Press Ctrl+C to see the walrus." in out
    assert "Write `<br>` or" in out and "```html\n<p>some <b>text</b></p>\n```" in out
    assert not HTML_TAG.search(_prose(out)), out


def plain_blocks(text: str) -> str:
    from ragcli.ingestion.markdown import markdown_sections

    return "\n\n".join(b.text for s in markdown_sections(text, "Title") for b in s.blocks)


# --------------------------------------------------------------------------- Sphinx


def test_django_captions_and_python_references_read_as_text() -> None:
    _, out = rst_to_markdown((DATA / "rst" / "django-tutorial01-excerpt.rst").read_text("utf-8"), "t.rst")
    assert "polls/views.py:\n\n```python\nfrom django.http import HttpResponse" in out
    assert "``polls" not in out and "\n`polls" not in out  # the caption is text; in prose the path is code
    assert "the file `polls/views.py` and put" in out
    assert "The include function allows referencing other URLconfs." in out
    assert "When to use include(): You should always use `include()` when" in out


def test_sphinx_references_tabs_and_leading_dots() -> None:
    page = (
        "Guide\n=====\n\nSee :ref:`context-visibility` and :class:`.Request`, :meth:`~.Flask.route`, "
        ":file:`.env`, :ref:`the ctx <context-visibility>`, :ref:`elsewhere-label`.\n\n"
        ".. tabs::\n\n   .. tab:: ``pip`` on :program:`Linux`\n\n      Install it with pip.\n\n"
        ".. _context-visibility:\n\nContext Visibility\n------------------\n\nText.\n"
    )
    _, out = rst_to_markdown(page, "t.rst")
    assert "See Context Visibility and Request, route, `.env`, the ctx, elsewhere-label." in out  # :file: is code
    assert "pip on Linux: Install it with pip." in out
