"""reStructuredText (real Sphinx pages from Flask's docs in tests/data/rst, and small files written here)
reaches the same passages as Markdown; Sphinx-only markup degrades to its text; a top field list is metadata."""

from __future__ import annotations

import datetime as dt
import re
import shutil

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.corpus import load_source, write
from support.paths import REPO

from ragcli.errors import DocumentRejected
from ragcli.ingestion.chunking import chunk_document
from ragcli.ingestion.rst import rst_to_markdown
from ragcli.ingestion.sources import SourceFile
from ragcli.readable import readable

DATA = REPO / "tests" / "data" / "rst"
EVERYONE = ("everyone",)
# What a passage must never show of reStructuredText or Sphinx source.
MARKUP = re.compile(
    r"(:\w+:`|`_|\.\. [\w:-]+::|^\.\. |\|\w+\||(?<!`)``(?!`)|toctree|:maxdepth:|:caption:)", re.MULTILINE
)


def load(tmp_path, name, content, default_acl=EVERYONE):
    path = write(tmp_path / name, content)
    return load_source(SourceFile(path.resolve(), name), default_acl=default_acl)


def load_real(tmp_path, name):
    shutil.copy(DATA / name, tmp_path / name)
    return load_source(SourceFile((tmp_path / name).resolve(), name), default_acl=EVERYONE)


def test_sphinx_page_sections_code_and_tabs(tmp_path, embedder) -> None:
    doc = load_real(tmp_path, "flask-installation.rst")
    assert (doc.format, doc.title) == ("rst", "Installation")
    passages = chunk_document(doc, "t", embedder.count_tokens)
    paths = [p.heading_path for p in passages]
    assert ("Dependencies", "Optional dependencies") in paths
    assert ("Virtual environments", "Create an environment") in paths
    create = next(p for p in passages if p.heading_path == ("Virtual environments", "Create an environment"))
    # Each tab of the sphinx-tabs directive is labelled, its code-block kept whole.
    assert "macOS/Linux:\n\n```text\n$ mkdir myproject\n$ cd myproject\n$ python3 -m venv .venv\n```" in create.text
    assert "Windows:\n\n```text\n> mkdir myproject" in create.text
    deps = next(p for p in passages if p.heading_path == ("Dependencies",))
    # :doc:`signals`, a page this folder lacks, shows its name made readable; the link targets
    # (.. _Werkzeug: https://...) are not text.
    assert "- Blinker provides support for Signals." in deps.text and "https://" not in deps.text
    for passage in passages:
        assert not MARKUP.search(passage.text), passage.text


def test_sphinx_roles_and_directives_degrade_to_their_text(tmp_path, embedder) -> None:
    async_doc = load_real(tmp_path, "flask-async-await.rst")
    assert async_doc.title == "Using async and await"
    assert "New in version 2.0." in async_doc.text  # .. versionadded:: 2.0
    # :meth:`~flask.views.View.dispatch_request` shows what Sphinx shows: the last name.
    assert "This applies to the dispatch_request method" in async_doc.text
    deploying = load_real(tmp_path, "flask-deploying.rst")
    # The toctree's entries are navigation to other pages, which are documents of their own.
    assert "gunicorn" not in deploying.text and "maxdepth" not in deploying.text
    # :doc:`proxy_fix` names a page this folder lacks: its name made readable.
    assert "You'll probably need to Proxy fix when using most hosting platforms." in deploying.text
    for doc in (async_doc, deploying):
        for passage in chunk_document(doc, "t", embedder.count_tokens):
            assert not MARKUP.search(passage.text), passage.text


SPHINX_PAGE = """\
:acl: support, user:carol
:effective_from: 2026-03-01
:version: 4.10
:orphan:

Rate Limits
===========

Read :ref:`the quota rules <quotas>` first. See :py:class:`api.Client` and |release|.

.. note::

   Limits apply per API key.

.. warning:: Bursts above the limit return HTTP 429.

Tiers
-----

.. list-table:: Requests per minute
   :header-rows: 1

   * - Tier
     - Requests per minute
   * - Free
     - 60
   * - Pro
     - 600

.. code-block:: python
   :caption: Retrying after a 429
   :linenos:
   :emphasize-lines: 2

   for attempt in range(5):
       time.sleep(2 ** attempt)

.. versionchanged:: 3.1
   Pro went from 300 to 600 requests.

.. deprecated:: 3.0

.. py:function:: limit(key)

   Returns the remaining requests for *key*.

.. seealso:: The status page.

.. someextension:: Extension label

   Text inside an extension's directive.

.. toctree::

   quotas
"""


