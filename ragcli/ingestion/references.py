"""The folder's cross-reference table: labels, section titles and document titles, read before any file is parsed.

A Sphinx or MyST reference names something in another file (``:ref:`label```, ``{doc}`../intro```), and
what the reader sees is that thing's title (``crossrefs``). So before the files are parsed, one light pass
over every reStructuredText and Markdown file of the folder reads, with regular expressions and no parser:

- the labels (``.. _label:``, MyST ``(label)=``) placed before a section title, and that title as plain text;
- the references each file makes without an explicit title (MyST's ``<project:intro.md>`` autolinks and
  links without text, ``[](intro.md)``, too);
- for the documents those references name, the title the loaders give them (sidecar or front matter
  ``title``, else the first heading, else the file name made readable: ``loaders.title_from_path``), and for
  a heading of another page (``intro.md#-get-started``) that heading's text.

Each file is then given only the titles *its* references name (``titles_for``): what the parse workers are
sent, and what goes into the file's fingerprint (``crossrefs.salt_of``), so that a file whose text is unchanged but
whose reference's target was retitled is cut again, and no other file is.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..errors import DocumentRejected
from ..text import fenced_chunks
from .crossrefs import EMPTY_LINK, EXPLICIT_TITLE, PROJECT_LINK, anchor_slug, key, link_destination, role_text
from .loaders import title_from_path
from .metadata import load_yaml_mapping, split_front_matter
from .sources import SourceFile, decode_text

if TYPE_CHECKING:
    from .folder import Folder

_SCANNED = frozenset({"rst", "markdown"})
_ROLE = re.compile(r"(?::|\{)(?:[\w-]+:)?(ref|doc)(?::|\})`((?:[^`\n]|\n(?![ \t]*\n))+)`")
"""A ``ref`` or ``doc`` role (``:std:ref:``, ``{doc}``); its text may wrap onto the next line, not past a blank one."""
_RST_LABEL = re.compile(r"^\.\. _(`[^`]+`|[^:`\s][^:]*):\s*$")
_MYST_LABEL = re.compile(r"^\s*\(([^()\s]+)\)=\s*$")
_ATX = re.compile(r"^ {0,3}#{1,6}[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1{2,}[ \t]*$")
"""A reStructuredText section underline (or overline): one punctuation character repeated."""
_RST_INLINE = re.compile(r"``(.+?)``|(?::([\w:.+-]+):)?`([^`]+)`_{0,2}|\*\*(.+?)\*\*|\*(.+?)\*")
_DOC_SUFFIXES = (".rst", ".md", ".markdown", ".txt")


@dataclass
class ReferenceTable:
    """What the folder's references point at; empty when the folder has none (every reference shows its text)."""

    labels: dict[str, str] = field(default_factory=dict)
    """A label as ``crossrefs.key`` normalises it → its section's plain-text title (the first one, if given twice)."""
    refs: dict[str, set[tuple[str, str]]] = field(default_factory=dict)
    """A file (relative to the folder) → the references it makes without a title: (``ref`` or ``doc``, target)."""
    documents: dict[tuple[str, str], str] = field(default_factory=dict)
    """(file, ``:doc:`` target as written there) → the title of the document it names."""

    def titles_for(self, relative: str) -> dict[str, str]:
        """The titles the file's references show (``crossrefs.key`` → title): nothing for a target the folder lacks."""
        out: dict[str, str] = {}
        for kind, target in sorted(self.refs.get(relative, ())):
            title = self.labels.get(key("ref", target)) if kind == "ref" else self.documents.get((relative, target))
            if title:
                out[key(kind, target)] = title
        return out


def scan(folder: Folder, files: Iterable[SourceFile], max_bytes: int) -> ReferenceTable:
    """The table for every reStructuredText and Markdown file under ``folder`` (a file that cannot be read is
    left out here: the ingest rejects it when it reads it)."""
    table = ReferenceTable()
    scanned: dict[str, SourceFile] = {}
    for src in files:
        if src.is_jsonl or src.format not in _SCANNED:
            continue
        text = _text(folder, src, max_bytes)
        if text is None:
            continue
        scanned[src.relative] = src
        try:
            labels = _rst_labels(text) if src.format == "rst" else _myst_labels(text)
        except Exception:  # this pass has no parse boundary: an odd file costs only its labels
            labels = []
        for label, title in labels:
            table.labels.setdefault(key("ref", label), title)
        refs = {(m.group(1), m.group(2)) for m in _ROLE.finditer(text) if not EXPLICIT_TITLE.match(m.group(2))}
        refs |= set(_project_links(text))
        if refs:
            table.refs[src.relative] = refs
    _resolve_documents(table, folder, scanned, max_bytes)
    return table


