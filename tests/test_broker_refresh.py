"""Type B refresh: ahead of expiry, single-flight per account (in one process and across
processes), retries for transient failures, re-authorisation when the provider says no."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcpist.errors import ConnectRequired, Unauthenticated, Unavailable
from mcpist.storage.engine import create_engine
from mcpist.vault import KeySource, TokenBroker
from mcpist.vault.tables import accounts
from vault_support import Env, fast_settings, fingerprint, vault_env

pytestmark = pytest.mark.anyio


async def call(env: Env) -> dict[str, Any]:
    result: dict[str, Any] = await env.rt.execute(env.owner, "gh", "whoami", {})
    return result


async def test_refresh_ahead_of_expiry_stores_the_rotated_tokens(tmp_path: Path, database_url: str) -> None:
    async with vault_env(tmp_path, database_url) as env:
        first = await env.seed_oauth(env.owner.user_id, "default", expires_in=100)  # inside the 300 s window
        result = await call(env)
        assert env.provider.refreshes == 1
        assert result["token"] == fingerprint(env.provider.issued[-2]) != fingerprint(first["access_token"])
        assert first["refresh_token"] not in env.provider.refresh_tokens  # the provider rotated it
        assert (await call(env))["token"] == result["token"] and env.provider.refreshes == 1
        info = (await env.broker.accounts.find("gh"))[0]
        assert info.version == 2 and info.expires_at is not None
        assert info.expires_at > datetime.now(UTC) + timedelta(seconds=3000)
        # the rotated refresh token is the one used next time
        async with env.rt.engine.begin() as conn:
            await conn.execute(accounts.update().values(expires_at=datetime.now(UTC) - timedelta(seconds=1)))
        assert (await call(env))["token"] == fingerprint(env.provider.issued[-2])
        assert env.provider.refreshes == 2


async def test_100_concurrent_calls_on_an_expired_token_cause_one_refresh(tmp_path: Path, database_url: str) -> None:
    async with vault_env(tmp_path, database_url) as env:
        await env.seed_oauth(env.owner.user_id, "default", expires_in=-60)
        env.provider.gate = anyio.Event()
        results: list[dict[str, Any]] = []

        async def one() -> None:
            results.append(await call(env))

        with anyio.fail_after(60):
            async with anyio.create_task_group() as tg:
                for _ in range(100):
                    tg.start_soon(one)
                await env.provider.refresh_started.wait()
                await anyio.wait_all_tasks_blocked()
                env.provider.gate.set()
        assert env.provider.refreshes == 1
        assert len(results) == 100
        assert {r["token"] for r in results} == {fingerprint(env.provider.issued[-2])}


async def test_replicas_sharing_a_database_refresh_once(tmp_path: Path, database_url: str) -> None:
    async with vault_env(tmp_path, database_url) as env:
        await env.seed_oauth(env.owner.user_id, "default", expires_in=-60)
        env.provider.gate = anyio.Event()
        other_engine = create_engine(database_url)
        replica = TokenBroker(
            engine=other_engine,
            keys=KeySource(fast_settings(), tmp_path),
            services=env.rt.registry,
            http=env.http,
            base_url=env.rt.settings.base_url,
            settings=fast_settings(),
        )
        tokens: list[str] = []
        gh = env.module("gh")

        async def one(broker: TokenBroker) -> None:
            account = await broker.resolve(env.owner, gh, None)
            assert account is not None
            tokens.append(account.credentials.secret)

        try:
            with anyio.fail_after(60):
                async with anyio.create_task_group() as tg:
                    for _ in range(50):
                        tg.start_soon(one, env.broker)
                        tg.start_soon(one, replica)
                    await env.provider.refresh_started.wait()
                    await anyio.wait_all_tasks_blocked()
                    env.provider.gate.set()
        finally:
            await other_engine.dispose()
        assert env.provider.refreshes == 1
        assert set(tokens) == {env.provider.issued[-2]} and len(tokens) == 100


async def test_transient_failures_are_retried(tmp_path: Path) -> None:
    async with vault_env(tmp_path) as env:
        await env.seed_oauth(env.owner.user_id, "default", expires_in=-1)
        env.provider.failures = [503, None]  # HTTP 503, then a network error, then success
        result = await call(env)
        assert env.provider.refreshes == 3 and result["token"] == fingerprint(env.provider.issued[-2])


async def test_three_transient_failures_are_the_limit(tmp_path: Path) -> None:
    async with vault_env(tmp_path) as env:
        await env.seed_oauth(env.owner.user_id, "default", expires_in=-1)
        env.provider.failures = [503, 429, None, 503]
        with pytest.raises(Unavailable, match="try again later"):
            await call(env)
        assert env.provider.refreshes == 3
        assert (await env.broker.accounts.find("gh"))[0].lease_until is None  # released, not stuck
        await call(env)  # the fourth answer is one more failure; the fifth succeeds
        assert env.provider.refreshes == 5


async def test_failed_refresh_ahead_of_expiry_keeps_using_the_valid_token(tmp_path: Path) -> None:
    async with vault_env(tmp_path) as env:
        first = await env.seed_oauth(env.owner.user_id, "default", expires_in=120)
        env.provider.failures = [500, 500, 500]
        assert (await call(env))["token"] == fingerprint(first["access_token"])
        assert env.provider.refreshes == 3


async def test_rejected_refresh_token_marks_the_account_for_reauthorisation(tmp_path: Path, database_url: str) -> None:
    async with vault_env(tmp_path, database_url) as env:
        await env.seed_oauth(env.owner.user_id, "work", expires_in=-1)
        env.provider.refresh_tokens.clear()  # e.g. the user revoked the app at the provider
        gh = env.module("gh")
        with pytest.raises(ConnectRequired) as raised:
            await env.broker.resolve(env.owner, gh, "work")
        assert "connected again" in raised.value.message and "/connect/gh?t=" in raised.value.connect_url
        info = (await env.broker.accounts.find("gh"))[0]
        assert info.status == "reauth"
        with pytest.raises(ConnectRequired):
            await env.broker.resolve(env.owner, gh, "work")
        assert env.provider.refreshes == 1  # not asked again


async def test_a_refused_client_does_not_blame_the_account(tmp_path: Path) -> None:
    async with vault_env(tmp_path) as env:
        await env.seed_oauth(env.owner.user_id, "default", expires_in=-1)
        await env.broker.apps.put("gh", "mcpist-client-1", "wrong-secret")
        with pytest.raises(Unauthenticated) as raised:
            await call(env)
        assert not isinstance(raised.value, ConnectRequired) and raised.value.data["error"] == "invalid_client"
        assert (await env.broker.accounts.find("gh"))[0].status == "connected"


async def test_a_credential_saved_during_a_refresh_is_not_overwritten(tmp_path: Path, database_url: str) -> None:
    async with vault_env(tmp_path, database_url) as env:
        await env.seed_oauth(env.owner.user_id, "default", expires_in=-1)
        env.provider.gate = anyio.Event()
        got: list[dict[str, Any]] = []

        async def refreshing() -> None:
            got.append(await call(env))

        with anyio.fail_after(30):
            async with anyio.create_task_group() as tg:
                tg.start_soon(refreshing)
                await env.provider.refresh_started.wait()
                # the user reconnects while the refresh is under way
                await env.broker.accounts.put(
                    service="gh",
                    name="default",
                    kind="oauth2",
                    secrets={"access_token": "RECONNECTED", "refresh_token": "R2"},
                    user_id=env.owner.user_id,
                    expires_at=datetime.now(UTC) + timedelta(hours=1),
                )
                env.provider.gate.set()
        assert got[0]["token"] == fingerprint(env.provider.issued[-2])  # this call used its fresh token
        assert (await call(env))["token"] == fingerprint("RECONNECTED")  # but the newer credential stays


async def test_provider_keeping_the_refresh_token_and_a_stale_lease(tmp_path: Path) -> None:
    async with vault_env(tmp_path) as env:
        env.provider.rotate = False
        first = await env.seed_oauth(env.owner.user_id, "default", expires_in=-1)
        async with env.rt.engine.begin() as conn:  # a process that died while refreshing
            await conn.execute(accounts.update().values(lease_until=datetime.now(UTC) - timedelta(seconds=1)))
        await call(env)
        async with env.rt.engine.begin() as conn:
            await conn.execute(accounts.update().values(expires_at=datetime.now(UTC) - timedelta(seconds=1)))
        await call(env)
        assert env.provider.refreshes == 2 and first["refresh_token"] in env.provider.refresh_tokens


async def test_expired_token_without_refresh_token_needs_reconnecting(tmp_path: Path) -> None:
    async with vault_env(tmp_path) as env:
        await env.broker.accounts.put(
            service="gh",
            name="default",
            kind="oauth2",
            secrets={"access_token": "ONLY-ACCESS"},
            user_id=env.owner.user_id,
            expires_at=datetime.now(UTC) - timedelta(seconds=5),
        )
        with pytest.raises(ConnectRequired):
            await call(env)
        assert env.provider.refreshes == 0


async def test_a_401_mid_call_refreshes_once_and_the_call_goes_on(tmp_path: Path, database_url: str) -> None:
    async with vault_env(tmp_path, database_url) as env:
        first = await env.seed_oauth(env.owner.user_id, "default", expires_in=3600)  # not due for a refresh
        env.provider.refused.add(first["access_token"])  # yet the service revoked it
        result = await call(env)
        assert env.provider.refreshes == 1
        assert result["token"] == fingerprint(env.provider.issued[-2]) != fingerprint(first["access_token"])
        assert (await call(env))["token"] == result["token"] and env.provider.refreshes == 1


async def test_concurrent_401s_on_one_token_share_one_refresh(tmp_path: Path) -> None:
    async with vault_env(tmp_path) as env:
        first = await env.seed_oauth(env.owner.user_id, "default", expires_in=3600)
        env.provider.refused.add(first["access_token"])
        results: list[dict[str, Any]] = []

        async def one() -> None:
            results.append(await call(env))

        with anyio.fail_after(60):
            async with anyio.create_task_group() as tg:
                for _ in range(20):
                    tg.start_soon(one)
        assert env.provider.refreshes == 1
        assert {r["token"] for r in results} == {fingerprint(env.provider.issued[-2])}


async def test_a_401_that_survives_the_refresh_asks_to_connect_again(tmp_path: Path) -> None:
    async with vault_env(tmp_path) as env:
        first = await env.seed_oauth(env.owner.user_id, "default", expires_in=3600)
        env.provider.refused.add(first["access_token"])
        env.provider.refuse_all = True
        with pytest.raises(ConnectRequired, match="needs to be connected again") as caught:
            await call(env)
        assert "/connect/gh?" in caught.value.connect_url
        assert env.provider.refreshes == 1
        for secret in (first["access_token"], *env.provider.issued):
            assert secret not in caught.value.message and secret not in str(caught.value.data)