def test_field_list_metadata_admonitions_tables_and_unknown_directives(tmp_path, embedder) -> None:
    doc = load(tmp_path, "limits.rst", SPHINX_PAGE, default_acl=())
    assert doc.acl == ("support", "user:carol")
    assert doc.effective_from == dt.date(2026, 3, 1)
    assert doc.declared_version == "4.10"
    assert doc.title == "Rate Limits"
    passages = chunk_document(doc, "t", embedder.count_tokens)
    text = "\n\n".join(p.text for p in passages)
    assert "Read the quota rules first. See `api.Client` and." in text  # |release| is defined in no file here
    assert "Note: Limits apply per API key." in text
    assert "Warning: Bursts above the limit return HTTP 429." in text
    assert "Requests per minute:\n\n| Tier | Requests per minute |\n|---|---|\n| Free | 60 |\n| Pro | 600 |" in text
    assert "Retrying after a 429:\n\n```python\nfor attempt in range(5):\n    time.sleep(2 ** attempt)\n```" in text
    assert "Changed in version 3.1: Pro went from 300 to 600 requests." in text
    assert "Deprecated since version 3.0." in text
    assert "`limit(key)`\n\nReturns the remaining requests for key." in text  # the signature, then the text
    assert "See also: The status page." in text
    assert "Extension label: Text inside an extension's directive." in text
    assert "quotas\n" not in text and "orphan" not in text and "effective_from" not in text
    assert {p.heading_path for p in passages} == {(), ("Tiers",)}
    for passage in passages:
        assert not MARKUP.search(passage.text), passage.text


ATTRS_API = """\
Core
----

.. autofunction:: {signature}

   For example:

   .. doctest::

{doctest}

.. autofunction:: attrs.validators.in_

   For example:

   .. doctest::

      >>> import enum
      >>> class State(enum.Enum):
      ...     ON = "on"
      ...     OFF = "off"

.. autofunction:: attrs.validators.and_

   For convenience, it's also possible to pass a list to `attrs.field`'s validator argument.

.. autofunction:: attrs.define

.. class:: Attribute

   Same as `attrs.Attribute`.

.. function:: your_hook(cls: type, fields: list[attrs.Attribute]) -> list[attrs.Attribute]
   :noindex:
"""  # bench/corpora/attrs/docs/api-attr.rst, api.rst, extending.md's eval-rst (MIT); the doctest lengthened below
ATTRS_DOCTEST = "\n".join(f"      >>> C(private={n})\n      C(_private={n})" for n in range(120))
ATTRS_SIGNATURE = (
    "attr.s(these=None, repr_ns=None, repr=None, cmp=None, hash=None, init=None, slots=False, frozen=False, "
    "weakref_slot=True, str=False, auto_attribs=False, kw_only=False, cache_hash=False, auto_exc=False, eq=None, "
    "order=None, auto_detect=False, collect_by_mro=False, getstate_setstate=None, on_setattr=None, "
    "field_transformer=None, match_args=True, unsafe_hash=None)"
)


def test_an_object_description_shows_its_signature_once_as_written(tmp_path, embedder) -> None:
    """``.. autofunction:: attrs.validators.in_``: the name keeps its underscore (a directive's argument is no
    reference) and labels what follows it, as a glossary's term does; a call's signature is on a line of its own;
    neither is repeated before every part of a long example."""
    doc = load(
        tmp_path, "api-attr.rst", ATTRS_API.replace("{signature}", ATTRS_SIGNATURE).replace("{doctest}", ATTRS_DOCTEST)
    )
    passages = chunk_document(doc, "t", embedder.count_tokens)
    text = "\n\n".join(p.text for p in passages)
    assert "\n`attrs.validators.in_`: For example:\n\n```\n>>> import enum" in text
    assert "\n`attrs.validators.and_`: For convenience, it's also possible" in text
    assert "\n`Attribute`: Same as attrs.Attribute." in text  # ``.. class::`` is Python's class, as in Sphinx
    assert "attrs.validators.in\n" not in text and "attrs.define" not in text  # autodoc's text is not in the file
    # A signature written by hand is the page's text, content or not.
    assert text.endswith("`your_hook(cls: type, fields: list[attrs.Attribute]) -> list[attrs.Attribute]`")
    parts = [p for p in passages if "C(_private=" in p.text]
    assert len(parts) > 2
    assert sum(ATTRS_SIGNATURE in p.text for p in passages) == 1 and sum("these=None" in p.text for p in passages) == 1
    assert all(p.text.startswith("For example:\n\n```") for p in parts[1:])