def _project_links(text: str) -> Iterator[tuple[str, str]]:
    """``<project:x.md>`` and ``[](x.md)`` as the reference ``(doc, x.md)``, ``<project:#label>`` as ``(ref, label)``,
    a heading of another page (``x.md#anchor``) as ``(heading, x.md#anchor)``; ``[](name)``, a page or a label,
    as both."""
    for match in PROJECT_LINK.finditer(text):
        yield from _reference(match.group(1))
    for match in EMPTY_LINK.finditer(text):
        target = link_destination(match.group(1)).removeprefix("project:")
        if ":" in target.partition("#")[0]:
            continue  # a URL, or MyST's path: and inv: targets: no title of this folder
        yield from _reference(target)
        if target and "#" not in target:
            yield "ref", target


def _reference(target: str) -> Iterator[tuple[str, str]]:
    path, hashed, anchor = target.strip().partition("#")
    if path and not hashed:
        yield "doc", path
    elif path and anchor:
        yield "heading", target.strip()
    elif anchor:
        yield "ref", anchor


def _text(folder: Folder, src: SourceFile, max_bytes: int) -> str | None:
    try:
        return decode_text(folder.read(src, max_bytes).raw, str(src.path))
    except DocumentRejected:
        return None


def _resolve_documents(table: ReferenceTable, folder: Folder, scanned: dict[str, SourceFile], max_bytes: int) -> None:
    """Every ``:doc:`` target matched to a file of the folder, and that file's title (read once per target); every
    reference to another page's heading, and that heading's text."""
    stems = {_stem(relative): relative for relative in scanned}
    titles: dict[str, str | None] = {}
    headings: dict[str, dict[str, str]] = {}
    for relative, refs in table.refs.items():
        for kind, target in refs:
            if kind not in ("doc", "heading"):
                continue
            found = _document(relative, target, stems)
            if found is None:
                continue
            if kind == "heading":
                if found not in headings:
                    headings[found] = _heading_titles(folder, scanned[found], max_bytes)
                title = headings[found].get(target.partition("#")[2].strip())
            else:
                if found not in titles:
                    titles[found] = _document_title(folder, scanned[found], max_bytes)
                title = titles[found]
            if title:
                table.documents[(relative, target)] = title


def _stem(relative: str) -> str:
    for suffix in _DOC_SUFFIXES:
        if relative.lower().endswith(suffix):
            return relative[: -len(suffix)]
    return relative


def _document(relative: str, target: str, stems: dict[str, str]) -> str | None:
    """The file a ``:doc:`` target names: relative to the referring file, or (``/x``) to the folder; an absolute
    target that is not under the folder's top matches the one file it ends with (the folder may hold ``docs/``)."""
    path = _stem(target.strip().lstrip("!").split("#", 1)[0].rstrip("/"))
    if not path:
        return None
    absolute = path.startswith("/")
    wanted = path.lstrip("/") if absolute else posixpath.normpath(posixpath.join(posixpath.dirname(relative), path))
    if wanted in stems:
        return stems[wanted]
    if absolute:
        ending = [file for stem, file in stems.items() if stem.endswith("/" + wanted)]
        return ending[0] if len(ending) == 1 else None
    return None


def _document_title(folder: Folder, src: SourceFile, max_bytes: int) -> str | None:
    """The title the loaders give the file: its sidecar's or front matter's ``title``, its first heading, its name."""
    try:
        data = folder.read(src, max_bytes)
        text = decode_text(data.raw, str(src.path))
        sidecar = str(src.sidecar)
        meta = load_yaml_mapping(decode_text(data.sidecar_raw, sidecar), sidecar) if data.sidecar_raw else {}
        if src.format == "markdown":
            front, text = split_front_matter(text, str(src.path))
            meta = {**front, **meta}
    except DocumentRejected:
        return None
    title = meta.get("title")
    if isinstance(title, str) and title.strip():
        return " ".join(title.split())
    try:
        heading = _first_heading(text, src.format == "rst")
    except Exception:  # no parse boundary here: an odd page is titled by its name
        heading = None
    return " ".join((heading or title_from_path(src.relative)).split())[:300]


