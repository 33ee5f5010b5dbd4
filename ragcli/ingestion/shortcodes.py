"""Hugo shortcodes alone on their line (``{{< tabpane >}}``, ``{{% alert title="Note" %}}``) as what the page shows.

A container shortcode (tab, alert, card, details, ...) becomes its content under its title as a label
(``mdwriter.label_body``), a tab of raw code (``lang``, or the tab's header under ``langEqualsHeader``) becomes
fenced code, and a tag that shows nothing (a pane's opening or closing, a comment, a tag with no content) is
dropped. Shortcodes in a sentence are ``inline_markup``'s. The walk (``dialects``) calls ``block`` on each line
and passes its ``unfold`` for a container's content.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .inline_markup import HUGO_SHORTCODE
from .mdwriter import colon, label_body, name_label

_HUGO_ATTR = re.compile(r'([\w-]+)\s*=\s*(?:"([^"]*)"|\'([^\']*)\'|([^\s"\']+))')
_HUGO_POSITIONAL = re.compile(r"""^\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=]+)(?!\S|\s*=))""")
"""A shortcode's first positional parameter, whole when quoted (its words are one parameter)."""


def attributes(text: str, pattern: re.Pattern[str] = _HUGO_ATTR) -> dict[str, str]:
    """A tag's ``name=value`` attributes by lowercased name, read with ``pattern`` (a shortcode's by default)."""
    return {m.group(1).lower(): next((g for g in m.groups()[1:] if g is not None), "") for m in pattern.finditer(text)}


_JSX_ATTR = re.compile(r'([\w-]+)\s*=\s*(?:"([^"]*)"|\'([^\']*)\'|\{["\']([^"\']*)["\']\})')
_LABELLED = re.compile(r"""^\s*<(TabItem|Listing)\b((?:[^>"']|"[^"]*"|'[^']*')*)>\s*$""")


def element_label(line: str) -> str | None:
    """What a component's opening tag alone on its line shows: Docusaurus' ``<TabItem label="macOS">`` its label (or
    value), ``macOS:``; the Rust Book's ``<Listing number="6-5" caption="..." file-name="src/main.rs">`` (mdBook's
    listing preprocessor) ``Listing 6-5: ... (src/main.rs)``; "" when it names nothing; None for any other line."""
    found = _LABELLED.match(line)
    if found is None:
        return None
    values = attributes(found.group(2), _JSX_ATTR)
    if found.group(1) == "TabItem":
        label = values.get("label") or values.get("value") or ""
        return colon(label) if label else ""
    number, caption, file = values.get("number", ""), values.get("caption", ""), values.get("file-name", "")
    shown = " ".join(filter(None, (caption, f"({file})" if file else "")))
    if not number:
        return shown
    return f"Listing {number}: {shown}" if shown else f"Listing {number}"


def block(
    lines: list[str], i: int, lang_header: bool, unfold: Callable[[list[str]], list[str]]
) -> tuple[list[str], int, bool] | None:
    """The shortcode alone on line ``i``: a container opens or closes, or a tag that shows nothing. What it shows,
    the line after it, and whether a tab's header names its code's language from here on (``lang_header``, set by
    a ``tabpane``); None when the line is not a shortcode."""
    stripped, taken = lines[i].strip(), 1
    if stripped.startswith(("{{<", "{{%")) and not stripped.endswith((">}}", "%}}")):
        # A tag whose attributes run over several lines: read it whole.
        end = next((n for n in range(i + 1, min(i + 30, len(lines))) if "}}" in lines[n]), None)
        if end is not None:
            stripped = " ".join(part.strip() for part in lines[i : end + 1])
            taken = end + 1 - i
    match = HUGO_SHORTCODE.fullmatch(stripped)
    if match is None:
        return None
    delimiter, closing, name, attrs, self_closing = match.groups()
    i += taken
    name = name.lower()
    if name == "tabpane":  # ``langEqualsHeader=true``: each tab's header names its code's language
        lang_header = not closing and attributes(attrs).get("langequalsheader") == "true"
    if closing or self_closing or name in {"tabpane", "cardpane", "blocks/section", "pageinfo"}:
        return [""], i, lang_header
    close = re.compile(r"^\s*\{\{[<%]\s*/\s*" + re.escape(name) + r"\s*[>%]\}\}\s*$")
    end = next((n for n in range(i, len(lines)) if close.match(lines[n])), None)
    if end is None:
        return [""], i, lang_header  # a tag with no content (param, readfile, figure, ...)
    body, i = lines[i:end], end + 1
    if name == "comment":
        return [""], i, lang_header
    values = attributes(attrs)
    first = _HUGO_POSITIONAL.match(attrs)  # ``{{< tab toml >}}``, ``{{< tab "Linux and macOS" >}}``
    positional = next((g for g in first.groups() if g is not None), "") if first else ""
    label = values.get("header") or values.get("title") or values.get("summary") or positional
    lang = values.get("lang") or (label if name == "tab" and lang_header and label else None)
    if delimiter == "<" and lang is not None:  # a tab of raw code, shown highlighted
        return label_body(label, ["```" + lang, *body, "```"]), i, lang_header
    if not label and name in {"alert", "note", "warning", "tip", "notice", "callout"}:
        label = name_label(values.get("color", "") if name == "alert" and values.get("color") == "warning" else name)
        label = "Note" if label == "Alert" else label
    return label_body(label, unfold(body)), i, lang_header