def test_docutils_class_directive_with_css_classes_shows_nothing() -> None:
    """docutils' ``.. class:: special`` gives the next element a CSS class; after ``.. module::`` (a Sphinx page on
    Python) or written capitalised, ``.. class::`` is Python's class, shown as in Sphinx."""
    assert rst_to_markdown("T\n=\n\n.. class:: special other\n\nA paragraph.\n", "x.rst")[1] == "# T\n\nA paragraph.\n"
    python = rst_to_markdown("T\n=\n\n.. module:: foo\n\n.. class:: bar\n\n.. class:: Baz\n\nText.\n", "x.rst")[1]
    assert python == "# T\n\n`bar`\n\n`Baz`\n\nText.\n"


def test_a_glossary_reads_term_then_definition_and_terms_sharing_one_are_listed_together() -> None:
    """Sphinx's ``.. glossary::`` (the shape its documentation gives: terms at the left margin, several on lines of
    their own sharing a definition, the definition indented; none of the rst corpora has one): ``term:
    definition``, never ``source directory root`` glued to a quoted definition."""
    page = (
        "Glossary\n========\n\n.. glossary::\n\n   environment\n      A structure where information about all "
        "documents under the root is\n      saved, and used for cross-referencing.\n\n   source directory\n   root\n"
        "      The directory which, including its subdirectories, contains all\n      source files for one Sphinx "
        "project.\n\n      A second paragraph.\n"
    )
    _, out = rst_to_markdown(page, "glossary.rst")
    assert (
        "- environment: A structure where information about all documents under the root is saved, and used for "
        "cross-referencing.\n- source directory, root: The directory which, including its subdirectories, contains "
        "all source files for one Sphinx project.\n\n  A second paragraph."
    ) in out


def test_angle_brackets_in_restructuredtext_are_text_not_html(tmp_path, embedder) -> None:
    """The Markdown the reader writes holds the page's text: ``-db <backend>`` is no HTML tag to drop."""
    page = (
        "Usage\n=====\n\nYou can change the default behaviour by using ``-db <backend>`` or "
        "``--default-venv-backend <backend>``.\n"
    )  # bench/corpora/nox/docs/usage.rst (Apache-2.0)
    text = "\n".join(p.text for p in chunk_document(load(tmp_path, "usage.rst", page), "t", embedder.count_tokens))
    assert "by using `-db <backend>` or `--default-venv-backend <backend>`." in text  # code, as the page shows it


def test_inline_literals_are_code_spans_so_their_characters_stay() -> None:
    """tox's docs (tox-dev/tox at ccb12fc2, MIT, docs/explanation.rst): as plain text, ``3.*``'s star and the
    ``*`` of a glob list were read as emphasis when printed (the answer said "glob patterns (, ?, [seq])")."""
    page = (
        "Parallel mode\n=============\n\n``depends`` supports glob patterns (``*``, ``?``, ``[seq]``) using "
        ":py:mod:`fnmatch`, so instead of listing each environment explicitly you can write ``depends = 3.*``.\n"
    )
    _, out = rst_to_markdown(page, "explanation.rst")
    assert "`depends` supports glob patterns (`*`, `?`, `[seq]`) using `fnmatch`" in out  # a py: role is code
    assert "you can write `depends = 3.*`." in out
    assert readable(out.split("\n")[-2]).count("*") == 2  # printed for a person, code keeps its stars


def test_a_code_role_is_a_code_span_as_in_myst() -> None:
    """pytest's docs (pytest-dev/pytest at df87db7b0, MIT, doc/en/example/pythoncollection.rst): an ``:option:`` (and
    ``:file:``, ``:kbd:``, ``:envvar:``, an explicit ``py:`` object) is code, as ``{option}`` is in MyST; as text,
    a pair of stars in it read as emphasis when printed. A bare ``:class:`` or ``:ref:`` is text."""
    page = (
        "Collection\n==========\n\nIf you want to exclude test-modules that end with ``_01.py``, execute ``pytest`` "
        "with :option:`--ignore-glob='*_01*.py'`. Set :envvar:`PYTEST_ADDOPTS`; see :class:`.Request`.\n"
    )
    _, out = rst_to_markdown(page, "pythoncollection.rst")
    assert "execute `pytest` with `--ignore-glob='*_01*.py'`. Set `PYTEST_ADDOPTS`; see Request." in out
    assert "`--ignore-glob='*_01*.py'`" in readable(out)


