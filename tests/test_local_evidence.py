"""What the local answerer may quote: whole sentences, items and rows, never lone code; intros carry their block."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ragcli.answer.citations import MIN_QUOTE_WORDS, check_claims, normalize, quote_words
from ragcli.answer.protocol import Claim
from ragcli.backends.local.evidence import readable, units
from ragcli.backends.local.question import Question
from ragcli.backends.local.selector import Window, features, windows
from ragcli.passage import Passage

TEXT = """If you have internal packages that you do not want to be published, you can mark them as private:

```toml
[project]
classifiers = ["Private :: Do Not Upload"]
```

While the lockfile is created [automatically](#automatic-lock-and-sync), it may also be created with `uv lock`. \
This is **not** required.

- Use the `--frozen` flag to skip the *up-to-date* check entirely.
- Short item.

| Tier | Requests per minute | Burst |
|---|---|---|
| Tier 2 | 600 | 1200 |

To list packages as JSON:

```console
$ uv pip list --format json
# Required URL for the index.
```
"""


def passage(text: str = TEXT) -> Passage:
    return Passage("d@v#s", "d", "v", "s", "t", ("everyone",), None, None, "Doc", ("Section",), "/d.md", None, text)


@pytest.fixture(scope="module")
def found():
    return units(passage())


def test_every_quote_is_a_verbatim_slice_and_passes_the_checks(found):
    p = passage()
    assert found
    for u in found:
        assert u.quote in p.text, u.quote
    claims = tuple(Claim(u.statement, p.id, u.quote) for u in found)
    results = check_claims(claims, {p.id: p})
    assert all(r.passed for r in results), [(r.check, r.detail) for r in results if not r.passed]


def test_an_introducing_sentence_carries_its_code_block(found):
    private = [u for u in found if "mark them as private" in u.statement]
    assert len(private) == 1 and private[0].kind == "introduced"
    # The code stays a fenced block (whole lines, as written), so it prints and copies as code.
    assert private[0].statement == (
        "If you have internal packages that you do not want to be published, you can mark them as private:\n"
        '```toml\n[project]\nclassifiers = ["Private :: Do Not Upload"]\n```'
    )
    assert private[0].quote.startswith("If you have internal packages") and private[0].quote.endswith("```")
    listing = [u for u in found if u.statement.startswith("To list packages as JSON:")]
    assert len(listing) == 1 and "$ uv pip list --format json" in listing[0].statement


def test_code_lines_and_comments_are_never_units(found):
    for u in found:
        if u.kind != "introduced":
            assert not u.statement.startswith(("$", "#", "[project]", "classifiers")), u.statement
    assert not any(u.statement == "# Required URL for the index." for u in found)


def test_statements_read_as_plain_text(found):
    lockfile = next(u for u in found if "lockfile is created" in u.statement)
    assert lockfile.statement == "While the lockfile is created automatically, it may also be created with uv lock."
    assert "[automatically](#automatic-lock-and-sync)" in lockfile.quote  # the quote stays verbatim
    # The list after "This is **not** required." is carried by it (colon or not), items read as plain text.
    carried = next(u for u in found if "--frozen" in u.statement)
    assert carried.kind == "introduced"
    assert carried.statement == (
        "This is not required.\n- Use the --frozen flag to skip the up-to-date check entirely.\n- Short item."
    )


def test_table_rows_read_with_their_headers(found):
    (row,) = [u for u in found if u.kind == "row"]
    assert row.statement == "Tier: Tier 2; Requests per minute: 600; Burst: 1200."
    assert row.quote == "| Tier 2 | 600 | 1200 |"


def test_units_shorter_than_four_words_are_left_out(found):
    assert not any(normalize(u.quote) == "short item." for u in found)


@pytest.mark.parametrize(
    "markdown, plain",
    [
        ("see the [project layout](./layout.md) and ![logo](x.png)", "see the project layout and logo"),
        ("a **bold** and *em* and _em2_ word", "a bold and em and em2 word"),
        ("keep retry_backoff_ms and snake_case_names", "keep retry_backoff_ms and snake_case_names"),
        ("code `**not bold**` stays", "code **not bold** stays"),
        ("a [reference link][ref] here", "a reference link here"),
        # vitejs/vite (MIT), docs/guide/env-and-mode.md: bold around a code span is bold, not two stray "**".
        ("- **`import.meta.env.MODE`**: {string} the mode", "- import.meta.env.MODE: {string} the mode"),
        ("**`a` and `b`** both", "a and b both"),
        ("snake_`x`_case", "snake_x_case"),
        # pydantic's errors page shape (issue 31): a subscript pair is no reference link, in code or out.
        ("print `exc.errors()[0]['type']` and grid[i][j]", "print exc.errors()[0]['type'] and grid[i][j]"),
    ],
)
def test_readable(markdown: str, plain: str) -> None:
    assert readable(markdown) == plain


PROBLEM_THEN_FIX = """Some indexes forward unauthenticated requests to a public index, which means that uv will not \
search for credentials. This behaviour can be changed per index, using the authenticate setting. For example, to \
always search for credentials:

```toml
[[tool.uv.index]]
authenticate = "always"
```

Unrelated closing remark about mirrors and their many caching layers.
"""


def test_an_answer_reads_on_to_the_fix_its_paragraph_leads_to(local_model):
    p = passage(PROBLEM_THEN_FIX)
    question = "My index forwards unauthenticated requests to a public index so uv never searches for credentials"
    assessment = local_model.assess(question, (p,))
    statements = [c.statement for c in assessment.claims]
    assert statements[0].startswith("Some indexes forward unauthenticated requests")
    assert any('authenticate = "always"' in s for s in statements), statements
    assert not any("Unrelated closing remark" in s for s in statements)
    assert all(r.passed for r in check_claims(assessment.claims, {p.id: p}))


def test_a_paragraph_that_introduces_nothing_adds_nothing(local_model):
    p = passage(
        "Annual plans are refundable within 30 days of the purchase date. Monthly plans are not refundable. "
        "Credits expire after a year.\n"
    )
    assessment = local_model.assess("How long do I have to get a refund on an annual plan?", (p,))
    first = assessment.claims[0].statement
    assert first.startswith("Annual plans are refundable within 30 days of the purchase date.")
    assert "\n" not in first  # prose only: nothing to carry
    # Each claim is its own window of whole sentences, and no sentence is stated twice.
    said = [s for c in assessment.claims for s in c.statement.split(". ")]
    assert len(said) == len(set(said))


@pytest.mark.parametrize(
    "sentence, pointer",
    [
        ("For more details on lockfiles and how they're created, see the project layout documentation.", True),
        ("To learn more about lockfiles and exporting, see the locking and syncing documentation.", True),
        ("See the lockfile documentation for more details.", True),
        ("Or, read on to learn how to build and publish your project.", True),
        ("The lockfile is created automatically when you run uv lock.", False),
        ("You will see a warning when the lockfile is stale.", False),
    ],
)
def test_pointers_elsewhere_are_not_answers(sentence, pointer):
    from ragcli.backends.local.evidence import is_pointer

    assert is_pointer(sentence) is pointer
    assert bool(units(passage(sentence + "\n"))) is not pointer


# Jinja's template designer documentation (pallets/jinja at 5ef70112, docs/templates.rst, BSD-3-Clause), the loop
# variables table as ingest writes it.
LOOP_TABLE = """Inside of a for-loop block, you can access some special variables:

| Variable | Description |
|---|---|
| loop.index | The current iteration of the loop. (1 indexed) |
| loop.index0 | The current iteration of the loop. (0 indexed) |
| loop.revindex | The number of iterations from the end of the loop (1 indexed) |
| loop.revindex0 | The number of iterations from the end of the loop (0 indexed) |
| loop.first | True if first iteration. |
| loop.last | True if last iteration. |
| loop.length | The number of items in the sequence. |
| loop.cycle | A helper function to cycle between a list of sequences. See the explanation below. |
| loop.depth | Indicates how deep in a recursive loop the rendering currently is. Starts at level 1 |
| loop.depth0 | Indicates how deep in a recursive loop the rendering currently is. Starts at level 0 |
"""


def test_a_rows_words_include_its_column_headers() -> None:
    """The row "| loop.last | True if last iteration. |" is read under its header "Variable": it answers "Which loop
    variable ...", and the quote itself stays the row as the page has it."""
    row = next(u for u in units(passage(LOOP_TABLE)) if u.kind == "row" and "loop.last" in u.quote)
    asked = Question.read("Which loop variable tells me if I'm on the last iteration?")
    assert asked.terms == {"loop", "variabl", "tell", "last", "iter"}  # nothing left of "I'm"
    values = features(asked, Window((row,)), {row: 0.5}, 1, frozenset(), {})
    assert values.asked_for == 1.0  # "loop variable": "variable" is the column's header
    assert values.overlap == pytest.approx(4 / 5)  # all but "tells"
    assert row.quote == "| loop.last | True if last iteration. |"


# pip's "Default paths" section (pypa/pip, docs/html/topics/caching.md, MIT), its tabs as ragcli reads them.
CACHE_PATHS = """Linux:

```
~/.cache/pip
```

Pip will also respect `XDG_CACHE_HOME`.

MacOS:

```
~/Library/Caches/pip
```

Pip will also respect `XDG_CACHE_HOME`.

Windows:

```
%LocalAppData%\\pip\\Cache
```

Changed in version 26.2: Pip will also respect `XDG_CACHE_HOME` on macOS.
"""


def test_a_windows_statement_shows_everything_its_quote_spans() -> None:
    """A tab's label and its path were too short a unit to quote, so they were no unit, and a window over the
    sentences around them showed "Pip will also respect XDG_CACHE_HOME." twice while its quote held the macOS
    path between: what a person read was not what the quote spans."""
    found = units(passage(CACHE_PATHS))
    assert any(u.kind == "introduced" and "~/Library/Caches/pip" in u.quote for u in found)
    spanning = windows(found)
    assert spanning
    for window in spanning:
        assert quote_words(window.quote) >= MIN_QUOTE_WORDS
        for line in window.quote.splitlines():
            if line.strip() and not line.startswith("```"):
                assert readable(line) in window.statement, (line, window.statement)


# prettier's CLI (prettier/prettier, docs/cli.md, MIT): each value of --config-precedence is a bold paragraph.
PRECEDENCE = """Defines how config file should be evaluated in combination of CLI options.

**cli-override (default)**

CLI options take precedence over config file

**file-override**

Config file take precedence over CLI options
"""


def test_a_new_paragraph_starts_its_own_line_in_a_statement() -> None:
    """Sentences of one paragraph run on; the next paragraph starts its own line. Run on, "CLI options take
    precedence over config file file-override Config file take precedence ..." read as one sentence."""
    found = units(passage(PRECEDENCE))
    statements = [w.statement for w in windows(found, max_units=4)]
    assert "CLI options take precedence over config file\nfile-override\nConfig file take precedence" in "\n".join(
        statements
    )
    assert not any("config file file-override" in s for s in statements)
    spaced = units(passage(PRECEDENCE.replace("config file\n\n", "config file\n   \n")))  # a blank line with spaces
    assert not any("config file file-override" in w.statement for w in windows(spaced, max_units=4))


def test_a_statement_reads_a_lines_escaped_start_as_the_line() -> None:
    """pytest's historical notes (MIT): "2\\. Marks compose ..." is a paragraph, escaped so that it is no list; the
    statement printed the backslash. An escaped emphasis marker marks nothing and stays as written (before, the
    emphasis rule ate the stars and left "Pass \\args\\"); so does a backslash inside a line."""
    found = units(
        passage("2\\. Marks compose in an additive manner. Pass \\*args\\* and my\\_name to it, **not** more.")
    )
    statement = " ".join(u.statement for u in found)
    assert statement.startswith("2. Marks compose in an additive manner.")
    assert "Pass \\*args\\* and my\\_name to it, not more." in statement


# lazygit's keybindings (jesseduffield/lazygit, docs/keybindings/Keybindings_en.md, MIT): rows of "Local branches".
BRANCH_KEYS = """| Key | Action | Info |
|-----|--------|-------------|
| `` <ctrl+o> `` | Copy branch name to clipboard |  |
| `` n `` | New branch |  |
| `` N `` | Move commits to new branch | Create a new branch and move the unpushed commits to it. |
| `` w `` | New worktree |  |
| `` o `` | Create pull request |  |
| `` - `` | Checkout previous branch |  |
"""


def test_a_short_table_row_can_be_the_answer(local_model):
    """ "| w | New worktree |" holds three words, fewer than a quote needs alone: before, such a row was no unit at all
    and no window could show it; now it is quoted with a row beside it."""
    p = passage(BRANCH_KEYS)
    assessment = local_model.assess("Which key creates a new worktree?", (p,))
    assert "New worktree" in assessment.claims[0].statement
    assert all(r.passed for r in check_claims(assessment.claims, {p.id: p}))


# Vite's build options (vitejs/vite, docs/config/build-options.md, MIT): a section named by the option it defines.
CHUNK_LIMIT = """- **Type:** `number`
- **Default:** `500`

Limit for chunk size warnings (in kB). It is compared against the uncompressed chunk size.
"""


def in_section(doc: str, title: str, heading: str, text: str) -> Passage:
    """A passage of document ``doc`` (page ``title``) under the one section ``heading``."""
    return Passage(
        f"{doc}@v#s", doc, "v", "s", "t", ("everyone",), None, None, title, (heading,), f"/{doc}.md", None, text
    )


def test_a_window_reads_under_the_heading_that_names_what_its_section_defines(local_model):
    """ "Type: number; Default: 500; Limit for chunk size warnings" says nothing without the option's name, which the
    page gives only as the section's heading; a heading that is prose is not repeated."""
    named = in_section("b", "Build Options", "build.chunkSizeWarningLimit", CHUNK_LIMIT)
    prose = replace(named, id="p@v#s", doc_id="p", heading_path=("Chunk size warnings",))
    question = "vite build warns that chunks are larger than 500 kB. Where do I change that limit?"
    claims = local_model.assess(question, (named,)).claims
    assert claims[0].statement.startswith("build.chunkSizeWarningLimit: ")
    assert all(r.passed for r in check_claims(claims, {named.id: named}))
    assert not local_model.assess(question, (prose,)).claims[0].statement.startswith("Chunk size warnings")


# Vite's SSR options (vitejs/vite, docs/config/ssr-options.md, MIT): the option's description after its type lines.
NO_EXTERNAL = """- **Type:** `string | RegExp | (string | RegExp)[] | true`
- **Related:** [SSR Externals](/guide/ssr#ssr-externals)

Prevent listed dependencies from being externalized for SSR, which they will get bundled in build. By default, only \
linked dependencies are not externalized (for HMR). If you prefer to externalize the linked dependency, you can pass \
its name to the `ssr.external` option.
"""


def test_a_window_after_the_type_lines_still_reads_under_the_named_heading(local_model):
    """ "Which SSR option ..." was answered with the description alone: the option's name, the answer, was only in
    the citation line under it. The section's heading names it whichever of its windows is quoted."""
    named = in_section("ssr", "SSR Options", "ssr.noExternal", NO_EXTERNAL)
    question = (
        "Which SSR option makes a dependency get bundled into the server build instead of being left as an "
        "external import?"
    )
    claims = local_model.assess(question, (named,)).claims
    assert claims[0].statement.startswith("ssr.noExternal: Prevent listed dependencies")
    assert all(r.passed for r in check_claims(claims, {named.id: named}))


SUB_OPTIONS = """| Option | Default value |
|---|---|
| assetsDir | assets folder |
| emptyOutDir | true when outDir is inside root |
"""


def test_a_table_row_reads_under_its_columns_not_the_sections_name(local_model):
    """A row names its own option: "build.outDir: Option: assetsDir ..." would say assetsDir is build.outDir."""
    named = in_section("out", "Build Options", "build.outDir", SUB_OPTIONS)
    claims = local_model.assess("Which option names the assets folder?", (named,)).claims
    assert "assetsDir" in claims[0].statement
    assert not claims[0].statement.startswith("build.outDir")


# pip's user guide (pypa/pip, docs/html/user_guide.rst, MIT), as the reStructuredText reader writes its tabs.
BUILD_CONSTRAINTS = """Build constraints are a type of constraints file that applies only to isolated build \
environments used during the build process.

This is useful when you need to constrain build dependencies (such as `setuptools`, `cython`, etc.) without \
affecting the final installed environment.

Use build constraints like so:

Unix/macOS:

```shell
python -m pip install --build-constraint build-constraints.txt SomePackage
```
"""


def test_a_window_that_ends_introducing_something_runs_on_to_it(local_model):
    """ "Use build constraints like so:" is no answer without the command under it; a tab's title between them makes
    the two separate units, so the window reads on by the one after its introduction."""
    p = in_section("pip", "User Guide", "Build Constraints", BUILD_CONSTRAINTS)
    question = "How do I constrain build dependencies without affecting the final installed environment?"
    claims = local_model.assess(question, (p,)).claims
    assert claims[0].statement.rstrip().endswith("```")
    assert "--build-constraint build-constraints.txt" in claims[0].statement
    assert all(r.passed for r in check_claims(claims, {p.id: p}))
