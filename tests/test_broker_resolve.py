"""Which account a call runs with: resolution order, isolation between users, tampering."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
import sqlalchemy as sa

from mcpist.errors import ConnectRequired, InvalidArgument, Unauthenticated
from mcpist.modules.api import Caller
from mcpist.vault import NoOAuthApp, TamperedRecord
from mcpist.vault.tables import accounts
from vault_support import add_user, vault_env

pytestmark = pytest.mark.anyio


def roles_table(table: dict[str, list[str]]):  # type: ignore[no-untyped-def]
    async def roles_of(caller: Caller) -> Sequence[str]:
        return table.get(caller.user_id, [])

    return roles_of


async def test_user_a_token_never_reaches_user_b(tmp_path: Path, database_url: str) -> None:
    async with vault_env(tmp_path, database_url) as env:
        a = await add_user(env.rt.engine, "a@example.com")
        b = await add_user(env.rt.engine, "b@example.com")
        remote = env.module("remote")
        await env.broker.accounts.put(
            service="remote", name="work", kind="api_key", secrets={"api_key": "KEY-OF-A"}, user_id=a
        )
        found = await env.broker.resolve(Caller(a), remote, "work")
        assert found is not None and found.credentials.secret == "KEY-OF-A"
        assert (await env.broker.resolve(Caller(a), remote, None)).credentials.secret == "KEY-OF-A"  # type: ignore[union-attr]
        for name in ("work", None):
            with pytest.raises(ConnectRequired) as raised:
                await env.broker.resolve(Caller(b), remote, name)
            assert "KEY-OF-A" not in repr(raised.value.data)
        # moving A's row to B in the database does not hand B the key: the owner is bound to the ciphertext
        async with env.rt.engine.begin() as conn:
            await conn.execute(accounts.update().values(user_id=b))
        with pytest.raises(TamperedRecord):
            await env.broker.resolve(Caller(b), remote, "work")
        # B's own account, added later, is B's alone
        async with env.rt.engine.begin() as conn:
            await conn.execute(accounts.delete())
        await env.broker.accounts.put(
            service="remote", name="work", kind="api_key", secrets={"api_key": "KEY-OF-B"}, user_id=b
        )
        assert (await env.broker.resolve(Caller(b), remote, "work")).credentials.secret == "KEY-OF-B"  # type: ignore[union-attr]
        with pytest.raises(ConnectRequired):
            await env.broker.resolve(Caller(a), remote, "work")


async def test_resolution_order_named_personal_shared_then_elicitation(tmp_path: Path, database_url: str) -> None:
    roles: dict[str, list[str]] = {}
    async with vault_env(tmp_path, database_url, roles_of=roles_table(roles)) as env:
        user = await add_user(env.rt.engine, "u@example.com")
        other = await add_user(env.rt.engine, "o@example.com")
        roles[user] = ["dev", "ops"]
        roles[other] = ["sales"]
        remote, me = env.module("remote"), Caller(user)
        put = env.broker.accounts.put

        with pytest.raises(ConnectRequired) as raised:
            await env.broker.resolve(me, remote, None)
        assert raised.value.service == "remote" and "/connect/remote?t=" in raised.value.connect_url
        assert raised.value.elicitation_id and "'default'" in raised.value.message

        await put(service="remote", name="ops-bot", kind="api_key", secrets={"api_key": "OPS"}, role="ops")
        found = await env.broker.resolve(me, remote, None)
        assert found is not None and found.credentials.secret == "OPS" and found.account.shared_by_role is not None
        assert found.account.shared_by_role == "ops"
        with pytest.raises(ConnectRequired):
            await env.broker.resolve(Caller(other), remote, None)  # not in role ops

        await put(service="remote", name="dev-bot", kind="api_key", secrets={"api_key": "DEV"}, role="dev")
        with pytest.raises(InvalidArgument) as ambiguous:
            await env.broker.resolve(me, remote, None)
        assert ambiguous.value.data["accounts"] == ["dev-bot", "ops-bot"]
        assert (await env.broker.resolve(me, remote, "ops-bot")).credentials.secret == "OPS"  # type: ignore[union-attr]

        await put(service="remote", name="default", kind="api_key", secrets={"api_key": "OPS-DEFAULT"}, role="ops")
        await put(service="remote", name="default", kind="api_key", secrets={"api_key": "DEV-DEFAULT"}, role="dev")
        # same name in two roles: the caller's first role wins, deterministically
        assert (await env.broker.resolve(me, remote, None)).credentials.secret == "DEV-DEFAULT"  # type: ignore[union-attr]

        await put(service="remote", name="work", kind="api_key", secrets={"api_key": "MINE"}, user_id=user)
        found = await env.broker.resolve(me, remote, None)
        assert found is not None and found.credentials.secret == "MINE" and found.account.shared_by_role is None
        # a named account: the personal one first, then a shared one of that name
        assert (await env.broker.resolve(me, remote, "work")).credentials.secret == "MINE"  # type: ignore[union-attr]
        assert (await env.broker.resolve(me, remote, "dev-bot")).credentials.secret == "DEV"  # type: ignore[union-attr]
        with pytest.raises(ConnectRequired) as missing:
            await env.broker.resolve(me, remote, "personal")
        assert "'personal'" in missing.value.message

        await put(service="remote", name="personal", kind="api_key", secrets={"api_key": "MINE2"}, user_id=user)
        with pytest.raises(InvalidArgument, match="personal, work"):
            await env.broker.resolve(me, remote, None)
        await put(service="remote", name="default", kind="api_key", secrets={"api_key": "MINE3"}, user_id=user)
        assert (await env.broker.resolve(me, remote, None)).credentials.secret == "MINE3"  # type: ignore[union-attr]
        with pytest.raises(InvalidArgument, match="invalid account name"):
            await env.broker.resolve(me, remote, "Bad Name")


async def test_tampered_rows_are_detected_in_the_database(tmp_path: Path, database_url: str) -> None:
    async with vault_env(tmp_path, database_url) as env:
        remote, me = env.module("remote"), env.owner
        for name in ("one", "two"):
            await env.broker.accounts.put(
                service="remote", name=name, kind="api_key", secrets={"api_key": f"KEY-{name}"}, user_id=me.user_id
            )
        async with env.rt.engine.connect() as conn:
            rows = {r.name: r for r in await conn.execute(sa.select(accounts))}

        async def set_row(which: str, **values: object) -> None:
            async with env.rt.engine.begin() as conn:
                await conn.execute(accounts.update().where(accounts.c.name == which).values(**values))

        flipped = bytearray(rows["one"].ciphertext)
        flipped[len(flipped) // 2] ^= 0x80
        await set_row("one", ciphertext=bytes(flipped))
        with pytest.raises(TamperedRecord):
            await env.broker.resolve(me, remote, "one")
        assert (await env.broker.resolve(me, remote, "two")).credentials.secret == "KEY-two"  # type: ignore[union-attr]

        # swap the two records' ciphertexts and wrapped keys
        await set_row("one", ciphertext=rows["two"].ciphertext, wrapped_key=rows["two"].wrapped_key)
        await set_row("two", ciphertext=rows["one"].ciphertext, wrapped_key=rows["one"].wrapped_key)
        for name in ("one", "two"):
            with pytest.raises(TamperedRecord) as raised:
                await env.broker.resolve(me, remote, name)
            assert "KEY-" not in raised.value.message
        # renaming a record breaks it too: its name is part of its identity
        await set_row("two", ciphertext=rows["two"].ciphertext, wrapped_key=rows["two"].wrapped_key, name="three")
        with pytest.raises(TamperedRecord):
            await env.broker.resolve(me, remote, "three")


async def test_shared_account_needing_reauth_asks_an_admin(tmp_path: Path, database_url: str) -> None:
    roles: dict[str, list[str]] = {}
    async with vault_env(tmp_path, database_url, roles_of=roles_table(roles)) as env:
        roles[env.owner.user_id] = ["team"]
        await env.seed_oauth(None, "shared", role="team")
        info = (await env.broker.accounts.find("gh"))[0]
        assert await env.broker.accounts.mark_reauth(info.id, info.version)
        with pytest.raises(Unauthenticated) as raised:
            await env.broker.resolve(env.owner, env.module("gh"), None)
        assert not isinstance(raised.value, ConnectRequired)
        assert raised.value.data["reason"] == "reauth_required" and raised.value.data["role"] == "team"


async def test_type_b_service_without_an_oauth_app_says_so(tmp_path: Path) -> None:
    async with vault_env(tmp_path, register_app=False) as env:
        with pytest.raises(NoOAuthApp) as raised:
            await env.broker.resolve(env.owner, env.module("gh"), None)
        assert "/connect/gh/callback" in raised.value.message
        assert raised.value.data == {"service": "gh", "reason": "no_oauth_app"}
        assert await env.broker.resolve(env.owner, env.module("demo"), None) is None
