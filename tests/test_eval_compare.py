"""``ragcli eval --compare`` / ``--baseline``: the paired bootstrap by hand, flips, drop gates, configurations,
and the breakdowns of an asked run (by outcome and reason; re-searches, repairs and query drift through the
LLM backends' mock transports).

Local-model runs go through the real CLI in this process (``support.cli.invoke``) on a few sample questions;
the LLM runs through the real SDKs against a scripted API (``support.backends``).
"""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from support.backends import BACKENDS
from support.cli import invoke, json_of
from support.paths import QUESTIONS, USERS
from support.sample_facts import CDN, CDN_QUOTE, SCIM_QUOTE

from ragcli.eval.compare import bootstrap, compare, flips, interval
from ragcli.eval.wire import CaseJson, EvalJson, GateResult, Latency

# --------------------------------------------------------------------------- the paired bootstrap, by hand


def one_interval(a: list[float | None], b: list[float | None], *, seed: int = 0, resamples: int = 10_000):
    return interval(bootstrap({"m": (a, b)}, resamples=resamples, seed=seed)["m"])


def test_identical_differences_have_a_zero_width_interval() -> None:
    assert one_interval([0.0, 1.0, 0.5], [0.0, 1.0, 0.5]) == (0.0, 0.0)
    low, high = one_interval([0.0, 1.0, 0.5], [0.25, 1.25, 0.75])  # B - A is 0.25 on every case
    assert low == pytest.approx(0.25) and high == pytest.approx(0.25)


def test_three_cases_against_the_exact_bootstrap_distribution() -> None:
    """B - A per case is 0, 0 and 3: a draw's mean is 0, 1, 2 or 3 with probability 8/27, 12/27, 6/27, 1/27.
    P(mean = 0) = 0.296 > 0.025, so the 2.5th percentile is 0; P(mean <= 2) = 26/27 = 0.963 < 0.975, so the
    97.5th is 3."""
    assert one_interval([0.0, 0.0, 0.0], [0.0, 0.0, 3.0]) == (0.0, 3.0)
    diffs = bootstrap({"m": ([0.0, 0.0, 0.0], [0.0, 0.0, 3.0])}, resamples=10_000, seed=0)["m"]
    shares = [float((diffs == v).mean()) for v in (0.0, 1.0, 2.0, 3.0)]
    assert shares == pytest.approx([8 / 27, 12 / 27, 6 / 27, 1 / 27], abs=0.015)


def test_a_hundred_cases_against_the_normal_approximation() -> None:
    """30 of 100 cases turn right: B - A has mean 0.3 and standard error sqrt(0.3 * 0.7 / 100) = 0.0458, so the
    95% interval is about 0.3 -/+ 1.96 * 0.0458 = [0.210, 0.390]."""
    a = [0.0] * 100
    b = [1.0] * 30 + [0.0] * 70
    low, high = one_interval(a, b)
    se = math.sqrt(0.3 * 0.7 / 100)
    assert low == pytest.approx(0.3 - 1.96 * se, abs=0.015) and high == pytest.approx(0.3 + 1.96 * se, abs=0.015)


def test_the_interval_is_reproducible_by_seed() -> None:
    a = [0.0, 1.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0]
    b = [1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]
    assert one_interval(a, b, seed=7) == one_interval(a, b, seed=7)
    assert one_interval(a, b, seed=7, resamples=1000) != one_interval(a, b, seed=8, resamples=1000)


def test_a_metric_is_averaged_over_the_cases_where_it_is_defined() -> None:
    """Case 3 has no value in A (A is 1 wherever defined), B is 1, 1, 0. With k draws of case 3, B - A is
    -k/3; a draw of case 3 three times (1/27 = 3.7%) leaves A undefined and is left out, so the lowest kept
    difference is -2/3 (6/26 of the kept draws) and the 2.5th percentile is -2/3, not -1."""
    assert one_interval([1.0, 1.0, None], [1.0, 1.0, 0.0]) == (pytest.approx(-2 / 3), 0.0)


# --------------------------------------------------------------------------- comparing two reports


def case(i: int, **values: Any) -> CaseJson:
    base: dict[str, Any] = dict(
        id=f"c{i}",
        line=i,
        expect="answer",
        disposition="answered",
        reason=None,
        retrieved=[],
        hits=[],
        recall=1.0,
        rr=1.0,
        ndcg=1.0,
        answer_ok=True,
        citations_ok=True,
        search_ms=1.0,
        ask_ms=10.0,
        violations=[],
        searches=1,
        tokens=0,
    )
    return CaseJson(**(base | values))


