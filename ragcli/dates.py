"""One date type for the CLI, document metadata and eval cases.

A date is written ``YYYY-MM-DD`` and nothing else: ``20261129``, ``0`` or
``2026-W48`` are refused, not guessed. ``today()`` is the one place "now"
becomes a default, and ``day_number`` the one conversion to the integer days
the index stores.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Annotated, Any

from .checked import Before

_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
DAY0 = dt.date(1970, 1, 1)

#: Day numbers of an open validity bound (no effective_from / no superseded_on).
OPEN_FROM = -(2**31)
OPEN_UNTIL = 2**31 - 1


def today() -> dt.date:
    """The one "today": the local calendar day (``TZ``), for ``--as-of``'s default, a user file's ``today``
    and an eval case without ``as_of`` alike."""
    return dt.date.today()


def parse_iso_date(value: Any) -> dt.date:
    """A ``datetime.date`` (a YAML date, or a datetime's day) or a ``YYYY-MM-DD`` string; else ValueError."""
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str) and _ISO_DATE.match(value.strip()):
        try:
            return dt.date.fromisoformat(value.strip())
        except ValueError:
            raise ValueError(f"{value!r} is not a real date") from None
    raise ValueError(f"{value!r} is not a date: write it as YYYY-MM-DD")


IsoDate = Annotated[dt.date, Before(parse_iso_date)]
"""Use in pydantic models and ``checked`` records: a field that holds a date written ``YYYY-MM-DD``."""


def day_number(day: dt.date) -> int:
    """Days since 1970-01-01: how the index stores validity dates."""
    return (day - DAY0).days
