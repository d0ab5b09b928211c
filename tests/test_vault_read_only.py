"""Read-only accounts (least scopes, only read-only tools), several accounts in one call (`ctx.http_for`),
what `account list` says about expiry, the module's re-authorisation hint and OAuth URLs per setting."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import Field

from mcpist.errors import ConnectRequired, InvalidArgument, PermissionDenied
from mcpist.modules.api import Module, OAuth2Auth, ServiceSettings
from mcpist.vault.cli import describe_expiry
from test_vault_cli import cli
from vault_support import Env, browser_connect, fingerprint, vault_env, web_client

pytestmark = pytest.mark.anyio


async def api_calls(env: Env) -> int:
    return len(env.provider.api_cookies)


async def test_a_key_added_read_only_runs_only_read_only_tools(tmp_path: Path) -> None:
    async with vault_env(tmp_path) as env:
        out = await cli(env, "account", "add", "gh", "--name", "ro", "--read-only", "--token-stdin", stdin="KEY-RO\n")
        assert "gh:ro" in out
        assert (await env.rt.execute(env.owner, "gh", "whoami", {}, account="ro"))["token"] == fingerprint("KEY-RO")
        before = await api_calls(env)
        with pytest.raises(PermissionDenied, match=r"gh:ro is read-only.*gh\.touch") as raised:
            await env.rt.execute(env.owner, "gh", "touch", {}, account="ro")
        assert raised.value.data["reason"] == "read_only_account"
        assert await api_calls(env) == before  # refused before anything reached the service
        listing = await cli(env, "account", "list")
        assert any(line.startswith("gh:ro") and " read " in line for line in listing.splitlines())


async def test_connect_read_only_asks_for_the_read_only_scopes_and_keeps_them_on_reconnect(tmp_path: Path) -> None:
    async with vault_env(tmp_path) as env, web_client(env) as browser:
        url = (await cli(env, "account", "connect", "gh", "--name", "viewer", "--read-only")).splitlines()[-1]
        assert (await browser_connect(browser, env.provider, url)).status_code == 200
        assert env.provider.scopes_asked == ["repo:read"]
        info = (await env.broker.accounts.find("gh", name="viewer"))[0]
        assert info.read_only and info.refreshable
        resolved = await env.broker.resolve(env.owner, env.module("gh"), "viewer")
        assert resolved is not None and resolved.account.read_only
        with pytest.raises(PermissionDenied):
            await env.rt.execute(env.owner, "gh", "touch", {}, account="viewer")

        # the provider revokes the grant: the reconnect link asks for read-only scopes again, and says why
        env.provider.refresh_tokens.clear()
        env.provider.refused.add(env.provider.issued[-2])
        with pytest.raises(ConnectRequired) as raised:
            await env.rt.execute(env.owner, "gh", "whoami", {}, account="viewer")
        assert "7 days" in raised.value.message  # the module's reauth_hint
        assert (await browser_connect(browser, env.provider, raised.value.connect_url)).status_code == 200
        assert env.provider.scopes_asked == ["repo:read", "repo:read"]
        assert (await env.broker.accounts.find("gh", name="viewer"))[0].read_only

        # a full connect of another account asks for the full scopes
        url = (await cli(env, "account", "connect", "gh", "--name", "full")).splitlines()[-1]
        assert (await browser_connect(browser, env.provider, url)).status_code == 200
        assert env.provider.scopes_asked[-1] == "repo user"
        assert not (await env.broker.accounts.find("gh", name="full"))[0].read_only


async def test_connect_read_only_needs_read_only_scopes(tmp_path: Path) -> None:
    bare = Module("bare", summary="no read-only scopes", auth=OAuth2Auth("https://p.test/a", "https://p.test/t"))
    async with vault_env(tmp_path) as env:
        env.broker.connector.services = _Only(bare)
        await env.broker.apps.put("bare", "client", "secret")
        with pytest.raises(InvalidArgument, match="bare declares no read-only scopes") as raised:
            await env.broker.connector.begin(env.owner.user_id, "bare", "x", read_only=True)
        assert raised.value.data["field"] == "read_only"
        assert "/connect/bare?t=" in await env.broker.connector.begin(env.owner.user_id, "bare", "x")


class _Only:
    def __init__(self, module: Module) -> None:
        self._module = module

    def module(self, name: str) -> Module | None:
        return self._module if name == self._module.name else None


async def test_one_call_reads_through_two_accounts_and_a_write_checks_each(tmp_path: Path) -> None:
    async with vault_env(tmp_path) as env:
        await cli(env, "account", "add", "gh", "--name", "work", "--token-stdin", stdin="KEY-WORK")
        await cli(env, "account", "add", "gh", "--name", "home", "--read-only", "--token-stdin", stdin="KEY-HOME")
        both = await env.rt.execute(env.owner, "gh", "compare", {"other": "home"}, account="work")
        assert both == {"mine": fingerprint("KEY-WORK"), "theirs": fingerprint("KEY-HOME")}
        touched = await env.rt.execute(env.owner, "gh", "touch", {"also": "work"}, account="work")
        assert touched == {"seen": [fingerprint("KEY-WORK")] * 2}  # the same account is the same client
        with pytest.raises(PermissionDenied, match="gh:home is read-only"):
            await env.rt.execute(env.owner, "gh", "touch", {"also": "home"}, account="work")
        with pytest.raises(ConnectRequired, match="'nobody' is not connected"):
            await env.rt.execute(env.owner, "gh", "compare", {"other": "nobody"}, account="work")
        with pytest.raises(InvalidArgument, match="invalid account name"):
            await env.rt.execute(env.owner, "gh", "compare", {"other": "Not A Name"}, account="work")


async def test_another_users_account_is_out_of_reach_of_http_for(tmp_path: Path) -> None:
    from vault_support import add_user

    async with vault_env(tmp_path) as env:
        await add_user(env.rt.engine, "b@example.com")
        await cli(
            env, "account", "add", "gh", "--name", "theirs", "--user", "b@example.com", "--token-stdin", stdin="B"
        )
        await cli(env, "account", "add", "gh", "--name", "mine", "--token-stdin", stdin="A")
        with pytest.raises(ConnectRequired):
            await env.rt.execute(env.owner, "gh", "compare", {"other": "theirs"}, account="mine")
        assert fingerprint("B") not in str(env.provider.api_cookies)


async def test_account_list_says_when_each_account_stops_working(tmp_path: Path) -> None:
    async with vault_env(tmp_path) as env, web_client(env) as browser:
        env.provider.refresh_lifetime = 7 * 24 * 3600  # a Google app in "Testing": refresh tokens last 7 days
        url = (await cli(env, "account", "connect", "gh", "--name", "week")).splitlines()[-1]
        assert (await browser_connect(browser, env.provider, url)).status_code == 200
        env.provider.refresh_lifetime = None
        await env.seed_oauth(env.owner.user_id, "auto")
        await cli(env, "account", "add", "gh", "--name", "key", "--token-stdin", stdin="K")
        await env.broker.accounts.put(
            service="gh", name="bare", kind="oauth2", secrets={"access_token": "A"}, user_id=env.owner.user_id,
            expires_at=(await env.broker.accounts.find("gh", name="auto"))[0].expires_at,
        )  # fmt: skip
        lines = {line.split()[0]: line for line in (await cli(env, "account", "list")).splitlines()[1:]}
        assert "renews; reconnect by" in lines["gh:week"]
        assert "renews itself" in lines["gh:auto"]
        assert "then reconnect" in lines["gh:bare"]
        assert describe_expiry((await env.broker.accounts.find("gh", name="key"))[0]) == "-"
        week = (await env.broker.accounts.find("gh", name="week"))[0]
        assert week.refresh_expires_at is not None and week.to_dict()["refresh_expires_at"]


class TenantSettings(ServiceSettings):
    base_url: str = "https://graph.test"
    tenant: str = Field("common", pattern=r"^[A-Za-z0-9][A-Za-z0-9.-]{0,99}$")


tenanted = Module(
    "tenanted",
    summary="OAuth endpoints per tenant",
    settings=TenantSettings,
    auth=OAuth2Auth(
        authorize_url="https://login.test/{tenant}/oauth2/v2.0/authorize",
        token_url="https://login.test/{tenant}/oauth2/v2.0/token",
    ),
)


async def test_oauth_urls_take_the_tenant_from_the_module_settings(tmp_path: Path) -> None:
    async with vault_env(tmp_path) as env:
        connector = env.broker.connector
        connector.services = _Only(tenanted)
        assert connector.service("tenanted").auth == tenanted.auth.for_settings(TenantSettings())
        auth: Any = connector.service("tenanted").auth
        assert auth.authorize_url == "https://login.test/common/oauth2/v2.0/authorize"
        connector.module_settings["tenanted"] = TenantSettings(tenant="contoso.onmicrosoft.com")
        auth = connector.service("tenanted").auth
        assert auth.token_url == "https://login.test/contoso.onmicrosoft.com/oauth2/v2.0/token"
    with pytest.raises(ValueError, match=r"unknown settings \['region'\]"):
        Module("bad", summary="x", auth=OAuth2Auth("https://p.test/{region}/a", "https://p.test/t"))