def test_a_table_cell_never_shows_the_parsers_messages() -> None:
    """Sphinx's own docs (sphinx-doc/sphinx at e44a40eb2f, BSD-2-Clause, doc/latex.rst): a csv-table cell holding a
    role docutils does not know printed docutils' note about it ("latex.rst:1249: (INFO/1) No role entry for
    'rst:dir' ...") in 28 passages."""
    page = (
        "LaTeX\n=====\n\n.. csv-table::\n   :header: Directive, Option prefix, LaTeX environment\n\n"
        "   :rst:dir:`code-block`, ``pre``, ``sphinxVerbatim``\n   :dudir:`topic`, ``div.topic``, ``sphinxtopic``\n"
    )
    _, out = rst_to_markdown(page, "latex.rst")
    assert "| `code-block` | `pre` | `sphinxVerbatim` |" in out and "| topic | `div.topic` | `sphinxtopic` |" in out
    assert "INFO" not in out and "role entry" not in out


def test_a_click_example_is_code_and_a_click_run_shows_nothing() -> None:
    """pallets-sphinx-themes' directives in Click's docs (pallets/click at 2c8cd3ac, BSD-3-Clause,
    docs/documentation.md, in ``{eval-rst}``): ``click:example`` shows its Python as code (it was read as prose, 95
    times in those docs, its lines run together); ``click:run``'s body drives a run whose output the site shows."""
    page = (
        "Help\n====\n\nChange the metavar:\n\n.. click:example::\n\n"
        "    @click.command(options_metavar='[[options]]')\n"
        "    @click.option('--count', default=1, help='number of greetings',\n"
        "                  metavar='<int>')\n"
        "    def hello(name: str, count: int) -> None:\n"
        "        for x in range(count):\n"
        '            click.echo(f"Hello {name}!")\n\n'
        ".. click:run::\n\n    invoke(hello, args=['--help'])\n\nAfter.\n"
    )
    _, out = rst_to_markdown(page, "documentation.rst")
    assert "Change the metavar:\n\n```python\n@click.command(options_metavar='[[options]]')\n" in out
    assert "\n              metavar='<int>')\n" in out and '\n        click.echo(f"Hello {name}!")\n```' in out
    assert "invoke(" not in out and out.rstrip().endswith("After.")


def test_a_substitution_no_file_defines_reads_as_nothing(tmp_path) -> None:
    page = "Requests\n========\n\nRelease v\\ |version|. (:ref:`Installation <install>`)\n"
    _, out = rst_to_markdown(page, "index.rst")  # bench/corpora/requests/docs/index.rst (Apache-2.0)
    assert "Release v. (Installation)" in out and "\x00" not in out and "version" not in out


def test_a_field_list_right_after_the_title_is_metadata_too(tmp_path) -> None:
    doc = load(tmp_path, "a.rst", "Runbook\n=======\n\n:acl: oncall\n:version: 7\n\nPage the secondary.\n")
    assert (doc.acl, doc.declared_version, doc.title) == (("oncall",), "7", "Runbook")
    assert "oncall" not in doc.text
    later = load(tmp_path, "b.rst", "Runbook\n=======\n\nPage the secondary.\n\n:acl: oncall\n")
    assert later.acl == EVERYONE and "acl: oncall" in later.text  # a field list in the body is body text


@pytest.mark.parametrize(
    ("fields", "needle"),
    [
        (":effective_from: next monday\n", "effective_from"),
        (":acl: support,\n", "acl"),
        (":acl: a\n:ACL: b\n", "given twice"),
    ],
)
def test_wrong_field_list_metadata_rejects_the_document(tmp_path, fields, needle) -> None:
    with pytest.raises(DocumentRejected) as caught:
        load(tmp_path, "bad.rst", fields + "\nTitle\n=====\n\nBody text.\n")
    assert needle in caught.value.reason


