"""The manual in docs/: the CLI reference says what ``--help`` says, and the README is a door to it."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest
from support.cli import cli

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
REGENERATE = "run `python docs/gen_cli.py` and commit docs/reference/"


def _gen_cli() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_cli", DOCS / "gen_cli.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GEN_CLI = _gen_cli()
COMMANDS = [name for name, _ in GEN_CLI.commands()]


def test_reference_pages_are_what_the_generator_writes_now() -> None:
    wanted = GEN_CLI.pages()
    on_disk = {p.name: p.read_text(encoding="utf-8") for p in (DOCS / "reference").glob("*.md")}
    stale = sorted(set(on_disk) - set(wanted))
    missing = sorted(set(wanted) - set(on_disk))
    differ = sorted(name for name in set(wanted) & set(on_disk) if wanted[name] != on_disk[name])
    assert not (stale or missing or differ), (
        f"docs/reference/ is out of date with the Typer app (stale {stale}, missing {missing}, differ {differ}): "
        f"{REGENERATE}"
    )


def test_every_command_has_a_reference_page_and_a_guide() -> None:
    # The same walk the generator makes, so a new command cannot be left out of the manual.
    assert {"ingest", "status", "search", "ask", "eval", "watch", "mcp", "trace replay"} <= set(COMMANDS)
    for name in filter(None, COMMANDS):
        assert (DOCS / "reference" / GEN_CLI.page_name(name)).is_file(), (name, REGENERATE)
        assert (DOCS / "commands" / f"{name.split()[0]}.md").is_file(), f"no docs/commands page for {name}"


def _section(help_text: str, title: str) -> str:
    """One section of click's plain help (``Options:``, ``Arguments:``): its lines up to the next blank one."""
    if f"\n{title}:\n" not in help_text:
        return ""
    return help_text.split(f"\n{title}:\n", 1)[1].split("\n\n", 1)[0]


def _help_flags(help_text: str) -> set[str]:
    """The flags each parameter line of click's plain help declares (``-f, --format [..]``, ``--a / --no-a``)."""
    flags: set[str] = set()
    for line in _section(help_text, "Options").splitlines():
        match = re.match(r"^  (-[^ ].*?)(?:\s{2,}|$)", line)
        if match:
            flags.update(re.findall(r"(?<![\w-])--?[A-Za-z][\w-]*", match.group(1)))
    return flags


def _page_flags(page: str) -> set[str]:
    """The flags of the ``## Options`` items of a reference page (``- `-f, --format FORMAT`: help``)."""
    options = page.split("## Options\n", 1)[1].split("\n## ", 1)[0]
    flags: set[str] = set()
    for declared in re.findall(r"^- `([^`]+)`", options, flags=re.MULTILINE):
        flags.update(re.findall(r"(?<![\w-])--?[A-Za-z][\w-]*", declared))
    return flags


@pytest.mark.parametrize("name", COMMANDS, ids=lambda n: n or "ragcli")
def test_reference_page_lists_the_options_help_prints(name: str) -> None:
    """A real ``ragcli CMD --help`` (not the objects the generator read) against the checked-in page."""
    proc = cli(*name.split(), "--help", env={"COLUMNS": "200", "NO_COLOR": "1", "TERM": "dumb"})
    assert proc.returncode == 0, proc.stderr
    page = (DOCS / "reference" / GEN_CLI.page_name(name)).read_text(encoding="utf-8")
    from_help, from_page = _help_flags(proc.stdout), _page_flags(page)
    assert from_help, proc.stdout  # the parser still reads click's help layout
    assert from_page == from_help, (
        f"ragcli {name} --help and docs/reference/{GEN_CLI.page_name(name)} differ: "
        f"only in --help {sorted(from_help - from_page)}, only in the page {sorted(from_page - from_help)}; "
        + REGENERATE
    )
    for argument in re.findall(r"^  ([A-Z][\w.]+)", _section(proc.stdout, "Arguments"), flags=re.MULTILINE):
        assert f"- `{argument}`" in page, (name, argument, REGENERATE)


def _links(markdown: str) -> list[str]:
    return re.findall(r"\]\(([^)\s]+)\)", markdown)


def test_readme_is_the_door_to_the_docs() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 250, "the README is the entry point; the manual is docs/"
    links = _links(readme)
    for target in links:
        if "://" in target:
            continue
        assert (REPO / target.split("#", 1)[0]).exists(), f"README links to a missing file: {target}"
    for name in filter(None, COMMANDS):
        first = name.split()[0]
        assert f"docs/commands/{first}.md" in links, f"README's command table lacks {name}"
        assert f"docs/reference/{GEN_CLI.page_name(name)}" in links, f"README's command table lacks {name}'s reference"


def test_security_and_changelog_are_included_not_copied() -> None:
    # One source each: the repository-root files GitHub shows, pulled into the site at build time.
    for page, source in (("security.md", "SECURITY.md"), ("changelog.md", "CHANGELOG.md")):
        text = (DOCS / page).read_text(encoding="utf-8")
        assert f'--8<-- "{source}"' in text
        assert len(text.splitlines()) <= 3, f"docs/{page} should include {source}, not hold a copy"


def test_every_page_is_in_the_nav_and_every_nav_entry_exists() -> None:
    # (mkdocs build --strict warns on a page left out of the nav too; this says which, without a build.)
    config = (REPO / "mkdocs.yml").read_text(encoding="utf-8").split("\nnav:\n", 1)[1]
    nav = re.findall(r"\s([\w/.-]+\.md)\s*$", config, flags=re.MULTILINE)
    pages = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}
    assert set(nav) == pages, (sorted(pages - set(nav)), sorted(set(nav) - pages))


def test_getting_started_runs_the_readmes_two_commands() -> None:
    def commands(text: str) -> list[str]:
        return re.findall(r"```bash\n(.+?)\n```", text, flags=re.DOTALL)

    readme_first = (REPO / "README.md").read_text(encoding="utf-8").split("\n## ", 2)[1]
    getting_started = (DOCS / "getting-started.md").read_text(encoding="utf-8")
    for command in commands(readme_first):
        assert command in commands(getting_started), f"docs/getting-started.md lacks the README's: {command}"
