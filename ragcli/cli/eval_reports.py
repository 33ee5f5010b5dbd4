"""The files an eval run writes besides its output: ``--output`` (JSON), ``--junit``, ``--summary``, ``--report``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import InputError, os_reason

if TYPE_CHECKING:
    from ..eval import CompareJson
    from ..eval.wire import EvalJson


@dataclass(frozen=True)
class ReportFiles:
    """The files a run also writes: ``--output`` (JSON), ``--junit``, ``--summary``, ``--report``."""

    name: str
    """The question file's name, as the CI formats title it."""
    json: Path | None = None
    junit: Path | None = None
    summary: Path | None = None
    report: Path | None = None


def write_reports(
    data: EvalJson,
    name: str,
    *,
    json_file: Path | None = None,
    junit_file: Path | None = None,
    summary_file: Path | None = None,
    report_file: Path | None = None,
    json_data: CompareJson | None = None,
) -> None:
    """Each report file asked for; a file that cannot be written is one ``error:`` (exit 2). ``json_data``: what
    ``--output`` holds instead of ``data`` (a comparison; the CI formats read one run)."""
    from ..eval.html import html_report
    from ..eval.junit import junit_xml
    from ..eval.summary import markdown_summary
    from .console import json_text

    as_json = json_data if json_data is not None else data
    if json_data is not None:  # a comparison's --max-drop gates judge it too: the CI formats show every gate
        data = data.model_copy(update={"gates": {**data.gates, **json_data.gates}})
    makers: list[tuple[Path | None, str, Callable[[], str]]] = [
        (json_file, "w", lambda: json_text(as_json.model_dump_json(indent=2)) + "\n"),
        (junit_file, "w", lambda: junit_xml(data, name=name)),
        # Appended, as $GITHUB_STEP_SUMMARY expects: other steps of the job write to the same file.
        (summary_file, "a", lambda: markdown_summary(data, name=name)),
        (report_file, "w", lambda: html_report(data, name=name)),
    ]
    for path, mode, make in makers:
        if path is None:
            continue
        try:
            with path.open(mode, encoding="utf-8") as fh:
                fh.write(make())
        except OSError as exc:
            raise InputError(f"cannot write {path}: {os_reason(exc)}") from None