def test_a_long_grid_table_is_split_by_rows_with_the_header_repeated(tmp_path, embedder) -> None:
    rows = [f"| Region {n:02d} | Business plan with priority support | {100 + n} EUR |" for n in range(1, 51)]
    rule = "+-----------+-------------------------------------+---------+"
    grid = [rule, "| Region    | Plan                                | Price   |", rule.replace("-", "=")]
    for row in rows:
        grid += [row, rule]
    doc = load(tmp_path, "prices.rst", "Prices\n======\n\n" + "\n".join(grid) + "\n")
    parts = chunk_document(doc, "t", embedder.count_tokens)
    assert len(parts) > 1
    assert all(p.text.startswith("| Region | Plan | Price |\n|---|---|---|\n") for p in parts)
    body = [line for p in parts for line in p.text.split("\n")[2:]]
    assert body == [f"| Region {n:02d} | Business plan with priority support | {100 + n} EUR |" for n in range(1, 51)]


def test_nothing_is_read_from_outside_the_file(tmp_path) -> None:
    secret = write(tmp_path / "secret.txt", "the launch code is 0000\n")
    page = (
        f"Title\n=====\n\nBefore.\n\n.. include:: {secret}\n\n.. raw:: html\n   :file: {secret}\n\n"
        f".. csv-table:: Codes\n   :file: {secret}\n\nAfter.\n"
    )
    doc = load(tmp_path, "page.rst", page)
    assert "launch code" not in doc.text
    assert "Before." in doc.text and "After." in doc.text


def test_spans_in_a_grid_table_repeat_their_text_in_each_cell() -> None:
    table = """\
+--------+--------+--------+
| Plan   | Region | Price  |
+========+========+========+
| Pro    | EU     | 49     |
|        +--------+--------+
|        | US     | 59     |
+--------+--------+--------+
| Team   | Any region      |
+--------+-----------------+
"""
    _, text = rst_to_markdown(table, "t.rst")
    assert "| Pro | EU | 49 |\n| Pro | US | 59 |\n| Team | Any region | Any region |" in text


RST_PIECES = [
    "Title\n=====\n", ":ref:`x <y>`", ".. note::", "   body", "* a", "#. b", "`x`_", "|sub|", ".. code-block::",
    "::", "   code", ":field: v", "+--+", "| a |", "====", ".. _t:", "[1]_", ".. [1] n", "word", "\n", "  ", "**", "``",
]  # fmt: skip


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(RST_PIECES), max_size=40))
def test_any_text_converts_or_is_rejected_with_a_reason(pieces) -> None:
    try:
        rst_to_markdown("\n".join(pieces), "fuzz.rst")
    except DocumentRejected as rejected:
        assert rejected.reason


def test_an_admonition_left_with_nothing_is_its_title_alone() -> None:
    """An admonition whose body is only a directive ragcli drops (a toctree) shows its title, not "Title:" over
    nothing."""
    from ragcli.ingestion.rst import rst_body_to_markdown

    text = "Intro.\n\n.. admonition:: Added in version 2.0\n\n   .. toctree::\n\n      a\n\nAfter.\n"
    assert rst_body_to_markdown(text, "x.rst") == "Intro.\n\nAdded in version 2.0\n\nAfter.\n"


def test_a_directives_options_show_what_the_page_shows() -> None:
    """tox's ``.. conf::`` (tox-dev/tox at ccb12fc2, docs/reference/config.rst, MIT) names its setting and default
    only in options, and Sphinx's ``.. confval::`` (sphinx-doc/sphinx at e44a40eb2f, doc/usage/configuration.rst,
    BSD-2-Clause) its type and default: "What is the default interrupt_timeout?" had no passage that said 0.3.
    Options that lay a page out or build it (``:class:``, autodoc's ``:members:``, a flag) show nothing."""
    tox = (
        "Execute\n=======\n\n.. conf::\n    :keys: interrupt_timeout\n    :default: 0.3\n    :version_added: 3.15\n\n"
        "     When tox is interrupted, it propagates the signal to the child process after :ref:`suicide_timeout`"
        " seconds.\n"
    )
    out = rst_to_markdown(tox, "config.rst")[1]
    assert "Keys: interrupt_timeout; Default: 0.3; Version added: 3.15.\n" in out
    assert out.index("Keys:") < out.index("When tox is interrupted")
    sphinx = (
        "Project information\n===================\n\n.. confval:: project\n   :type: :code-py:`str`\n"
        "   :default: :code-py:`'Project name not set'`\n\n   The documented project's name.\n\n"
        ".. autoclass:: pkg.Thing\n   :members:\n   :noindex:\n\n   A thing.\n\n"
        ".. card:: Install\n   :class-card: sd-shadow-sm\n   :link: install\n\n   Get it running.\n"
    )
    out = rst_to_markdown(sphinx, "configuration.rst")[1]
    assert "`project`: Type: str; Default: 'Project name not set'.\n\nThe documented project's name." in out
    assert "members" not in out.casefold() and "noindex" not in out and "sd-shadow" not in out and "Link" not in out


