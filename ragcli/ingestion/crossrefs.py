"""What a Sphinx or MyST cross-reference role shows: the target's title when the folder has it, else its text.

``:ref:`label``` and ``{ref}`label``` show the labelled section's title, ``:doc:`path``` and ``{doc}`path```
the other document's title, as Sphinx does. Those titles are in other files: ``references`` collects them
for the whole ingested folder before any file is parsed and hands each file the titles *its* references
name, which the rendering of that file reads here (``resolving``). Without them (a file converted on its
own, a target the folder lacks) a reference shows its text: the explicit title (``Title <target>`` → Title),
the label, or the document's file name made readable (``document_name``: ``the_basics`` → The basics).

MyST's autolink to a page or a label of the project (``<project:intro.md>``, ``<project:#label>``) and its link
without text (``[](intro.md)``, ``[](label)``) show what the same reference as a role shows: the title the folder
has, else the target made readable (``project_text``, ``empty_link_text``); one to a heading of another page
(``intro.md#-get-started``) shows that heading, found by the anchor MyST gives it (``anchor_slug``).

A Python reference shows its name as Sphinx does: ``~a.b.C`` → ``C``, ``.Request`` (a name searched for as
a suffix) → ``Request``, ``!name`` → ``name``; ``{pep}`526``` shows ``PEP 526``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from types import MappingProxyType

EXPLICIT_TITLE = re.compile(r"^(.+?)\s*<[^<>]*>$", re.DOTALL)
"""``Title <target>``: the reader sees Title."""
RESOLVED = frozenset({"ref", "doc"})
"""The roles whose shown text is the target's title."""
_NOT_PYTHON = frozenset({"ref", "doc", "term", "file", "samp", "kbd", "guilabel", "menuselection", "envvar", "option"})
"""Roles whose text is not a Python name: a leading dot there is the reader's (``:file:`.env```)."""

_ICON_ROLES = frozenset(
    "octicon fa fas far fab material-regular material-outlined material-round material-sharp material-twotone".split()
)
"""sphinx-design's icon roles: ``{octicon}`markdown;1.5em;sd-mr-1``` draws an icon, no text."""

_NONE: Mapping[str, str] = MappingProxyType({})
_TITLES: ContextVar[Mapping[str, str]] = ContextVar("ragcli_reference_titles", default=_NONE)


def key(kind: str, target: str) -> str:
    """The table's key for a reference: a label as Sphinx normalises it (case and spaces), a path (``doc``) or a
    path with its heading's anchor (``heading``: ``intro.md#-get-started``) as written."""
    target = target.strip()
    return f"ref:{' '.join(target.lower().split())}" if kind == "ref" else f"{kind}:{target}"


def kind_of(role: str) -> str:
    """``std:ref`` → ``ref``, ``py:class`` → ``class``."""
    return role.lower().rsplit(":", 1)[-1]


_CODE_ROLES = frozenset("code file kbd command option envvar samp program literal regexp makevar mailheader".split())


def is_code_role(role: str) -> bool:
    """Whether Sphinx shows the role's text as code: ``:file:``, ``:option:``, ``:kbd:``..., or an explicit domain's
    object (``py:class``); a bare ``:class:`` or ``:ref:`` reads as text. The one rule for MyST and rst."""
    return kind_of(role) in _CODE_ROLES or role.lower().startswith(("py:", "js:", "c:", "cpp:", "rst:"))


@contextlib.contextmanager
def resolving(titles: Mapping[str, str]) -> Iterator[None]:
    """While a file is rendered, its references show these titles (``key`` → title)."""
    token = _TITLES.set(titles)
    try:
        yield
    finally:
        _TITLES.reset(token)


def salt_of(titles: Mapping[str, str]) -> str:
    """What a file's fingerprint and text hash add for its references' titles: a retitled target makes the file
    new, and its passages a new version (a passage ID names one text); nothing for a file without any."""
    if not titles:
        return ""
    digest = hashlib.sha256(json.dumps(sorted(titles.items()), ensure_ascii=False).encode("utf-8")).hexdigest()
    return f";refs={digest[:16]}"


def active_salt() -> str:
    """``salt_of`` the titles of the file being rendered."""
    return salt_of(_TITLES.get())


def target_title(role: str, text: str) -> str | None:
    """The title of what a reference without an explicit title names, if the file being rendered was given it."""
    kind = kind_of(role)
    if kind not in RESOLVED or EXPLICIT_TITLE.match(text):
        return None
    return _TITLES.get().get(key(kind, text.lstrip("!")))


def role_text(role: str, text: str) -> str:
    """What Sphinx shows for a role: ``Title <target>`` → Title, a target's title, ``~a.b.c`` → c, ``!name`` → name,
    an icon nothing.

    A ``:doc:`` whose document the folder lacks shows its file name made readable (``/deploying/asgi`` → Asgi,
    ``usage_and_configuration/the_basics`` → The basics), as the folder's own pages are titled (``title_from_path``).
    """
    if kind_of(role) in _ICON_ROLES:
        return ""
    explicit = EXPLICIT_TITLE.match(text)
    if explicit:
        return explicit.group(1)
    title = target_title(role, text)
    if title:
        return title
    kind = kind_of(role)
    text = text.lstrip("!")
    if kind in ("pep", "rfc"):  # ``{pep}`526``` shows "PEP 526", as docutils' own role does
        return f"{kind.upper()} {text}"
    if kind == "doc":
        return document_name(text)
    if kind not in _NOT_PYTHON:
        text = text.lstrip(".")  # ``.Request``: a name searched for as a suffix, shown without its dot
    return text[1:].lstrip(".").rsplit(".", 1)[-1] if text.startswith("~") else text


