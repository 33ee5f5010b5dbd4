"""Doc-site dialects read as prose or code: real snippets from the corpora under bench/corpora.

Each test takes a snippet as its site's source has it (the file is named in
the test) and checks what a reader of the rendered page would see: labelled
prose, code as code, and no markup left over.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ragcli.backends.local.evidence import units
from ragcli.ingestion.dialects import unfold_dialects
from ragcli.ingestion.markdown import expand_mkdocs, markdown_sections
from ragcli.ingestion.metadata import split_front_matter
from ragcli.ingestion.rst import rst_to_markdown
from ragcli.passage import Passage

CORPORA = Path(__file__).resolve().parents[1] / "bench" / "corpora"
LEFTOVERS = ("{{<", "{{%", ":::", "<!--", "[!NOTE]", "[!TIP]", "[!WARNING]", "{%", "<TabItem", "<Tabs", "{ref}")


def plain(text: str) -> str:
    """What the chunker's blocks hold for ``text``: every section's blocks, joined."""
    return "\n\n".join(b.text for s in markdown_sections(text, "Title") for b in s.blocks)


def assert_no_markup(text: str) -> None:
    for mark in LEFTOVERS:
        assert mark not in text, (mark, text)


# --------------------------------------------------------------------------- Hugo (docsy)

HUGO_TABS = """The default language is English:

<!-- markdownlint-disable -->
<!-- prettier-ignore-start -->
{{< tabpane >}}
{{< tab header="Configuration file:" disabled=true />}}
{{< tab header="hugo.toml" lang="toml" >}}
contentDir = "content/en"
defaultContentLanguage = "en"
{{< /tab >}}
{{< tab header="hugo.yaml" lang="yaml" >}}
contentDir: content/en
defaultContentLanguage: en
{{< /tab >}}
{{< /tabpane >}}
<!-- prettier-ignore-end -->
"""  # bench/corpora/docsy/docs/language.md


def test_hugo_tabs_become_labelled_code_blocks() -> None:
    out = unfold_dialects(HUGO_TABS)
    assert 'hugo.toml:\n\n```toml\ncontentDir = "content/en"' in out
    assert "hugo.yaml:\n\n```yaml\ncontentDir: content/en" in out
    assert "Configuration file" not in out  # a disabled tab is a heading of the pane, not content
    assert_no_markup(out)


def test_hugo_alerts_params_comments_and_escaped_shortcodes() -> None:
    source = (
        '{{% alert title="Warning" color="warning" %}}\n'
        "Docsy requires Hugo {{% param hugoMinVersion %}} or later.\n"
        "{{% /alert %}}\n\n"
        "{{< comment >}}An editor's note nobody should read.{{< /comment >}}\n\n"
        "{{< comment >}}\nA longer editor's note.\n{{< /comment >}}\n\n"
        "```go-html-template\n{{</* alert */>}}This is an alert.{{</* /alert */>}}\n```\n"
    )  # shapes from bench/corpora/docsy/docs/content/shortcodes/index.md and get-started/
    out = unfold_dialects(source)
    assert "Warning: Docsy requires Hugo or later." in out
    assert "editor's note" not in out.replace("An editor's note nobody should read.", "")  # inline comment: dropped
    assert "A longer editor's note" not in out
    assert "{{< alert >}}This is an alert.{{< /alert >}}" in out  # in code, as the site shows it


# --------------------------------------------------------------------------- Docusaurus (prettier)

DOCUSAURUS = """import Tabs from "@theme/Tabs";
import TabItem from "@theme/TabItem";

First, install Prettier locally:

<Tabs groupId="package-manager">
<TabItem value="npm">

```bash
npm install --save-dev --save-exact prettier
```

</TabItem>
<TabItem value="yarn">

```bash
yarn add --dev --exact prettier
```

</TabItem>
</Tabs>

:::warning

**For readability we recommend against using more than 80 characters:**

In code styleguides, maximum line length rules are often set to 100 or 120.

:::
"""  # bench/corpora/prettier/docs/install.md and options.md


def test_docusaurus_tabs_admonitions_and_imports() -> None:
    out = unfold_dialects(DOCUSAURUS)
    assert "import Tabs" not in out
    assert "npm:\n" in out and "yarn:\n" in out
    assert "```bash\nnpm install --save-dev --save-exact prettier\n```" in out
    assert "Warning: **For readability we recommend against using more than 80 characters:**" in out
    assert_no_markup(out)


# --------------------------------------------------------------------------- MyST (MyST-Parser)

MYST = """(syntax/admonitions)=

# Admonitions

% A comment the page never shows.

Admonitions are a special case of {ref}`directives <syntax/directives>`.

:::{admonition} Docutils configuration
:class: note dropdown

Use the `docutils.conf` configuration file.
:::

```{note}
Explanation of the note.
```

```{code-block} python
:linenos:
print("hello")
```

::::{myst-example}
:::{tip}
Let's give readers a helpful hint!
:::
::::

```{toctree}
:maxdepth: 2
intro
```

