"""Helpers shared by the vault and broker tests (no tests here): a fake OAuth provider behind
`httpx.MockTransport`, an OAuth test module, and a runtime wired to a token broker."""

from __future__ import annotations

import base64
import hashlib
import secrets
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import anyio
import httpx
import httpx2
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from demo_module import demo, remote
from mcpist.config import VaultSettings
from mcpist.modules.api import (
    URL_PATTERN,
    Account,
    AccountField,
    ApiKeyAuth,
    Caller,
    Module,
    OAuth2Auth,
    ServiceSettings,
    ToolContext,
)
from mcpist.runtime import Runtime
from mcpist.storage.tables import users
from mcpist.upstream import ServiceClient
from mcpist.vault import TokenBroker, broker_for, connect_routes
from mcpist.vault.broker import RolesOf, no_roles
from mcpist.vault.cli import VaultAdmin
from mcpist.web.app import create_app
from mcpist.web.ui import Pages
from support import BASE, runtime
from support import served as support_served

PROVIDER = "https://provider.test"
CLIENT_ID = "mcpist-client-1"

API = "https://api.gh.test"


class GhSettings(ServiceSettings):
    base_url: str = API


gh = Module(
    "gh",
    summary="An OAuth test service",
    settings=GhSettings,
    auth=OAuth2Auth(
        authorize_url=f"{PROVIDER}/authorize",
        token_url=f"{PROVIDER}/token",
        scopes=("repo", "user"),
        read_only_scopes=("repo:read",),
        reauth_hint="(Test apps lose their refresh tokens after 7 days.)",
    ),
    account_fields=[AccountField("seen_as", "who the API saw at connect time (set by on_connect)")],
)


@gh.on_connect
async def remember_who(http: ServiceClient, account: Account) -> dict[str, str]:
    """What an Atlassian-like module does after consent: ask the API about the grant, keep the answer."""
    body = await http.get_json("/user")
    return {"seen_as": body["token"]}


atl = Module(
    "atl",
    summary="A service whose accounts name their site",
    auth=ApiKeyAuth(basic_user_field="email"),
    account_fields=[
        AccountField(
            "site", "the site's root URL, e.g. https://acme.atlassian.net", required=True, pattern=URL_PATTERN
        ),
        AccountField("email", "the account's email, for API tokens (HTTP Basic)"),
    ],
)


@atl.tool(read_only=True)
async def site(ctx: ToolContext[Any]) -> dict[str, Any]:
    """Name the site of the account used."""
    assert ctx.account is not None
    return {"site": ctx.account.fields["site"]}


