"""``ragcli serve`` end to end: a real server subprocess on 127.0.0.1, a JWKS on a test HTTP server, tokens
signed with keys the test made, the MCP SDK's own Streamable HTTP client.

One server for the module over the session's sample index (read-only). What
a principal gets over HTTP is compared with what the CLI prints for the same
user file; every hostile credential is refused with the one 401 and counted.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
from support.cli import cli, cli_many, json_of
from support.paths import USERS
from support.serving import JwksServer, Served, SigningKeys, claims, serve, sign, write_config

pytestmark = pytest.mark.slow  # one server start (the model, two workers) for the module

PAY_QUERY = "L3 engineer salary band"
PAY_TEXT = "$120,000"
"""Words of the pay-bands passage: never in /healthz, /metrics or the log."""
SAME_401 = {"error": "invalid_token", "error_description": "Authentication required"}


def principal_claims(name: str, **extra: Any) -> dict[str, Any]:
    user = json.loads((USERS / f"{name}.json").read_text(encoding="utf-8"))
    return claims(user["user"], user["tenant"], user["groups"], **extra)


@dataclass
class Team:
    served: Served
    keys: SigningKeys
    jwks: JwksServer
    api_keys: dict[str, str]
    keys_file: Path

    def token(self, name: str, **extra: Any) -> str:
        return sign(self.keys, principal_claims(name, **extra))

    def post(self, path: str, body: Any, token: str | None, **kw: Any) -> httpx.Response:
        headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
        content = body if isinstance(body, bytes) else json.dumps(body).encode()
        return httpx.post(self.served.url + path, content=content, headers=headers, timeout=120, **kw)


@pytest.fixture(scope="module")
def team(sample_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Team]:
    from ragcli.serve.keys import new_key

    folder = tmp_path_factory.mktemp("serve")
    keys = SigningKeys.make()
    api_keys, entries = {}, []
    for name in ("gina", "gus"):
        user = json.loads((USERS / f"{name}.json").read_text(encoding="utf-8"))
        api_keys[name], entry = new_key(user["user"], user["tenant"], tuple(user["groups"]))
        entries.append(entry)
    keys_file = folder / "keys.toml"
    keys_file.write_text("\n".join(entries), encoding="utf-8")
    with JwksServer(keys) as jwks:
        config = write_config(folder / "serve.toml", jwks.url, keys_file=keys_file)
        with serve(config, sample_root, folder / "stderr.log") as served:
            yield Team(served, keys, jwks, api_keys, keys_file)


def cli_json(sample_root: Path, *args: object) -> dict[str, Any]:
    return json_of(cli(*args, "--index", sample_root, index=sample_root))  # type: ignore[no-any-return]


# -- the same objects as the CLI's --json ------------------------------------------------------------


def test_search_returns_what_search_json_prints(team: Team, sample_root: Path) -> None:
    for name in ("hana", "bob"):
        served = team.post("/v1/search", {"query": PAY_QUERY, "k": 3, "mode": "hybrid"}, team.token(name))
        assert served.status_code == 200, served.text
        printed = cli_json(sample_root, "search", PAY_QUERY, "-k", "3", "--as", USERS / f"{name}.json", "--json")
        assert served.json() == printed
    hana_ids = [r["id"] for r in team.post("/v1/search", {"query": PAY_QUERY}, team.token("hana")).json()["results"]]
    bob_ids = [r["id"] for r in team.post("/v1/search", {"query": PAY_QUERY}, team.token("bob")).json()["results"]]
    assert any(i.startswith("pay-bands") for i in hana_ids)
    assert not any(i.startswith("pay-bands") for i in bob_ids)  # bob is not in hr: the principal is the token's


def test_nothing_visible_is_200_with_no_results(team: Team) -> None:
    reply = team.post("/v1/search", {"query": "quasar zeppelin marmalade", "mode": "bm25"}, team.token("alice"))
    assert reply.status_code == 200 and reply.json()["results"] == []


def test_ask_returns_what_ask_json_prints(team: Team, sample_root: Path) -> None:
    question = "How long do we have to refund an annual plan?"
    served = team.post("/v1/ask", {"question": question}, team.token("alice"))
    assert served.status_code == 200, served.text
    printed = cli_json(sample_root, "ask", question, "--as", USERS / "alice.json", "--model", "local", "--json")
    got = served.json()
    assert got.keys() == printed.keys()
    assert {k: v for k, v in got.items() if k != "request_id"} == {
        k: v for k, v in printed.items() if k != "request_id"
    }
    assert got["disposition"] == "answered"


def test_ask_abstains_with_200(team: Team) -> None:
    reply = team.post("/v1/ask", {"question": "What is the salary band for an L3 engineer?"}, team.token("bob"))
    assert reply.status_code == 200 and reply.json()["disposition"] == "abstained"
    assert PAY_TEXT not in reply.text


def test_api_keys_stand_for_their_principal(team: Team) -> None:
    reply = team.post("/v1/search", {"query": "refund annual plan"}, team.api_keys["gina"])
    assert reply.status_code == 200
    assert (reply.json()["tenant"], reply.json()["user"]) == ("globex", "gina")


# -- bad input: one error line, as JSON ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ({"query": "refund", "tenant": "globex"}, "unknown key 'tenant'"),
        ({"query": "refund", "groups": ["hr"]}, "unknown key 'groups'"),
        ({"query": "refund", "k": 0}, "'k'"),
        ({"query": "refund", "k": "5"}, "'k'"),
        ({"query": "refund", "mode": "fuzzy"}, "'mode'"),
        ({"query": "refund", "as_of": "2025-01-01"}, "as_of"),
        ({"query": "x" * 2001}, "at most 2000"),
        ({"query": "   "}, "query"),
        ({}, "'query'"),
        (b"{not json", "not valid JSON"),
        ([1, 2], "JSON object"),
    ],
)
def test_bad_search_bodies_are_400_with_one_error(team: Team, body: Any, needle: str) -> None:
    reply = team.post("/v1/search", body, team.token("alice"))
    assert reply.status_code == 400, reply.text
    assert list(reply.json()) == ["error"] and "\n" not in reply.json()["error"]
    assert needle.lower() in reply.json()["error"].lower(), reply.json()


def test_oversized_body_is_refused_before_it_is_read(team: Team) -> None:
    reply = team.post("/v1/ask", {"question": "x" * (70 * 1024)}, team.token("alice"))
    assert reply.status_code == 413


# -- credentials -------------------------------------------------------------------------------------------


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _hs256_with_public_key(keys: SigningKeys, payload: dict[str, Any]) -> str:
    """The classic key-confusion forgery: HMAC over the token with the RSA public key (PEM) as the secret."""
    from cryptography.hazmat.primitives import serialization

    pem = keys.rsa.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    head = _b64(json.dumps({"alg": "HS256", "typ": "JWT", "kid": keys.rsa_kid}).encode())
    body = _b64(json.dumps(payload).encode())
    signature = hmac.new(pem, f"{head}.{body}".encode(), hashlib.sha256).digest()
    return f"{head}.{body}.{_b64(signature)}"


def _alg_none(payload: dict[str, Any]) -> str:
    head = _b64(json.dumps({"alg": "none", "typ": "JWT", "kid": "rsa-1"}).encode())
    return f"{head}.{_b64(json.dumps(payload).encode())}."


def _tampered(keys: SigningKeys, payload: dict[str, Any]) -> str:
    """A valid token for bob whose payload was then edited to put him in hr (the signature no longer matches)."""
    head, _, signature = sign(keys, payload).split(".")
    forged = _b64(json.dumps({**payload, "groups": ["engineering", "hr"]}).encode())
    return f"{head}.{forged}.{signature}"


def hostile_tokens(keys: SigningKeys) -> dict[str, tuple[str | None, str]]:
    """name -> (the Authorization header's token, or None for no header; the reason /metrics counts)."""
    now = int(time.time())
    bob = principal_claims("bob")
    return {
        "alg none": (_alg_none(bob), "algorithm"),
        "HS256 signed with the public key": (_hs256_with_public_key(keys, bob), "algorithm"),
        "expired": (sign(keys, {**bob, "exp": now - 3600, "iat": now - 7200, "nbf": now - 7200}), "expired"),
        "not yet valid": (sign(keys, {**bob, "nbf": now + 3600}), "not_yet_valid"),
        "wrong audience": (sign(keys, {**bob, "aud": "someone-else"}), "audience"),
        "wrong issuer": (sign(keys, {**bob, "iss": "https://evil.example/"}), "issuer"),
        "unknown kid": (sign(keys, bob, kid="no-such-key"), "unknown_kid"),
        "ES256 header on the RSA key": (sign(keys, bob, alg="ES256", kid=keys.rsa_kid), "algorithm"),
        "tampered payload": (_tampered(keys, bob), "signature"),
        "groups claim a string": (sign(keys, {**bob, "groups": "hr"}), "claims"),
        "no exp": (sign(keys, {k: v for k, v in bob.items() if k != "exp"}), "claims"),
        "tenant not served": (sign(keys, {**bob, "tenant": "initech"}), "tenant"),
        "9 KiB token": ("e" * 9000, "too_long"),
        "garbage": ("not.a.jwt", "malformed"),
        "unknown API key": ("rgk_" + "A" * 43, "unknown_key"),
        "no credential": (None, "missing"),
    }


def test_every_hostile_credential_gets_the_same_401_and_is_counted(team: Team) -> None:
    tokens = hostile_tokens(team.keys)
    before = team.served.metrics()
    bodies = set()
    for name, (token, _) in tokens.items():
        for path, body in (("/v1/search", {"query": PAY_QUERY}), ("/v1/ask", {"question": "salary band L3?"})):
            reply = team.post(path, body, token)
            assert reply.status_code == 401, (name, path, reply.status_code, reply.text)
            assert reply.json() == SAME_401, name
            assert reply.headers["www-authenticate"].startswith("Bearer"), name
            bodies.add(reply.content)
    assert len(bodies) == 1  # whatever the reason, the client learns nothing more
    after = team.served.metrics()
    for name, (_, reason) in tokens.items():
        key = f'ragcli_rejected_credentials_total{{reason="{reason}"}}'
        expected = 2 * sum(1 for _, r in tokens.values() if r == reason)
        assert after[key] - before.get(key, 0.0) == expected, (name, reason)


def test_a_1_mib_header_is_refused_and_the_server_goes_on(team: Team) -> None:
    """uvicorn's h11 refuses a header block over 16 KiB before the app sees it: a 400, or the connection
    closed while the client is still sending; either way nothing is served and the server goes on."""
    try:
        reply = team.post("/v1/search", {"query": PAY_QUERY}, "e" * (1024 * 1024))
    except (httpx.ReadError, httpx.WriteError, httpx.RemoteProtocolError):
        pass
    else:
        assert 400 <= reply.status_code < 500 and PAY_TEXT not in reply.text
    assert team.post("/v1/search", {"query": PAY_QUERY}, team.token("hana")).status_code == 200


def test_a_rotated_key_is_fetched_on_its_unknown_kid(team: Team) -> None:
    from cryptography.hazmat.primitives.asymmetric import rsa

    rotated = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    team.keys.extra = [SigningKeys.public_jwk(rotated, "rsa-2", "RS256")]
    import jwt

    token = jwt.encode(principal_claims("alice"), rotated, algorithm="RS256", headers={"kid": "rsa-2"})
    fetches = team.jwks.fetches
    reply = team.post("/v1/search", {"query": "refund annual plan"}, token)
    assert reply.status_code == 200, reply.text
    assert team.jwks.fetches == fetches + 1


def test_a_removed_api_key_is_refused_at_once(team: Team) -> None:
    assert team.post("/v1/search", {"query": "refund"}, team.api_keys["gus"]).status_code == 200
    original = team.keys_file.read_text(encoding="utf-8")
    kept = [e for e in original.split("[[key]]") if '"gus"' not in e and e.strip()]
    try:
        team.keys_file.write_text("".join("[[key]]" + e for e in kept), encoding="utf-8")
        assert team.post("/v1/search", {"query": "refund"}, team.api_keys["gus"]).status_code == 401
        assert team.post("/v1/search", {"query": "refund"}, team.api_keys["gina"]).status_code == 200
    finally:
        team.keys_file.write_text(original, encoding="utf-8")


def test_keys_add_lets_its_key_in_at_the_next_request_and_keeps_the_others(team: Team) -> None:
    """``ragcli keys add`` (a real subprocess) into the key file of the running server: no restart needed."""
    original = team.keys_file.read_text(encoding="utf-8")
    config = team.keys_file.parent / "serve.toml"
    query = {"query": "refund annual plan"}
    try:
        proc = cli("keys", "add", "gina", "--tenant", "globex", "--config", config)
        assert proc.returncode == 0, proc.stderr
        key = proc.stdout.strip()
        assert proc.stdout == key + "\n" and key.startswith("rgk_")  # alone on stdout: KEY=$(ragcli keys add ...)
        assert "gina" in proc.stderr and str(team.keys_file) in proc.stderr and key not in proc.stderr
        assert key not in team.keys_file.read_text(encoding="utf-8")  # the file keeps the hash only
        by_new = team.post("/v1/search", query, key)
        assert by_new.status_code == 200, by_new.text
        by_old = team.post("/v1/search", query, team.api_keys["gina"])
        assert by_old.status_code == 200 and by_old.json()["results"] == by_new.json()["results"]
        added = json_of(cli("keys", "add", "gus", "-t", "globex", "-g", "ops", "--config", config, "--json"))
        assert set(added) == {"key", "sha256", "user", "tenant", "groups", "file"}, added
        assert (added["user"], added["tenant"], added["groups"], added["file"]) == (
            "gus",
            "globex",
            ["ops"],
            str(team.keys_file),
        )
        assert hashlib.sha256(added["key"].encode()).hexdigest() == added["sha256"]
        assert team.post("/v1/search", query, added["key"]).status_code == 200
    finally:
        team.keys_file.write_text(original, encoding="utf-8")


# -- /healthz, /metrics: no credential, no names, no text ----------------------------------------------------


def test_healthz_and_metrics_need_no_credential_and_hold_no_names_or_text(team: Team, sample_root: Path) -> None:
    assert team.post("/v1/search", {"query": PAY_QUERY}, team.token("hana")).status_code == 200
    health = httpx.get(team.served.url + "/healthz", timeout=10)
    metrics = httpx.get(team.served.url + "/metrics", timeout=10)
    assert health.status_code == 200 and metrics.status_code == 200
    body = health.json()
    assert body["model_loaded"] is True
    for tenant in ("acme", "globex"):
        assert body["tenants"][tenant]["generation"] == (sample_root / tenant / "CURRENT").read_text().strip()
    assert "ragcli_request_seconds_bucket" in metrics.text and "ragcli_queue_depth" in metrics.text
    for text in (health.text, metrics.text):
        for name in ("alice", "bob", "carol", "hana", "gina", "gus"):
            assert name not in text
        assert PAY_TEXT not in text and "salary" not in text.lower()


def test_the_log_carries_ids_never_text(team: Team) -> None:
    assert team.post("/v1/search", {"query": PAY_QUERY}, team.token("hana")).status_code == 200
    log = team.served.log.read_text(encoding="utf-8")
    assert PAY_TEXT not in log and PAY_QUERY not in log
    assert any(line.get("event") == "search" and line.get("results") for line in team.served.log_lines())


# -- /mcp over Streamable HTTP ---------------------------------------------------------------------------------


async def _mcp_session(url: str, token: str, work: Any) -> Any:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    async with create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as http:
        async with streamable_http_client(url + "/mcp", http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await work(session)


def mcp_run(team: Team, token: str, work: Any) -> Any:
    import anyio

    return anyio.run(_mcp_session, team.served.url, token, work)


def test_mcp_has_the_tools_of_ragcli_mcp(team: Team) -> None:
    from ragcli.mcp.server import tool_list

    async def tools(session: Any) -> Any:
        return (await session.list_tools()).tools

    listed = mcp_run(team, team.token("alice"), tools)
    assert [t.model_dump() for t in listed] == [t.model_dump() for t in tool_list()]


def test_mcp_principal_is_each_sessions_token(team: Team, sample_root: Path) -> None:
    async def search(session: Any) -> Any:
        result = await session.call_tool("search", {"query": PAY_QUERY, "k": 5})
        assert not result.is_error, result.content
        return result.structured_content

    for name in ("hana", "bob"):
        got = mcp_run(team, team.token(name), search)
        assert got["user"] == name
        printed = cli_json(sample_root, "search", PAY_QUERY, "-k", "5", "--as", USERS / f"{name}.json", "--json")
        assert [r["id"] for r in got["results"]] == [r["id"] for r in printed["results"]]


def test_mcp_refuses_a_scope_argument_and_a_bad_token(team: Team) -> None:
    async def widen(session: Any) -> Any:
        return await session.call_tool("search", {"query": PAY_QUERY, "tenant": "globex"})

    result = mcp_run(team, team.token("bob"), widen)
    assert result.is_error and "tenant" in result.content[0].text
    for token, _ in list(hostile_tokens(team.keys).values())[:8]:
        reply = httpx.post(
            team.served.url + "/mcp",
            json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}},
            headers={"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"},
            timeout=30,
        )
        assert reply.status_code == 401 and reply.json() == SAME_401


