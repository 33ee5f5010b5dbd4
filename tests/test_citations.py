"""The four citation checks on hand-made passages (pure functions, no index)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragcli.answer.citations import CHECKS, all_passed, check_claim, check_claims, coded_tokens, normalize, numbers_in


@dataclass(frozen=True)
class P:
    text: str


@dataclass(frozen=True)
class C:
    statement: str
    passage_id: str
    quote: str


REFUNDS = P(
    "Annual plans are refundable within 30 days of the purchase date.\n\n"
    "- The refund covers the full amount paid for the annual term.\n"
    "- After day 30 the subscription runs until the end of the term and is not refunded."
)
LIMITS = P("Tier 2 keys are limited to 600 requests per minute with a burst allowance of 1200 requests.")
OUTAGE = P("About 10 percent of API requests failed with ERR_5003 during the outage, affecting 1,200 customers.")
STYLED = P(
    'Ship windows run Monday \u2013 Thursday. The owner keeps a "break-glass" password.\n'
    "Open **Console > Billing > Request refund** and pick the invoice.\n"
    "The file is stored for 90 days."
)
CHANGELOG = P(
    "## v2.3.1\n\nFixed: retry_backoff_ms now defaults to 800 after ERR_4021. See PEP 723 for script metadata.\n\n"
    "| Tier | Requests per minute | Burst |\n|---|---|---|\n| 2 | 600 | 1200 |"
)
PASSAGES = {
    "refunds#annual": REFUNDS,
    "limits#tiers": LIMITS,
    "outage#summary": OUTAGE,
    "styled#x": STYLED,
    "changelog#v231": CHANGELOG,
}


def run(statement: str, passage_id: str, quote: str) -> dict[str, bool]:
    results = check_claim(0, C(statement, passage_id, quote), PASSAGES)
    assert [r.check for r in results] == list(CHECKS)
    return {r.check: r.passed for r in results}


# --------------------------------------------------------------------------- quote_in_passage


@pytest.mark.parametrize(
    "passage_id, quote",
    [
        ("refunds#annual", "Annual plans are refundable within 30 days"),  # exact
        ("refunds#annual", "annual   PLANS are\n refundable   WITHIN"),  # whitespace and case
        ("refunds#annual", "purchase date.\n\n- The refund covers"),  # across a line break and list marker
        ("styled#x", "run Monday - Thursday. The owner"),  # en dash in the passage, ASCII hyphen in the quote
        ("styled#x", "keeps a \u201cbreak\u2011glass\u201d password"),  # curly quotes, non-breaking hyphen
        ("styled#x", "the \ufb01le is stored for"),  # NFKC: the fi ligature
        ("styled#x", "\uff34\uff48\uff45 file is stored"),  # NFKC: full-width letters
        ("styled#x", "Open Console > Billing > Request refund"),  # Markdown emphasis dropped
    ],
)
def test_quote_found_after_normalisation(passage_id: str, quote: str) -> None:
    checks = run("A statement without numbers.", passage_id, quote)
    assert checks == {"retrieved": True, "quote_length": True, "quote_in_passage": True, "numbers_in_passage": True}


def test_en_dash_in_quote_matches_hyphen_in_passage() -> None:
    passage = {"p": P("Deploys are allowed Monday-Thursday between 09:00 and 16:00 UTC.")}
    results = check_claims(
        [C("Deploys happen early in the week.", "p", "are allowed Monday\u2013Thursday between")], passage
    )
    assert all_passed(results)


def test_normalize_is_what_the_docstring_says() -> None:
    assert normalize("  \u201cHello\u201d \u2014 WORLD\u2019s  **bold**\n") == '"hello" - world\'s bold'


def test_three_word_quote_fails_length_only() -> None:
    checks = run("Annual plans can be refunded.", "refunds#annual", "Annual plans are")
    assert checks == {"retrieved": True, "quote_length": False, "quote_in_passage": True, "numbers_in_passage": True}


def test_four_word_quote_is_the_minimum() -> None:
    assert run("Annual plans can be refunded.", "refunds#annual", "Annual plans are refundable")["quote_length"] is True


def test_quote_not_in_passage_fails() -> None:
    checks = run("Annual plans can be refunded.", "refunds#annual", "Annual plans are refundable within 60 days")
    assert checks["quote_in_passage"] is False
    assert checks["retrieved"] and checks["quote_length"]


def test_quote_from_another_passage_fails() -> None:
    # The words exist, but in a different passage than the one cited.
    checks = run("Tier 2 has a limit.", "refunds#annual", "Tier 2 keys are limited")
    assert checks["quote_in_passage"] is False


def test_empty_after_normalisation_quote_fails() -> None:
    checks = run("Nothing.", "styled#x", "** ** ** **")
    assert checks["quote_in_passage"] is False


# --------------------------------------------------------------------------- numbers_in_passage


@pytest.mark.parametrize(
    "passage_id, statement, supported",
    [
        ("limits#tiers", "Tier 2 has a burst allowance of 1,200 requests.", True),  # 1,200 vs 1200
        ("outage#summary", "The outage affected 1200 customers.", True),  # 1200 vs 1,200
        ("outage#summary", "About 10% of requests failed.", True),  # 10% vs 10 percent
        ("outage#summary", "About 10 per cent of requests failed.", True),
        ("limits#tiers", "Tier 2 allows 600 requests per minute.", True),
        ("limits#tiers", "Tier 2 allows 700 requests per minute.", False),  # 700 is not in the passage
        ("limits#tiers", "Tier 2 allows 600 requests per minute, 10% of Tier 3.", False),
        ("limits#tiers", "Tier 2 allows 600% more requests.", False),  # a percent needs a percent in the passage
        ("refunds#annual", "Annual plans are refundable within 30.0 days.", True),  # the same value
        ("refunds#annual", "Annual plans are refundable within 14 days.", False),
        ("refunds#annual", "Annual plans are refundable within 3 days.", False),  # 3 is not a piece of 30
        ("outage#summary", "ERR_5003 was returned.", True),  # part of an identifier, not a number
    ],
)
def test_numbers_in_passage(passage_id: str, statement: str, supported: bool) -> None:
    text = PASSAGES[passage_id].text
    quote = " ".join(text.split()[:5])
    checks = run(statement, passage_id, quote)
    assert checks["quote_in_passage"] is True
    assert checks["numbers_in_passage"] is supported


@pytest.mark.parametrize(
    "statement, supported",
    [
        ("Fixed in v2.3.1: the default is 800.", True),
        ("Fixed in v2.4.0: the default is 800.", False),  # a version the passage does not name
        ("See ERR_4021 for the backoff.", True),
        ("See ERR_9999 for the backoff.", False),  # an error code the passage does not name
        ("PEP 723 covers script metadata.", True),
        ("PEP 724 covers script metadata.", False),  # 724 is nowhere; the unit is checked whole
        ("The setting is retry_backoff_ms.", True),
        ("Set retry_backoff_ms2 instead.", False),
    ],
)
def test_numbers_inside_identifiers_and_versions_are_checked(statement: str, supported: bool) -> None:
    checks = run(statement, "changelog#v231", "retry_backoff_ms now defaults to 800")
    assert checks["quote_in_passage"] is True
    assert checks["numbers_in_passage"] is supported, statement


def test_a_version_in_emphasis_supports_the_same_version_without_it() -> None:
    # prettier's options page: "_First available in v1.9.0_". The statement a person reads drops the emphasis; the
    # check failed on the passage's "v1.9.0_" and sank a right answer (prettier/docs/options.md, MIT).
    passages = {"o#p": P('- `"preserve"` - Keep the existing wrapping as-is. _First available in v1.9.0_')}
    quote = '`"preserve"` - Keep the existing wrapping as-is. _First available in v1.9.0_'
    assert all_passed(
        check_claims([C('"preserve" keeps the wrapping; first available in v1.9.0.', "o#p", quote)], passages)
    )
    assert not all_passed(check_claims([C("First available in v1.9.1.", "o#p", quote)], passages))
    assert coded_tokens("__init__2 and _v2_") == {"init__2", "v2"}


@pytest.mark.parametrize("quote", ["| 600 | | |", "| 2 | 600 | 1200 |", "**  ** v2.3.1 **", "--- | --- | ---"])
def test_markup_and_table_pipes_are_not_words(quote: str) -> None:
    checks = run("Tier 2 allows 600 requests per minute.", "changelog#v231", quote)
    assert checks["quote_length"] is False, quote


def test_a_table_row_with_four_real_words_is_long_enough() -> None:
    passages = {"t#x": P("| Tier | Limit |\n|---|---|\n| Tier 2 keys | 600 per minute |")}
    assert all_passed(
        check_claims([C("Tier 2 keys allow 600 per minute.", "t#x", "| Tier 2 keys | 600 per minute |")], passages)
    )


def test_numbers_in_parses_separators_and_percent() -> None:
    found = [(n.value, n.percent) for n in numbers_in("1,200 users, 10% and 7.50 and 3 percent and 2,000,000")]
    assert found == [
        (Decimal(1200), False),
        (Decimal(10), True),
        (Decimal("7.5"), False),
        (Decimal(3), True),
        (Decimal(2_000_000), False),
    ]


def test_number_failure_detail_names_the_number() -> None:
    results = check_claim(0, C("It allows 700 requests.", "limits#tiers", "Tier 2 keys are limited"), PASSAGES)
    failed = [r for r in results if not r.passed]
    assert [r.check for r in failed] == ["numbers_in_passage"]
    assert "700" in failed[0].detail


# --------------------------------------------------------------------------- retrieved


def test_unknown_passage_id_fails_retrieved_and_everything_after() -> None:
    checks = run(
        "Annual plans are refundable within 30 days.",
        "pay-bands@2026-03-01#engineering-bands",
        "Annual plans are refundable within",
    )
    assert checks == {"retrieved": False, "quote_length": True, "quote_in_passage": False, "numbers_in_passage": False}


def test_one_bad_claim_sinks_the_answer() -> None:
    good = C("Tier 2 allows 600 requests per minute.", "limits#tiers", "limited to 600 requests per minute")
    bad = C("Annual plans are refundable.", "refunds#annual", "Annual plans are refundable forever")
    results = check_claims([good, bad], PASSAGES)
    assert [r.claim for r in results] == [0] * 4 + [1] * 4
    assert all(r.passed for r in results if r.claim == 0)
    assert not all_passed(results)
    assert all_passed(check_claims([good], PASSAGES))


def test_no_claims_is_not_a_pass() -> None:
    assert all_passed([]) is False


# --------------------------------------------------------------------------- property


_WORD_CHARS = st.characters(blacklist_categories=("Cs", "Cc", "Zs", "Zl", "Zp"))
_word = st.text(_WORD_CHARS, min_size=1, max_size=10).filter(
    lambda w: not w.isspace() and any(c.isalnum() for c in w) and w == w.strip()
)
_separator = st.sampled_from([" ", "  ", "\n", "\n\n", "\t", " \u00a0", "\u2003"])


@pytest.mark.slow
@settings(
    max_examples=300,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(
    words=st.lists(_word, min_size=4, max_size=30),
    seps=st.lists(_separator, min_size=30, max_size=30),
    data=st.data(),
)
def test_any_four_word_substring_is_found(words: list[str], seps: list[str], data: st.DataObject) -> None:
    text = words[0] + "".join(sep + w for sep, w in zip(seps, words[1:], strict=False))
    tokens = text.split()
    start = data.draw(st.integers(0, len(tokens) - 4), label="start")
    end = data.draw(st.integers(start + 4, len(tokens)), label="end")
    quote = " ".join(tokens[start:end])
    results = {r.check: r for r in check_claim(0, C("No digits here.", "p", quote), {"p": P(text)})}
    assert results["quote_length"].passed
    assert results["quote_in_passage"].passed, (text, quote, normalize(text), normalize(quote))
