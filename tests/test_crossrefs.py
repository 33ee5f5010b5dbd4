"""Sphinx and MyST cross-references show their target's title from the folder, through a real ingest.

Real snippets, kept short:

- nox (https://github.com/wntrblm/nox, Apache-2.0; ``bench/corpora/nox``): ``docs/config.rst``'s
  ``.. _virtualenv config:`` section and the ``:ref:``/``:doc:`` sentences of ``docs/tutorial.rst`` and
  ``docs/index.rst``;
- Black (https://github.com/psf/black, MIT; ``bench/corpora/black``): ``docs/guides/index.md``'s MyST
  ``{doc}`` list and the H1 of ``docs/guides/introducing_black_to_your_project.md``;
- MyST-Parser (https://github.com/executablebooks/MyST-Parser, MIT; ``bench/corpora/myst``):
  ``(syntax/math)=`` before ``# Math shortcuts`` and a ``{ref}`` to it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.corpus import all_passages, write

from ragcli import ingest
from ragcli.ingestion.crossrefs import resolving, role_text, salt_of
from ragcli.ingestion.dialects import unfold_dialects
from ragcli.ingestion.folder import open_folder
from ragcli.ingestion.references import ReferenceTable, scan
from ragcli.ingestion.rst import rst_to_markdown
from ragcli.settings import ParseLimits

NOX_CONFIG = """\
Configuration & API
===================

.. _virtualenv config:

Configuring a session's virtualenv
----------------------------------

By default, Nox will create a new virtualenv for each session using the same interpreter that Nox uses.
"""
NOX_TUTORIAL = """\
Tutorial
========

If you want to learn more about how to configure virtualenvs, check out the documentation on configuring
sessions over at :ref:`virtualenv config`. You can also jump into :doc:`usage` and
:doc:`config` docs if you want, or :doc:`the reference </config.rst>`.
"""
NOX_USAGE = """\
Command-line usage
==================

If you have a :ref:`configured session's virtualenv <virtualenv config>`, you can choose to run only sessions
with given Python versions. See :ref:`an-unknown-label` and :doc:`missing/page`.
"""
BLACK_GUIDES = """\
# Guides

Wondering how to do something specific? You've found the right place! Listed below are
topic specific guides available:

- {doc}`introducing_black_to_your_project`
- {doc}`Other tools <./using_black_with_other_tools>`
- See {ref}`syntax/math` and {py:class}`~black.mode.Mode`.
"""
BLACK_INTRODUCING = """\
# Introducing _Black_ to your project

This guide is incomplete. Contributions are welcomed and would be deeply appreciated!
"""
MYST_MATH = """\
(syntax/math)=

# Math shortcuts

