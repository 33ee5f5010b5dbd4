"""A container's title as the label its content reads under: ``Note: ...``, ``macOS:`` before a list or code.

The dialects' containers (admonitions, alerts, tabs, cards, details, Hugo shortcodes, MyST directives) are
unfolded as a labelled paragraph (``dialects``, ``directives``, ``shortcodes``), like MkDocs admonitions
(``markdown.expand_mkdocs``).
"""

from __future__ import annotations

import re


def label_body(label: str, body: list[str], indent: str = "") -> list[str]:
    """``Label: first sentence ...`` for prose; ``Label:`` on its own line before a list, table or code;
    every line of ``body`` put back at ``indent``. A label with no body is a paragraph of its own, as the page shows
    a title-only box (Textual's ``!!! tip "Added in version 0.30.0"``), not a colon leading nowhere."""
    first = next((n for n, line in enumerate(body) if line.strip()), None)
    content = [indent + line if line else "" for line in body]
    if not label.strip():
        return ["", *content, ""]
    if first is None:
        return ["", f"{indent}{label}", ""]
    if not _BLOCK_START.match(body[first].lstrip()):
        content[first] = f"{indent}{label}: {body[first].lstrip()}"
        return ["", *content, ""]
    return ["", f"{indent}{label}:", "", *content, ""]


_BLOCK_START = re.compile(r"^(```|~~~|[-*+] |\d+[.)] |\||>|#|<)")


def name_label(text: str) -> str:
    """A directive or shortcode name as a label: ``seealso`` → ``See also``, ``warning`` → ``Warning``."""
    text = {"seealso": "See also", "versionadded": "Added", "versionchanged": "Changed"}.get(text, text)
    return text.replace("-", " ").replace("_", " ").strip().capitalize()