def report(cases: list[CaseJson], *, asked: bool = True, name: str = "x") -> EvalJson:
    return EvalJson(
        case_count=len(cases),
        cases=cases,
        setup={"name": name},
        k=10,
        retrieval={},
        retrieval_cases=len(cases),
        permission_violations=0,
        disposition_accuracy=None,
        reason_accuracy=None,
        latency_ms={"search": Latency(p50=1.0, p95=2.0)},
        failures=[],
        gates={"max_violations": GateResult(threshold=0, value=0, passed=True)},
        model="local" if asked else None,
    )


def test_flips_name_each_case_that_turned_right_or_wrong() -> None:
    a = report([case(1), case(2, answer_ok=False), case(3, disposition="abstained", expect="abstain"), case(4)])
    b = report([case(1), case(2), case(3, disposition="answered", expect="abstain"), case(4, expect=None)])
    result = compare(a, b)
    assert [(f.id, f.direction, f.a, f.b) for f in result.flipped] == [
        ("c3", "right_to_wrong", "abstained_right", "answered_wrong"),
        ("c2", "wrong_to_right", "answered_wrong", "answered_right"),
    ]
    answer = next(m for m in result.metrics if m.metric == "answer")
    assert (answer.a, answer.b, answer.diff, answer.cases) == (0.75, 1.0, 0.25, 4)
    # Without --ask a case is right when every relevant label was found.
    retrieval = compare(report([case(1), case(2)], asked=False), report([case(1, recall=0.5), case(2)], asked=False))
    assert [(f.id, f.a, f.b) for f in retrieval.flipped] == [("c1", "found_all", "missed_relevant")]
    assert [m.metric for m in retrieval.metrics][:3] == ["recall", "mrr", "ndcg"]
    assert "answer" not in [m.metric for m in retrieval.metrics]


@pytest.mark.parametrize("limit, passed", [(0.25, True), (0.2, False)])
def test_a_drop_gate_fails_when_b_is_more_than_x_below_a(limit: float, passed: bool) -> None:
    a = report([case(i) for i in range(1, 5)])
    b = report([case(1, answer_ok=False), case(2), case(3), case(4)])  # answer accuracy 1.0 -> 0.75
    result = compare(a, b, drops={"answer": limit, "recall": 0.0})
    gate = result.gates["max_drop_answer"]
    assert (gate.threshold, gate.value, gate.passed) == (limit, 0.25, passed)
    assert result.gates["max_drop_recall"].passed and result.passed is passed


def test_a_drop_gate_on_a_metric_one_run_lacks_fails() -> None:
    a = report([case(1, citations_ok=None)])
    result = compare(a, report([case(1, citations_ok=None)]), drops={"citations": 1.0})
    assert result.gates["max_drop_citations"] == GateResult(threshold=1.0, value=None, passed=False)


def test_b_failing_its_own_gate_fails_the_comparison() -> None:
    b = report([case(1)])
    b.gates["min_recall@10"] = GateResult(threshold=1.0, value=0.5, passed=False)
    assert compare(report([case(1)]), b).passed is False


@pytest.mark.parametrize(
    "a, b, needle",
    [
        (report([case(1)]), report([case(2)]), "not of the same cases"),
        (report([case(1), case(2)]), report([case(1)]), "not of the same cases"),
        (report([case(1)]), report([case(1)], asked=False), "only run A ran the answer loop"),
    ],
)
def test_runs_that_cannot_be_paired_are_refused(a: EvalJson, b: EvalJson, needle: str) -> None:
    from ragcli.errors import InputError

    with pytest.raises(InputError, match=needle):
        compare(a, b)


def test_flips_of_cases_that_are_not_judged_are_none() -> None:
    pairs = [(case(1, expect=None), case(1, expect=None, disposition="abstained"))]
    assert flips(pairs, asked=True) == []


# --------------------------------------------------------------------------- the CLI, local model


def sample_cases(tmp_path: Path, ids: list[str]) -> Path:
    """Sample questions by ID, their user files made absolute (eval runs them with ``--users USERS``)."""
    lines = [json.loads(line) for line in QUESTIONS.read_text(encoding="utf-8").splitlines() if line.strip()]
    chosen = [{**q, "as": str(USERS / Path(q["as"]).name)} for q in lines if q["id"] in ids]
    path = tmp_path / "q.jsonl"
    path.write_text("\n".join(json.dumps(q) for q in chosen) + "\n", encoding="utf-8")
    return path