:::{versionadded} 1.2.3
Explanation of the new feature.
:::
"""  # bench/corpora/myst/docs/syntax/admonitions.md, cross-referencing.md, code_and_apis.md


def test_myst_directives_roles_targets_and_comments() -> None:
    out = unfold_dialects(MYST)
    assert "(syntax/admonitions)=" not in out and "A comment the page never shows" not in out
    assert "Admonitions are a special case of directives." in out
    assert "Docutils configuration: Use the `docutils.conf` configuration file." in out
    assert ":class:" not in out
    assert "Note: Explanation of the note." in out
    assert '```python\nprint("hello")\n```' in out and ":linenos:" not in out
    assert "```markdown\n:::{tip}\nLet's give readers a helpful hint!\n:::\n```" in out  # an example shows its source
    assert "maxdepth" not in out and "intro" not in out.split("Admonitions")[0]
    assert "Added in version 1.2.3: Explanation of the new feature." in out


ATTRS_DOCTEST = (
    (
        "*attrs* also allows you to associate a type with an attribute using either the *type* argument to using "
        "{pep}`526`-annotations or {func}`attrs.field`/{func}`attr.ib`:\n\n"
    )
    + """```{doctest}
>>> @define
... class C:
...     x: int
>>> fields(C).x.type
<class 'int'>

>>> import attr
>>> @attr.s
... class C:
...     x = attr.ib(type=int)
>>> fields(C).x.type
<class 'int'>
```
"""
)  # bench/corpora/attrs/docs/examples.md (MIT)


def test_myst_doctest_and_other_code_directives_are_code() -> None:
    """A doctest is code the page shows line by line, its output (``<class 'int'>``) included, as the
    reStructuredText reader reads ``.. doctest::``; a caption introduces the code, options go, hidden code goes."""
    out = plain(ATTRS_DOCTEST)
    assert out.startswith(
        "*attrs* also allows you to associate a type with an attribute using either the *type* argument"
    )
    assert "to using PEP 526-annotations or attrs.field/attr.ib:\n\n```\n>>> @define\n... class C:\n" in out
    assert "...     x: int\n>>> fields(C).x.type\n<class 'int'>\n" in out
    assert "<class 'int'>\n\n>>> import attr\n" in out and out.endswith("<class 'int'>\n```")
    _, rst = rst_to_markdown(".. doctest::\n\n   >>> fields(C).x.type\n   <class 'int'>\n", "api.rst")
    assert rst.strip() == "```\n>>> fields(C).x.type\n<class 'int'>\n```"
    source = (
        "```{code-block} python\n:caption: This is a caption\n:emphasize-lines: 2,3\n:lineno-start: 1\n\n"
        "a = 2\nprint('my 1st line')\n```\n\n"
        "```{testsetup}\nimport attrs\n```\n\n```{testcode} group1\n:hide:\n\nx = 1\n```\n\n"
        "```{literalinclude} examples/example.py\n:start-after: start example\n```\n"
    )  # shapes from bench/corpora/myst/docs/syntax/code_and_apis.md
    out = unfold_dialects(source)
    assert "This is a caption:\n\n```python\na = 2\nprint('my 1st line')\n```" in out
    assert "import attrs" not in out and "x = 1" not in out and "example" not in out and ":" + "hide" not in out


ATTRS_NESTED = """1. Two objects that are equal, **must** have the same hash.

   The *correct way* to achieve hashing by id is to set `@define(eq=False)`.

   :::{warning}
   Be careful when subclassing!
   Setting `eq=False` on a class whose base class has a non-default `__hash__` method will *not* make *attrs*
   remove that `__hash__` for you.

   The easiest way to reset `__hash__` on a class is adding `__hash__ = object.__hash__` in the class body.
   :::

2. If two objects are not equal, their hash **should** be different.

- Slotted classes must implement {meth}`__getstate__ <object.__getstate__>` to be serializable.

    :::{note}
    When decorating with `@attr.s(slots=True)` they will be *overwritten*.
    :::

    ```{doctest}
    >>> from attr import define
    ```
"""  # bench/corpora/attrs/docs/hashing.md and glossary.md (MIT)


def test_myst_directives_nested_in_list_items_stay_in_their_item() -> None:
    out = plain(ATTRS_NESTED)
    assert ":::" not in out and "{note}" not in out and "{doctest}" not in out
    assert "\n   Warning: Be careful when subclassing! Setting `eq=False`" in out
    assert "\n    Note: When decorating with `@attr.s(slots=True)` they will be *overwritten*." in out
    assert "\n    ```\n    >>> from attr import define\n    ```" in out
    blocks = [b for s in markdown_sections(ATTRS_NESTED, "Title") for b in s.blocks]
    assert [b.kind for b in blocks] == ["list", "list"]  # each list whole: the directives are inside the items


ATTRS_EVAL_RST = """This hook must have the following signature:

```{eval-rst}
.. function:: your_hook(cls: type, fields: list[attrs.Attribute]) -> list[attrs.Attribute]
   :noindex:
```

- *cls* is your class right *before* it is being converted into an attrs class.
"""  # bench/corpora/attrs/docs/extending.md (MIT)


def test_myst_eval_rst_is_read_as_restructuredtext() -> None:
    """``{eval-rst}``'s body is reStructuredText, read as a ``.rst`` file is: the function's signature as written on
    a line of its own (was: dropped); a body that reads another file shows nothing."""
    out = plain(ATTRS_EVAL_RST)
    assert (
        "This hook must have the following signature:\n\n"
        "`your_hook(cls: type, fields: list[attrs.Attribute]) -> list[attrs.Attribute]`\n\n- *cls* is your class"
    ) in out
    assert "noindex" not in out and "function::" not in out
    include = "See:\n\n```{eval-rst}\n.. include:: snippets/include-rst.rst\n```\n"  # myst docs/faq/index.md
    assert plain(include) == "See:"


ATTRS_GLOSSARY = (
    ":::{glossary}\n"
    "dunder methods\n"
    '  "Dunder" is a contraction of "double underscore".\n'
    "\n"
    "  It's methods like `__init__` or `__eq__` that are sometimes also called *magic methods* or it's said that "
    "they implement an *object protocol*.\n"
    "\n"
    "\n"
    "dict classes\n"
    "  A regular class whose attributes are stored in the {attr}`object.__dict__` attribute of every single "
    "instance.\n"
    "  This is quite wasteful especially for objects with very few data attributes and the space consumption can "
    "become significant when creating large numbers of instances.\n"
    ":::\n"
)  # bench/corpora/attrs/docs/glossary.md (MIT), two entries cut short

MYST_DEFINITIONS = """:::{admonition} List table options
:class: hint

