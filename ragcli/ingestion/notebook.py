"""Jupyter notebooks (``.ipynb``) to Markdown, with nbformat.

Markdown cells are Markdown as written; code cells are code blocks in the
kernel's language; raw cells (input for nbconvert) are left out. The title is
the first heading, as for a Markdown file.

Outputs are dropped. They are what the code printed the last time someone ran
it: often stale, cleared before a commit, or traceback, progress-bar, warning
and DataFrame text that would crowd out what the author wrote; images and HTML
outputs carry no indexable text at all. What a notebook teaches is in its
Markdown and code.
"""

from __future__ import annotations

import logging
import re
import warnings
from typing import Any

from ..errors import DocumentRejected, DuplicateKey, strict_json
from . import mdwriter as md

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def notebook_to_markdown(text: str, source: str) -> str:
    """The notebook's cells as one Markdown text; DocumentRejected when it is not a notebook nbformat reads."""
    notebook = _read(text, source)
    language = _language(notebook)
    blocks: list[str] = []
    for cell in notebook.get("cells") or []:
        body = _source(cell)
        if not body.strip():
            continue
        if cell.get("cell_type") == "markdown":
            blocks.append(_fences_closed(body.strip("\n")))
        elif cell.get("cell_type") == "code":
            blocks.append(md.code(body, language))
    return md.join(blocks)


def _check_strict(text: str, source: str) -> None:
    """Strict JSON, as every other JSON input: a key given twice rejects the notebook (nbformat keeps the last)."""
    import json

    try:
        strict_json(text)
    except DuplicateKey as exc:
        raise DocumentRejected(source, f"not a Jupyter notebook ragcli reads: {exc}; remove one") from None
    except (json.JSONDecodeError, RecursionError):
        pass  # nbformat says what is wrong with it


def _read(text: str, source: str) -> Any:
    """Any notebook format version, upgraded to version 4; the schema is not enforced (Jupyter opens such files too)."""
    from nbformat import convert, reader

    logging.getLogger("traitlets").setLevel(logging.CRITICAL)  # nbformat logs its conversions to stderr
    _check_strict(text, source)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            notebook = convert(reader.reads(text), 4)
    except reader.NotJSONError:
        raise DocumentRejected(source, "not a Jupyter notebook (not valid JSON)") from None
    except Exception as exc:  # nbformat's upgrades of old versions fail on bad input with any error
        raise DocumentRejected(source, f"not a Jupyter notebook nbformat can read ({type(exc).__name__})") from None
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        raise DocumentRejected(source, "not a Jupyter notebook (no list of cells)")
    return notebook


def _language(notebook: Any) -> str:
    """The kernel's language for the code blocks' info string ("" when the notebook does not say)."""
    metadata = notebook.get("metadata")
    for key, field in (("kernelspec", "language"), ("language_info", "name")):
        entry = metadata.get(key) if isinstance(metadata, dict) else None
        value = entry.get(field) if isinstance(entry, dict) else None
        if isinstance(value, str) and value.strip():
            return value.strip()
    return ""


def _source(cell: Any) -> str:
    source = cell.get("source", "") if isinstance(cell, dict) else ""
    if isinstance(source, list):
        source = "".join(part for part in source if isinstance(part, str))
    return source if isinstance(source, str) else ""


def _fences_closed(markdown: str) -> str:
    """A cell that leaves a code fence open is closed at its end, so it cannot swallow the cells after it."""
    opener = ""
    for line in markdown.split("\n"):
        fence = _FENCE.match(line)
        if fence is None:
            continue
        mark = fence.group(1)
        if not opener:
            opener = mark
        elif mark[0] == opener[0] and len(mark) >= len(opener) and line.strip() == mark:
            opener = ""
    return f"{markdown}\n{opener}" if opener else markdown
