"""``ragcli eval --junit/--summary/--report``: what CI pages render, checked the way they read it.

The JUnit XML is validated against the Apache Ant and the Jenkins schemas
(tests/data/junit, with their sources and licences); the HTML page is opened in
headless Chromium, which must log no error while it loads and sorts.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.browser import open_page
from support.cli import assert_one_error_line, cli, json_of
from support.paths import USERS

SCHEMAS = Path(__file__).parent / "data" / "junit"
HOSTILE = 'What does <b>ERR_4021</b> mean? \x1b]0;pwned\x07 "quoted" & more'


def _case(cid: str, question: str, user: str, **fields: object) -> dict[str, object]:
    return {"id": cid, "question": question, "as": str(USERS / f"{user}.json"), "as_of": "2026-11-29", **fields}


TIER_2 = "How many requests per minute does Tier 2 allow?"
CASES = [
    _case("q01", "What does ERR_4021 mean?", "alice", expect="answer", relevant=["error-codes"],
          answer_contains=["expired"]),
    # Right document, wrong expectation: the answer never says "purple", so this case fails its answer check.
    _case("q02", TIER_2, "bob", expect="answer", relevant=["api-rate-limits"], answer_contains=["purple"]),
    _case("q03", "What is the salary band for an L3 engineer?", "bob", expect="abstain", forbidden=["pay-bands"]),
    _case("q04", HOSTILE, "alice", relevant=["error-codes"]),
]  # fmt: skip


@pytest.fixture(scope="module")
def ci_run(sample_index, tmp_path_factory):  # type: ignore[no-untyped-def]
    """One ``eval --ask`` with every CI output and a gate that fails (min-answer 1.0)."""
    out = tmp_path_factory.mktemp("eval-ci")
    questions = out / "ci-questions.jsonl"
    questions.write_text("".join(json.dumps(c) + "\n" for c in CASES), encoding="utf-8")
    summary = out / "summary.md"
    summary.write_text("## an earlier step's summary\n", encoding="utf-8")  # $GITHUB_STEP_SUMMARY is appended to
    args = [
        "eval", questions, "--users", USERS, "--index", sample_index.root, "--ask", "--min-recall", "0.5",
        "--min-answer", "1.0",
        "--junit", out / "junit.xml", "--summary", summary, "--report", out / "report.html", "--output", out / "r.json",
    ]  # fmt: skip
    proc = cli(*args)
    return proc, out


@pytest.mark.slow
def test_junit_xml_is_valid_against_the_ant_and_jenkins_schemas(ci_run) -> None:
    from lxml import etree

    proc, out = ci_run
    assert proc.returncode == 1, proc.stderr  # the answer gate failed
    document = etree.parse(str(out / "junit.xml"))
    for name in ("ant-junit.xsd", "jenkins-junit-10.xsd"):
        schema = etree.XMLSchema(etree.parse(str(SCHEMAS / name)))
        assert schema.validate(document), (name, schema.error_log)

    questions, gates = document.getroot().findall("testsuite")
    report = json.loads((out / "r.json").read_text(encoding="utf-8"))
    cases = questions.findall("testcase")
    assert [c.get("name").split(":")[0] for c in cases] == ["q01", "q02", "q03", "q04"]  # one per question
    # A question is never a failure (the gates judge the run); its miss is listed where the CI page shows it.
    assert questions.get("tests") == "4" and questions.get("failures") == "0"
    assert all(c.find("failure") is None for c in cases)
    [missed] = questions.find("system-out").text.splitlines()
    assert missed.startswith("line 2 q02: answer: expected purple")
    assert _property(questions, "missed") == "1"
    # The gates are the test cases that fail: the answer gate failed, recall and permissions passed.
    by_name = {c.get("name"): c for c in gates.findall("testcase")}
    assert set(by_name) == {"min_recall@10 >= 0.5", "min_answer >= 1", "max_violations <= 0"}
    assert by_name["min_answer >= 1"].find("failure").get("type") == "gate"
    assert by_name["min_recall@10 >= 0.5"].find("failure") is None
    assert gates.get("failures") == "1" == str(sum(not g["passed"] for g in report["gates"].values()))
    # The hostile question is text: escaped markup, its ESC written out (XML 1.0 cannot even hold it).
    assert cases[3].get("name") == "q04: " + HOSTILE.replace("\x1b", "\\x1b").replace("\x07", "\\x07")


def _property(suite, name: str) -> str | None:  # type: ignore[no-untyped-def]
    found = [p.get("value") for p in suite.find("properties") if p.get("name") == name]
    return found[0] if found else None


def _junit_failures(path: Path) -> list[str]:
    """The name of every test case of a JUnit file that failed."""
    from lxml import etree

    document = etree.parse(str(path))
    for name in ("ant-junit.xsd", "jenkins-junit-10.xsd"):
        schema = etree.XMLSchema(etree.parse(str(SCHEMAS / name)))
        assert schema.validate(document), (name, schema.error_log)
    total = sum(int(suite.get("failures")) for suite in document.getroot().findall("testsuite"))
    failed = [c.get("name") for c in document.getroot().iter("testcase") if c.find("failure") is not None]
    assert total == len(failed)
    return failed


def test_junit_verdict_is_the_exit_code_when_questions_miss_but_every_gate_passes(sample_index, tmp_path) -> None:
    """A passed run is green on a CI page: a question that missed its relevant document is listed, not failed;
    the same run with a gate it misses is red there, by that gate alone."""
    from lxml import etree

    questions = tmp_path / "q.jsonl"
    missing = _case("q09", "What does ERR_4021 mean?", "alice", relevant=["no-such-document"])
    questions.write_text(json.dumps(CASES[0]) + "\n" + json.dumps(missing) + "\n", encoding="utf-8")
    args = ("eval", questions, "--users", USERS, "--index", sample_index.root, "--junit", tmp_path / "j.xml")
    passed = cli(*args, "--min-recall", "0.4")
    assert passed.returncode == 0, passed.stderr
    assert _junit_failures(tmp_path / "j.xml") == []
    questions_suite = etree.parse(str(tmp_path / "j.xml")).getroot().find("testsuite")
    assert "line 2 q09: missed_relevant" in questions_suite.find("system-out").text
    assert _property(questions_suite, "missed") == "1"
    failed = cli(*args, "--min-recall", "0.9")
    assert failed.returncode == 1, failed.stderr
    assert _junit_failures(tmp_path / "j.xml") == ["min_recall@10 >= 0.9"]


@pytest.mark.slow
def test_markdown_summary_is_appended_with_the_verdict_first(ci_run) -> None:
    proc, out = ci_run
    text = (out / "summary.md").read_text(encoding="utf-8")
    earlier, ours = text.split("## ragcli eval", 1)
    assert earlier == "## an earlier step's summary\n"  # appended, as $GITHUB_STEP_SUMMARY expects
    assert ours.startswith(" `ci-questions.jsonl`: ❌ 1 of 3 gates failed")
    assert "| `min_answer` | 1 | 0.5 | **FAIL** |" in ours
    report = json.loads((out / "r.json").read_text(encoding="utf-8"))
    o = report["outcomes"]
    assert f"| answered | {o['answered_right']} | {o['answered_wrong']} |" in ours
    assert "### Failing checks: 1" in ours and "purple" in ours
    assert "\x1b" not in text


@pytest.mark.slow
def test_html_report_renders_in_chromium_without_errors_and_sorts(ci_run) -> None:
    proc, out = ci_run
    report = json.loads((out / "r.json").read_text(encoding="utf-8"))
    page_file = out / "report.html"
    assert "http://" not in page_file.read_text(encoding="utf-8").replace("http://www.w3.org/2000/svg", "")
    with open_page(page_file) as page:
        assert page.errors == []
        assert page.evaluate("document.body.getAttribute('data-ready')") == "1"  # the script ran to its end
        # The outcome matrix holds the run's numbers.
        matrix = page.evaluate("[...document.querySelectorAll('table.matrix td')].map(td => td.textContent)")
        o = report["outcomes"]
        expected = [o["answered_right"], o["answered_wrong"], o["abstained_right"], o["abstained_wrong"]]
        assert matrix == [str(n) for n in expected]
        # A histogram per stage, each with a bar per bin.
        captions = page.evaluate("[...document.querySelectorAll('figcaption')].map(f => f.textContent)")
        assert [c.split(":")[0] for c in captions] == ["search", "embed", "bm25", "dense", "ask"]
        assert page.evaluate("document.querySelectorAll('svg rect.bar').length") == 5 * 12
        # Sorting by "search ms" orders the rows by the number, both ways.
        column = page.evaluate(
            "[...document.querySelectorAll('table.sortable th')].findIndex(th => th.textContent === 'search ms')"
        )
        rows = "[...document.querySelectorAll('table.sortable tbody tr')]"
        read = f"{rows}.map(r => parseFloat(r.cells[{column}].dataset.v))"
        page.evaluate(f"document.querySelectorAll('table.sortable th')[{column}].click()")
        ascending = page.evaluate(read)
        page.evaluate(f"document.querySelectorAll('table.sortable th')[{column}].click()")
        descending = page.evaluate(read)
        assert ascending == sorted(c["search_ms"] for c in report["cases"]) and descending == ascending[::-1]
        # The hostile question is text in a cell, not markup.
        assert page.evaluate("document.querySelectorAll('table.sortable b').length") == 0
        cells = page.evaluate("[...document.querySelectorAll('table.sortable td')].map(td => td.textContent)")
        assert HOSTILE.replace("\x1b", "\\x1b").replace("\x07", "\\x07") in cells
        assert page.errors == []


@pytest.mark.slow
def test_the_browser_check_reports_errors(tmp_path) -> None:
    """The check above can fail: a script error and a console.error are reported."""
    bad = tmp_path / "bad.html"
    bad.write_text(
        "<!doctype html><body><script>console.error('boom'); notDefined();</script></body>", encoding="utf-8"
    )
    with open_page(bad, settle=0.2) as page:
        kinds = " ".join(page.errors)
    assert "console.error" in kinds and "exception" in kinds and "notDefined" in kinds


@pytest.mark.slow
def test_an_unwritable_report_file_is_one_error_line(sample_index, tmp_path) -> None:
    questions = tmp_path / "q.jsonl"
    questions.write_text(json.dumps(CASES[0]) + "\n", encoding="utf-8")
    for flag in ("--junit", "--summary", "--report"):
        proc = cli(
            "eval", questions, "--users", USERS, "--index", sample_index.root, flag, tmp_path / "missing-dir" / "o"
        )
        assert_one_error_line(proc, "cannot write", "missing-dir")


def test_retrieval_only_report_has_no_outcomes_and_passes(sample_index, tmp_path) -> None:
    questions = tmp_path / "q.jsonl"
    questions.write_text(json.dumps(CASES[0]) + "\n", encoding="utf-8")
    proc = cli(
        "eval", questions, "--users", USERS, "--index", sample_index.root, "--summary", tmp_path / "s.md", "--json"
    )
    assert proc.returncode == 0, proc.stderr
    text = (tmp_path / "s.md").read_text(encoding="utf-8")
    assert "✅ every gate passed" in text and "### Outcomes" not in text
    assert json_of(proc)["cases"][0]["question"] == "What does ERR_4021 mean?"