`align` : "left", "center", or "right"
: The horizontal alignment of the table.

`width` : [length](units/length) or [percentage](units/percentage)
: Sets the width of the table to the specified length or percentage of the line width.
: If omitted, the renderer determines the width of the table based on its contents or the column widths.
:::

[markdown-it-py]
: A CommonMark-compliant and extensible Markdown parser.
"""  # bench/corpora/myst/docs/syntax/tables.md and index.md (MIT)


def test_glossary_and_definition_list_terms_stand_apart_from_their_definitions() -> None:
    out = plain(ATTRS_GLOSSARY)
    assert out.startswith('dunder methods: "Dunder" is a contraction of "double underscore".\n\nIt\'s methods like')
    assert "dict classes: A regular class whose attributes are stored in the object.__dict__ attribute" in out
    assert "\n  " not in out  # the definitions' indentation is the glossary's, not the text's
    out = plain(MYST_DEFINITIONS)
    assert 'List table options: `align` : "left", "center", or "right": The horizontal alignment of the table.' in out
    assert (
        "`width` : [length](units/length) or [percentage](units/percentage): Sets the width of the table to the "
        "specified length or percentage of the line width.\n\nIf omitted, the renderer determines"
    ) in out
    # ``[markdown-it-py]:`` would define a link: that term is a line of its own.
    assert "[markdown-it-py]\n\nA CommonMark-compliant and extensible Markdown parser." in out


MYST_LIST_TABLE = """Here are some examples:

:::{list-table}
:header-rows: 1

* - Type
  - Syntax
  - Rendered

* - Autolink, full
  - `<inv:sphinx:std:doc#index>`{l=myst}
  - <inv:sphinx:std:doc#index>

