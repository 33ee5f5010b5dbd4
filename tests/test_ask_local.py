"""The local (extractive) model end to end on sample_corpus: library and CLI.

Real index, real ONNX model, real subprocesses. The CLI runs are started
together by one module fixture (two at a time) and the tests read the results.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import pytest
from support.cli import assert_one_error_line, cli_many, json_of
from support.corpus import all_passages, scope, user, visible_to
from support.paths import DAY, USERS

from ragcli import Scope
from ragcli.answer import ABSTAIN_MESSAGE, REASON_CODES, Abstained, Answered, ask
from ragcli.answer.citations import CHECKS, all_passed, check_claims
from ragcli.answer.protocol import Claim
from ragcli.eval.metrics import label_matches

REQUEST_ID = re.compile(r"\b[0-9a-f]{32}\b")

# question, user, as_of, cited doc prefix, must appear in the answer, must not appear
ANSWERABLE = [
    ("What does ERR_4021 mean?", "alice", "2026-11-29", "error-codes@", ["ERR_4021", "expired"], []),
    (
        "How many requests per minute does Tier 2 allow?",
        "bob",
        "2026-11-29",
        "api-rate-limits@",
        ["Tier 2", "600 requests per minute"],
        ["300"],
    ),
    (
        "How many requests per minute does Tier 2 allow?",
        "gus",
        "2026-11-29",
        "api-rate-limits@",
        ["Tier 2", "300 requests per minute"],
        ["600"],
    ),
    (
        "Within how many days of purchase are annual plans refundable?",
        "bob",
        "2026-11-29",
        "refunds-policy@2026-09#",
        ["30 days"],
        ["14 days"],
    ),
    (
        "Within how many days of purchase are annual plans refundable?",
        "bob",
        "2026-03-01",
        "refunds-policy@2025-01#",
        ["14 days"],
        ["30 days"],
    ),
]
CASE_IDS = ["err4021-alice", "tier2-bob-acme", "tier2-gus-globex", "refund-2026-11-29", "refund-2026-03-01"]
OFF_TOPIC = "What is the capital of Mongolia?"
PAY_BAND_QUESTION = "What is the salary band for an L3 engineer?"


def _passage_index(sample_passages, tenant: str) -> dict:
    return {p.id: p for p in sample_passages[tenant]}


# --------------------------------------------------------------------------- library


@pytest.mark.parametrize("question, name, as_of, prefix, must, must_not", ANSWERABLE, ids=CASE_IDS)
def test_library_answers_with_valid_citations(
    retriever, local_model, sample_passages, question, name, as_of, prefix, must, must_not
) -> None:
    principal = user(name)
    day = dt.date.fromisoformat(as_of)
    outcome = ask(question, Scope.of(principal, day), retriever, local_model)

    assert outcome.disposition == "answered", (getattr(outcome, "reason", None), outcome.evidence_ids)
    assert isinstance(outcome, Answered)
    wire = outcome.to_wire()
    assert wire.reason is None and wire.message is None
    assert outcome.claims and label_matches(prefix.rstrip("@#"), outcome.claims[0].passage.id)
    own = _passage_index(sample_passages, principal.tenant)
    for claim in outcome.claims:
        stored = own[claim.passage.id]  # a real passage of the principal's own tenant
        assert stored.text == claim.passage.text
        assert claim.passage.tenant == principal.tenant
        assert visible_to(stored, principal, day), claim.passage.id
        assert claim.passage.id in outcome.evidence_ids
    # Every evidence passage was visible too, not only the cited ones.
    assert all(visible_to(own[pid], principal, day) for pid in outcome.evidence_ids)
    # The checks ran, passed, and pass again when recomputed from the stored passages.
    assert len(outcome.checks) == len(CHECKS) * len(outcome.claims) and all_passed(outcome.checks)
    assert all_passed(check_claims(outcome.claims and [_as_claim(c) for c in outcome.claims], own))
    for text in must:
        assert text in outcome.answer, outcome.answer
    for text in must_not:
        assert text not in outcome.answer, outcome.answer


def _as_claim(cited):
    return Claim(cited.statement, cited.passage.id, cited.quote)


def test_library_off_topic_abstains_without_evidence(retriever, local_model) -> None:
    outcome = ask(OFF_TOPIC, scope("bob", DAY), retriever, local_model)
    assert isinstance(outcome, Abstained)
    assert (outcome.disposition, outcome.reason) == ("abstained", "no_visible_evidence")
    wire = outcome.to_wire()
    assert wire.claims == [] and outcome.evidence_ids == () and outcome.checks == ()
    assert wire.answer is None and outcome.message == ABSTAIN_MESSAGE
    assert outcome.searches == 1


def test_library_restricted_page_answers_only_for_its_group(retriever, local_model, sample_passages) -> None:
    hana = ask(PAY_BAND_QUESTION, scope("hana", DAY), retriever, local_model)
    assert hana.disposition == "answered"
    assert hana.claims[0].passage.id.startswith("pay-bands@") and "$120,000" in hana.answer

    bob = ask(PAY_BAND_QUESTION, scope("bob", DAY), retriever, local_model)
    assert bob.disposition == "abstained" and bob.message == ABSTAIN_MESSAGE
    assert not any(pid.startswith("pay-bands@") for pid in bob.evidence_ids)
    assert "120,000" not in json.dumps(bob.to_wire().model_dump(mode="json"))


# --------------------------------------------------------------------------- CLI


def _ask_args(question: str, name: str, as_of: str | None, *extra: object) -> list[object]:
    args: list[object] = ["ask", question, "--as", USERS / f"{name}.json", "--model", "local"]
    if as_of:
        args += ["--as-of", as_of]
    return args + list(extra)


@pytest.fixture(scope="module")
def cli_runs(
    sample_root: Path, index_without_pay_bands: Path, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, object]:
    bad = tmp_path_factory.mktemp("bad-users")
    (bad / "not-json.json").write_text('{"user": "bob", "tenant": "acme", "groups": ["engineering"]', encoding="utf-8")
    (bad / "extra.json").write_text(
        json.dumps({"user": "bob", "tenant": "acme", "groups": ["hr"], "admin": True}), encoding="utf-8"
    )
    commands: dict[str, list[object]] = {}
    for (question, name, as_of, *_), case_id in zip(ANSWERABLE, CASE_IDS, strict=True):
        commands[f"json:{case_id}"] = _ask_args(question, name, as_of, "--json")
    commands["json:off-topic"] = _ask_args(OFF_TOPIC, "bob", "2026-11-29", "--json")
    commands["text:err4021"] = _ask_args(ANSWERABLE[0][0], "alice", "2026-11-29")
    for label, index in (("forbidden", sample_root), ("missing", index_without_pay_bands)):
        commands[f"text:{label}"] = _ask_args(PAY_BAND_QUESTION, "bob", "2026-11-29", "--index", index)
        commands[f"json:{label}"] = _ask_args(PAY_BAND_QUESTION, "bob", "2026-11-29", "--index", index, "--json")
    commands["err:not-json"] = ["ask", "What does ERR_4021 mean?", "--as", bad / "not-json.json", "--model", "local"]
    commands["err:extra-field"] = ["ask", "What does ERR_4021 mean?", "--as", bad / "extra.json", "--model", "local"]
    commands["err:no-file"] = ["ask", "What does ERR_4021 mean?", "--as", bad / "nobody.json", "--model", "local"]
    commands["err:as-of"] = _ask_args("What does ERR_4021 mean?", "alice", "2026-02-30")
    commands["err:model"] = ["ask", "What does ERR_4021 mean?", "--as", USERS / "alice.json", "--model", "gpt-4"]
    results = cli_many(list(commands.values()), index=sample_root)
    return dict(zip(commands, results, strict=True))


CLAIM_KEYS = {"statement", "passage_id", "quote", "source", "pages"}
OUTCOME_KEYS = {"disposition", "answer", "claims", "reason", "message", "searches", "model", "request_id", "usage"}
USAGE_KEYS = {"input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"}


def _check_shape(data: dict) -> None:
    # The brief's shape plus "sources" (the numbered source list docs/commands/ask.md documents).
    assert set(data) == OUTCOME_KEYS | {"sources", "conflicts"}, set(data) ^ (OUTCOME_KEYS | {"sources", "conflicts"})
    assert [s["n"] for s in data["sources"]] == list(range(1, len(data["sources"]) + 1))
    assert all(set(s) == {"n", "passage_id", "title", "source", "pages", "ocr"} for s in data["sources"])
    assert [s["passage_id"] for s in data["sources"]] == list(dict.fromkeys(c["passage_id"] for c in data["claims"]))
    assert data["disposition"] in ("answered", "abstained")
    assert data["model"] == "local"
    assert REQUEST_ID.fullmatch(data["request_id"])
    assert isinstance(data["searches"], int) and data["searches"] >= 1
    assert set(data["usage"]) == USAGE_KEYS and all(isinstance(v, int) for v in data["usage"].values())
    for claim in data["claims"]:
        assert set(claim) == CLAIM_KEYS and claim["pages"] == []  # a PDF's pages; the sample corpus has no PDF
        assert all(isinstance(v, str) and v for k, v in claim.items() if k != "pages")


@pytest.mark.slow
@pytest.mark.parametrize("case", range(len(ANSWERABLE)), ids=CASE_IDS)
def test_cli_answers_exit_0_with_json_shape(cli_runs, sample_passages, case: int) -> None:
    question, name, as_of, prefix, must, must_not = ANSWERABLE[case]
    proc = cli_runs[f"json:{CASE_IDS[case]}"]
    assert proc.returncode == 0, (proc.stdout, proc.stderr)
    data = json_of(proc)
    _check_shape(data)
    assert data["disposition"] == "answered" and data["reason"] is None and data["message"] is None
    assert data["claims"] and label_matches(prefix.rstrip("@#"), data["claims"][0]["passage_id"])
    principal = user(name)
    own = _passage_index(sample_passages, principal.tenant)
    claims = [Claim(c["statement"], c["passage_id"], c["quote"]) for c in data["claims"]]
    assert all_passed(check_claims(claims, own))
    for c in data["claims"]:
        stored = own[c["passage_id"]]
        assert visible_to(stored, principal, dt.date.fromisoformat(as_of))
        assert c["source"] == (stored.source_url or stored.source)
    assert "[1]" in data["answer"]
    for text in must:
        assert text in data["answer"]
    for text in must_not:
        assert text not in data["answer"]


@pytest.mark.slow
def test_cli_off_topic_abstains_exit_1(cli_runs) -> None:
    proc = cli_runs["json:off-topic"]
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    data = json_of(proc)
    _check_shape(data)
    assert data["disposition"] == "abstained" and data["reason"] == "no_visible_evidence"
    assert data["answer"] is None and data["claims"] == [] and data["message"] == ABSTAIN_MESSAGE
    assert proc.stderr.strip() == ""


@pytest.mark.slow
def test_cli_text_output(cli_runs) -> None:
    answered = cli_runs["text:err4021"]
    assert answered.returncode == 0, answered.stderr
    assert "ERR_4021" in answered.stdout and "[1] error-codes@" in answered.stdout
    assert "model: local" in answered.stderr and "model:" not in answered.stdout  # the footer goes to stderr
    abstained = cli_runs["text:forbidden"]
    assert abstained.returncode == 1, abstained.stderr
    assert ABSTAIN_MESSAGE in abstained.stdout and "reason: " in abstained.stdout


@pytest.mark.slow
def test_missing_and_forbidden_look_identical(cli_runs, sample_passages, index_without_pay_bands) -> None:
    # Preconditions: the full index has the page (bob cannot read it), the other index does not.
    assert any(p.doc_id == "pay-bands" for p in sample_passages["acme"])
    remaining = all_passages(index_without_pay_bands, "acme")
    assert remaining and not any(p.doc_id == "pay-bands" for p in remaining)

    forbidden_text, missing_text = cli_runs["text:forbidden"], cli_runs["text:missing"]
    forbidden_json, missing_json = cli_runs["json:forbidden"], cli_runs["json:missing"]
    for proc in (forbidden_text, missing_text, forbidden_json, missing_json):
        assert proc.returncode == 1, (proc.args, proc.stdout, proc.stderr)
    assert forbidden_json.stderr == missing_json.stderr == ""
    assert REQUEST_ID.sub("<id>", forbidden_text.stderr) == REQUEST_ID.sub("<id>", missing_text.stderr)  # the footer
    assert ABSTAIN_MESSAGE in forbidden_text.stdout
    assert REQUEST_ID.sub("<id>", forbidden_text.stdout) == REQUEST_ID.sub("<id>", missing_text.stdout)

    a, b = json_of(forbidden_json), json_of(missing_json)
    assert a["request_id"] != b["request_id"]
    a.pop("request_id"), b.pop("request_id")
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    # Also byte for byte on stdout, once the request id is masked.
    assert REQUEST_ID.sub("<id>", forbidden_json.stdout) == REQUEST_ID.sub("<id>", missing_json.stdout)
    assert "pay-bands" not in forbidden_json.stdout + forbidden_text.stdout


def test_real_abstentions_for_different_reasons_look_the_same(retriever, local_model) -> None:
    """Real abstentions through the real loop, for different reasons and after different evidence.

    Off-topic (nothing visible), a page bob may not read (whatever reason the local model gives),
    and an answerable question with no turn left (budget_exhausted, after ten passages): the user
    sees the same sentence and the same JSON shape; only the reason code (and the request id,
    usage, search count) differ.
    """
    from ragcli.answer import Answerer, Limits

    outcomes = [
        ask(OFF_TOPIC, scope("bob", DAY), retriever, local_model),
        ask(PAY_BAND_QUESTION, scope("bob", DAY), retriever, local_model),
        ask(ANSWERABLE[0][0], scope("alice", DAY), retriever, Answerer(local_model, Limits(max_turns=0))),
    ]
    assert all(isinstance(o, Abstained) for o in outcomes), [
        (o.disposition, getattr(o, "reason", None)) for o in outcomes
    ]
    reasons = {o.reason for o in outcomes}
    assert {"no_visible_evidence", "budget_exhausted"} <= reasons, reasons
    seen = {len(o.evidence_ids) for o in outcomes}
    assert 0 in seen and len(seen) >= 2, seen  # the runs really saw different evidence
    wires = set()
    for outcome in outcomes:
        data = outcome.to_wire().model_dump(mode="json")
        assert data["reason"] == outcome.reason and data["message"] == ABSTAIN_MESSAGE
        for pid in outcome.evidence_ids:  # nothing the run saw reaches the user
            assert pid not in json.dumps(data), pid
        wires.add(
            json.dumps(
                {k: v for k, v in data.items() if k not in ("reason", "request_id", "usage", "searches")},
                sort_keys=True,
            )
        )
    assert len(wires) == 1, wires
    assert json.loads(wires.pop()) == {
        "disposition": "abstained",
        "answer": None,
        "claims": [],
        "sources": [],
        "conflicts": [],
        "message": ABSTAIN_MESSAGE,
        "model": "local",
    }
    # The one sentence names no reason and hints at no permission.
    for reason in REASON_CODES:
        assert reason.replace("_", " ") not in ABSTAIN_MESSAGE
    for word in ("forbidden", "permission", "restricted", "access", "exist"):
        assert word not in ABSTAIN_MESSAGE.lower()


@pytest.mark.slow
@pytest.mark.parametrize(
    "key, needles",
    [
        ("err:not-json", ["not-json.json", "not valid JSON"]),
        ("err:extra-field", ["extra.json", "admin"]),
        ("err:no-file", ["nobody.json"]),
        ("err:as-of", ["--as-of", "2026-02-30"]),
        ("err:model", ["unknown model", "gpt-4"]),
    ],
)
def test_cli_bad_input_exits_2(cli_runs, key: str, needles: list[str]) -> None:
    proc = cli_runs[key]
    assert_one_error_line(proc, *needles)
    assert proc.stdout == ""


def test_the_answerability_verdict_is_graded_in_the_trace(retriever, local_model) -> None:
    """The local model's answerability, as an evidence grade: sufficient when it answers; missing when the
    question names what no visible passage holds (the ERR_4021 page is acme's, gina is at globex)."""
    answered = ask("What does ERR_4021 mean?", Scope.of(user("alice"), dt.date(2026, 11, 29)), retriever, local_model)
    assert [(d.kind, d.verdict) for d in answered.trace.decisions] == [("claims", "sufficient")]
    missing = ask("What does ERR_4021 mean?", Scope.of(user("gina"), dt.date(2026, 11, 29)), retriever, local_model)
    assert isinstance(missing, Abstained) and [(d.kind, d.verdict) for d in missing.trace.decisions] == [
        ("abstain", "missing")
    ]
    assert "ERR_4021" not in json.dumps([d.model_dump() for d in missing.trace.decisions])