def test_an_mcp_session_cannot_be_used_with_another_principals_token(team: Team) -> None:
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    accept = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    opened = httpx.post(
        team.served.url + "/mcp", json=init, headers={**accept, "Authorization": f"Bearer {team.token('hana')}"}
    )
    assert opened.status_code == 200, opened.text
    session = opened.headers["mcp-session-id"]
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "search", "arguments": {"query": PAY_QUERY}},
    }
    hijack = httpx.post(
        team.served.url + "/mcp",
        json=call,
        headers={
            **accept,
            "Authorization": f"Bearer {team.token('bob')}",
            "mcp-session-id": session,
            "mcp-protocol-version": "2025-06-18",
        },
        timeout=30,
    )
    assert hijack.status_code in (403, 404), hijack.text
    assert PAY_TEXT not in hijack.text


def test_bad_config_is_one_error_line_and_exit_2(tmp_path: Path) -> None:
    runs = {
        "unknown key": '[server]\ntenants = ["acme"]\nworkrs = 2\n[api_keys]\nfile = "k.toml"\n',
        "HS256": '[server]\ntenants = ["acme"]\n[oidc]\nissuer = "i"\naudience = "a"\njwks = "j.json"\n'
        'algorithms = ["HS256"]\ntenant = "acme"\n',
        "no way in": '[server]\ntenants = ["acme"]\n',
        "missing JWKS": '[server]\ntenants = ["acme"]\n[oidc]\nissuer = "i"\naudience = "a"\njwks = "nope.json"\n'
        'tenant = "acme"\n',
    }
    files = []
    for i, text in enumerate(runs.values()):
        path = tmp_path / f"serve{i}.toml"
        path.write_text(text, encoding="utf-8")
        files.append(path)
    procs = cli_many([["serve", "--config", f, "--port", "0"] for f in files])
    for (name, _), proc in zip(runs.items(), procs, strict=True):
        lines = proc.stderr.strip().splitlines()
        assert proc.returncode == 2 and len(lines) == 1 and lines[0].startswith("error: "), (name, proc.stderr)
        assert "Traceback" not in proc.stderr