Math extensions are available from the `dollarmath` and `amsmath` extensions.
"""


def _folder(root: Path) -> Path:
    write(root / "docs" / "config.rst", NOX_CONFIG)
    write(root / "docs" / "tutorial.rst", NOX_TUTORIAL)
    write(root / "docs" / "usage.rst", NOX_USAGE)
    write(root / "guides" / "index.md", BLACK_GUIDES)
    write(root / "guides" / "introducing_black_to_your_project.md", BLACK_INTRODUCING)
    write(root / "syntax" / "math.md", MYST_MATH)
    return root


def _texts(index: Path, tenant: str = "t") -> dict[str, str]:
    """file relative to the folder -> the text of its passages, joined."""
    out: dict[str, str] = {}
    for p in all_passages(index, tenant):
        out[p.path] = out.get(p.path, "") + "\n" + p.text
    return out


def _ids(index: Path, tenant: str = "t") -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for p in all_passages(index, tenant):
        out.setdefault(p.path, set()).add(p.id)
    return out


def _table(root: Path) -> ReferenceTable:
    with open_folder(root) as folder:
        return scan(folder, folder.discover().files, 1 << 20)


@pytest.mark.parametrize("workers", [0, 2])
def test_a_reference_to_another_file_shows_its_title(tmp_path: Path, embedder, workers: int) -> None:  # type: ignore[no-untyped-def]
    root = _folder(tmp_path / "docs-site")
    index = tmp_path / "index"
    ingest(root, "t", index=index, embedder=embedder, default_acl=["everyone"], limits=ParseLimits(workers=workers))
    texts = _texts(index)
    tutorial, usage, guides = texts["docs/tutorial.rst"], texts["docs/usage.rst"], texts["guides/index.md"]
    assert "sessions over at Configuring a session's virtualenv." in tutorial
    assert "jump into Command-line usage and Configuration & API docs" in tutorial
    assert "or the reference." in tutorial
    assert "If you have a configured session's virtualenv, you can" in usage
    # A target the folder lacks shows its text: the label, the document's file name made readable.
    assert "See an-unknown-label and Page." in usage
    assert "- Introducing Black to your project" in guides
    assert "- Other tools" in guides
    assert "See Math shortcuts and `Mode`." in guides
    assert "{doc}" not in guides and "{ref}" not in guides


def test_a_retitled_target_recuts_the_files_that_reference_it_and_no_other(tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    root = _folder(tmp_path / "docs-site")
    index = tmp_path / "index"
    ingest(root, "t", index=index, embedder=embedder, default_acl=["everyone"])
    before = _texts(index)
    write(root / "docs" / "config.rst", NOX_CONFIG.replace("Configuring a session's virtualenv\n", "Virtualenvs\n"))
    write(root / "guides" / "introducing_black_to_your_project.md", BLACK_INTRODUCING.replace("_Black_", "Black"))
    write(root / "syntax" / "math.md", MYST_MATH.replace("# Math shortcuts", "# Math"))
    ids_before = _ids(index)
    report = ingest(root, "t", index=index, embedder=embedder, default_acl=["everyone"])
    after = _texts(index)
    ids_after = _ids(index)
    # tutorial.rst and guides/index.md did not change, but what they show of their targets did.
    assert "sessions over at Virtualenvs." in after["docs/tutorial.rst"]
    assert "- Introducing Black to your project" in after["guides/index.md"]  # the same title: same text
    assert "See Math and `Mode`." in after["guides/index.md"]
    assert after["docs/usage.rst"] == before["docs/usage.rst"]  # its reference has an explicit title
    assert ids_after["docs/usage.rst"] == ids_before["docs/usage.rst"]
    # A passage ID names one text: the Markdown file whose text is unchanged has a new version all the same.
    assert not ids_after["guides/index.md"] & ids_before["guides/index.md"]
    # The three edited files, tutorial.rst and guides/index.md are new; usage.rst is kept.
    assert report.documents.updated == 5
    again = ingest(root, "t", index=index, embedder=embedder, default_acl=["everyone"])
    assert again.documents.updated == 0 and again.generation == report.generation


def test_the_table_resolves_relative_absolute_and_suffixed_document_paths(tmp_path: Path) -> None:
    root = _folder(tmp_path / "site")
    page = "Deep\n====\n\n:doc:`../usage`, :doc:`/docs/config`, :doc:`/usage.rst`.\n"
    write(root / "docs" / "deep" / "page.rst", page)
    table = _table(root)
    assert table.titles_for("docs/deep/page.rst") == {
        "doc:../usage": "Command-line usage",
        "doc:/docs/config": "Configuration & API",
        "doc:/usage.rst": "Command-line usage",  # not under the top: the one file it ends with
    }
    assert table.titles_for("docs/usage.rst") == {}  # an explicit title and two targets the folder lacks
    assert table.labels["ref:virtualenv config"] == "Configuring a session's virtualenv"
    assert table.labels["ref:syntax/math"] == "Math shortcuts"
    assert salt_of({}) == "" and salt_of({"ref:a": "A"}) != salt_of({"ref:a": "B"})


def test_a_label_in_a_code_example_or_before_a_paragraph_names_no_title(tmp_path: Path) -> None:
    write(tmp_path / "a.md", "```md\n(fake)=\n# Not a section\n```\n\n(para)=\nA paragraph.\n")
    write(tmp_path / "b.rst", "B\n=\n\n.. _note-label:\n\nA paragraph, no title.\n\n:ref:`note-label`\n")
    table = _table(tmp_path)
    assert "ref:fake" not in table.labels and "ref:para" not in table.labels
    assert "ref:note-label" not in table.labels


def test_python_references_show_their_name() -> None:
    assert role_text("py:class", "~a.b.C") == "C"
    assert role_text("class", ".Request") == "Request"
    assert role_text("meth", "~.Flask.route") == "route"
    assert role_text("func", "!no_link") == "no_link"
    assert role_text("file", ".env") == ".env"
    assert unfold_dialects("{py:class}`~pkg.Request`, {py:meth}`.Request.send`, {term}`Glossary`") == (
        "`Request`, `Request.send`, Glossary"
    )


def test_rendering_without_the_table_shows_the_text_as_before() -> None:
    page = "T\n=\n\nSee :ref:`virtualenv config` and :doc:`/deploying/asgi`.\n"
    assert "See virtualenv config and Asgi." in rst_to_markdown(page, "t.rst")[1]
    with resolving({"ref:virtualenv config": "Virtualenvs", "doc:/deploying/asgi": "ASGI"}):
        assert "See Virtualenvs and ASGI." in rst_to_markdown(page, "t.rst")[1]
    assert "See virtualenv config and Asgi." in rst_to_markdown(page, "t.rst")[1]  # only while resolving


def test_a_document_is_titled_as_the_loaders_title_it(tmp_path: Path) -> None:
    write(tmp_path / "fields.rst", "Heading\n=======\n\n:title: From the ``field`` list\n\nText.\n")
    write(tmp_path / "overlined.rst", "=========\n Inset\n=========\n\nText.\n")
    write(tmp_path / "side.md", "---\ntitle: Front matter\n---\n# Heading\n")
    write(tmp_path / "side.meta.yaml", "title: From the sidecar\n")
    write(tmp_path / "no-heading.md", "Just text.\n")
    write(tmp_path / "refs.md", "{doc}`fields` {doc}`overlined` {doc}`side` {doc}`no-heading`\n")
    assert _table(tmp_path).titles_for("refs.md") == {
        "doc:fields": "From the field list",
        "doc:overlined": "Inset",
        "doc:side": "From the sidecar",
        "doc:no-heading": "No heading",
    }