PYTEST_CONFVALS = """Configuration options
=====================

.. confval:: faulthandler_exit_on_timeout
   :type: ``bool``
   :default: ``false``

   Exit the pytest process after the per-test timeout is reached.

.. confval:: faulthandler_timeout
   :type: ``float``
   :default: ``0`` (disabled)

   Dumps the tracebacks of all threads if a test takes longer than ``X`` seconds to run.
"""  # pytest-dev/pytest (MIT), doc/en/reference/reference.rst at df87db7b, shortened


def test_a_settings_name_labels_its_type_and_default() -> None:
    """A confval's name was a paragraph of its own: the window that answered the option before it ended on the bare
    name "faulthandler_timeout", and the name's own type and default read as "Type: float; Default: 0" with no name.
    Sphinx sets the name above its text as a term above its definition; it labels the sentence under it."""
    out = rst_to_markdown(PYTEST_CONFVALS, "reference.rst")[1]
    assert "`faulthandler_timeout`: Type: `float`; Default: `0` (disabled).\n\nDumps the tracebacks" in out
    assert "`faulthandler_exit_on_timeout`: Type: `bool`; Default: `false`.\n\nExit the pytest process" in out
    assert "\n`faulthandler_timeout`\n" not in out


def test_the_two_readers_label_a_description_alike() -> None:
    """The same description written as reStructuredText and as MyST reads the same: its name as code (as Sphinx sets
    it) labelling a note, a nested description or text; docutils' messages (an ``.. index::`` first) are no text;
    a name with Markdown in it (``PIP_*``, ``[metadata]``) stays a name, a signature ending in its colon and a
    call's parameters stay on a line of their own."""
    from ragcli.ingestion.dialects import unfold_dialects

    rst = (
        "T\n=\n\n.. confval:: x\n\n   .. note:: Careful here.\n\n"
        ".. py:class:: Foo\n\n   .. py:method:: bar\n\n      The bar.\n\n"
        ".. confval:: y\n\n   .. index:: why\n\n   Body.\n\n"
        ".. envvar:: PIP_*\n\n   Any option, as in PIP_*_X.\n\n"
        ".. describe:: [metadata]\n\n   Required.\n\n"
        ".. describe:: Usage:\n\n   Run it.\n"
    )
    myst = (
        "::::{confval} x\n:::{note}\nCareful here.\n:::\n::::\n\n"
        "::::{py:class} Foo\n:::{py:method} bar\nThe bar.\n:::\n::::\n\n"
        "```{confval} y\nBody.\n```\n\n"
        "```{envvar} PIP_*\nAny option, as in PIP_*_X.\n```\n\n"
        "```{describe} [metadata]\nRequired.\n```\n\n"
        "```{describe} Usage:\nRun it.\n```\n"
    )
    expected = [
        "`x`: Note: Careful here.",
        "`Foo`: `bar`: The bar.",
        "`y`: Body.",
        "`PIP_*`: Any option, as in PIP_*_X.",
        "`[metadata]`: Required.",
        "`Usage:`\n\nRun it.",
    ]
    read_rst = rst_to_markdown(rst, "x.rst")[1]
    read_myst = "\n\n".join(p.strip() for p in unfold_dialects(myst).split("\n\n") if p.strip())
    for shown in expected:
        assert shown in read_rst
        assert shown in read_myst


def test_a_term_written_with_its_own_colon_gets_no_second_one() -> None:
    """Jinja writes its policies as definition terms that end in a colon (pallets/jinja, BSD-3-Clause, docs/api.rst
    at 5ef70112): ``truncate.leeway:: Configures ...`` printed the colon twice."""
    text = (
        "Policies\n========\n\n``truncate.leeway``:\n    Configures the leeway default for the `truncate` filter.\n\n"
        "``urlize.rel``:\n    A string that defines the items for the `rel` attribute of generated links.\n"
    )
    out = rst_to_markdown(text, "api.rst")[1]
    assert "- `truncate.leeway`: Configures the leeway default" in out
    assert "- `urlize.rel`: A string that defines" in out
    assert "::" not in out