def _heading_titles(folder: Folder, src: SourceFile, max_bytes: int) -> dict[str, str]:
    """A Markdown page's headings by the anchor MyST gives them (``anchor_slug``: "🚀 Get Started" is
    ``-get-started``); the first of two that share one. Nothing for a page of another format."""
    if src.format != "markdown":
        return {}
    text = _text(folder, src, max_bytes)
    if text is None:
        return {}
    out: dict[str, str] = {}
    try:
        text = split_front_matter(text, str(src.path))[1]  # its closing ``---`` would underline a line as a heading
        for is_code, lines in fenced_chunks(text.split("\n")):
            if is_code:
                continue
            for n in range(len(lines)):
                title = _myst_heading(lines, n)
                if title:
                    out.setdefault(anchor_slug(title), title)
    except Exception:  # no parse boundary here: an odd page costs only its headings' titles
        return out
    return out


def _first_heading(text: str, rst: bool) -> str | None:
    if not rst:
        from .markdown import first_h1

        return first_h1(text)
    lines = text.split("\n")
    return _rst_field_title(text) or next((title for n in range(len(lines)) if (title := _rst_title(lines, n))), None)


_RST_TITLE_FIELD = re.compile(r"^:title:[ \t]+(\S.*?)[ \t]*$", re.IGNORECASE)


def _rst_field_title(text: str) -> str | None:
    """``:title:`` in the field list at the very top or right after the title: the metadata ``rst`` reads."""
    for block in re.split(r"\n[ \t]*\n", text.strip("\n"), maxsplit=2)[:2]:
        lines = block.split("\n")
        if lines[0].startswith(":") and all(line.startswith((":", " ", "\t")) for line in lines):
            found = next((m.group(1) for line in lines if (m := _RST_TITLE_FIELD.match(line))), None)
            return _rst_plain(found) if found else None
        if _rst_title(lines, 0) is None:
            return None  # the page starts with content: no top field list
    return None


# --------------------------------------------------------------------------- labels and titles


def _rst_labels(text: str) -> list[tuple[str, str]]:
    """``.. _label:`` lines (several may stack) and the section title right after them."""
    lines = text.split("\n")
    out: list[tuple[str, str]] = []
    for n, line in enumerate(lines):
        match = _RST_LABEL.match(line)
        if match is None:
            continue
        after = n + 1
        while after < len(lines) and (not lines[after].strip() or _RST_LABEL.match(lines[after])):
            after += 1
        title = _rst_title(lines, after)
        if title:
            out.append((match.group(1).strip("`"), title))
    return out


def _rst_title(lines: list[str], n: int) -> str | None:
    """The plain text of a section title starting at line ``n`` (its overline, or its text), if one does."""
    overlined = n < len(lines) and bool(_ADORNMENT.match(lines[n]))
    n += overlined  # an overline: the title is the next line (it may be inset), underlined the same way
    if n + 1 >= len(lines):
        return None
    text, under = lines[n], lines[n + 1]
    if not text.strip() or (text[0].isspace() and not overlined) or _ADORNMENT.match(text):
        return None
    if not _ADORNMENT.match(under):
        return None
    return _rst_plain(text) or None


def _rst_plain(text: str) -> str:
    """A title's inline reStructuredText as its text: ````x```` → x, ```text <url>`_`` → text, roles as shown."""

    def shown(match: re.Match[str]) -> str:
        literal, role, interpreted, strong, emphasis = match.groups()
        if interpreted is None:
            return literal or strong or emphasis or ""
        if role:
            return role_text(role, interpreted)
        explicit = EXPLICIT_TITLE.match(interpreted)
        return explicit.group(1) if explicit else interpreted

    return " ".join(_RST_INLINE.sub(shown, text).split())


def _myst_labels(text: str) -> list[tuple[str, str]]:
    """MyST ``(label)=`` lines outside code and the heading right after them (ATX or setext)."""
    out: list[tuple[str, str]] = []
    for is_code, lines in fenced_chunks(text.split("\n")):
        if is_code or not any("=" in line for line in lines):
            continue
        for n, line in enumerate(lines):
            match = _MYST_LABEL.match(line)
            if match is None:
                continue
            after = n + 1
            while after < len(lines) and (not lines[after].strip() or _MYST_LABEL.match(lines[after])):
                after += 1
            title = _myst_heading(lines, after)
            if title:
                out.append((match.group(1), title))
    return out


def _myst_heading(lines: list[str], n: int) -> str | None:
    """A heading's plain text, as the loaders read a heading (``markdown.first_h1`` on that one heading)."""
    if n >= len(lines):
        return None
    atx = _ATX.match(lines[n])
    if atx:
        source = atx.group(1)
    elif n + 1 < len(lines) and lines[n].strip() and _SETEXT.match(lines[n + 1]):
        source = lines[n].strip()
    else:
        return None
    from .markdown import first_h1

    return first_h1("# " + source)
