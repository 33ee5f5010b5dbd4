"""Write the CLI reference, ``docs/reference/cli-*.md``, from the Typer app: one page per command.

Run ``python docs/gen_cli.py`` after changing a command's options or help, and commit the pages.
``tests/test_docs.py`` regenerates them in-process and fails when the checked-in pages differ, and
compares each page's options with what ``ragcli CMD --help`` prints.

Each page holds what ``--help`` says, taken from the same (click) objects ``--help`` renders (each
parameter's help record: its flags, value name, help text, default and range), so the two cannot
say different things. The hand-written pages under ``docs/commands/`` explain; these list.
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer
from typer.core import TyperArgument, TyperGroup, TyperOption

REFERENCE = Path(__file__).resolve().parent / "reference"
GENERATED = "<!-- Generated from the Typer app by docs/gen_cli.py: do not edit; run `python docs/gen_cli.py`. -->"


def commands() -> list[tuple[str, typer.core.TyperCommand]]:
    """Every command a user can run, as (``"trace replay"``-style name, click command), in the app's order."""
    from ragcli.cli.app import command

    found: list[tuple[str, typer.core.TyperCommand]] = []

    def walk(prefix: str, group: TyperGroup) -> None:
        for name, cmd in group.commands.items():
            full = f"{prefix} {name}".strip()
            if isinstance(cmd, TyperGroup):
                walk(full, cmd)
            else:
                found.append((full, cmd))

    root = command()
    found.append(("", root))  # the root's own options: --version, --install-completion
    walk("", root)
    return found


def page_name(name: str) -> str:
    return "cli-" + (name.replace(" ", "-") or "ragcli") + ".md"


def _title(name: str) -> str:
    return f"ragcli {name}".strip()


def _context(name: str, cmd: typer.core.TyperCommand) -> typer.Context:
    from ragcli.cli.app import command

    parent = typer.Context(command(), info_name="ragcli")
    if not name:
        return parent
    for part in name.split()[:-1]:
        group = parent.command
        assert isinstance(group, TyperGroup)
        sub = group.commands[part]
        parent = typer.Context(sub, info_name=part, parent=parent)
    return typer.Context(cmd, info_name=name.split()[-1], parent=parent)


def _item(record: tuple[str, str]) -> str:
    flags, text = record
    return f"- `{flags}`: {text}" if text else f"- `{flags}`"


def render(name: str, cmd: typer.core.TyperCommand) -> str:
    """One command's reference page, in Markdown."""
    ctx = _context(name, cmd)
    usage = " ".join(cmd.collect_usage_pieces(ctx))
    lines = [f"# `{_title(name)}`", "", GENERATED, ""]
    if cmd.help:
        lines += [cmd.help.strip(), ""]
    lines += ["```text", f"{_title(name)} {usage}", "```", ""]
    arguments = [p for p in cmd.get_params(ctx) if isinstance(p, TyperArgument)]
    options = [p for p in cmd.get_params(ctx) if isinstance(p, TyperOption)]
    if arguments:
        lines += ["## Arguments", ""]
        lines += [_item(record) for p in arguments if (record := p.get_help_record(ctx))]
        lines.append("")
    if options:
        lines += ["## Options", ""]
        lines += [_item(record) for p in options if (record := p.get_help_record(ctx))]
        lines.append("")
    if cmd.epilog:
        lines += [cmd.epilog.strip(), ""]
    if isinstance(cmd, TyperGroup):
        lines += ["## Commands", ""]
        lines += [f"- [`{_title(sub)}`]({page_name(sub)})" for sub, _ in commands() if sub]
        lines += ["", "Explained in [Commands](../commands/index.md).", ""]
    else:
        lines += ["Explained in [the command's page](../commands/" + name.split()[0] + ".md).", ""]
    return "\n".join(lines)


def index_page(names: list[str]) -> str:
    lines = ["# CLI reference", "", GENERATED, ""]
    lines += ["Every command's arguments and options, as `--help` prints them:", ""]
    lines += [f"- [`{_title(name)}`]({page_name(name)})" for name in names]
    return "\n".join(lines) + "\n"


def pages() -> dict[str, str]:
    """File name under ``docs/reference/`` -> content, for every command and the index."""
    found = commands()
    out = {page_name(name): render(name, cmd) for name, cmd in found}
    out["index.md"] = index_page([name for name, _ in found])
    return out


def main() -> int:
    REFERENCE.mkdir(exist_ok=True)
    wanted = pages()
    for stale in REFERENCE.glob("*.md"):
        if stale.name not in wanted:
            stale.unlink()
    for file_name, text in wanted.items():
        (REFERENCE / file_name).write_text(text, encoding="utf-8")
    sys.stdout.write(f"wrote {len(wanted)} pages to {REFERENCE}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