INDEX_NAMES = frozenset({"index", "readme", "_index"})
"""File names a page shares with every folder's front page: such a page is named by its folder."""


def document_name(target: str) -> str:
    """A document named by its path (``../guides/getting_started``, ``/usage``, ``intro.md``), its last part made
    readable: the text a reader sees for a document the folder does not have (an index page: its folder's name)."""
    parts = [part for part in target.strip().split("/") if part not in ("", ".", "..")]
    if not parts:
        return target.strip()
    name = _DOC_SUFFIX.sub("", parts[-1])
    if name.lower() in INDEX_NAMES and len(parts) > 1:
        name = parts[-2]
    return readable_name(name)


_DOC_SUFFIX = re.compile(r"\.(?:md|markdown|rst|txt|ipynb)$", re.IGNORECASE)


def readable_name(stem: str) -> str:
    """A file name as words: ``getting-started`` → "Getting started", ``the_basics`` → "The basics"."""
    words = " ".join(stem.replace("_", " ").replace("-", " ").split())
    return (words[:1].upper() + words[1:]) if words else stem


_SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
PROJECT_LINK = re.compile(r"(?<!\]\()<project:([^<>\s]*)>")
"""MyST's autolink to a page or label of the project (``<project:intro.md>``, ``<project:#label>``); not a link's
destination written in angle brackets (``[the intro](<project:intro.md>)``), which the link's own text replaces."""


def project_text(target: str) -> str:
    """What MyST shows for ``<project:target>``: a page's title (``intro.md``), a label's section title
    (``#label``), as ``{doc}`` and ``{ref}`` do, a heading of another page (``intro.md#-get-started``) that
    heading's text; without them the target made readable, never the raw link."""
    target = target.strip()
    path, _, anchor = target.partition("#")
    titles = _TITLES.get()
    if not path:
        return titles.get(key("ref", anchor)) or (readable_name(anchor) if _SLUG.match(anchor) else anchor)
    if anchor:
        return titles.get(key("heading", target)) or readable_name(anchor.strip("-")) or document_name(path)
    return titles.get(key("doc", path)) or document_name(path)


_NOT_IN_ANCHOR = re.compile(r"[^\w\u4e00-\u9fff\- ]")


def anchor_slug(title: str) -> str:
    """The anchor MyST (``myst_heading_anchors``, as GitHub) gives a heading: lower case, spaces as hyphens,
    other punctuation and symbols dropped ("🚀 Get Started" → ``-get-started``)."""
    return _NOT_IN_ANCHOR.sub("", title.strip().lower().replace(" ", "-"))


MYST_AUTOLINK = re.compile(r"(?<!\]\()<(path|inv):([^<>\s]+)>")
"""MyST's autolinks to a file to download (``<path:example.txt>``) or an object of another project's inventory
(``<inv:sphinx:std#index>``), not a link's destination in angle brackets."""
EMPTY_LINK = re.compile(r"(?<![!\\\]])\[\]\((<[^<>\n]*>|[^()\s]*)\)")
"""A link without text, ``[](target)``: MyST shows the target's title (an image, ``![](x.png)``, is not one)."""
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def autolink_text(scheme: str, target: str) -> str:
    """What MyST shows for ``<path:target>`` (the path) and ``<inv:target>`` (the object's name: what follows
    ``#``, or the last ``:`` part; its inventory is another project's, which ragcli does not read)."""
    if scheme == "path":
        return target
    return target.rpartition("#")[2] or target.rpartition(":")[2] or target


def link_destination(raw: str) -> str:
    """A link's destination as written, without the angle brackets it may be written in (``[](<#my term>)``)."""
    return raw.strip().removeprefix("<").removesuffix(">").strip()


def empty_link_text(target: str) -> str:
    """What MyST shows for ``[](target)``: a page's, label's or heading's title as for ``<project:...>``
    (``project_text``); a bare name is a page of the project when the folder has one, else a label
    (``[](myst-warnings)``); a URL shows itself; a ``path:`` or ``inv:`` target as its autolink does."""
    target = link_destination(target)
    scheme, _, rest = target.partition(":")
    if _SCHEME.match(target):
        if scheme == "project":
            return project_text(rest)
        return autolink_text(scheme, rest) if scheme in ("path", "inv") else target
    if not target or "#" in target or _DOC_SUFFIX.search(target):
        return project_text(target) if target else ""
    titles = _TITLES.get()
    found = titles.get(key("doc", target)) or titles.get(key("ref", target))
    return found or (document_name(target) if "/" in target else project_text("#" + target))
