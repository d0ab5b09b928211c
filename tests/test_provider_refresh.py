"""Refresh against each type B provider's own token endpoint, through a running MCPist: an expired access token
is renewed once however many calls need it, a rotated refresh token replaces the old one in the same write, a
provider that does not rotate keeps the old one working, and a revoked grant asks the user to connect again."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import anyio
import httpx
import pytest

from mcpist.errors import ConnectRequired
from mcpist.modules.api import Caller, Module
from mcpist.modules.google_calendar import module as google_calendar
from mcpist.modules.microsoft_todo import module as microsoft_todo
from mcpist.runtime import Runtime
from mcpist.testing import running
from mcpist.vault import TokenBroker

pytestmark = pytest.mark.anyio

CLIENT_ID = "client-1"
CLIENT_SECRET = "CLIENT-SECRET-" + "x" * 12


@dataclass(frozen=True)
class Provider:
    module: Module
    token_url: str
    api_url: str
    api_body: dict[str, Any]
    tool: str
    rotates: bool
    settings: dict[str, Any] = field(default_factory=dict)
    refresh_scope: str | None = None
    """The `scope` a refresh must send (Microsoft's identity platform asks for it; Google takes none)."""


GOOGLE = Provider(
    google_calendar,
    "https://oauth2.googleapis.com/token",
    "https://www.googleapis.com/calendar/v3/users/me/calendarList",
    {"kind": "calendar#calendarList", "items": []},
    "list_calendars",
    rotates=False,  # Google keeps the refresh token; its token response has none
)
MICROSOFT = Provider(
    microsoft_todo,
    "https://login.microsoftonline.com/contoso.example/oauth2/v2.0/token",
    "https://graph.microsoft.com/v1.0/me/todo/lists",
    {"value": []},
    "list_task_lists",
    rotates=True,  # Microsoft sends a new refresh token with every refresh
    settings={"tenant": "contoso.example"},
    refresh_scope="offline_access Tasks.ReadWrite",
)


@dataclass
class TokenEndpoint:
    provider: Provider
    rotate: bool
    refresh_tokens: set[str] = field(default_factory=set)
    access_tokens: set[str] = field(default_factory=set)
    refreshes: list[str] = field(default_factory=list)
    gate: anyio.Event = field(default_factory=anyio.Event)
    started: anyio.Event = field(default_factory=anyio.Event)
    api_tokens: list[str] = field(default_factory=list)

    def issue(self, *, with_refresh: bool = True) -> dict[str, Any]:
        access = "AT-" + secrets.token_hex(8)
        self.access_tokens.add(access)
        body: dict[str, Any] = {"access_token": access, "token_type": "Bearer", "expires_in": 3599}
        if with_refresh:
            refresh = "RT-" + secrets.token_hex(8)
            self.refresh_tokens.add(refresh)
            body["refresh_token"] = refresh
        return body

    async def handle(self, request: httpx.Request) -> httpx.Response:
        url = str(request.url).split("?")[0]
        if url == self.provider.token_url:
            assert request.method == "POST"
            form = {k: v[0] for k, v in parse_qs(request.content.decode()).items()}
            assert form["grant_type"] == "refresh_token"
            assert form["client_id"] == CLIENT_ID and form["client_secret"] == CLIENT_SECRET
            assert form.get("scope") == self.provider.refresh_scope
            self.refreshes.append(form["refresh_token"])
            self.started.set()
            await self.gate.wait()
            if form["refresh_token"] not in self.refresh_tokens:
                return httpx.Response(400, json={"error": "invalid_grant", "error_description": "expired or revoked"})
            if self.rotate:
                self.refresh_tokens.discard(form["refresh_token"])
            return httpx.Response(200, json=self.issue(with_refresh=self.rotate))
        if url == self.provider.api_url:
            token = request.headers["Authorization"].removeprefix("Bearer ")
            self.api_tokens.append(token)
            if token not in self.access_tokens:
                return httpx.Response(401, json={"error": {"code": "InvalidAuthenticationToken"}})
            return httpx.Response(200, json=self.provider.api_body)
        raise AssertionError(f"unexpected request {request.method} {request.url}")


def broker(rt: Runtime) -> TokenBroker:
    assert isinstance(rt.accounts, TokenBroker)
    return rt.accounts


async def seed(rt: Runtime, endpoint: TokenEndpoint, *, expired: bool = True) -> str:
    tokens = endpoint.issue()
    await broker(rt).apps.put(endpoint.provider.module.name, CLIENT_ID, CLIENT_SECRET)
    await broker(rt).accounts.put(
        service=endpoint.provider.module.name,
        name="default",
        kind="oauth2",
        secrets={"access_token": tokens["access_token"], "refresh_token": tokens["refresh_token"]},
        user_id=rt.owner.id,
        expires_at=datetime.now(UTC) + (timedelta(seconds=-5) if expired else timedelta(hours=1)),
    )
    return str(tokens["refresh_token"])


async def stored_refresh_token(rt: Runtime, service: str) -> str:
    store = broker(rt).accounts
    info = (await store.find(service))[0]
    _, sealed = await store.secrets(info.id)
    return str(sealed["refresh_token"])


async def expire(rt: Runtime, service: str) -> None:
    store = broker(rt).accounts
    info = (await store.find(service))[0]
    _, sealed = await store.secrets(info.id)
    await store.store_refresh(info, sealed, datetime.now(UTC) - timedelta(seconds=5), None)


@pytest.mark.parametrize(
    ("provider", "rotate"),
    [(GOOGLE, False), (GOOGLE, True), (MICROSOFT, True)],
    ids=["google", "google-rotating", "microsoft"],
)
async def test_concurrent_calls_refresh_once_and_a_rotated_token_replaces_the_old(
    tmp_path: Path, provider: Provider, rotate: bool
) -> None:
    endpoint = TokenEndpoint(provider, rotate)
    settings = {"modules": {"settings": {provider.module.name: provider.settings}}} if provider.settings else {}
    async with running([provider.module], tmp_path, upstream=httpx.MockTransport(endpoint.handle), **settings) as rt:
        first = await seed(rt, endpoint)
        caller = Caller(user_id=rt.owner.id)
        results: list[Any] = []

        async def one() -> None:
            results.append(await rt.execute(caller, provider.module.name, provider.tool, {}))

        with anyio.fail_after(30):
            async with anyio.create_task_group() as tg:
                for _ in range(20):
                    tg.start_soon(one)
                await endpoint.started.wait()
                await anyio.wait_all_tasks_blocked()
                endpoint.gate.set()
        assert len(results) == 20 and endpoint.refreshes == [first]  # twenty calls, one refresh
        after = await stored_refresh_token(rt, provider.module.name)
        assert (after != first) is rotate  # rotated: the new one is stored; not rotated: the old one is kept
        assert after in endpoint.refresh_tokens

        # the next expiry refreshes with whatever is stored now, and works
        await expire(rt, provider.module.name)
        await rt.execute(caller, provider.module.name, provider.tool, {})
        assert endpoint.refreshes == [first, after]
        assert all(t in endpoint.access_tokens for t in endpoint.api_tokens)


@pytest.mark.parametrize("provider", [GOOGLE, MICROSOFT], ids=["google", "microsoft"])
async def test_a_revoked_refresh_token_asks_to_connect_again(tmp_path: Path, provider: Provider) -> None:
    endpoint = TokenEndpoint(provider, rotate=True)
    endpoint.gate.set()
    settings = {"modules": {"settings": {provider.module.name: provider.settings}}} if provider.settings else {}
    async with running([provider.module], tmp_path, upstream=httpx.MockTransport(endpoint.handle), **settings) as rt:
        await seed(rt, endpoint)
        endpoint.refresh_tokens.clear()  # the user revoked the app, or Google's 7 days for a "Testing" app ran out
        with pytest.raises(ConnectRequired) as raised:
            await rt.execute(Caller(user_id=rt.owner.id), provider.module.name, provider.tool, {})
        assert f"/connect/{provider.module.name}?t=" in raised.value.connect_url
        assert "connected again" in raised.value.message
        if provider is GOOGLE:
            assert "Testing" in raised.value.message  # why Google did it, and what to change
        for secret in (*endpoint.refreshes, CLIENT_SECRET):
            assert secret not in raised.value.message and secret not in str(raised.value.data)
