"""The one test harness: paths, a clean environment, CLI runners, corpora, checks and fixtures.

Loaded by ``tests/conftest.py`` through ``pytest_plugins`` (``fixtures``, and ``scheduling``: the
order the xdist workers get the files in); ``tour`` runs the README's tour for
``tests/test_readme.py`` and ``docs/gen_tour.py``. Nothing here mocks ragcli: the fixtures build
real indexes with the real ONNX model, and the CLI runners start real ``python -m ragcli.cli``
subprocesses (or call the real entry point in-process for quick error-case sweeps).
"""
