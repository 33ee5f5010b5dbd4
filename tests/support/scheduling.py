"""The order the test files are handed to the workers: the longest first.

pytest-xdist's ``--dist loadfile`` gives a worker one whole file at a time, in collection order
(``--no-loadscope-reorder``: by default it would hand out the files with the most tests first,
which puts Ray's nine tests of minutes last). Left alphabetical, a file that takes minutes may start
last and keep one worker busy while the other has nothing left to do; the files below (the
longest, measured with ``--durations=0`` on the whole suite) start first, the rest follow in
collection order. A file missing from the list costs balance only, never a result.
"""

from __future__ import annotations

import pytest

LONGEST_FIRST = (
    "test_ray",
    "test_reliability",
    "test_ingest",
    "test_cli_ingest_search",
    "test_mcp",
    "test_permissions_scale",
    "test_search_output",
    "test_corruption",
    "test_hostile_input",
    "test_terminal_safety",
    "test_index_location",
    "test_concurrency",
    "test_eval",
    "test_per_document",
    "test_pipes",
    "test_store",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    # A stable sort by file: each file's tests stay together and in their order.
    items.sort(key=lambda item: rank.get(item.path.stem, len(rank)))
