"""The one test harness: paths, a clean environment, CLI runners, corpora, checks and fixtures.

Loaded by ``tests/conftest.py`` through ``pytest_plugins``. Nothing here mocks
ragcli: the fixtures build real indexes with the real ONNX model, and the CLI
runners start real ``python -m ragcli.cli`` subprocesses (or call the real
entry point in-process for quick error-case sweeps).
"""
