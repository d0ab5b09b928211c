"""JWTs from an external IdP (Supabase Auth, Auth0, Keycloak): JWKS, issuer, audience, email allowlist."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from pathlib import Path
from typing import Any

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from mcpist.auth.users import add_user, list_users
from mcpist.config import AuthSettings, ExternalJwtSettings
from mcpist.protocol.oauth import token_verifiers
from mcpist.runtime import Runtime
from oauth_support import FakeClock, browser, compose_app, mcp_session, mcp_status, with_http
from support import BASE, new_token, runtime

pytestmark = pytest.mark.anyio

ISSUER = "https://idp.example/auth/v1"
JWKS_URL = "https://idp.example/auth/v1/.well-known/jwks.json"


class FakeIdp:
    """Publishes a JWKS and signs tokens with the matching private keys."""

    def __init__(self) -> None:
        self.keys: dict[str, Any] = {}
        self.fetches = 0
        self.add_key("k1")

    def add_key(self, kid: str, kind: str = "rsa") -> None:
        self.keys[kid] = (
            rsa.generate_private_key(65537, 2048) if kind == "rsa" else ec.generate_private_key(ec.SECP256R1())
        )

    def jwks(self) -> dict[str, Any]:
        keys = []
        for kid, key in self.keys.items():
            algorithm = (
                jwt.algorithms.RSAAlgorithm if isinstance(key, rsa.RSAPrivateKey) else jwt.algorithms.ECAlgorithm
            )
            jwk = json.loads(algorithm.to_jwk(key.public_key()))
            keys.append({**jwk, "kid": kid, "use": "sig"})
        return {"keys": keys}

    def handler(self, request: httpx.Request) -> httpx.Response:
        assert request.method == "GET"
        if str(request.url) != JWKS_URL:
            return httpx.Response(404)
        self.fetches += 1
        return httpx.Response(200, json=self.jwks())

    def token(self, kid: str = "k1", key: Any = None, alg: str | None = None, **overrides: Any) -> str:
        now = int(time.time())
        claims = {
            "iss": ISSUER,
            "aud": f"{BASE}/mcp",
            "sub": "idp-user-1",
            "email": "alice@example.com",
            "iat": now,
            "exp": now + 600,
            **overrides,
        }
        claims = {k: v for k, v in claims.items() if v is not None}
        signing_key = key or self.keys[kid]
        algorithm = alg or ("RS256" if isinstance(signing_key, rsa.RSAPrivateKey) else "ES256")
        return jwt.encode(claims, signing_key, algorithm=algorithm, headers={"kid": kid})


def _auth(**extra: Any) -> AuthSettings:
    return AuthSettings(external_jwt=ExternalJwtSettings(jwks_url=JWKS_URL, issuer=ISSUER, **extra))


async def _with_alice(rt: Runtime) -> str:
    return (await add_user(rt.engine, "alice@example.com", role="user")).id


async def test_valid_token_signs_in_its_user(tmp_path: Path) -> None:
    idp = FakeIdp()
    async with runtime(tmp_path) as rt:
        alice = await _with_alice(rt)
        rt = with_http(rt, idp.handler)
        token = idp.token()
        async with browser(compose_app(rt, _auth())) as http:
            assert await mcp_status(http, token) == 200
            assert await mcp_status(http, token) == 200
        assert idp.fetches == 1, "the key set is cached"
        external = token_verifiers(rt, _auth())[-1]
        found = await external.verify_token(token)
        assert found is not None and found.subject == alice and found.resource == f"{BASE}/mcp"
        assert found.claims == {"email": "alice@example.com", "iss": ISSUER, "external_sub": "idp-user-1"}


async def test_the_owner_reaches_the_tools_with_an_external_token(tmp_path: Path) -> None:
    idp = FakeIdp()
    async with runtime(tmp_path) as rt:
        owner = (await add_user(rt.engine, "alice@example.com")).id
        assert owner == rt.owner.id
        rt = with_http(rt, idp.handler)
        async with mcp_session(rt, _auth(), idp.token()) as mcp:
            result = await mcp.call_tool("call", {"module": "demo", "tool_name": "echo", "params": {"text": "hi"}})
            assert owner in str(result.structured_content)


def _unsigned(claims: dict[str, Any]) -> str:
    header = jwt.utils.base64url_encode(json.dumps({"alg": "none", "kid": "k1"}).encode()).decode()
    return header + "." + jwt.utils.base64url_encode(json.dumps(claims).encode()).decode() + "."


async def test_bad_tokens_are_refused(tmp_path: Path) -> None:
    idp = FakeIdp()
    stranger = rsa.generate_private_key(65537, 2048)
    now = int(time.time())
    valid = {"iss": ISSUER, "aud": f"{BASE}/mcp", "sub": "x", "email": "alice@example.com", "exp": now + 600}
    bad = {
        "forged": idp.token(key=stranger),
        "unknown-kid": idp.token(kid="k9", key=stranger),
        "expired": idp.token(iat=now - 4000, exp=now - 3600),
        "wrong-audience": idp.token(aud="https://other.example/mcp"),
        "wrong-issuer": idp.token(iss="https://evil.example/auth/v1"),
        "no-expiry": idp.token(exp=None),
        "no-subject": idp.token(sub=None),
        "alg-none": _unsigned(valid),
        "hs256-with-the-public-key": _hs256(_public_pem(idp.keys["k1"]), valid),
        "rs512-not-in-the-allowed-list": idp.token(alg="RS512"),
        "not-a-user": idp.token(email="mallory@example.com"),
        "garbage": "a.b.c",
    }
    async with runtime(tmp_path) as rt:
        await _with_alice(rt)
        rt = with_http(rt, idp.handler)
        async with browser(compose_app(rt, _auth())) as http:
            assert await mcp_status(http, idp.token()) == 200
            for name, token in bad.items():
                assert await mcp_status(http, token) == 401, name


async def test_configured_audience_replaces_the_default(tmp_path: Path) -> None:
    idp = FakeIdp()
    async with runtime(tmp_path) as rt:
        await _with_alice(rt)
        rt = with_http(rt, idp.handler)
        async with browser(compose_app(rt, _auth(audience="authenticated"))) as http:
            assert await mcp_status(http, idp.token(aud="authenticated")) == 200
            assert await mcp_status(http, idp.token()) == 401


async def test_allowlisted_email_becomes_a_user_and_the_first_one_the_admin(tmp_path: Path) -> None:
    idp = FakeIdp()
    async with runtime(tmp_path) as rt:
        owner_id = rt.owner.id
        rt = with_http(rt, idp.handler)
        async with browser(compose_app(rt, _auth(allowed_emails=["@example.com"]))) as http:
            assert await mcp_status(http, idp.token(email="mallory@evil.example")) == 401
            assert await mcp_status(http, idp.token(email="alice@example.com")) == 200
            assert await mcp_status(http, idp.token(email="bob@example.com")) == 200
        users = {u.email: u for u in await list_users(rt.engine)}
        assert users["alice@example.com"].id == owner_id and users["alice@example.com"].system_role == "admin"
        assert users["bob@example.com"].system_role == "user"
        assert "mallory@evil.example" not in users


async def test_rotated_keys_are_fetched_but_not_on_every_unknown_kid(tmp_path: Path) -> None:
    idp = FakeIdp()
    clock = FakeClock()
    async with runtime(tmp_path) as rt:
        await _with_alice(rt)
        rt = with_http(rt, idp.handler)
        async with browser(compose_app(rt, _auth(), clock)) as http:
            assert await mcp_status(http, idp.token()) == 200
            assert idp.fetches == 1
            clock.advance(61)
            idp.add_key("k2", kind="ec")
            assert await mcp_status(http, idp.token(kid="k2")) == 200
            assert idp.fetches == 2
            # a burst of made-up key ids does not turn into a burst of fetches
            for n in range(5):
                assert await mcp_status(http, idp.token(kid=f"nope{n}", key=idp.keys["k1"])) == 401
            assert idp.fetches == 2
            clock.advance(301)
            assert await mcp_status(http, idp.token()) == 200
            assert idp.fetches == 3, "refreshed once the cache went stale"


async def test_api_tokens_still_work_with_an_external_idp(tmp_path: Path) -> None:
    idp = FakeIdp()
    async with runtime(tmp_path) as rt:
        token = await new_token(rt)
        rt = with_http(rt, idp.handler)
        async with browser(compose_app(rt, _auth())) as http:
            assert await mcp_status(http, token) == 200
            assert idp.fetches == 0, "an API token never reaches the JWT verifier"


def test_settings_refuse_symmetric_algorithms() -> None:
    with pytest.raises(ValueError, match="HS256"):
        ExternalJwtSettings(jwks_url=JWKS_URL, issuer=ISSUER, algorithms=["HS256"])
    with pytest.raises(ValueError, match="none"):
        ExternalJwtSettings(jwks_url=JWKS_URL, issuer=ISSUER, algorithms=["none"])


def _public_pem(key: rsa.RSAPrivateKey) -> bytes:
    return key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)


def _unsigned(claims: dict[str, Any]) -> str:
    header = jwt.utils.base64url_encode(json.dumps({"alg": "none", "kid": "k1"}).encode()).decode()
    return header + "." + jwt.utils.base64url_encode(json.dumps(claims).encode()).decode() + "."


def _hs256(secret: bytes, claims: dict[str, Any]) -> str:
    # PyJWT refuses a PEM as an HMAC secret, so sign by hand: the classic algorithm-confusion token
    header = jwt.utils.base64url_encode(json.dumps({"alg": "HS256", "typ": "JWT", "kid": "k1"}).encode())
    body = jwt.utils.base64url_encode(json.dumps(claims).encode())
    signature = hmac.new(secret, header + b"." + body, hashlib.sha256).digest()
    return (header + b"." + body + b"." + jwt.utils.base64url_encode(signature)).decode()
