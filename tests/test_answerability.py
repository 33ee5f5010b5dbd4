"""When the local answerer answers and when it abstains: through the real CLI, on small real tenants.

A single sentence that answers exactly is answered, however little else the
tenant holds; a question that names a thing no visible passage mentions is
not answered from pages about something else, and is answered for a user who
may see the page about it. A name in a sentence that only tells the asker's
situation is theirs, not something the pages must mention.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.cli import cli, cli_many, json_of
from support.corpus import write_markdown, write_user

from ragcli import ingest

PROJECT_PAGES = {
    "planning": "Every project starts with a planning review. The project lead writes a one-page brief "
    "with the goal, the budget and the first milestone, and the steering group approves it.",
    "budgets": "Project budgets are set per quarter. A project that needs more than its quarterly budget "
    "asks the finance partner for an increase before it spends the money.",
    "reviews": "Each project holds a review at every milestone. The review checks the schedule, the risks "
    "and whether the project still serves the goal in its brief.",
}
NIGHTJAR = (
    "Project Nightjar is the internal code name for the offline sync engine. It replaces the nightly export "
    "with a change feed that mobile clients replay when they reconnect."
)


@pytest.fixture(scope="module")
def tenants(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("answerability")
    index = root / "index"
    allowances = root / "allowances"
    write_markdown(
        allowances / "allowances.md",
        {"title": "Allowances", "acl": ["everyone"]},
        "The allowance for level E4 runs from 98,000 to 121,000 euros a year.\n",
    )
    projects = root / "projects"
    for name, text in PROJECT_PAGES.items():
        write_markdown(projects / f"{name}.md", {"title": f"Project {name}", "acl": ["everyone"]}, text + "\n")
    write_markdown(projects / "nightjar.md", {"title": "Nightjar", "acl": ["nightjar-team"]}, NIGHTJAR + "\n")
    ingest(allowances, "allowances", index=index)
    ingest(projects, "projects", index=index)
    return {
        "index": index,
        "payroll": write_user(root / "payroll.json", "pat", "allowances", ["everyone"]),
        "outsider": write_user(root / "outsider.json", "olga", "projects", ["everyone"]),
        "insider": write_user(root / "insider.json", "ivan", "projects", ["everyone", "nightjar-team"]),
    }


@pytest.fixture(scope="module")
def runs(tenants: dict[str, Path]) -> dict[str, dict]:
    questions = {
        "e4": ("What is the allowance for level E4?", "payroll"),
        # The first sentence is the asker's situation: its names are theirs, not what the documents must mention.
        "e4-situation": ("I start on the Nightjar team in May. What is the allowance for level E4?", "payroll"),
        "nightjar-outsider": ("What is Project Nightjar?", "outsider"),
        # Told, not the asker's own: the question is about Nightjar, which this user's pages never mention.
        "nightjar-its-budget": ("Project Nightjar is new. What is its budget?", "outsider"),
        "nightjar-subject": ("Project Nightjar needs more money. Who approves an increase?", "outsider"),
        "nightjar-doctor": ("How does Dr. Nightjar approve a budget increase?", "outsider"),
        "nightjar-insider": ("What is Project Nightjar?", "insider"),
    }
    procs = cli_many(
        [["ask", q, "--as", tenants[who], "--json"] for q, who in questions.values()],
        index=tenants["index"],
        parallel=2,
    )
    return {name: json_of(proc) | {"exit": proc.returncode} for name, proc in zip(questions, procs, strict=True)}


@pytest.mark.slow
def test_a_single_sentence_that_answers_exactly_is_answered(runs: dict[str, dict]) -> None:
    run = runs["e4"]
    assert run["exit"] == 0 and run["disposition"] == "answered", run
    assert "98,000 to 121,000 euros" in run["answer"]


@pytest.mark.slow
def test_a_name_in_the_askers_situation_need_not_be_in_the_documents(runs: dict[str, dict]) -> None:
    run = runs["e4-situation"]
    assert run["exit"] == 0 and run["disposition"] == "answered", run
    assert "98,000 to 121,000 euros" in run["answer"]


@pytest.mark.slow
def test_a_named_thing_no_visible_passage_mentions_is_not_answered(runs: dict[str, dict]) -> None:
    run = runs["nightjar-outsider"]
    assert run["exit"] == 1 and run["disposition"] == "abstained", run
    # Not "no_visible_evidence": the pages it could see were found, they only speak of projects.
    assert run["reason"] == "model_abstained"


@pytest.mark.slow
@pytest.mark.parametrize("case", ["nightjar-its-budget", "nightjar-subject", "nightjar-doctor"])
def test_a_told_subject_no_visible_passage_mentions_is_not_answered(runs: dict[str, dict], case: str) -> None:
    # The budget page answers "who approves an increase" for projects in general: not for Nightjar.
    run = runs[case]
    assert run["exit"] == 1 and run["disposition"] == "abstained", run


@pytest.mark.slow
def test_the_same_question_is_answered_for_a_user_who_may_see_the_page(runs: dict[str, dict]) -> None:
    run = runs["nightjar-insider"]
    assert run["exit"] == 0 and run["disposition"] == "answered", run
    assert "offline sync engine" in run["answer"]
    assert all(c["passage_id"].startswith("nightjar@") for c in run["claims"])


@pytest.mark.slow
def test_an_abstention_says_nothing_of_what_was_missing(tenants: dict[str, Path]) -> None:
    proc = cli("ask", "What is Project Nightjar?", "--as", tenants["outsider"], index=tenants["index"])
    assert proc.returncode == 1
    assert "nightjar" not in proc.stdout.casefold()  # the generic message, not "Nightjar was not found"