* - Link, full
  - `[Sphinx](inv:sphinx:std:doc#index)`{l=myst}
  - [Sphinx](inv:sphinx:std:doc#index)
:::
"""  # bench/corpora/myst/docs/syntax/cross-referencing.md (MIT), two rows

MYST_LIST_TABLE_OF_CODE = """Here is the basic structure:

`````{list-table}
:header-rows: 1

* - MyST
  - reStructuredText
* - ````md
    ```{directivename} arguments
    :key1: val1
    :key2: val2

    This is
    directive content
    ```
    ````
  - ```rst
    .. directivename:: arguments
       :key1: val1
       :key2: val2

       This is
       directive content
    ```
`````
"""  # bench/corpora/myst/docs/syntax/roles-and-directives.md (MIT)


def test_myst_list_table_reads_as_a_table_and_its_code_stays_code() -> None:
    blocks = [b for s in markdown_sections(MYST_LIST_TABLE, "Title") for b in s.blocks]
    assert [b.kind for b in blocks] == ["text", "table"]
    assert blocks[1].text == (
        "| Type | Syntax | Rendered |\n|---|---|---|\n"
        # The rendered column shows the inventory object's name, as MyST renders it (without the inventory).
        "| Autolink, full | `<inv:sphinx:std:doc#index>`{l=myst} | index |\n"
        "| Link, full | `[Sphinx](inv:sphinx:std:doc#index)`{l=myst} | [Sphinx](inv:sphinx:std:doc#index) |"
    )
    # Cells of code: row by row, each cell under its column's header, the code whole (a 4-backtick fence in a
    # cell no longer ends the 5-backtick directive).
    out = plain(MYST_LIST_TABLE_OF_CODE)
    assert out == (
        "Here is the basic structure:\n\nMyST:\n\n````md\n```{directivename} arguments\n:key1: val1\n:key2: val2\n\n"
        "This is\ndirective content\n```\n````\n\nreStructuredText:\n\n```rst\n.. directivename:: arguments\n"
        "   :key1: val1\n   :key2: val2\n\n   This is\n   directive content\n```"
    )


MYST_EXAMPLE_WITH_A_FENCE = """:::{myst-example}
Since Pythagoras, we know that {math}`a^2 + b^2 = c^2`.

```{math}
:label: mymath
(a + b)^2 = a^2 + 2ab + b^2
```

The equation {eq}`mymath` is a quadratic equation.
:::
"""  # bench/corpora/myst/docs/syntax/math.md (MIT), the equation cut to one line


def test_a_myst_example_holding_a_fence_is_one_code_block() -> None:
    """The example's source is fenced longer than the fence it holds: its last sentence is code, not prose
    (``:label: mymath`` read as text was the plugin markup left in the myst corpus)."""
    blocks = [b for s in markdown_sections(MYST_EXAMPLE_WITH_A_FENCE, "Title") for b in s.blocks]
    assert [b.kind for b in blocks] == ["code"]
    assert blocks[0].text.startswith("````markdown\nSince Pythagoras") and blocks[0].text.endswith(
        "The equation {eq}`mymath` is a quadratic equation.\n````"
    )


# --------------------------------------------------------------------------- GitHub alerts (docsy, lazygit)


def test_github_alerts_read_as_labelled_paragraphs() -> None:
    source = (
        "> [!WARNING] Attention (only when using Docsy as hugo module)\n"
        ">\n"
        "> If you have a multi language installation, ensure that the section\n"
        "> `[languages]` is declared.\n\n"
        "> [!TIP]\n"
        "> Run `hugo server --printI18nWarnings` when doing translation work.\n"
    )  # bench/corpora/docsy/docs/language.md
    out = plain(source)
    assert "Attention (only when using Docsy as hugo module): If you have a multi language installation" in out
    assert "Tip: Run `hugo server --printI18nWarnings` when doing translation work." in out
    assert_no_markup(out)


DOCSY_LANG_TABS = """{{< tabpane langEqualsHeader=true >}}
{{< tab header="Front matter:" disabled=true />}}
{{< tab toml >}}
+++
…
disable_toc = true
…
+++
{{< /tab >}}
{{< tab json >}}
{
  …,
  "disable_toc": true,
  …
}
{{< /tab >}}
{{< /tabpane >}}

> [!CAUTION] {{% _param BringYourOwnLightDarkModeMenuAlertTitle %}}
>
> If you would like to use your own light/dark mode menu implementation instead
> of Docsy's default implementation:
"""  # bench/corpora/docsy/docs/content/print.md and lookandfeel.md (Apache-2.0)


def test_docsy_tabs_named_by_their_language_and_an_alert_titled_by_a_param() -> None:
    out = plain(DOCSY_LANG_TABS)
    assert "toml:\n\n```toml\n+++\n…\ndisable_toc = true\n…\n+++\n```" in out
    assert 'json:\n\n```json\n{\n  …,\n  "disable_toc": true,\n  …\n}\n```' in out
    # The title is a site parameter ragcli does not have: the alert's kind labels it.
    assert "Caution: If you would like to use your own light/dark mode menu implementation" in out
    assert_no_markup(out)


def test_a_quoted_tab_title_is_read_whole() -> None:
    source = (
        '{{< tabpane >}}\n{{< tab "Linux and macOS" >}}\nRun it.\n{{< /tab >}}\n'
        "{{< tab 'Windows 11' >}}\nClick it.\n{{< /tab >}}\n{{< /tabpane >}}\n"
    )
    out = plain(source)
    assert "Linux and macOS: Run it." in out and "Windows 11: Click it." in out
    code = plain(source.replace("{{< tabpane >}}", "{{< tabpane langEqualsHeader=true >}}"))
    assert "Linux and macOS:\n\n```Linux and macOS\nRun it.\n```" in code
    assert_no_markup(out)


def test_block_attributes_and_a_comment_holding_code_show_nothing() -> None:
    myst = (
        "3. Destinations beginning with `#` will be treated as internal references.\n\n"
        "   {style=lower-roman}\n"
        "   1. First, explicit targets in the same file are searched for, if not found\n"
    )  # bench/corpora/myst/docs/syntax/cross-referencing.md (MIT)
    assert "{style" not in plain(myst) and "   1. First, explicit targets" in plain(myst)
    comment = (
        "inventory entry allow cross-references from internal and external pages.\n\n"
        "<!-- TODO: Update when https://github.com/mkdocstrings/griffe/issues/404 is solved.\n"
        "you can therefore use this Markdown syntax:\n\n"
        "```md\n- Class type parameter: [`Param`][package.module.Class[Param\\]]\n```\n-->\n\n"
        "Enabling this option along with [`signature_crossrefs`][] will automatically\n"
    )  # bench/corpora/mkdocstrings-python/docs/usage/configuration/headings.md (ISC)
    out = unfold_dialects(comment)
    assert "TODO" not in out and "Class type parameter" not in out and "-->" not in out
    assert "external pages." in out and "Enabling this option" in out


def test_a_comment_written_in_a_code_span_is_text() -> None:
    source = (
        "**Important:** You must have a blank line before `<!-- prettier-ignore-start -->` and\n"
        "`<!-- prettier-ignore-end -->` for Prettier to recognize the comments.\n\n"
        "Hidden <!-- an editor's note --> gone; ``a ` <!-- x --> b`` kept.\n\n"
        "<!-- open\n\nstill a comment\n-->\nAfter `<!--` the page goes on.\n"
    )  # bench/corpora/prettier/docs/ignore.md (MIT), with a comment and a double-backtick span of our own
    out = unfold_dialects(source)
    assert "before `<!-- prettier-ignore-start -->` and\n`<!-- prettier-ignore-end -->` for Prettier" in out
    assert "editor's note" not in out and "``a ` <!-- x --> b`` kept." in out
    assert "still a comment" not in out and "After `<!--` the page goes on." in out
    badge = unfold_dialects("Set it: <!-- md:default none -->\n\nWrite `<!-- md:default none -->` to show the badge.\n")
    assert "Set it: Default: none." in badge and "Write `<!-- md:default none -->` to show" in badge


# --------------------------------------------------------------------------- Liquid, mdBook, Material, comments


def test_liquid_tags_and_template_variables_go_code_stays() -> None:
    source = (
        "{% raw %}\nSet the site name in `{{ config.site_name }}` today.\n{% endraw %}\n\n"
        "```jinja\n{% if x %}{{ y }}{% endif %}\n```\n"
    )
    out = unfold_dialects(source)
    assert "{% raw %}" not in out and "Set the site name in `{{ config.site_name }}` today." in out
    assert "{% if x %}{{ y }}{% endif %}" in out


def test_site_data_that_goes_takes_its_emphasis_and_gap_with_it() -> None:
    # bench/corpora/jekyll/docs/installation.md (jekyll/jekyll, MIT): the version lives in the site's _data
    # folder, which ragcli does not read; "version **** or higher" showed the bold markers around nothing.
    source = (
        "* [Ruby](https://www.ruby-lang.org/en/downloads/) version **{{ site.data.ruby.min_version }}** or higher\n"
        "* Hugo {{< param version >}} or later, `{{ site.x }}` in code\n"
    )
    out = unfold_dialects(source)
    assert "version or higher" in out and "*" not in out.split("\n")[0].lstrip("* ")
    assert "Hugo or later, `{{ site.x }}` in code" in out
    # Not emphasis: underscores inside a name, or between two code spans (found by a helper's review).
    assert "my__file.yml" in unfold_dialects("name: my_{{ site.lang }}_file.yml\n")
    assert "`x`__`z`" in unfold_dialects("`x`_{{ y }}_`z`\n")


def test_mdbook_includes_and_material_extras() -> None:
    source = (
        "```rust\n{{#include ../listings/ch01/main.rs}}\nfn main() {}\n```\n\n"
        '--8<-- "includes/abbreviations.md"\n\n'
        'Press ++ctrl+c++ to stop :material-information-outline:{ title="Info" } the server.\n\n'
        "[Subscribe to our newsletter](#){ .md-button }\n\n"
        "*[HTML]: Hyper Text Markup Language\n"
    )  # shapes from bench/corpora/rustup and bench/corpora/material
    out = unfold_dialects(source)
    assert "{{#include" not in out and "fn main() {}" in out
    assert "--8<--" not in out and "*[HTML]" not in out
    assert "Press Ctrl+C to stop the server." in out
    assert "[Subscribe to our newsletter](#)" in out and ".md-button" not in out


def test_a_snippet_include_inside_html_goes_with_the_html() -> None:
    """pymdownx.snippets replaces an include line wherever it stands; Textual's docs include every screenshot
    and diagram from inside an HTML block (Textualize/textual, MIT, docs/index.md and docs/tutorial.md at
    1d99508b9). The included file is not in the page's text, so neither is its line."""
    source = (
        "[Toad Github Repository](https://github.com/batrachianai/toad)\n\n"
        '<div>\n<a href="https://batrachian.ai">\n--8<-- "docs/images/screenshots/toad.svg"\n</a>\n</div>\n\n'
        "Before we dive into building widgets, let's first sketch a design for the app.\n\n"
        '<div class="excalidraw">\n--8<-- "docs/images/stopwatch.excalidraw.svg"\n</div>\n\n'
        "<p>Shown <b>as text</b>.</p>\n"
    )
    out = unfold_dialects(source)
    assert "--8<--" not in out and ".svg" not in out
    assert "let's first sketch a design for the app." in out and "Shown as text." in out


def test_an_empty_code_block_shows_nothing_nor_does_a_tab_left_empty() -> None:
    """Textual renders ```{.textual path=...}``` with no body as a screenshot of the running app (Textualize/textual,
    MIT, docs/guide/screens.md at 1d99508b9): no text to read, and an empty fence printed in an answer is noise. A
    tab left with nothing (that screenshot, or a file the page includes) goes too: in Textual's passages
    "Output:" stood 169 times over nothing, or over the next empty tab's title. A tab with text keeps its title."""
    source = (
        '=== "Output (after pressing S)"\n\n'
        '    ```{.textual path="docs/examples/guide/screens/modes01.py", press="s"}\n    ```\n\n'
        '=== "modes01.py"\n\n    ```python\n    --8<-- "docs/examples/guide/screens/modes01.py"\n    ```\n\n'
        '=== "modes01.tcss"\n\n    Styles for the three screens.\n\n'
        "Here we have defined three screens.\n\n```python\n\n```\n\n```python\nx = 1\n```\n"
    )
    out = expand_mkdocs(unfold_dialects(source))
    assert "Output" not in out and "modes01.py" not in out and ".textual" not in out
    assert "modes01.tcss: Styles for the three screens." in out
    assert out.count("```") == 2 and "```python\nx = 1\n```" in out


def test_an_admonition_with_a_title_and_no_body_is_its_title() -> None:
    """Textual's ``!!! tip "Added in version 0.30.0"`` with nothing under it (Textualize/textual, MIT,
    docs/widgets/toast.md at 1d99508b9) shows a box with its title: it read "Added in version 0.30.0:", a colon
    leading nowhere, and a title that ends its sentence read "... notification system.:"."""
    source = (
        '# Toast\n\n!!! tip "Added in version 0.30.0"\n\nA widget which displays a notification message.\n\n'
        '!!! warning "Note that `Toast` is used by [`notify`][textual.app.App.notify] to display a message."\n\n'
        "## Styling\n"
    )
    out = expand_mkdocs(unfold_dialects(source))
    assert "\nAdded in version 0.30.0\n" in out and "0.30.0:" not in out
    assert "to display a message.\n" in out and "message.:" not in out


def test_an_admonition_with_more_classes_is_still_an_admonition() -> None:
    """Material's ``inline end`` and ``annotate`` come between the kind and the title (Textualize/textual, MIT,
    docs/blog/posts/looking-for-help.md at 1d99508b9): the body was left indented four spaces, which reads as code."""
    source = (
        "Before.\n\n"
        '!!! tip inline end "Going from Discord to a GitHub issue"\n\n'
        "    As a slight aside here: sometimes people will pop up in Discord, ask a\n"
        "    question about something that turns out looking like a bug.\n\n"
        "!!! note inline end\n\n    Plain.\n\nAfter.\n"
    )
    out = expand_mkdocs(unfold_dialects(source))
    assert "Going from Discord to a GitHub issue: As a slight aside here: sometimes people" in out
    assert "Note: Plain." in out and "!!!" not in out and "    " not in out


def test_braces_inside_a_code_span_are_code_not_a_myst_role() -> None:
    """A ``{name}`` inside a code span is code, not a MyST role before the next backtick: uv's docs (astral-sh/uv,
    MIT or Apache-2.0, docs/guides/integration/docker.md and docs/concepts/tools.md) printed
    ``ghcr.io/astral-sh/uv:{major}.{minor}., e.g., ...`` with a placeholder and a backtick eaten, and MyST's own
    docs lost a role shown as an example. A role in the text is still read as its text."""
    uv = "- `ghcr.io/astral-sh/uv:{major}.{minor}.{patch}`, e.g., `ghcr.io/astral-sh/uv:0.12.5`"
    assert unfold_dialects(uv) == uv
    tool = "`uv tool install` will also respect the `{package}@{version}` and `{package}@latest` specifiers"
    assert unfold_dialects(tool) == tool
    example = "supply titles for links like so: `` {role}`My title <myref>` ``. While this looks like"
    assert unfold_dialects(example) == example
    assert unfold_dialects("See {ref}`the intro <intro>` and {kbd}`Ctrl`, then ``env_base.{name}``.") == (
        "See the intro and `Ctrl`, then ``env_base.{name}``."
    )


def test_a_vitepress_code_group_shows_each_tab_title_over_its_block() -> None:
    """Vite's docs (vitejs/vite at a98c8d95d5, MIT, docs/blog/announcing-vite8-beta.md and docs/guide/ssr.md): a
    ``::: code-group`` draws its blocks as tabs named by ``[npm]``, ``[Yarn]``; without the names three blocks of
    JSON could not be told apart, and the container's lines were left as text. ``js{12-15}`` highlights lines."""
    source = (
        "you have to override the `vite` dependency in your `package.json`:\n\n:::code-group\n\n"
        '```json [npm]\n{\n  "overrides": {"vite": "8.0.0-beta.0"}\n}\n```\n\n'
        '```json [Yarn]\n{\n  "resolutions": {"vite": "8.0.0-beta.0"}\n}\n```\n\n:::\n\n'
        "```js{12-15} twoslash [server.js]\nimport fs from 'node:fs'\n```\n\n::: tip Custom Title\nBody.\n:::\n\n"
        "```[.env]\nVITE_SOME_KEY=123\n```\n"
    )
    out = unfold_dialects(source)
    assert ":::" not in out and "code-group" not in out.casefold() and "Code group" not in out
    assert 'npm:\n\n```json\n{\n  "overrides"' in out and 'Yarn:\n\n```json\n{\n  "resolutions"' in out
    assert "server.js:\n\n```js\nimport fs from 'node:fs'\n```" in out and "Custom Title: Body." in out
    assert ".env:\n\n```\nVITE_SOME_KEY=123\n```" in out  # a file name alone (docs/guide/env-and-mode.md)


def test_a_rust_book_listing_shows_its_number_caption_and_file() -> None:
    """The Rust Book's ``<Listing>`` (rust-lang/book at 917544888, MIT or Apache-2.0, src/ch06-02-match.md and
    src/ch10-01-syntax.md; mdBook's listing preprocessor) renders as "Listing 6-5: ..." with its file name. Its
    caption was dropped with the tag, and a caption holding ``Option<i32>`` left the raw tag in 26 passages."""
    source = (
        'Intro.\n\n<Listing number="6-5" caption="A function that uses a `match` expression on an `Option<i32>`">'
        "\n\n```rust\nfn plus_one(x: Option<i32>) -> Option<i32> {}\n```\n\n</Listing>\n\n"
        '<Listing number="10-9" file-name="src/main.rs" caption="Implementing a method named `x` on the `Point<T>` '
        'struct">\n\n```rust\nimpl<T> Point<T> {}\n```\n\n</Listing>\n\nAfter.\n'
    )
    out = unfold_dialects(source)
    assert "Listing 6-5: A function that uses a `match` expression on an `Option<i32>`\n" in out
    assert "Listing 10-9: Implementing a method named `x` on the `Point<T>` struct (src/main.rs)\n" in out
    assert "<Listing" not in out and "</Listing>" not in out and "impl<T> Point<T> {}" in out


def test_html_comments_go_outside_code_and_stay_inside() -> None:
    out = unfold_dialects("Before <!-- a\nmultiline comment --> after.\n\n```html\n<!-- kept -->\n```\n")
    assert "Before  after." in out and "multiline" not in out and "<!-- kept -->" in out


def test_plain_markdown_is_unchanged() -> None:
    text = "# Title\n\nA paragraph with `code`, a [link](x.md) and 50% of *it*.\n\n- one\n- two\n\n```sh\n$ run\n```\n"
    assert unfold_dialects(text) == text


# --------------------------------------------------------------------------- front matter


@pytest.mark.parametrize(
    "source",
    [
        '+++\ntitle = "Hugo page"\nweight = 3\n+++\nBody text here.\n',
        '{\n  "title": "Hugo page",\n  "weight": 3\n}\nBody text here.\n',
        "---\ntitle: Hugo page\nweight: 3\n---\nBody text here.\n",
    ],
)
def test_toml_json_and_yaml_front_matter(source: str) -> None:
    meta, body = split_front_matter(source, "page.md")
    assert meta["title"] == "Hugo page" and body == "Body text here.\n"


# --------------------------------------------------------------------------- the real files, end to end


@pytest.mark.parametrize(
    "path",
    [
        "docsy/docs/language.md",
        "docsy/docs/content/shortcodes/index.md",
        "prettier/docs/install.md",
        "prettier/docs/options.md",
        "myst/docs/syntax/admonitions.md",
        "myst/docs/syntax/cross-referencing.md",
        "lazygit/docs/docs/Config.md",
        "material/docs/setup/setting-up-navigation.md",
    ],
)
def test_no_markup_reaches_an_answer_unit(path: str) -> None:
    """Whatever the answerer may claim from a real page reads as prose or code, never as site markup."""
    _, body = split_front_matter((CORPORA / path).read_text(encoding="utf-8"), path)
    for section in markdown_sections(body, "Title"):
        text = "\n\n".join(b.text for b in section.blocks)
        p = Passage("d@v#s", "d", "v", "s", "t", ("everyone",), None, None, "T", section.path, path, None, text)
        for unit in units(p):
            if unit.kind == "block":
                continue  # code: it may show markup as an example
            # Nor may a sentence's code block or inline code (`{{</* x */>}}`); the prose may not.
            prose = re.sub(r"`[^`]*`", "", unit.quote.split("```")[0])
            for mark in LEFTOVERS:
                assert mark not in prose, (path, mark, unit.statement)


def test_definition_lists_footnotes_and_default_badges() -> None:
    source = (
        "<!-- md:default `[accept, manage]` -->\n"
        ":   This property defines which buttons are shown, e.g. to allow the user to\n"
        "    accept cookies and manage settings:\n\n"
        "    ``` yaml\n    extra:\n      consent:\n        actions:\n          - accept\n    ```\n\n"
        "Enable it by adding the following lines to `mkdocs.yml`:[^1]\n\n"
        "  [^1]:\n    Prior to Material for MkDocs 9.2.0, Universal Analytics was supported as well.\n\n"
        "``` yaml\nextra:\n  analytics:\n    provider: google\n```\n"
    )  # bench/corpora/material/docs/setup/ensuring-data-privacy.md and setting-up-site-analytics.md
    out = unfold_dialects(source)
    assert "Default: `[accept, manage]`." in out
    assert "This property defines which buttons are shown" in out and ":   This" not in out
    assert "``` yaml\nextra:\n  consent:" in out  # the definition's code is code, not an indented block
    # The note's text is kept, after its section's last block: never between the sentence and its code.
    assert "[^1]" not in out and out.rstrip().endswith(
        "[1] Prior to Material for MkDocs 9.2.0, Universal Analytics was supported as well."
    )
    text = plain(source)
    assert "Enable it by adding the following lines to `mkdocs.yml`[1]:\n\n``` yaml\nextra:\n  analytics:" in text


ATTRS_FOOTNOTES = """## Hash Method Generation

*attrs* will happily write a `__hash__` method for you [^fn1], however it will *not* do so by default.
Because according to the [definition](https://docs.python.org/3/glossary.html#term-hashable) from the official
Python docs, the returned hash has to fulfill certain constraints:

[^fn1]: The hash is computed by hashing a tuple that consists of a unique id for the class plus all attribute values.

1. Two objects that are equal, **must** have the same hash.

## … namedtuples?

{obj}`collections.namedtuple`s are tuples with names, not classes.[^history]

:::{admonition} Summary
If you want a *tuple with names*, by all means: go for a `namedtuple`.[^perf]
:::

```{doctest}
>>> t = (1, 2)  # [^perf] in code stays as it is
```

[^history]: The word is that `namedtuple`s were added to the Python standard library as a way to make tuples in
    return values more readable.
    And indeed that is something you see throughout the standard library.

    Looking at what the makers of `namedtuple`s use it for themselves is a good guideline for deciding on your
    own use cases.

[^perf]: Although *attrs* would serve you just as well!
"""  # bench/corpora/attrs/docs/hashing.md and why.md (MIT)


def test_footnotes_are_numbered_and_their_text_ends_the_section_that_refers_to_them() -> None:
    sections = {s.path[-1]: "\n\n".join(b.text for b in s.blocks) for s in markdown_sections(ATTRS_FOOTNOTES, "T")}
    hashing, namedtuples = sections["Hash Method Generation"], sections["… namedtuples?"]
    assert "write a `__hash__` method for you [1], however it will *not* do so by default." in hashing
    assert hashing.endswith(
        "[1] The hash is computed by hashing a tuple that consists of a unique id for the class plus all "
        "attribute values."
    )
    assert "are tuples with names, not classes.[2]" in namedtuples and "go for a `namedtuple`.[3]" in namedtuples
    assert "# [^perf] in code stays as it is" in namedtuples
    assert namedtuples.endswith(
        "[2] The word is that `namedtuple`s were added to the Python standard library as a way to make tuples in "
        "return values more readable. And indeed that is something you see throughout the standard library.\n\n"
        "Looking at what the makers of `namedtuple`s use it for themselves is a good guideline for deciding on your "
        "own use cases.\n\n[3] Although *attrs* would serve you just as well!"
    )
    # A reference to a note the page does not have goes, without leaving a space before the comma.
    assert (
        unfold_dialects("A method for you [^fn1], however not by default.")
        == "A method for you, however not by default."
    )


def test_a_setext_heading_ends_the_section_a_note_goes_to() -> None:
    source = "Intro text[^1].\n\nSection[^2]\n-------\n\nOther.\n\n---\n\nAfter a rule.\n\n[^1]: The note.\n[^2]: Two."
    out = unfold_dialects(source)
    assert out.startswith("Intro text[1].\n\n\n[1] The note.\n\n\nSection\n-------\n")  # no mark in a heading
    assert out.rstrip().endswith("After a rule.\n\n\n[2] Two.")  # ``---`` after a blank line is a rule
    sections = {s.path: "\n\n".join(b.text for b in s.blocks) for s in markdown_sections(source, "T")}
    assert sections[("Section",)].startswith("Other.") and "The note" not in sections[("Section",)]


def test_indented_code_keeps_its_footnote_syntax() -> None:
    source = "Para[^n]\n\n    [^n]: indented code?\n    code [^n] here\n\nEnd.[^m]\n\n[^m]: The note."
    out = unfold_dialects(source)
    assert "\n\n    [^n]: indented code?\n    code [^n] here\n\n" in out
    assert "End.[1]" in out and "[1] The note." in out and "[1] indented" not in out
    # In a list item or a note, a line indented four spaces after a blank line goes on the item or note.
    assert "    continued [1]" in unfold_dialects("- item[^n]\n\n    continued [^n]\n\n[^n]: note")
    # So do an HTML block's (kramdown reads it to its closing tag): its tag-only lines still go.
    assert "</td>" not in unfold_dialects("<table>\n  <tr><td>\n\n    Cell text.\n\n    </td></tr>\n</table>")


def test_a_page_that_only_includes_another_is_skipped_not_rejected(tmp_path: Path) -> None:
    """uv's reference/contributing.md is one MkDocs snippet line: nothing of its own to index, and no error."""
    from support.cli import cli

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "contributing.md").write_text('--8<-- "CONTRIBUTING.md"\n', encoding="utf-8")
    (docs / "guide.md").write_text("# Guide\n\nRun the tests with the make target before you open a pull request.\n")
    proc = cli("ingest", docs, "--tenant", "t", "--acl", "everyone", "--index", tmp_path / "index", "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["documents"]["rejected"] == [] and len(report["empty"]) == 1
    assert report["empty"][0].endswith("contributing.md")


def test_a_page_of_front_matter_or_directives_alone_is_skipped_not_rejected(tmp_path: Path) -> None:
    """A Hugo section's ``_index.md`` is front matter alone (its page is the list the theme builds; docsy,
    Apache-2.0, bench/corpora/docsy/docs/content/_index.md), and pip's docs/html/development/vendoring-policy.rst
    (pypa/pip at 6d3092057, MIT) is one ``.. include::`` of a file outside the docs folder: no text of their own,
    skipped with a note and exit 0, like a page of includes. A file of blanks is still rejected."""
    from support.cli import cli

    docs = tmp_path / "docs"
    docs.mkdir()
    front = (
        "---\ntitle: Content and Customization\nweight: 3\n"
        "description: How to add content to and customize your Docsy site.\n---\n"
    )
    (docs / "_index.md").write_text(front, encoding="utf-8")
    (docs / "vendoring-policy.rst").write_text(".. include:: ../../../src/pip/_vendor/README.rst\n", encoding="utf-8")
    (docs / "orphan.rst").write_text(":orphan:\n\n.. a comment and nothing else\n", encoding="utf-8")
    (docs / "guide.md").write_text("# Guide\n\nRun the tests with the make target before you open a pull request.\n")
    proc = cli("ingest", docs, "--tenant", "t", "--acl", "everyone", "--index", tmp_path / "index", "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["documents"]["rejected"] == [] and report["documents"]["added"] == 1
    assert sorted(Path(e).name for e in report["empty"]) == ["_index.md", "orphan.rst", "vendoring-policy.rst"]
    (docs / "blank.md").write_text(" \n\t\n", encoding="utf-8")
    proc = cli("ingest", docs, "--tenant", "t", "--acl", "everyone", "--index", tmp_path / "index", "--json")
    assert proc.returncode == 2 and "blank.md" in proc.stderr


def test_a_layout_directive_shows_its_content_and_an_unknown_ones_options_show() -> None:
    """MyST-Parser's front page (bench/corpora/myst, docs/index.md): a ``{grid}``'s argument is its column counts and
    its options lay it out, a card's ``:link:`` is where it goes and ``{octicon}`` draws an icon; none is text a
    reader sees. A directive ragcli does not know shows the options its page shows (``:default:``)."""
    page = (
        "# Overview\n\n::::{grid} 1 2 2 3\n:gutter: 1 1 1 2\n\n"
        ":::{grid-item-card} {octicon}`markdown;1.5em;sd-mr-1` CommonMark-plus\n:link: syntax/core\n:link-type: ref\n\n"
        "MyST extends the CommonMark syntax specification, to support technical authoring features.\n:::\n\n::::\n\n"
        "```{confval} myst_heading_anchors\n:type: int\n:default: 0\n\nDepth of headings to anchor.\n```\n"
    )
    out = plain(unfold_dialects(page))
    assert "1 2 2 3" not in out and "gutter" not in out and "octicon" not in out and "syntax/core" not in out
    assert "CommonMark-plus: MyST extends the CommonMark syntax specification" in out
    assert "`myst_heading_anchors`: Type: int; Default: 0.\n\nDepth of headings to anchor." in out


def test_a_pages_meta_directive_is_not_its_text() -> None:
    """MyST's ``{meta}`` sets HTML metadata: its options are for search engines, not text the page shows."""
    page = "# Page\n\n```{meta}\n:description: A blurb for search engines\n:keywords: alpha, beta\n```\n\nBody text.\n"
    assert plain(unfold_dialects(page)) == "Body text."


def test_an_icon_takes_its_space_with_it_so_bold_stays_bold() -> None:
    """mkdocstrings-python's option pages open each option with a bold line of icons (mkdocstrings/python, ISC,
    docs/usage/configuration/signatures.md at 624974a4). Dropping the icons but not their spaces left
    ``** Type bool False**``, which is no emphasis, in every statement that quoted it."""
    source = '- **:octicons-package-24: Type [`bool`][] :material-equal: `False`{ title="default value" }**\n'
    out = unfold_dialects(source)
    assert "- **Type [`bool`][] `False`**" in out
    assert "** " not in out


def test_an_icon_keeps_a_hard_line_break_and_the_gap_after_a_word() -> None:
    """An icon takes its gap with it only after a space, an emphasis marker or a bracket: after a word the words
    stay apart, and a hard line break's two spaces stay."""
    assert "Yes and no" in unfold_dialects("Yes:material-check: and no\n")
    assert "Line one   \nLine two" in unfold_dialects("Line one :material-x:  \nLine two\n")
    assert "a b" in unfold_dialects("a :material-x: b\n")
