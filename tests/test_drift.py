"""Query drift (``answer.drift``): which terms of a question a model's query must keep, and when it keeps them.

Pure functions, checked against questions written by hand; the loop's use of
them (refusal, note, trace, budget) is in ``test_answer_loop.py`` and, through
both SDKs, ``test_backend_contract.py``.
"""

from __future__ import annotations

import pytest

from ragcli.answer.drift import Term, drift, must_keep


def kept(question: str) -> list[tuple[str, str]]:
    return [(t.kind, t.text) for t in must_keep(question)]


@pytest.mark.parametrize(
    "question, terms",
    [
        ("What does ERR_4021 mean?", [("identifier", "ERR_4021")]),
        (
            "What did v2.3.1 change about retry_backoff_ms?",
            [("identifier", "v2.3.1"), ("identifier", "retry_backoff_ms")],
        ),
        ("How do I fix ORB-7731?", [("identifier", "ORB-7731")]),
        ("What caused the API outage on 2026-07-18?", [("identifier", "2026-07-18")]),
        ("How many requests per minute does Tier 2 allow?", [("identifier", "Tier 2")]),
        ("Does uv read pylock.toml on macOS?", [("identifier", "pylock.toml"), ("identifier", "macOS")]),
        ("What does uv sync --frozen skip?", [("identifier", "--frozen")]),
        ("Within 30 days, can I get a refund?", [("number", "30 days")]),  # "Within" only starts the sentence
        ("Is there a 20% discount on the $49 plan?", [("number", "20%"), ("number", "$49")]),
        ("Who won the 2018 FIFA World Cup?", [("number", "2018")]),
        ("Are 1,200 requests allowed in 2 GB?", [("number", "1,200 requests"), ("number", "2 GB")]),
        ('What does the "partial month" rule say?', [("quoted", "partial month")]),
        ("What does `uv lock` do?", [("quoted", "uv lock")]),
        ("Which plans do not include SSO?", [("negation", "not")]),
        ("Why can't I export without a token?", [("negation", "can't")]),  # one negation term
        # Acronyms and capitalised words are not identifiers: a rewrite may spell them out.
        ("Who is our CDN vendor and when does the contract renew?", []),
        ("Which plan is needed for SCIM provisioning?", []),
    ],
)
def test_what_a_question_asks_about(question: str, terms: list[tuple[str, str]]) -> None:
    assert kept(question) == terms


def lost(question: str, *queries: str, dropped: tuple[str, ...] = ()) -> list[str]:
    return [t.text for t in drift(must_keep(question), queries, dropped).lost]


@pytest.mark.parametrize(
    "question, query, gone",
    [
        ("What does ERR_4021 mean?", "err_4021 meaning", []),  # case-insensitive
        ("What does ERR_4021 mean?", "ERR 4021 meaning", ["ERR_4021"]),  # a code is kept whole
        ("What does ERR_4021 mean?", "ERR_4022 meaning", ["ERR_4021"]),
        ("How many requests does Tier 2 allow?", "tier-2 limits", []),
        ("How many requests does Tier 2 allow?", "Tier2 limits", []),
        ("How many requests does Tier 2 allow?", "Tier 20 limits", ["Tier 2"]),
        ("Is the refund window 30 days?", "refund window of 30 day", []),  # singular or plural
        ("Is the refund window 30 days?", "refund window 30", ["30 days"]),  # the unit is lost
        ("Is the refund window 30 days?", "refund window 30 weeks", ["30 days"]),
        ("Is the refund window 30 days?", "refund window days", ["30 days"]),
        ("Is there a 20% discount?", "20 percent discount", []),
        ("Is there a 20% discount?", "20 discount", ["20%"]),
        ('What does the "partial month" rule say?', "rule for a Partial  Month", []),
        ('What does the "partial month" rule say?', "partial refund for a month", ["partial month"]),
        ("Which plans do not include SSO?", "plans without SSO", []),  # any negation keeps it
        ("Which plans do not include SSO?", "plans that include SSO", ["not"]),
        ("What does uv sync --frozen skip?", "--frozen flag of uv sync", []),
        ("What does uv sync --frozen skip?", "frozen flag of uv sync", ["--frozen"]),
    ],
)
def test_when_a_query_keeps_a_term(question: str, query: str, gone: list[str]) -> None:
    assert lost(question, query) == gone


def test_the_parts_of_one_decomposition_keep_a_term_together() -> None:
    question = "What does ERR_4021 mean, and what did v2.3.1 change?"
    assert lost(question, "ERR_4021 meaning", "v2.3.1 changes") == []
    assert lost(question, "error meaning", "v2.3.1 changes") == ["ERR_4021"]
    assert lost(question, "error meaning", "release changes") == ["ERR_4021", "v2.3.1"]


@pytest.mark.parametrize(
    "dropped, gone, let_go",
    [
        (("ERR_4021",), ["v2.3.1"], ["ERR_4021"]),
        (("`err_4021`", '"v2.3.1"'), [], ["ERR_4021", "v2.3.1"]),  # quoted and in any case
        (("ERR_4022",), ["ERR_4021", "v2.3.1"], []),  # naming something else lets nothing go
    ],
)
def test_a_term_named_in_dropped_is_let_go(dropped: tuple[str, ...], gone: list[str], let_go: list[str]) -> None:
    result = drift(must_keep("What did v2.3.1 change for ERR_4021?"), ["release notes"], dropped)
    assert sorted(t.text for t in result.lost) == sorted(gone)
    assert sorted(t.text for t in result.dropped) == sorted(let_go)


def test_a_number_or_negation_is_named_by_its_value_or_any_negation() -> None:
    question = "Can a monthly plan not be refunded within 7 days?"
    assert lost(question, "monthly refunds", dropped=("7", "never")) == []
    assert lost(question, "monthly refunds", dropped=("negation",)) == ["7 days"]


def test_a_question_with_nothing_to_keep_refuses_no_query() -> None:
    assert drift(must_keep("Who is our CDN vendor?"), ["anything at all"]) == drift([], [])
    assert Term("negation", "not").shown == "the negation 'not'" and Term("identifier", "L3").shown == "L3"
