"""``Record``: the base of ragcli's pydantic models (configuration and question files, eval reports, tool calls).

The records every cold start reads or writes (the user file, the manifest, the ``--json`` of search and ask,
the trace) are not pydantic models but ``checked.Checked`` dataclasses: the same validation and JSON
without pydantic's import.

One decision lives here instead of in every model: a model builds its validator when it is
first used, not when its module is imported (pydantic's ``defer_build``). A CLI run imports
modules whose models it never makes (a search does not write a trace); building them all cost
a cold ``ragcli ask`` about 10-15 ms. The first use is as strict as an eager build: same
errors, same schema. A model adds its own settings (``extra``, ``frozen``, ``strict``) with
``model_config = ConfigDict(...)``; pydantic merges them with these.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Record(BaseModel):
    """A pydantic model of ragcli whose validator is built on first use."""

    model_config = ConfigDict(defer_build=True)
