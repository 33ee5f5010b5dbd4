"""Which model and server ``--model openai:MODEL[@URL]`` names, and how a server URL may be shown.

The model name may hold ``:`` and ``@`` (``qwen2.5:7b``); the URL starts at
the ``@`` followed by ``http://`` or ``https://``. A URL is shown (in a trace,
a report, an error line) without its credentials, query or fragment.
"""

from __future__ import annotations

import re
import urllib.parse

from ..errors import InputError

OPENAI_API_URL = "https://api.openai.com/v1"
"""The server when none is named (``@URL`` or $RAGCLI_OPENAI_BASE_URL)."""

_URL_SEPARATOR = re.compile(r"@(?=https?://)", re.IGNORECASE)
_MODEL_NAME = re.compile(r"[^\s\x00-\x1f\x7f]{1,200}")
SPEC_HELP = "openai:MODEL[@URL], for example openai:gpt-4.1-mini or openai:qwen2.5:7b@http://localhost:11434/v1"


def parse_spec(rest: str) -> tuple[str, str | None]:
    """What follows ``openai:`` -> (model name, server URL or None).

    The URL starts at the ``@`` followed by ``http://`` or ``https://``, so a
    model name may hold ``:`` and ``@`` (``qwen2.5:7b``, ``model@2025``) and a
    URL may hold credentials (``http://user:pass@host/v1``).
    """
    at = _URL_SEPARATOR.search(rest)
    if at is not None:
        name, url = rest[: at.start()], rest[at.end() :]
        url = check_url(url, where=f"--model openai:{rest}")
    elif "@" in rest:
        raise InputError(
            f"--model openai:{rest}: after '@' give the server's URL, starting with http:// or https:// ({SPEC_HELP})"
        )
    else:
        name, url = rest, None
    if not _MODEL_NAME.fullmatch(name):
        what = "needs a model name" if not name else f"has an invalid model name {name[:60]!r}"
        raise InputError(f"--model openai:{rest} {what}: use {SPEC_HELP}")
    return name, url


def check_url(url: str, *, where: str) -> str:
    """An http(s) URL with a host, or an InputError that says what is wrong."""
    url = url.strip()
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError:
        parts = None
    if parts is None or parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise InputError(
            f"{where}: {url[:200]!r} is not a server URL; give http(s)://HOST[:PORT]/PATH, for example http://localhost:11434/v1"
        )
    return url


def shown_url(url: str) -> str:
    """The URL without credentials, query or fragment: safe for a trace, a report or an error line."""
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, "", ""))