def toml(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.slow
def test_identical_setups_of_the_local_model_differ_in_nothing(capsys, tmp_path, sample_root) -> None:
    """The local model and the rankers are deterministic: the same setup twice is zero difference, no flips."""
    questions = sample_cases(tmp_path, ["q01", "q07", "q10", "q19", "q22", "q28", "q29", "q36"])
    same = toml(tmp_path / "same.toml", 'model = "local"\nk = 10\n')
    args = ("eval", questions, "--users", USERS, "--index", sample_root, "--ask", "--compare", same, same)
    args = (*args, "--max-drop", "answer=0")
    proc = invoke(capsys, *args, "--json")
    assert proc.returncode == 0, proc.stderr
    data = json_of(proc)
    assert data["case_count"] == 8 and data["flipped"] == [] and data["passed"] is True
    rates = [m for m in data["metrics"] if not m["metric"].endswith(" ms")]
    assert {m["metric"] for m in rates} == {"recall", "mrr", "ndcg", "disposition", "answer", "citations"} | {
        "searches",
        "tokens",
    }
    for m in rates:
        assert (m["diff"], m["low"], m["high"]) == (0.0, 0.0, 0.0), m
        assert m["a"] == m["b"] is not None
    assert data["gates"]["max_drop_answer"] == {"threshold": 0.0, "value": 0.0, "passed": True}
    assert _same_but_timings(data["a"]["cases"], data["b"]["cases"])
    assert data["a"]["setup"]["name"] == data["b"]["setup"]["name"] == str(same)
    # The local model never searches again nor writes a query: the agent path is flat, and says so.
    b = data["b"]
    assert (b["researched"], b["repair_rate"], b["model_queries"], b["query_drift"]) == (0.0, None, 0, None)
    assert b["breakdown"]["searches"] == {"1": 8}
    assert sum(group["cases"] for group in b["breakdown"]["by_outcome"].values()) == 8


def _same_but_timings(a: list[dict], b: list[dict]) -> bool:
    drop = ("search_ms", "ask_ms", "timings_ms")
    return [{k: v for k, v in c.items() if k not in drop} for c in a] == [
        {k: v for k, v in c.items() if k not in drop} for c in b
    ]


@pytest.mark.slow
def test_bm25_against_hybrid_flips_cases_and_a_drop_gate_blocks_it(capsys, tmp_path, sample_root) -> None:
    """On the sample corpus, bm25 alone loses q19 and q36 that hybrid answers right (see the worked comparison in
    docs/rolling-out.md): flipped right -> wrong, and --max-drop answer=0 fails the run (exit 1)."""
    questions = sample_cases(tmp_path, ["q01", "q19", "q36"])
    hybrid, bm25 = toml(tmp_path / "hybrid.toml", ""), toml(tmp_path / "bm25.toml", 'mode = "bm25"\n')
    args = ("eval", questions, "--users", USERS, "--index", sample_root, "--ask", "--model", "local")
    args = (*args, "--compare", hybrid, bm25)
    proc = invoke(capsys, *args, "--max-drop", "answer=0", "--json")
    assert proc.returncode == 1, proc.stderr
    data = json_of(proc)
    assert [(f["id"], f["direction"]) for f in data["flipped"]] == [
        ("q19", "right_to_wrong"),
        ("q36", "right_to_wrong"),
    ]
    assert data["gates"]["max_drop_answer"]["passed"] is False and data["passed"] is False
    assert (data["a"]["setup"]["mode"], data["b"]["setup"]["mode"]) == ("hybrid", "bm25")
    junit = tmp_path / "b.xml"
    table = invoke(capsys, *args, "--max-drop", "answer=0", "--junit", junit)
    assert table.returncode == 1
    # The JUnit file judges what the exit code judges: the drop gate is one of its failed gates.
    failed = [c for c in ET.parse(junit).getroot().iter("testcase") if c.find("failure") is not None]
    assert [c.get("name") for c in failed] == ["max_drop_answer <= 0"]
    flipped = table.stdout[table.stdout.index("# flipped") :]
    assert flipped.startswith("# flipped: 2 right -> wrong, 0 wrong -> right") and "q19" in flipped
    assert "max_drop_answer" in table.stdout and "FAIL" in table.stdout


@pytest.mark.slow
def test_a_baseline_report_is_a_and_the_options_given_are_b(capsys, tmp_path, sample_root) -> None:
    questions = sample_cases(tmp_path, ["q01", "q19"])
    before = tmp_path / "before.json"
    args = ("eval", questions, "--users", USERS, "--index", sample_root, "--ask", "--model", "local")
    assert invoke(capsys, *args, "--json", "--output", before).returncode == 0
    kept, junit = tmp_path / "compare.json", tmp_path / "b.xml"
    proc = invoke(capsys, *args, "--mode", "bm25", "--baseline", before, "--json", "--output", kept, "--junit", junit)
    data = json_of(proc)
    assert json.loads(kept.read_text(encoding="utf-8")) == data  # --output holds the comparison
    assert "q19" in junit.read_text(encoding="utf-8")  # the CI formats describe run B
    assert data["a"]["setup"]["name"] == str(before) and data["b"]["setup"]["mode"] == "bm25"
    assert [f["id"] for f in data["flipped"]] == ["q19"]
    # The same options as the baseline: nothing moved.
    same = json_of(invoke(capsys, *args, "--baseline", before, "--json"))
    assert same["flipped"] == [] and all(m["diff"] == 0 for m in same["metrics"] if not m["metric"].endswith("ms"))


@pytest.mark.parametrize(
    "config, needle",
    [
        ("kk = 5\n", "unknown key 'kk' (did you mean 'k'?)"),
        ('k = "5"\n', "field 'k'"),
        ("k = 0\n", "field 'k'"),
        ('mode = "fuzzy"\n', "field 'mode'"),
        ("k = \n", "not TOML"),
        ("max-searches = 2\n", "unknown key 'max-searches' (did you mean 'max_searches'?)"),
        ('model = "local"\n', "sets model, which change the answers: add --ask"),
    ],
)
def test_a_bad_configuration_is_one_error_naming_the_file(capsys, tmp_path, config: str, needle: str) -> None:
    good, bad = toml(tmp_path / "good.toml", "k = 5\n"), toml(tmp_path / "bad.toml", config)
    proc = invoke(capsys, "eval", QUESTIONS, "--compare", good, bad)
    assert proc.returncode == 2 and proc.stdout == ""
    (line,) = proc.stderr.splitlines()
    assert line.startswith("error: ") and needle in line and ("bad.toml" in line or "TOML" in line), line


@pytest.mark.parametrize(
    "extra, needle",
    [
        (["--max-drop", "recall=0.1"], "--max-drop gates a comparison"),
        (["--compare", "a.toml", "b.toml", "--baseline", "x.json"], "not both"),
        (["--compare", "a.toml", "b.toml", "--max-drop", "speed=0.1"], "use METRIC=X with METRIC one of recall"),
        (["--compare", "a.toml", "b.toml", "--max-drop", "recall=2"], "between 0 and 1"),
        (["--compare", "a.toml", "b.toml", "--max-drop", "answer=0.1"], "--max-drop answer gates the answers"),
        (["--baseline", "missing.json"], "cannot read baseline"),
        (["--compare", "missing.toml", "b.toml"], "cannot read configuration"),
        (["--mode", "fuzzy"], "--mode 'fuzzy'"),
        (["--compare", "a.toml", "b.toml", "--seed", "-1"], "--seed"),
    ],
)
def test_bad_comparison_options_are_refused_before_anything_runs(capsys, tmp_path, extra, needle) -> None:
    proc = invoke(capsys, "eval", QUESTIONS, *[tmp_path / e if e.endswith((".toml", ".json")) else e for e in extra])
    assert proc.returncode == 2 and needle in proc.stderr and len(proc.stderr.splitlines()) == 1, proc.stderr


@pytest.mark.parametrize(
    "content, needle", [("[1, 2]", "not a JSON object"), ('{"k": 10}', "field 'case_count'"), ("{", "not valid JSON")]
)
def test_a_baseline_that_is_not_an_eval_report_is_refused(capsys, tmp_path, content: str, needle: str) -> None:
    path = tmp_path / "before.json"
    path.write_text(content, encoding="utf-8")
    proc = invoke(capsys, "eval", QUESTIONS, "--baseline", path)
    assert proc.returncode == 2 and needle in proc.stderr and str(path) in proc.stderr, proc.stderr


# --------------------------------------------------------------------------- LLM backends through mock transports

ERR = "What does ERR_4021 mean?"
ERR_LINES = [
    # Its first search misses sso-setup; only a search of the model's own finds it.
    {"id": "scim", "question": CDN, "as": "bob", "expect": "answer", "relevant": ["sso-setup"],
     "answer_contains": ["Enterprise"]},
    {"id": "err", "question": ERR, "as": "alice", "expect": "answer", "relevant": ["error-codes"],
     "answer_contains": ["expired"]},
    {"id": "off", "question": "What is the capital of Mongolia?", "as": "bob", "expect": "abstain"},
]  # fmt: skip


@pytest.fixture
def llm_cases(tmp_path: Path):
    from ragcli.eval import load_cases

    lines = [{**line, "as": str(USERS / f"{line['as']}.json"), "as_of": "2026-11-29"} for line in ERR_LINES]
    path = tmp_path / "llm.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    return load_cases(path, users=USERS)


@pytest.mark.parametrize("backend", list(BACKENDS.values()), ids=str)
def test_an_llm_that_searches_again_is_compared_and_broken_down(retriever, acme_pid, llm_cases, backend) -> None:
    """A answers from the question's search; B searches again (once refused for losing ERR_4021): B turns the SCIM
    case right, its re-search found the relevant page the first missed, and a quarter of its queries drifted."""
    from ragcli.answer import Answerer
    from ragcli.eval import evaluate

    fastway, scim = acme_pid("vendor-notes", "fastway-cdn"), acme_pid("sso-setup", "availability")
    use = backend.usage(1000, 50)
    a_api = backend.api(
        backend.answer(("Our CDN vendor is Fastway.", fastway, CDN_QUOTE), use=use),  # scim: wrong answer
        backend.abstain(use=use),  # err
        backend.abstain(use=use),  # off: the one rewrite turn after an empty search, not used to search
    )
    b_api = backend.api(
        backend.search("SCIM provisioning plan", use=use),  # scim: found only by this search
        backend.answer(("SCIM needs the Enterprise plan.", scim, SCIM_QUOTE), use=use),
        backend.search("error code meaning", use=use),  # err: loses ERR_4021, refused
        backend.search("ERR_4021 error meaning", use=use),
        backend.abstain(use=use),
        backend.abstain(use=use),  # off
    )
    a = evaluate(llm_cases, retriever, answerer=Answerer(a_api.model())).to_wire()
    b = evaluate(llm_cases, retriever, answerer=Answerer(b_api.model())).to_wire()
    assert a_api.remaining == b_api.remaining == 0 and not (a_api.overrun or b_api.overrun)

    rows = {c.id: c for c in b.cases}
    assert (rows["scim"].outcome, rows["scim"].searches, rows["scim"].repaired) == ("answered_right", 2, True)
    assert (rows["err"].model_queries, rows["err"].drifted_queries, rows["err"].searches) == (2, 1, 2)
    assert (rows["off"].searches, rows["off"].repaired, rows["off"].model_queries) == (1, None, 0)
    assert (b.model_queries, b.query_drift) == (3, round(1 / 3, 4))
    assert b.researched == round(2 / 3, 4) and b.repair_rate == 0.5  # err's re-search found no new relevant page
    assert (a.researched, a.repair_rate, a.query_drift) == (0.0, None, None)

    breakdown = b.breakdown
    assert breakdown is not None and breakdown.searches == {"1": 1, "2": 2}
    right = breakdown.by_outcome["answered_right"]
    assert (right.cases, right.tokens_per_case) == (1, 2100.0)  # two requests of 1000 + 50
    assert breakdown.by_outcome["abstained_wrong"].cases == 1 and breakdown.by_outcome["answered_wrong"].cases == 0
    assert set(breakdown.by_reason) == {"model_abstained", "no_visible_evidence"}
    assert breakdown.by_reason["model_abstained"].tokens_per_case == 3150.0  # err: three requests
    assert right.cost_usd is not None and 0 < right.cost_usd < (b.cost_usd or 0)  # both mock models are priced

    result = compare(a, b, drops={"answer": 0.0})
    assert [(f.id, f.direction) for f in result.flipped] == [("scim", "wrong_to_right")]
    searches = next(m for m in result.metrics if m.metric == "searches")
    assert (searches.a, searches.b, searches.diff) == (1.0, round(5 / 3, 4), round(2 / 3, 4))
    assert result.gates["max_drop_answer"].passed and result.passed
