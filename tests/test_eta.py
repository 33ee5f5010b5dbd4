"""Ingest's time left: model work over a moving rate, checked with synthetic rates (no timing in the test)."""

from __future__ import annotations

import re

import pytest
from support.cli import cli_tty
from support.corpus import markdown, write


def test_a_steady_rate_gives_the_exact_time_left_from_the_start() -> None:
    from ragcli.ingestion import RemainingTime

    estimate = RemainingTime(total=1000.0)
    estimate.start(now=100.0)
    assert estimate.seconds_left(100.0) is None  # no rate yet
    for second in range(1, 11):  # 10 units a second: 100 seconds in all
        estimate.update(done=10.0 * second, now=100.0 + second)
        assert estimate.seconds_left(100.0 + second) == pytest.approx(100.0 - second)
    # Between two updates the clock keeps running.
    assert estimate.seconds_left(112.5) == pytest.approx(87.5)


def test_the_rate_is_a_moving_one_it_follows_a_machine_that_slows_down() -> None:
    from ragcli.ingestion import RemainingTime

    estimate = RemainingTime(total=10_000.0, window_s=20.0)
    estimate.start(now=0.0)
    done, now = 0.0, 0.0
    for _ in range(60):  # 60 s at 50 units/s
        now, done = now + 1.0, done + 50.0
        estimate.update(done, now)
    assert estimate.seconds_left(now) == pytest.approx((10_000 - 3000) / 50)
    for _ in range(30):  # then 30 s at 20 units/s: the window holds only the slow rate
        now, done = now + 1.0, done + 20.0
        estimate.update(done, now)
    assert estimate.seconds_left(now) == pytest.approx((10_000 - done) / 20)
    # A whole-run average (40 units/s) would promise half the time that is really left.
    assert (10_000 - done) / (done / now) < 0.7 * estimate.seconds_left(now)


def test_a_short_burst_is_no_rate() -> None:
    from ragcli.ingestion import RemainingTime

    estimate = RemainingTime(total=100.0, min_span_s=1.0)
    estimate.start(now=0.0)
    estimate.update(done=50.0, now=0.2)
    assert estimate.seconds_left(0.2) is None
    estimate.update(done=60.0, now=1.2)
    assert estimate.seconds_left(1.2) == pytest.approx(40 / 50)


def test_work_counts_padding_and_length_as_the_model_sees_them(embedder) -> None:
    from ragcli.embedder import ATTENTION_WIDTH, BATCH_OVERHEAD, SPECIAL_TOKENS, sequence_work

    # One batch: every row padded to the longest, special tokens included, plus what a call costs.
    assert embedder.batch_work([10, 100]) == pytest.approx(sequence_work([12, 102]))
    assert sequence_work([12, 102]) == pytest.approx(BATCH_OVERHEAD + 2 * 102 * (1 + 102 / ATTENTION_WIDTH))
    # Sorted and batched by 8 as ``embed`` does: 8 short texts together, the long ones together.
    lengths = [5] * 8 + [200] * 8
    assert embedder.batch_work(lengths[::-1]) == pytest.approx(sequence_work([7] * 8) + sequence_work([202] * 8))
    # Inputs over the model's limit are cut to it.
    cap = embedder.max_tokens
    assert embedder.batch_work([5000]) == pytest.approx(sequence_work([cap]))
    # A position costs more in a longer sequence: twice the tokens, more than twice the work (beyond the call).
    long, short = (embedder.batch_work([n - SPECIAL_TOKENS]) - BATCH_OVERHEAD for n in (200, 100))
    assert long > 2 * short


@pytest.mark.slow
def test_ingest_on_a_terminal_shows_the_embedding_bar_with_its_time_left(tmp_path) -> None:
    sentence = "The walrus keepers polish every tusk on Mondays and log the polishing in the shared journal. "
    for i in range(40):
        write(tmp_path / "docs" / f"d{i:02d}.md", markdown({"acl": ["everyone"]}, f"# Doc {i}\n\n{sentence * 12}\n"))
    proc = cli_tty("ingest", tmp_path / "docs", "--tenant", "t", "--index", tmp_path / "index", stderr_too=True)
    assert proc.returncode == 0, proc.stdout
    shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", proc.stdout)
    assert "embedding 40 passages" in shown and "parsing files" in shown
    assert re.search(r"(\d+:\d\d:\d\d|-:--:--)", shown)  # the time-left column rendered
    assert "ingest: tenant t in" in shown  # and the summary after it