def fingerprint(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()[:16]


@gh.tool(read_only=True)
async def whoami(ctx: ToolContext[GhSettings]) -> dict[str, Any]:
    """Name the account used and the fingerprint of the token the upstream saw (the tool never sees it)."""
    assert ctx.account is not None
    body = await ctx.http.get_json("/user")
    owner = "shared" if ctx.account.shared_by_role else "personal"
    return {"account": ctx.account.name, "owner": owner, "token": body["token"]}


@gh.tool()
async def touch(ctx: ToolContext[GhSettings], also: str | None = None) -> dict[str, Any]:
    """A tool that changes data (not read-only): reaches the API as this account and, given `also`, as that one."""
    assert ctx.account is not None
    seen = [(await ctx.http.get_json("/user"))["token"]]
    if also is not None:
        seen.append((await (await ctx.http_for(also)).get_json("/user"))["token"])
    return {"seen": seen}


@gh.tool(read_only=True)
async def compare(ctx: ToolContext[GhSettings], other: str) -> dict[str, Any]:
    """Read as this account and as `other` in one call (free time across two calendars, say)."""
    mine = (await ctx.http.get_json("/user"))["token"]
    theirs = (await (await ctx.http_for(other)).get_json("/user"))["token"]
    return {"mine": mine, "theirs": theirs}


def fast_settings(**overrides: Any) -> VaultSettings:
    values: dict[str, Any] = {"refresh_backoff_s": 0.0, "refresh_poll_s": 0.01, "refresh_lease_s": 10.0}
    values.update(overrides)
    return VaultSettings(**values)


@dataclass
class FakeProvider:
    """An OAuth 2 authorization server: codes bound to PKCE challenges, rotating refresh tokens."""

    client_secret: str = field(default_factory=lambda: "CLIENTSECRET-" + secrets.token_hex(12))
    expires_in: int = 3600
    rotate: bool = True
    codes: dict[str, dict[str, str]] = field(default_factory=dict)
    refresh_tokens: set[str] = field(default_factory=set)
    issued: list[str] = field(default_factory=list)
    grants: list[str] = field(default_factory=list)
    verifiers: list[str] = field(default_factory=list)
    failures: list[int | None] = field(default_factory=list)
    """Answers for the next token requests: an HTTP status, or None for a network error."""
    gate: anyio.Event | None = None
    refresh_started: anyio.Event = field(default_factory=anyio.Event)
    refused: set[str] = field(default_factory=set)
    """Access tokens the service's API answers 401 for (revoked, say)."""
    refuse_all: bool = False
    api_cookies: list[str | None] = field(default_factory=list)
    """The Cookie header of each API request."""
    scopes_asked: list[str] = field(default_factory=list)
    refresh_lifetime: int | None = None
    """Sent as `refresh_token_expires_in` when set (Google does for time-limited grants)."""

    @property
    def refreshes(self) -> int:
        return self.grants.count("refresh_token")

    def issue(self) -> dict[str, Any]:
        access = "ACCESS-" + secrets.token_hex(16)
        refresh = "REFRESH-" + secrets.token_hex(16)
        self.refresh_tokens.add(refresh)
        self.issued += [access, refresh]
        body = {"access_token": access, "refresh_token": refresh, "expires_in": self.expires_in, "scope": "repo user"}
        if self.refresh_lifetime is not None:
            body["refresh_token_expires_in"] = self.refresh_lifetime
        return body

    def authorize(self, url: str) -> str:
        """The user consents: the callback URL the provider redirects the browser to."""
        parts = urlsplit(url)
        assert f"{parts.scheme}://{parts.netloc}{parts.path}" == f"{PROVIDER}/authorize"
        q = {k: v[0] for k, v in parse_qs(parts.query).items()}
        assert q["response_type"] == "code" and q["client_id"] == CLIENT_ID
        assert q["code_challenge_method"] == "S256" and len(q["code_challenge"]) == 43
        assert q["scope"] in ("repo user", "repo:read")
        self.scopes_asked.append(q["scope"])
        code = "CODE-" + secrets.token_hex(8)
        self.codes[code] = {"challenge": q["code_challenge"], "redirect_uri": q["redirect_uri"]}
        return f"{q['redirect_uri']}?{urlencode({'code': code, 'state': q['state']})}"

    def api(self, request: httpx.Request) -> httpx.Response:
        """The service's API (`GET /user`): 401 for a token in `refused`, else the token's fingerprint."""
        assert request.method == "GET" and str(request.url) == f"{API}/user"
        scheme, _, token = request.headers.get("Authorization", "").partition(" ")
        self.api_cookies.append(request.headers.get("cookie"))
        if scheme != "Bearer" or not token or token in self.refused or self.refuse_all:
            return httpx.Response(401, json={"message": "Bad credentials"})
        # a session cookie per token, as many APIs set: it must never travel with another account's call
        cookie = f"sid={fingerprint(token)}; Path=/; Secure"
        return httpx.Response(200, json={"token": fingerprint(token)}, headers={"Set-Cookie": cookie})

    async def handler(self, request: httpx.Request) -> httpx.Response:
        assert request.method == "POST" and str(request.url) == f"{PROVIDER}/token"
        assert request.headers["content-type"] == "application/x-www-form-urlencoded"
        form = {k: v[0] for k, v in parse_qs(request.content.decode()).items()}
        grant = form.get("grant_type", "")
        self.grants.append(grant)
        if grant == "refresh_token":
            self.refresh_started.set()
            if self.gate is not None:
                await self.gate.wait()
        if self.failures:
            status = self.failures.pop(0)
            if status is None:
                raise httpx.ConnectError("connection refused", request=request)
            return httpx.Response(status, json={"error": "temporarily_unavailable"})
        basic = request.headers.get("authorization")
        if basic is not None:
            client_id, _, secret = base64.b64decode(basic.split()[1]).decode().partition(":")
        else:
            client_id, secret = form.get("client_id", ""), form.get("client_secret", "")
        if client_id != CLIENT_ID or secret != self.client_secret:
            return httpx.Response(401, json={"error": "invalid_client"})
        if grant == "authorization_code":
            self.verifiers.append(form.get("code_verifier", ""))
            pending = self.codes.pop(form.get("code", ""), None)
            if pending is None or pending["redirect_uri"] != form.get("redirect_uri"):
                return httpx.Response(400, json={"error": "invalid_grant"})
            digest = hashlib.sha256(form.get("code_verifier", "").encode()).digest()
            if base64.urlsafe_b64encode(digest).rstrip(b"=").decode() != pending["challenge"]:
                return httpx.Response(400, json={"error": "invalid_grant", "error_description": "PKCE"})
            return httpx.Response(200, json=self.issue())
        if grant == "refresh_token":
            token = form.get("refresh_token", "")
            if token not in self.refresh_tokens:
                return httpx.Response(400, json={"error": "invalid_grant"})
            body = self.issue()
            if self.rotate:
                self.refresh_tokens.discard(token)
            else:
                self.refresh_tokens.discard(body.pop("refresh_token"))
            return httpx.Response(200, json=body)
        return httpx.Response(400, json={"error": "unsupported_grant_type"})


async def add_user(engine: AsyncEngine, email: str) -> str:
    user_id = str(uuid.uuid4())
    async with engine.begin() as conn:
        await conn.execute(
            users.insert().values(id=user_id, email=email, system_role="user", created_at=datetime.now(UTC))
        )
    return user_id


@dataclass
class Env:
    rt: Runtime
    broker: TokenBroker
    provider: FakeProvider
    http: httpx.AsyncClient

    @property
    def owner(self) -> Caller:
        return Caller(user_id=self.rt.owner.id, email=self.rt.owner.email)

    def module(self, name: str) -> Module:
        found = self.rt.registry.module(name)
        assert found is not None
        return found

    async def seed_oauth(
        self, user_id: str | None, name: str, *, expires_in: float = 3600, role: str | None = None
    ) -> dict[str, Any]:
        """An OAuth account whose tokens the provider knows, expiring in `expires_in` seconds."""
        tokens = self.provider.issue()
        await self.broker.accounts.put(
            service="gh",
            name=name,
            kind="oauth2",
            secrets={"access_token": tokens["access_token"], "refresh_token": tokens["refresh_token"]},
            user_id=user_id,
            role=role,
            expires_at=datetime.now(UTC) + timedelta(seconds=expires_in),
            scopes=("repo",),
        )
        return tokens


def provider_client(provider: FakeProvider) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.MockTransport(provider.handler))


