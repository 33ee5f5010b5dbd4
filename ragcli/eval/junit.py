"""``eval --junit FILE``: the report as JUnit XML, which GitHub Actions, GitLab and Jenkins render.

Its verdict is the exit code's: the gates are what pass or fail a run, so
they are the only test cases that can fail. Two test suites: ``gates`` (one
test case per gate, a ``<failure>`` when the gate was missed) and ``questions``
(one test case per question, never failed: a question that missed a check, a
wrong answer say, is what the gates measure, and one miss must not turn a
passed run red on a CI page). A question's misses are listed in its suite's
``<system-out>`` (``line 3 q02: answer: expected ...``) and counted in its
``missed`` property, where the CI page shows them. The document is valid
against both common schemas: the Apache Ant JUnit XSD (strict: every suite has
``properties``, ``system-out`` and ``system-err``, a test case at most one
failure) and Jenkins' ``junit-10.xsd`` (tests/data holds both).
"""

from __future__ import annotations

import datetime as dt
import re
import socket
import xml.etree.ElementTree as ET

from ..text import visible_controls
from .wire import CaseJson, EvalJson, Failure, GateResult

PACKAGE = "ragcli.eval"
_NOT_XML = re.compile("[\ufffe\uffff\ud800-\udfff]")


def junit_xml(data: EvalJson, *, name: str, timestamp: dt.datetime | None = None) -> str:
    """The report as a JUnit XML document; ``name`` names the question file (``questions.jsonl``)."""
    stamp = (timestamp or dt.datetime.now()).replace(microsecond=0, tzinfo=None).isoformat()
    root = ET.Element("testsuites")
    failures = _by_case(data.failures)
    suite = _suite(root, 0, name, stamp, data, missed=len(failures))
    for case in data.cases:
        _case(suite, case, name)
    _counts(suite, len(data.cases), 0, _seconds(data.cases))
    gates = _suite(root, 1, f"{name}: gates", stamp, data)
    for gate, result in data.gates.items():
        _gate(gates, gate, result, name)
    _counts(gates, len(data.gates), sum(1 for g in data.gates.values() if not g.passed), 0.0)
    ET.SubElement(suite, "system-out").text = _text(_misses(data.cases, failures))
    ET.SubElement(gates, "system-out")
    for element in (suite, gates):
        ET.SubElement(element, "system-err")
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def _suite(
    root: ET.Element, number: int, title: str, stamp: str, data: EvalJson, missed: int | None = None
) -> ET.Element:
    suite = ET.SubElement(
        root,
        "testsuite",
        name=_text(title),
        package=PACKAGE,
        id=str(number),
        timestamp=stamp,
        hostname=socket.gethostname() or "localhost",
    )
    properties = ET.SubElement(suite, "properties")
    values = {"k": data.k, "cases": data.case_count, "model": data.model or "none (retrieval only)"}
    values.update({name: "-" if value is None else value for name, value in data.retrieval.items()})
    if missed is not None:
        values["missed"] = missed  # questions that missed a check (listed in the suite's system-out)
    for key, value in values.items():
        ET.SubElement(properties, "property", name=key, value=_text(str(value)))
    return suite


def _counts(suite: ET.Element, tests: int, failures: int, seconds: float) -> None:
    suite.set("tests", str(tests))
    suite.set("failures", str(failures))
    suite.set("errors", "0")
    suite.set("skipped", "0")
    suite.set("time", f"{seconds:.3f}")


def _case(suite: ET.Element, case: CaseJson, name: str) -> None:
    title = f"{case.id}: {case.question}" if case.question else case.id
    ET.SubElement(suite, "testcase", name=_text(title[:200]), classname=f"{PACKAGE}.{_token(name)}", time=_time(case))


def _misses(cases: list[CaseJson], failures: dict[tuple[str, int], list[Failure]]) -> str:
    """Each question's missed checks, one line each, in the order of the question file ("" when none missed)."""
    lines = [f"line {f.line} {f.id}: {_said(f)}" for case in cases for f in failures.get((case.id, case.line), [])]
    return "".join(line + "\n" for line in lines)


def _gate(suite: ET.Element, gate: str, result: GateResult, name: str) -> None:
    bound = ">=" if gate.startswith("min_") else "<="
    element = ET.SubElement(
        suite, "testcase", name=f"{gate} {bound} {result.threshold:g}", classname=f"{PACKAGE}.{_token(name)}.gates"
    )
    element.set("time", "0")
    if not result.passed:
        value = "not computed" if result.value is None else f"{result.value:g}"
        message = f"{gate}: {value}, needed {bound} {result.threshold:g}"
        ET.SubElement(element, "failure", message=message, type="gate").text = message


def _said(f: Failure) -> str:
    return f"{f.kind}: expected {_short(f.expected)}, got {_short(f.got)}"


def _short(value: object) -> str:
    """One line of at most 300 characters: each miss is one line of the suite's output (an answer of several lines,
    a table's rows, reads run together)."""
    text = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
    text = " ".join(text.split())
    return text if len(text) <= 300 else text[:297] + "..."


def _by_case(failures: list[Failure]) -> dict[tuple[str, int], list[Failure]]:
    out: dict[tuple[str, int], list[Failure]] = {}
    for f in failures:
        out.setdefault((f.id, f.line), []).append(f)
    return out


def _time(case: CaseJson) -> str:
    return f"{(case.search_ms + (case.ask_ms or 0.0)) / 1000:.3f}"


def _seconds(cases: list[CaseJson]) -> float:
    return sum(c.search_ms + (c.ask_ms or 0.0) for c in cases) / 1000


def _text(value: str) -> str:
    """Text XML 1.0 can hold, control characters written out (a case's question is anyone's text)."""
    return _NOT_XML.sub("\ufffd", visible_controls(value))


def _token(value: str) -> str:
    """A class name part: the question file's name without spaces or dots (``uv-docs``)."""
    return re.sub(r"[^A-Za-z0-9_-]+", "_", value).strip("_") or "questions"
