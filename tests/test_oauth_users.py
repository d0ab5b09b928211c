"""User management for the CLI: the first user is the admin, admins add users, passwords."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa

from mcpist.auth.tables import user_passwords
from mcpist.auth.users import add_user, check_password, email_allowed, list_users, set_password
from mcpist.errors import Conflict, InvalidArgument, NotFound
from mcpist.storage.users import get_owner
from support import runtime

pytestmark = pytest.mark.anyio


async def test_first_user_takes_over_the_owner_and_stays_admin(database_url: str, tmp_path: Path) -> None:
    async with runtime(tmp_path, database_url=database_url) as rt:
        first = await add_user(rt.engine, "Alice@Example.com", password="alice's password")
        assert first.id == rt.owner.id and first.email == "alice@example.com" and first.system_role == "admin"
        second = await add_user(rt.engine, "bob@example.com")
        assert second.id != rt.owner.id and second.system_role == "user"
        admin = await add_user(rt.engine, "carol@example.com", role="admin")
        assert admin.system_role == "admin"
        owner = await get_owner(rt.engine)
        assert owner is not None and owner.email == "alice@example.com"
        listed = {u.email: u for u in await list_users(rt.engine)}
        assert set(listed) == {"alice@example.com", "bob@example.com", "carol@example.com"}
        assert listed["alice@example.com"].has_password and not listed["bob@example.com"].has_password
        assert await check_password(rt.engine, "alice@example.com", "alice's password") == first


async def test_first_user_added_as_plain_user_leaves_the_owner_alone(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt:
        user = await add_user(rt.engine, "bob@example.com", role="user")
        assert user.id != rt.owner.id and user.system_role == "user"
        assert {u.email for u in await list_users(rt.engine)} == {"owner@localhost", "bob@example.com"}


async def test_owner_placeholder_with_a_password_is_an_account(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt:
        await set_password(rt.engine, "owner@localhost", "owner's password")
        user = await add_user(rt.engine, "bob@example.com")
        assert user.id != rt.owner.id and user.system_role == "user"
        assert await check_password(rt.engine, "owner@localhost", "owner's password") is not None


async def test_add_user_checks_its_input(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt:
        await add_user(rt.engine, "alice@example.com")
        with pytest.raises(Conflict):
            await add_user(rt.engine, "ALICE@example.com")
        with pytest.raises(InvalidArgument, match="system role"):
            await add_user(rt.engine, "bob@example.com", role="owner")
        with pytest.raises(InvalidArgument, match="not an email"):
            await add_user(rt.engine, "bob")
        with pytest.raises(InvalidArgument, match="8 to 1024"):
            await add_user(rt.engine, "bob@example.com", password="short")
        assert [u.email for u in await list_users(rt.engine)] == ["alice@example.com"]


async def test_set_password_stores_an_argon2id_hash_and_can_remove_it(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt:
        await set_password(rt.engine, "owner@localhost", "first password")
        await set_password(rt.engine, "owner@localhost", "second password")
        async with rt.engine.connect() as conn:
            stored = (await conn.execute(sa.select(user_passwords.c.password_hash))).scalars().all()
        assert len(stored) == 1 and stored[0].startswith("$argon2id$") and "second" not in stored[0]
        assert await check_password(rt.engine, "owner@localhost", "first password") is None
        assert await check_password(rt.engine, "owner@localhost", "second password") is not None
        await set_password(rt.engine, "owner@localhost", None)
        assert await check_password(rt.engine, "owner@localhost", "second password") is None
        with pytest.raises(NotFound):
            await set_password(rt.engine, "nobody@example.com", "some password")


def test_email_allowlist_entries() -> None:
    allowed = ["alice@example.com", "@corp.example"]
    assert email_allowed("Alice@Example.com", allowed)
    assert email_allowed("anyone@corp.example", allowed)
    assert not email_allowed("alice@example.org", allowed)
    assert not email_allowed("eve@evilcorp.example", allowed)