@asynccontextmanager
async def vault_env(
    data_dir: Path,
    database_url: str | None = None,
    *,
    settings: VaultSettings | None = None,
    roles_of: RolesOf = no_roles,
    provider: FakeProvider | None = None,
    register_app: bool = True,
) -> AsyncIterator[Env]:
    provider = provider or FakeProvider()
    async with (
        runtime(data_dir, [demo, remote, gh, atl], database_url=database_url) as rt,
        provider_client(provider) as http,
    ):
        broker = broker_for(
            engine=rt.engine,
            data_dir=rt.settings.data_dir,
            services=rt.registry,
            http=http,
            base_url=rt.settings.base_url,
            settings=settings or fast_settings(),
            roles_of=roles_of,
            client_for=rt.service_client,
        )
        rt.accounts = broker
        rt.transport = httpx.MockTransport(provider.api)
        if register_app:
            await broker.apps.put("gh", CLIENT_ID, provider.client_secret)
        yield Env(rt, broker, provider, http)


@asynccontextmanager
async def web_client(env: Env, token: str | None = None, **routes: Any) -> AsyncIterator[httpx2.AsyncClient]:
    """An HTTP client for the app with the connect routes mounted (as the lead mounts them)."""
    app = create_app(env.rt)
    # ahead of the routes create_app mounts, so a test's `session_user` hook takes effect
    app.router.routes[:0] = connect_routes(
        env.broker, on_connected=env.rt.elicitations.complete, pages=Pages(env.rt), **routes
    )
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with (
        app.router.lifespan_context(app),
        httpx2.AsyncClient(
            transport=httpx2.ASGITransport(app=app), base_url=BASE, headers=headers, timeout=30
        ) as client,
    ):
        yield client


@asynccontextmanager
async def served(env: Env, **routes: Any) -> AsyncIterator[str]:
    """`support.served` with the connect routes built by the test (e.g. its `session_user`); yields
    the base URL."""
    connect = connect_routes(env.broker, on_connected=env.rt.elicitations.complete, pages=Pages(env.rt), **routes)
    async with support_served(env.rt, connect):
        # the port is known only now; connect URLs are made per call, after this
        env.broker.connector.base_url = env.rt.settings.base_url
        yield env.rt.settings.base_url


def relative(url: str) -> str:
    """The path and query of a URL on the MCPist server."""
    parts = urlsplit(url)
    assert parts.scheme == "http" and parts.hostname == "127.0.0.1"
    return f"{parts.path}?{parts.query}" if parts.query else parts.path


async def browser_connect(browser: httpx2.AsyncClient, provider: FakeProvider, connect_url: str) -> httpx2.Response:
    """Open a connect URL, consent at the provider, follow the callback: the final page."""
    start = await browser.get(relative(connect_url))
    assert start.status_code == 302, start.text
    callback = provider.authorize(start.headers["location"])
    return await browser.get(relative(callback))


def column_bytes(value: Any) -> bytes:
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value)
    return str(value).encode()


async def dump_database(engine: AsyncEngine) -> bytes:
    """Every value of every table, for scanning (the logical view, on any database)."""
    chunks: list[bytes] = []
    async with engine.connect() as conn:
        names = await conn.run_sync(lambda sync: sa.inspect(sync).get_table_names())
        for name in names:
            for row in await conn.execute(sa.text(f'SELECT * FROM "{name}"')):
                chunks += [column_bytes(v) for v in row]
    return b"\n".join(chunks)


def admin_of(env: Env) -> VaultAdmin:
    """What the account, app and vault commands act through, for this environment's owner."""
    return VaultAdmin(env.broker, env.rt.owner.id, env.rt.settings.data_dir)
