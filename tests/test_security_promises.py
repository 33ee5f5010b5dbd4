"""SECURITY.md promises that no other test file held on its own."""

from __future__ import annotations

from pathlib import Path

from support.corpus import markdown, write
from support.paths import DAY

from ragcli import Scope, ingest
from ragcli.index import TenantIndex
from ragcli.principal import Principal


def test_how_common_a_word_is_counts_only_the_passages_the_scope_may_see(tmp_path: Path, embedder) -> None:
    """The rare-word rule, the rare-identifier ranking and term coverage count visible passages only, so a
    forbidden document cannot change whether a query counts as specific."""
    docs, index = tmp_path / "docs", tmp_path / "index"
    write(docs / "open.md", markdown({"acl": ["everyone"]}, "# Open\n\nThe zqxword note, once.\n"))
    for i in range(12):
        write(
            docs / f"hr{i}.md",
            markdown({"acl": ["hr"]}, f"# HR {i}\n\nThe zqxword appears here with code ZQX-{770 + i}.\n"),
        )
    ingest(docs, "t", index=index, embedder=embedder)
    with TenantIndex.open(index, "t") as ix:
        bob = ix.view(Scope.of(Principal(user="bob", tenant="t"), DAY))
        hana = ix.view(Scope.of(Principal(user="hana", tenant="t", groups=("hr",)), DAY))
        assert bob.term_counts(["zqxword"]) == {"zqxword": 1}
        assert hana.term_counts(["zqxword"]) == {"zqxword": 13}
        assert bob.term_counts(["zqx-770"], field="ident") == {"zqx-770": 0}
        assert hana.term_counts(["zqx-770"], field="ident") == {"zqx-770": 1}
        assert bob.identifier_matches(["zqx-770"], 10) == []