def test_a_port_in_use_is_one_error_line_and_exit_2(tmp_path: Path, sample_root: Path) -> None:
    import socket

    keys = tmp_path / "keys.toml"
    keys.write_text("", encoding="utf-8")
    config = tmp_path / "serve.toml"
    config.write_text(f'[server]\ntenants = ["acme"]\n[api_keys]\nfile = "{keys}"\n', encoding="utf-8")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = cli("serve", "--config", config, "--index", sample_root, "--port", port, timeout=120)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1, proc.stderr
    assert lines[0].startswith("error: cannot listen on 127.0.0.1:") and "Traceback" not in proc.stderr


def test_server_files_too_large_unreadable_or_not_toml_are_one_error_naming_the_file(tmp_path: Path) -> None:
    """The config, the API key file and the JWKS file share one bounded reader: each failure is one line."""
    from ragcli.errors import InputError
    from ragcli.serve.config import MAX_CONFIG_BYTES, load_config
    from ragcli.serve.keys import ApiKeys

    big = tmp_path / "big.toml"
    big.write_bytes(b"#" * (MAX_CONFIG_BYTES + 1))
    with pytest.raises(InputError, match=r"^config file .*big\.toml is larger than 256 KiB$"):
        load_config(big)
    bad = tmp_path / "bad.toml"
    bad.write_bytes(b"[server\n")
    with pytest.raises(InputError, match=r"^config file .*bad\.toml is not valid TOML: "):
        load_config(bad)
    with pytest.raises(InputError, match=r"^cannot read API key file .*missing\.toml: No such file or directory$"):
        ApiKeys(tmp_path / "missing.toml", ("acme",))
