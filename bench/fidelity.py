"""Reading fidelity: is the text a passage holds the text the page shows?

Cuts every page of a documentation folder into passages with two ragcli source trees side by side
(``--before``, e.g. an export of main, and this tree), without embedding anything, and counts:

- ``code lines whole``: of the non-blank lines of fenced code in the pages (found by a scanner of its
  own, in list items, tabs, admonitions and quotes too), the fraction that some passage holds as a whole
  line (indentation, quote markers and a Material annotation marker in a comment aside; a fence inside an HTML
  comment is not on the page). Target >= 0.995.
- ``plugin markup``: passages that still carry Material for MkDocs / pymdownx / mkdocstrings syntax
  outside code (``///`` blocks, ``{ .class }`` and ``{key="v"}`` attribute lists, ``# (1)!``
  annotations, ``::: pkg.mod`` directives, ``--8<--`` and ``{!> x !}`` includes, emoji shortcodes), MyST
  directive fences (``:::{note}``), a container's own line (``::: code-group``, a closing ``:::``), autolinks
  (``<project:intro.md>``, ``<path:x.txt>``) and links without text (``[](intro.md)``), and footnote marks
  (``[^1]``). Target 0.
- ``lower-heading titles``: pages with no front matter title and no ``# H1`` whose title is their first
  lower heading (and not their file name made readable). Target 0.
- ``html``: passages of Markdown pages that still carry an HTML tag or comment outside code (``<a href=...>``,
  ``<br>``, ``</div>``, ``<!-- x -->``: what CommonMark reads as HTML, markdown-it's ``HTML_TAG_RE``; an
  autolink such as ``<https://x>`` is none). Target 0: the page shows the text, not the tags.
- ``ref links``: passages that show a reference-style link the page defines with its brackets
  (``[Docusaurus]`` with ``[Docusaurus]: https://...`` further down), outside code. Target 0: the page shows
  the link's text.

Corpora: each ``--corpus DIR`` (default ``bench/corpora/material``) and a folder of crafted pages written
by this script (long code in a list item, a tab in a list item, an admonition and a quote; pages without an
H1; pymdownx, mkdocstrings and emoji markup; HTML in a page; the FastAPI pages in tests/data)::

    git -C /work/main archive main | tar -x -C /tmp/ragcli-main   # or any tree to compare with
    python bench/fidelity.py --before /tmp/ragcli-main
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import REPO_ROOT, Output, base_parser

FENCE = re.compile(
    r"^(?P<prefix>[ \t]*(?:>[ \t]?)*[ \t]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?)(?P<marker>`{3,}|~{3,})(?P<info>.*)$"
)
"""A fence line, in a quote or opening a list item too (pip's ``- ```` over an indented block and its ``  ````)."""
PREFIX = re.compile(r"^[ \t]*(?:>[ \t]?)*")
ANNOTATION = re.compile(r"[ \t]*(?:#|//|--|;|%|/\*|<!--)[ \t]*\(\d+\)!?[ \t]*(?:\*/|-->)?[ \t]*$")
"""A Material code annotation: a marker in a comment (``# (1)!``); ``reactive(0)`` ends in code, not a marker."""
INCLUDE = re.compile(r"^\s*(?:-{2,}8<-{2,}|\{!>?.*!\}|\{\*.*\*\}|\{\{#[\w-]+)")
"""A code line that includes a file (``{{#include x}}``, mdBook's ``{{#rustdoc_include x}}``): not the page's code."""
MARKUP = {
    "block": re.compile(r"^[ \t]*/{3,}(?:[ \t]*[A-Za-z][\w-]*)?[ \t]*(?:\|.*)?$", re.MULTILINE),
    "attr list": re.compile(r"\{[ \t]*(?:[.#][\w-]+|[\w-]+=\"[^\"]*\")[^{}\n]*\}"),
    "annotation": re.compile(r"(?:#|//)[ \t]*\(\d+\)!"),
    "mkdocstrings": re.compile(r"(?:^|[ \t:]):::[ \t]+[\w-]+[.:/][\w.:/-]*(?:[ \t]|$)", re.MULTILINE),
    "myst directive": re.compile(r"(?:`{3,}|:{3,})\{[\w:.-]+\}"),
    "container": re.compile(r"^[ \t]*:{3,}[ \t]*(?:[a-z]+(?:-[a-z]+)*)?[ \t]*$", re.MULTILINE),
    "footnote": re.compile(r"\[\^[^\]\s]+\]"),
    "include": re.compile(r"--8<--|\{!>?[^\n]*!\}|\{\*[^\n]*\*\}"),
    "emoji": re.compile(r"(?<![\w:`/]):[a-z0-9_+-]+:(?![\w:`(/])"),
    "myst autolink": re.compile(r"<(?:project|path|inv):[^<>\s]*>|(?<![!\\\]])\[\]\([^()\s]*\)"),
}
DIRECTIVE = re.compile(r"^\{([\w:.-]+)\}")
MYST_CODE = frozenset(
    "code-block code sourcecode code-cell doctest testcode testoutput ipython jupyter-execute".split()
)
"""MyST directives whose body is code the page shows (```` ```{doctest} ````); other ``{name}`` fences are prose."""
EMOJI_TABLE = REPO_ROOT / "ragcli" / "data" / "emoji.tsv"
HTML_TAG = re.compile(
    r"<[A-Za-z][A-Za-z0-9-]*(?:\s+[a-zA-Z_:][a-zA-Z0-9:._-]*(?:\s*=\s*(?:[^\"'=<>`\x00-\x20]+|'[^']*'|\"[^\"]*\"))?)*"
    r"\s*/?>|</[A-Za-z][A-Za-z0-9-]*\s*>|<!--"
)
"""An HTML tag (or a comment's start) as CommonMark reads one: markdown-it's ``HTML_TAG_RE``, written out here."""


# --------------------------------------------------------------------------- the pages, independently of ragcli


def fenced_code_lines(text: str) -> list[str]:
    """Non-blank lines of every fenced block, wherever it is nested, without indentation or quote markers (a line
    that is only an annotation marker, ``# (1)!``, is not code)."""
    lines: list[str] = []
    for is_code, line in _fenced(text):
        bare = PREFIX.sub("", line).strip()
        if is_code and bare and not INCLUDE.match(bare) and _normal(bare):
            lines.append(_normal(bare))
    return lines


def _fenced(text: str) -> list[tuple[bool, str]]:
    """Each line with whether it is inside a fenced block (the fences themselves are not): CommonMark's rule, a
    closing fence of the same character, at least as long, indented less than four columns past the opener. A
    fence inside an HTML comment (``<!--`` … ``-->`` outside code) opens nothing."""
    out: list[tuple[bool, str]] = []
    marker, indent, commented = "", 0, False
    for line in text.split("\n"):
        opened = FENCE.match(line)
        if not marker and (commented or "<!--" in line):  # a block in an HTML comment is not on the page
            rest = line if commented else line[line.find("<!--") + 4 :]
            commented = "-->" not in rest
            out.append((False, line))
            continue
        if not marker:
            if opened and not (opened.group("marker")[0] == "`" and "`" in opened.group("info")):
                marker, indent = opened.group("marker"), len(opened.group("prefix"))
                directive = DIRECTIVE.match(opened.group("info").strip())
                if directive and directive.group(1) not in MYST_CODE:
                    marker = "\0" + marker  # a MyST directive (```{note}): prose the site renders, not code
                continue
            out.append((False, line))
            continue
        closing = opened is not None and not opened.group("info").strip() and len(opened.group("prefix")) < indent + 4
        fence = marker.lstrip("\0")
        if closing and opened is not None and opened.group("marker")[0] == fence[0]:
            if len(opened.group("marker")) >= len(fence):
                marker = ""
                continue
        out.append((not marker.startswith("\0"), line))
    return out


def _normal(line: str) -> str:
    """A code line as compared: stripped, without a Material annotation marker (``# (1)!``, ``/* (1)! */``),
    Hugo's escaped shortcodes as the site shows them (``{{</* x */>}}`` is ``{{< x >}}`` on the page)."""
    for escaped, shown in (("{{</*", "{{<"), ("*/>}}", ">}}"), ("{{%/*", "{{%"), ("*/%}}", "%}}")):
        line = line.replace(escaped, shown)
    return ANNOTATION.sub("", line).strip()


def first_headings(text: str) -> tuple[bool, str | None, bool]:
    """Whether the page has front matter with a title, its first lower heading's text, and whether it has an H1."""
    from markdown_it import MarkdownIt

    has_title = False
    if text.startswith("---\n"):
        end = text.find("\n---", 4)
        has_title = end > 0 and re.search(r"^title:", text[4:end], re.MULTILINE) is not None
        text = text[end + 4 :] if end > 0 else text
    tokens = MarkdownIt("commonmark").parse(text)
    h1 = any(t.type == "heading_open" and t.tag == "h1" for t in tokens)
    lower = next(
        (tokens[i + 1].content for i, t in enumerate(tokens[:-1]) if t.type == "heading_open" and t.tag != "h1"), None
    )
    return has_title, lower, h1


# --------------------------------------------------------------------------- passages, from a given tree


def dump(folder: Path) -> None:
    """Print every passage of ``folder`` as JSON lines, cut by the ragcli on ``sys.path`` (``--dump``)."""
    from ragcli.embedder import Embedder
    from ragcli.errors import DocumentRejected
    from ragcli.ingestion.chunking import chunk_document
    from ragcli.ingestion.folder import open_folder
    from ragcli.ingestion.loaders import load_file

    count = Embedder().count_tokens
    with open_folder(folder) as opened:
        for src in opened.discover().files:
            try:
                doc = load_file(src, opened.read(src, 64 * 1024 * 1024), default_acl=("everyone",))
            except DocumentRejected:
                continue
            for p in chunk_document(doc, "t", count):
                row = {"file": src.relative, "title": p.title, "heading_path": list(p.heading_path), "text": p.text}
                sys.stdout.write(json.dumps(row) + "\n")


def passages(tree: Path, folder: Path) -> list[dict[str, Any]]:
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONWARNINGS": "ignore"}
    proc = subprocess.run(
        [sys.executable, __file__, "--dump", str(folder)], capture_output=True, text=True, env=env, check=False
    )
    if proc.returncode:
        raise SystemExit(f"error: cutting {folder} with {tree} failed:\n{proc.stderr[-2000:]}")
    return [json.loads(line) for line in proc.stdout.splitlines()]


# --------------------------------------------------------------------------- the measures


def measure(folder: Path, rows: list[dict[str, Any]]) -> dict[str, Any]:
    emoji = {line.split("\t", 1)[0] for line in EMOJI_TABLE.read_text("utf-8").splitlines() if "\t" in line}
    pages = sorted(p for p in folder.rglob("*.md") if p.is_file())
    by_file: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_file.setdefault(row["file"], []).append(row)
    total = kept = lower_titled = bracketed = 0
    for page in pages:
        rel = page.relative_to(folder).as_posix()
        text = page.read_text("utf-8")
        bracketed += _bracketed_references(text, by_file.get(rel, []))
        shown = {_normal(PREFIX.sub("", line).strip()) for r in by_file.get(rel, []) for line in r["text"].split("\n")}
        code = fenced_code_lines(text)
        total += len(code)
        kept += sum(1 for line in code if line in shown)
        has_title, lower, h1 = first_headings(text)
        titles = {r["title"] for r in by_file.get(rel, [])}
        if not has_title and not h1 and lower and titles and _readable(rel) not in titles:
            lower_titled += " ".join(lower.split()) in titles
    marked = [r for r in rows if _markup(r["text"], emoji)]
    # In Markdown pages only: in a page converted from reStructuredText, ``<api-attr>`` is text, not a tag.
    html = sum(1 for r in rows if r["file"].endswith(".md") and HTML_TAG.search(_outside_code(r["text"])))
    kinds: dict[str, int] = {}
    for r in marked:
        for kind in _markup(r["text"], emoji):
            kinds[kind] = kinds.get(kind, 0) + 1
    return {
        "pages": len(pages),
        "passages": len(rows),
        "code_lines": total,
        "code_lines_whole": round(kept / total, 4) if total else 1.0,
        "plugin_markup": len(marked),
        "markup_kinds": kinds,
        "lower_heading_titles": lower_titled,
        "html": html,
        "ref_links": bracketed,
    }


DEFINITION = re.compile(r"^ {0,3}\[([^\]\n]+)\]:[ \t]*\S", re.MULTILINE)
LINK_DEFINITION = re.compile(r"^[ \t]*\[[^\]\n]+\]:[ \t]*\S+(?:[ \t]+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^)\n]*\)))?[ \t]*$")
"""A line that is a whole link definition (a passage keeps one written under a list as written; it shows nothing)."""
BRACKETED = re.compile(r"(?<![!\]\\])\[([^\[\]\n]+)\](?:\[([^\[\]\n]*)\])?(?![(\[])")
"""A reference link's brackets; before a colon too ("a workflow for [GitHub Actions]:"): a definition's own line is
not read (``LINK_DEFINITION``)."""


def _bracketed_references(text: str, rows: list[dict[str, Any]]) -> int:
    """Passages of a page that show a reference link the page defines with its brackets (``[Docusaurus]``), outside
    code: the page shows its text."""
    defined = {" ".join(label.split()).casefold() for label in DEFINITION.findall(text)}
    if not defined:
        return 0

    def shows_one(row: dict[str, Any]) -> bool:
        prose = "\n".join(line for line in _outside_code(row["text"]).split("\n") if not LINK_DEFINITION.match(line))
        return any(
            " ".join((m.group(2) or m.group(1)).split()).casefold() in defined for m in BRACKETED.finditer(prose)
        )

    return sum(1 for row in rows if shows_one(row))


def _readable(rel: str) -> str:
    path = Path(rel)
    stem = path.parent.name if path.stem.lower() in ("index", "readme", "_index") and path.parent.name else path.stem
    words = " ".join(stem.replace("_", " ").replace("-", " ").split())
    return words[:1].upper() + words[1:]


def _markup(text: str, emoji: set[str]) -> list[str]:
    """The kinds of plugin markup in ``text`` outside code (an annotation marker counts inside code too)."""
    prose = _outside_code(text)
    kinds = [k for k, rule in MARKUP.items() if k not in ("annotation", "emoji") and rule.search(prose)]
    if MARKUP["annotation"].search(text):
        kinds.append("annotation")
    if any(m.group().strip(":") in emoji for m in MARKUP["emoji"].finditer(prose)):
        kinds.append("emoji")
    return kinds


def _outside_code(text: str) -> str:
    """The lines of ``text`` outside fenced code, each code span as one letter (a link whose text is code,
    ``[`x`](url)``, is not a link without text)."""
    return "\n".join(re.sub(r"(`+).+?\1", "c", line) for is_code, line in _fenced(text) if not is_code)


# --------------------------------------------------------------------------- crafted pages

LONG = [f"setting_{i:03d} = compute(value, {i}, 'walrus')  # tuned for region {i % 7}" for i in range(60)]


def crafted(root: Path) -> Path:
    """Pages in the shapes the issue names, plus the FastAPI pages of tests/data (``--8<--`` of their own)."""

    def block(prefix: str) -> str:
        return "\n".join(prefix + line for line in ["```python", *LONG, "```"])

    pages = {
        "list-item.md": "# List item\n\n1. Install the validator:\n\n" + block("    ") + "\n",
        "tab-in-list.md": '# Tab\n\n- Pick one:\n\n    === "Python"\n\n' + block("        ") + "\n",
        "admonition.md": '# Admonition\n\n!!! note "Careful"\n\n' + block("    ") + "\n",
        "quote.md": "# Quote\n\n" + block("> ") + "\n",
        "concepts/fields.md": "Intro.\n\n## The annotated pattern\n\nUse it.\n\n## Default values\n\nDefaults.\n",
        "guides/no-h1.md": '## Installing <a name="install"></a>\n\nRun it.\n\n## [Upgrading](x.md)\n\nUpgrade.\n',
        "markup.md": (
            "# Markup\n\n/// version-added | v2.10\nThe `strict` flag :white_check_mark:.\n///\n\n"
            '```python {lint="skip"}\nx = 1  # (1)!\n```\n\n1.  What x is.\n\n'
            '::: pkg.module\n    options:\n      show_root_heading: true\n\n--8<-- "snippets/abbr.md"\n\n'
            "See <project:#list-item> and <project:quote.md>.\n"
        ),
        "api-stub.md": "# `pkg.module`\n\n::: pkg.module\n    options:\n      members: true\n",
        "html.md": (
            '# HTML\n\n<div class="note">\n  <h5>A note</h5>\n  <p>\n    Run <code>make</code> on\n    '
            '<a href="x.md">Windows</a>.\n  </p>\n</div>\n\nPress <kbd>Ctrl</kbd>+<kbd>C</kbd>.<br/>\n'
            "Then `<br>` <small>optional</small>.\n"
        ),
    }
    for rel, text in pages.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("---\nacl: [everyone]\n---\n" + text, encoding="utf-8")
    for page in (REPO_ROOT / "tests" / "data" / "mkdocs").glob("*.md"):
        (root / "fastapi" / page.name).parent.mkdir(parents=True, exist_ok=True)
        (root / "fastapi" / page.name).write_text(page.read_text("utf-8"), encoding="utf-8")
    return root


def main() -> None:
    parser = base_parser(__doc__)
    parser.add_argument("--corpus", type=Path, action="append", help="a documentation folder (repeatable)")
    parser.add_argument("--before", type=Path, help="a ragcli source tree to compare with (e.g. an export of main)")
    parser.add_argument("--dump", type=Path, help=argparse_hidden())
    args = parser.parse_args()
    if args.dump:
        dump(args.dump)
        return
    out = Output(args.json)
    corpora = args.corpus or [REPO_ROOT / "bench" / "corpora" / "material"]
    trees = ([("before", args.before)] if args.before else []) + [("after", REPO_ROOT)]
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        folders = [*((c.name, c) for c in corpora), ("crafted", crafted(Path(tmp)))]
        for name, folder in folders:
            for label, tree in trees:
                results.append({"corpus": name, "tree": label, **measure(folder, passages(tree, folder))})
    columns = ["corpus", "tree", "pages", "passages", "code_lines", "code_lines_whole", "plugin_markup"]
    columns += ["lower_heading_titles", "html", "ref_links"]
    out.table("reading fidelity", columns, [[r[c] for c in columns] for r in results])
    for r in results:
        if r["markup_kinds"]:
            out.note(f"{r['corpus']} {r['tree']}: plugin markup by kind {r['markup_kinds']}")
    out.put("rows", results)
    out.finish()


def argparse_hidden() -> str:
    import argparse

    return argparse.SUPPRESS


if __name__ == "__main__":
    main()
