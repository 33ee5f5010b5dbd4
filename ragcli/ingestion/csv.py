"""CSV and TSV tables to Markdown, with the standard library's csv module.

The first row is the header. Every other row becomes one list item of
``Header: value`` pairs (empty values left out), so a row read alone still says
what each value is; the chunker packs rows into passages while they fit and a
large file is split between rows. The title is the file name.

``.tsv`` is tab-separated. ``.csv`` is comma-separated, or semicolon-separated
when its header line has semicolons and no comma (what Excel writes where the
decimal mark is a comma).
"""

from __future__ import annotations

import io
from itertools import zip_longest

from ..errors import DocumentRejected
from . import mdwriter as md


def csv_to_markdown(text: str, source: str, delimiter: str | None = None) -> str:
    """The rows as a Markdown list of ``Header: value; Header: value`` items ("" when there is no data row)."""
    import csv

    header_line = text.split("\n", 1)[0]
    if delimiter is None:
        delimiter = ";" if ";" in header_line and "," not in header_line else ","
    try:
        rows = list(csv.reader(io.StringIO(text), delimiter=delimiter))
    except csv.Error as exc:
        raise DocumentRejected(source, f"CSV could not be parsed: {exc}") from None
    rows = [row for row in rows if any(cell.strip() for cell in row)]
    if not rows:
        return ""
    header = [md.one_line(name) or f"Column {n}" for n, name in enumerate(rows[0], start=1)]
    items = [md.Item(0, False, record) for record in (_record(header, row) for row in rows[1:]) if record]
    return md.join([md.list_block(items)]) if items else ""


def _record(header: list[str], row: list[str]) -> str:
    """``Header: value`` pairs of one row; a cell past the header's last column is named by its position."""
    pairs = []
    for n, (name, value) in enumerate(zip_longest(header, row, fillvalue=""), start=1):
        value = md.one_line(value)
        if value:
            pairs.append(f"{name or f'Column {n}'}: {value}")
    return "; ".join(pairs)
