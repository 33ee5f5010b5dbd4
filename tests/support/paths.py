"""Where the repository's test inputs live."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "sample_corpus"
USERS = SAMPLE / "users"
QUESTIONS = SAMPLE / "questions.jsonl"
VOCAB_PATH = REPO / "ragcli" / "data" / "minilm-vocab.txt"
DAY = dt.date(2026, 11, 29)
"""The as-of day the sample questions and their labels were written for."""
