"""The README's first section is the contract for a newcomer and for CI."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support import tour

REPO = Path(__file__).resolve().parents[1]


def _first_section_commands() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    first = text.split("\n## ", 2)[1]
    return re.findall(r"```bash\n(.+?)\n```", first, flags=re.DOTALL)


def test_first_section_has_exactly_two_commands():
    commands = _first_section_commands()
    assert len(commands) == 2, commands
    main_job, tests = commands
    assert "pip install ." in main_job and "ragcli ingest sample_corpus/acme --tenant acme" in main_job
    assert "ragcli search" in main_job and "ragcli ask" in main_job
    # Two different users, so the newcomer sees permissions at work.
    assert len(set(re.findall(r"users/(\w+)\.json", main_job))) == 2
    assert "pytest" in tests


def test_ci_runs_the_readme_test_command_verbatim():
    tests_command = _first_section_commands()[1]
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert tests_command in ci


def test_the_tour_is_the_same_on_both_pages():
    # README.md and docs/getting-started.md show one tour; docs/gen_tour.py writes both from one run.
    readme, getting_started = (tour.examples(page.read_text(encoding="utf-8")) for page in tour.PAGES)
    assert [e.command for e in readme] == [e.command for e in getting_started]
    assert [tour.normalise(e.output) for e in readme] == [tour.normalise(e.output) for e in getting_started], (
        tour.REGENERATE
    )


def test_the_tour_parses_and_normalises_what_varies():
    assert tour.Command.parse('ragcli ask "a b?" --as u.json; echo "exit $?"') == tour.Command(
        ["ask", "a b?", "--as", "u.json"], piped=False, shows_exit=True
    )
    assert tour.Command.parse("ragcli ingest docs --tenant t | cat").piped
    with pytest.raises(ValueError, match="one ragcli command"):
        tour.Command.parse("rm -rf .ragcli")
    one = "18\t0\t0\t0\t0\t107\t107\t4.2\t/tmp/a/.ragcli\nas of 2026-12-02 · request " + "a" * 32
    other = "18\t0\t0\t0\t0\t107\t107\t31\t/work/b/.ragcli\nas of 2027-01-01 · request " + "0" * 32
    assert tour.normalise(one) == tour.normalise(other)
    # What the tour is about is never blanked: a count, a passage ID, a date inside a passage.
    assert tour.normalise(one.replace("107\t4.2", "106\t4.2")) != tour.normalise(one)
    assert tour.normalise("valid from 2026-03-01") == "valid from 2026-03-01"


def test_the_screen_is_what_a_terminal_shows_at_the_end():
    # A transient progress bar (drawn, redrawn, erased) leaves nothing; colours leave their text.
    drawn = "\x1b[?25lparsing 1/2\r\x1b[2Kparsing 2/2\r\n\x1b[2Kembedding\r\x1b[2K\x1b[1A\x1b[2K\x1b[?25h"
    assert tour._plain(drawn + "\x1b[1mresult\x1b[0m  \r\nnext\r\n\r\n") == "result\nnext\n"


@pytest.mark.slow
def test_the_tour_prints_what_the_pages_show(tmp_path: Path):
    """Every ``$`` command of the tour, run for real as the pages say, prints what they show."""
    documented = tour.examples(tour.PAGES[0].read_text(encoding="utf-8"))
    assert len(documented) >= 6, documented  # ingest both tenants, search twice, ask twice, eval
    real = tour.run_tour(tmp_path / "tour", [e.command for e in documented])
    for example, output in zip(documented, real, strict=True):
        assert tour.normalise(output) == tour.normalise(example.output), (
            f"$ {example.command}\n--- README.md shows:\n{example.output}--- a run prints:\n{output}{tour.REGENERATE}"
        )
