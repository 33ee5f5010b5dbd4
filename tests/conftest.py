"""Loads the one shared harness (tests/support): fixtures, runners, corpora, checks."""

pytest_plugins = ["support.fixtures", "support.scheduling"]
