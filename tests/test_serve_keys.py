"""``ragcli keys add``: an API key for a user of ``ragcli serve``, appended to the configuration's key file.

Real subprocesses of the CLI; the key file is then read by ``ApiKeys``, the class the server checks keys with.
(tests/test_serve.py sends a request with a key made this way to a running server.)
"""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from support.cli import assert_one_error_line, cli, cli_many, json_of
from support.serving import write_config

from ragcli.serve.keys import ApiKeys


def _config(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "serve.toml"
    path.write_text('[server]\ntenants = ["acme", "globex"]\n\n[api_keys]\nfile = "keys.toml"\n', encoding="utf-8")
    return path


def _add(config: Path, *args: str) -> dict[str, object]:
    return json_of(cli("keys", "add", *args, "--config", config, "--json"))  # type: ignore[no-any-return]


@pytest.mark.slow
def test_each_added_key_stands_for_its_principal_and_the_file_keeps_hashes_only(tmp_path: Path) -> None:
    config = _config(tmp_path)
    first = _add(config, "alice", "--tenant", "acme", "--group", "support", "--group", 'say "hi" \\ back')
    second = _add(config, "bob", "-t", "globex")
    keys_file = tmp_path / "keys.toml"
    assert first["file"] == second["file"] == str(keys_file)
    assert stat.S_IMODE(keys_file.stat().st_mode) == 0o600  # made by the command: for its owner only
    text = keys_file.read_text(encoding="utf-8")
    assert str(first["key"]) not in text and str(second["key"]) not in text
    keys = ApiKeys(keys_file, ("acme", "globex"))
    alice = keys.principal(str(first["key"]))
    assert (alice.user, alice.tenant, alice.groups) == ("alice", "acme", ("support", 'say "hi" \\ back'))
    assert keys.principal(str(second["key"])).user == "bob"


@pytest.mark.slow
def test_adds_at_the_same_time_all_land(tmp_path: Path) -> None:
    config = _config(tmp_path)
    runs = cli_many([["keys", "add", f"user{i}", "-t", "acme", "--config", config] for i in range(4)], parallel=4)
    assert all(p.returncode == 0 for p in runs), [p.stderr for p in runs]
    keys = ApiKeys(tmp_path / "keys.toml", ("acme", "globex"))
    assert sorted(keys.principal(p.stdout.strip()).user for p in runs) == [f"user{i}" for i in range(4)]


@pytest.mark.slow
def test_bad_input_is_one_error_line_and_the_key_file_is_unchanged(tmp_path: Path) -> None:
    config = _config(tmp_path)
    _add(config, "alice", "-t", "acme")
    keys_file = tmp_path / "keys.toml"
    before = keys_file.read_bytes()
    oidc_only = write_config(tmp_path / "oidc.toml", "https://issuer.example/jwks.json")  # valid, without [api_keys]
    cases = [
        (["carl", "-t", "initech", "--config", config], ("tenant 'initech' is not served", "acme, globex")),
        (["carl", "-t", "acme", "--config", oidc_only], ("no [api_keys] section",)),
        (["carl", "-t", "acme", "--config", tmp_path / "missing.toml"], ("cannot read config file",)),
        (["   ", "-t", "acme", "--config", config], ("user",)),
        (["car\u200bl", "-t", "acme", "--config", config], ("user", "type it plainly")),
    ]
    for args, needles in cases:
        assert_one_error_line(cli("keys", "add", *args), *needles)
        assert keys_file.read_bytes() == before
    keys_file.write_bytes(before + b"broken =\n")
    assert_one_error_line(
        cli("keys", "add", "carl", "-t", "acme", "--config", config), "not valid TOML", str(keys_file)
    )
    assert keys_file.read_bytes() == before + b"broken =\n"  # nothing appended to a file the server cannot read
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
