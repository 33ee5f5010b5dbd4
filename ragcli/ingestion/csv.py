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
from .sources import MAX_CELLS, MAX_ROWS, over_bound


def csv_to_markdown(text: str, source: str, delimiter: str | None = None) -> str:
    """The rows as a Markdown list of ``Header: value; Header: value`` items ("" when there is no data row)."""
    import csv

    header_line = text.split("\n", 1)[0]
    if delimiter is None:
        delimiter = ";" if ";" in header_line and "," not in header_line else ","
    rows: list[list[str]] = []
    cells = 0
    try:
        for row in csv.reader(io.StringIO(text), delimiter=delimiter):
            if any(cell.strip() for cell in row):
                rows.append(row)
                cells += len(row)
            if len(rows) > MAX_ROWS or cells > MAX_CELLS:
                break  # counted to the end by _reject_counted, without keeping the rows
    except csv.Error as exc:
        raise DocumentRejected(source, f"CSV could not be parsed: {exc}") from None
    if len(rows) > MAX_ROWS or cells > MAX_CELLS:
        _reject_counted(text, source, delimiter)
    if not rows:
        return ""
    header = [md.one_line(name) or f"Column {n}" for n, name in enumerate(rows[0], start=1)]
    items = [md.Item(0, False, record) for record in (_record(header, row) for row in rows[1:]) if record]
    return md.join([md.list_block(items)]) if items else ""


def _reject_counted(text: str, source: str, delimiter: str) -> None:
    """Count every row and cell of an oversized table without keeping them, and reject it with the counts."""
    import csv

    rows = cells = 0
    try:
        for row in csv.reader(io.StringIO(text), delimiter=delimiter):
            rows += 1
            cells += len(row)
    except csv.Error as exc:
        raise DocumentRejected(source, f"CSV could not be parsed: {exc}") from None
    over_bound(source, {"rows": (rows, MAX_ROWS), "cells": (cells, MAX_CELLS)})


def _record(header: list[str], row: list[str]) -> str:
    """``Header: value`` pairs of one row; a cell past the header's last column is named by its position."""
    pairs = []
    for n, (name, value) in enumerate(zip_longest(header, row, fillvalue=""), start=1):
        value = md.one_line(value)
        if value:
            pairs.append(f"{name or f'Column {n}'}: {value}")
    return "; ".join(pairs)
