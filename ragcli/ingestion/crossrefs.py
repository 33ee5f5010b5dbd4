"""What a Sphinx or MyST cross-reference role shows: the target's title when the folder has it, else its text.

``:ref:`label``` and ``{ref}`label``` show the labelled section's title, ``:doc:`path``` and ``{doc}`path```
the other document's title, as Sphinx does. Those titles are in other files: ``references`` collects them
for the whole ingested folder before any file is parsed and hands each file the titles *its* references
name, which the rendering of that file reads here (``resolving``). Without them (a file converted on its
own, a target the folder lacks) a reference shows its text: the explicit title (``Title <target>`` → Title),
the label, or the document's file name.

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

_NONE: Mapping[str, str] = MappingProxyType({})
_TITLES: ContextVar[Mapping[str, str]] = ContextVar("ragcli_reference_titles", default=_NONE)


def key(kind: str, target: str) -> str:
    """The table's key for a reference: a label as Sphinx normalises it (case and spaces), a path as written."""
    target = target.strip()
    return f"ref:{' '.join(target.lower().split())}" if kind == "ref" else f"doc:{target}"


def kind_of(role: str) -> str:
    """``std:ref`` → ``ref``, ``py:class`` → ``class``."""
    return role.lower().rsplit(":", 1)[-1]


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
    """What Sphinx shows for a role: ``Title <target>`` → Title, a target's title, ``~a.b.c`` → c, ``!name`` → name.

    A ``:doc:`` whose document the folder lacks shows its file name (``/deploying/asgi`` → asgi).
    """
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
        return text.rstrip("/").rsplit("/", 1)[-1]
    if kind not in _NOT_PYTHON:
        text = text.lstrip(".")  # ``.Request``: a name searched for as a suffix, shown without its dot
    return text[1:].lstrip(".").rsplit(".", 1)[-1] if text.startswith("~") else text
