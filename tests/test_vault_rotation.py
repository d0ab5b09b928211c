"""`vault rotate-key`: new KEK, data keys re-wrapped row by row while the server keeps serving."""

from __future__ import annotations

import base64
import secrets
from pathlib import Path

import anyio
import anyio.lowlevel
import pytest
from pydantic import SecretStr

from mcpist.errors import ConnectRequired
from mcpist.storage.engine import create_engine
from mcpist.vault import KeySource, MissingKey, TamperedRecord
from mcpist.vault.crypto import key_id
from mcpist.vault.rotation import key_usage, prune_keys, rewrap_all, rotate_key
from mcpist.vault.tables import accounts
from vault_support import Env, fast_settings, vault_env, web_client

pytestmark = pytest.mark.anyio


async def seed(env: Env, n: int) -> None:
    for i in range(n):
        await env.broker.accounts.put(
            service="remote", name=f"k{i}", kind="api_key", secrets={"api_key": f"KEY-{i}"}, user_id=env.owner.user_id
        )
    for i in range(3):
        await env.seed_oauth(env.owner.user_id, f"o{i}", expires_in=-1)


async def test_rotation_while_serving_rewraps_everything_and_the_server_follows(
    tmp_path: Path, database_url: str
) -> None:
    async with vault_env(tmp_path, database_url) as env, web_client(env) as browser:
        await seed(env, 12)
        remote, gh = env.module("remote"), env.module("gh")
        with pytest.raises(ConnectRequired) as pending:  # a flow in flight across the rotation
            await env.broker.resolve(env.owner, gh, "later")
        start = await browser.get(pending.value.connect_url.replace(env.rt.settings.base_url, ""))
        assert start.status_code == 302
        old_id = env.broker.keys.keyring().active_id

        cli_engine = create_engine(database_url)  # the CLI is another process with its own connections
        served: list[str] = []

        async def serve() -> None:
            for _ in range(4):
                for i in range(12):
                    account = await env.broker.resolve(env.owner, remote, f"k{i}")
                    assert account is not None
                    served.append(account.credentials.secret)
                for i in range(3):
                    await env.broker.resolve(env.owner, gh, f"o{i}")  # refreshes write new rows meanwhile
                await anyio.lowlevel.checkpoint()

        try:
            with anyio.fail_after(60):
                async with anyio.create_task_group() as tg:
                    tg.start_soon(serve)
                    report = await rotate_key(cli_engine, KeySource(fast_settings(), tmp_path))
        finally:
            await cli_engine.dispose()
        assert report.retired_id == old_id and report.active_id != old_id
        assert report.rewrapped >= 16 and report.remaining == {}
        assert served.count("KEY-0") == 4
        usage = await key_usage(env.rt.engine)
        assert set(usage) == {report.active_id}

        # the server follows the new key for reading and writing
        assert (await env.broker.resolve(env.owner, remote, "k3")).credentials.secret == "KEY-3"  # type: ignore[union-attr]
        await env.broker.accounts.put(
            service="remote", name="new", kind="api_key", secrets={"api_key": "NEW"}, user_id=env.owner.user_id
        )
        assert set(await key_usage(env.rt.engine)) == {report.active_id}
        callback = env.provider.authorize(start.headers["location"])
        assert (await browser.get(callback.replace(env.rt.settings.base_url, ""))).status_code == 200

        assert await prune_keys(env.rt.engine, KeySource(fast_settings(), tmp_path)) == [old_id]
        assert old_id not in env.broker.keys.keyring().ids
        assert (await env.broker.resolve(env.owner, gh, "later")) is not None


async def test_an_interrupted_rotation_is_finished_by_running_again(tmp_path: Path) -> None:
    async with vault_env(tmp_path) as env:
        await seed(env, 8)
        cli_keys = KeySource(fast_settings(), tmp_path)

        class Crash(Exception):
            pass

        def crash_after_three(done: int) -> None:
            if done == 3:
                raise Crash

        with pytest.raises(Crash):
            await rotate_key(env.rt.engine, cli_keys, crash_after_three)
        usage = await key_usage(env.rt.engine)
        assert len(usage) == 2 and usage[cli_keys.keyring().active_id] == 3
        # half-rotated: the server reads both
        for i in range(8):
            assert (await env.broker.resolve(env.owner, env.module("remote"), f"k{i}")).credentials.secret == f"KEY-{i}"  # type: ignore[union-attr]
        report = await rewrap_all(env.rt.engine, cli_keys)
        assert report.rewrapped == 12 - 3 and report.remaining == {}  # 8 keys, 3 OAuth accounts, 1 app
        again = await rewrap_all(env.rt.engine, cli_keys)
        assert again.rewrapped == 0


async def test_operator_managed_key_rotation_with_decrypt_keys(tmp_path: Path) -> None:
    first, second = secrets.token_bytes(32), secrets.token_bytes(32)
    one = fast_settings(key=SecretStr(base64.b64encode(first).decode()))
    two = fast_settings(key=SecretStr(second.hex()), decrypt_keys=[SecretStr(first.hex())])
    async with vault_env(tmp_path, settings=one) as env:
        await seed(env, 2)
        assert set(await key_usage(env.rt.engine)) == {key_id(first)}
        assert not (tmp_path / "vault-keyring.json").exists()
        report = await rotate_key(env.rt.engine, KeySource(two, tmp_path))
        assert report.retired_id is None and report.rewrapped == 6
        assert set(await key_usage(env.rt.engine)) == {key_id(second)}
        only_new = KeySource(fast_settings(key=SecretStr(second.hex())), tmp_path)
        assert (await rewrap_all(env.rt.engine, only_new)).remaining == {}
        # the master key file made at first start is not the key here
        master = KeySource(fast_settings(), tmp_path)
        with pytest.raises(MissingKey):
            await rewrap_all(env.rt.engine, master)


async def test_a_missing_key_loses_nothing(tmp_path: Path) -> None:
    async with vault_env(tmp_path) as env:
        await seed(env, 1)
        stranger = fast_settings(key=SecretStr(secrets.token_bytes(32).hex()))
        with pytest.raises(MissingKey):
            await rewrap_all(env.rt.engine, KeySource(stranger, tmp_path))
        account = await env.broker.resolve(env.owner, env.module("remote"), "k0")
        assert account is not None and account.credentials.secret == "KEY-0"


async def test_rewrap_refuses_a_tampered_wrapped_key(tmp_path: Path) -> None:
    async with vault_env(tmp_path) as env:
        await seed(env, 1)
        KeySource(fast_settings(), tmp_path).rotate_master_key()
        async with env.rt.engine.begin() as conn:
            row = (await conn.execute(accounts.select().where(accounts.c.name == "k0"))).one()
            broken = bytearray(row.wrapped_key)
            broken[-1] ^= 1
            await conn.execute(accounts.update().where(accounts.c.id == row.id).values(wrapped_key=bytes(broken)))
        with pytest.raises(TamperedRecord):
            await rewrap_all(env.rt.engine, KeySource(fast_settings(), tmp_path))
