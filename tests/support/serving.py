"""A real ``ragcli serve`` for tests: keys the test makes, a JWKS on a test HTTP server, tokens it signs.

Everything listens on 127.0.0.1 only, on a port the kernel picks. The server
is a real subprocess of the CLI (``--port 0``; its "listening" log line says
where); every wait is bounded.
"""

from __future__ import annotations

import json
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from .cli import clean_env, cli_args

ISSUER = "https://login.test.example/realms/team/"
AUDIENCE = "ragcli"
START_LIMIT_S = 120.0
STOP_LIMIT_S = 30.0


@dataclass
class SigningKeys:
    """An RSA and an EC key pair made by the test, and the JWKS that publishes their public halves."""

    rsa: Any
    ec: Any
    rsa_kid: str = "rsa-1"
    ec_kid: str = "ec-1"
    extra: list[dict[str, Any]] = field(default_factory=list)
    """More public JWKs to publish (a rotated key)."""

    @classmethod
    def make(cls) -> SigningKeys:
        from cryptography.hazmat.primitives.asymmetric import ec, rsa

        return cls(
            rsa.generate_private_key(public_exponent=65537, key_size=2048), ec.generate_private_key(ec.SECP256R1())
        )

    def jwks(self) -> dict[str, Any]:
        published = [self.public_jwk(self.rsa, self.rsa_kid, "RS256"), self.public_jwk(self.ec, self.ec_kid, "ES256")]
        return {"keys": published + self.extra}

    @staticmethod
    def public_jwk(key: Any, kid: str, alg: str) -> dict[str, Any]:
        import jwt

        jwk = json.loads(jwt.algorithms.get_default_algorithms()[alg].to_jwk(key.public_key()))
        return {**jwk, "kid": kid, "alg": alg, "use": "sig"}


def claims(user: str, tenant: str, groups: list[str] | Any, **extra: Any) -> dict[str, Any]:
    """A Keycloak-like access token's claims, valid for 10 minutes."""
    now = int(time.time())
    return {
        "iss": ISSUER,
        "aud": AUDIENCE,
        "sub": user,
        "tenant": tenant,
        "groups": groups,
        "iat": now,
        "nbf": now - 5,
        "exp": now + 600,
        **extra,
    }


def sign(keys: SigningKeys, payload: dict[str, Any], *, alg: str = "RS256", kid: str | None = None) -> str:
    import jwt

    key = keys.rsa if alg.startswith(("RS", "PS")) else keys.ec
    return jwt.encode(
        payload, key, algorithm=alg, headers={"kid": kid or (keys.rsa_kid if key is keys.rsa else keys.ec_kid)}
    )


class JwksServer:
    """The identity provider's JWKS endpoint: a plain HTTP server on 127.0.0.1, counting its fetches."""

    def __init__(self, keys: SigningKeys) -> None:
        self.keys = keys
        self.fetches = 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                outer.fetches += 1
                body = json.dumps(outer.keys.jwks()).encode()
                self.send_response(200 if self.path == "/jwks.json" else 404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/jwks.json"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> JwksServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def write_config(path: Path, jwks: str, *, keys_file: Path | None = None, **server: Any) -> Path:
    """A serve config for both sample tenants: JWTs from ``jwks`` (tenant from the ``tenant`` claim), API keys."""
    settings = {"tenants": ["acme", "globex"], "poll_s": 0.2, **server}
    lines = ["[server]", *(f"{k} = {json.dumps(v)}" for k, v in settings.items())]
    lines += [
        "[oidc]",
        f'issuer = "{ISSUER}"',
        f'audience = "{AUDIENCE}"',
        f"jwks = {json.dumps(jwks)}",
        'algorithms = ["RS256", "ES256"]',
        'user_claim = "sub"',
        'groups_claim = "groups"',
        'tenant_claim = "tenant"',
        "leeway_s = 5",
        "jwks_refresh_s = 0",
    ]
    if keys_file is not None:
        lines += ["[api_keys]", f"file = {json.dumps(str(keys_file))}"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@dataclass
class Served:
    """A running ``ragcli serve`` and where it listens."""

    proc: subprocess.Popen[str]
    url: str
    log: Path

    def log_lines(self) -> list[dict[str, Any]]:
        return [
            json.loads(line.removeprefix("ragcli serve: "))
            for line in self.log.read_text(encoding="utf-8").splitlines()
            if line.startswith("ragcli serve: {")
        ]

    def metrics(self) -> dict[str, float]:
        """``/metrics`` as sample name with labels -> value."""
        import httpx2 as httpx

        text = httpx.get(self.url + "/metrics", timeout=10).text
        out = {}
        for line in text.splitlines():
            if line and not line.startswith("#"):
                name, _, value = line.rpartition(" ")
                out[name] = float(value)
        return out


@contextmanager
def serve(config: Path, index: Path, log: Path, *extra: object) -> Iterator[Served]:
    """``python -m ragcli.cli serve --config FILE --index DIR --port 0``, stopped with SIGTERM at the end."""
    with log.open("w", encoding="utf-8") as errlog:
        proc = subprocess.Popen(
            cli_args("serve", "--config", config, "--index", index, "--port", "0", *extra),
            stdout=subprocess.DEVNULL,
            stderr=errlog,
            text=True,
            env=clean_env(),
            cwd=str(index),
        )
    try:
        url = _listening(proc, log)
        yield Served(proc, url, log)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=STOP_LIMIT_S)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=STOP_LIMIT_S)


def _listening(proc: subprocess.Popen[str], log: Path) -> str:
    deadline = time.monotonic() + START_LIMIT_S
    while time.monotonic() < deadline:
        for line in log.read_text(encoding="utf-8").splitlines():
            if line.startswith("ragcli serve: {") and '"listening"' in line:
                return str(json.loads(line.removeprefix("ragcli serve: "))["url"])
        if proc.poll() is not None:
            raise AssertionError(f"ragcli serve exited {proc.returncode}: {log.read_text(encoding='utf-8')[-2000:]}")
        time.sleep(0.05)
    raise AssertionError(f"ragcli serve did not listen within {START_LIMIT_S} s")
