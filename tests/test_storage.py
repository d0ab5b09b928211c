"""Storage on SQLite and PostgreSQL: migrations, the owner, API tokens."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta, timezone

import anyio
import pytest
import sqlalchemy as sa

from mcpist.auth.tokens import TokenStore, hash_token
from mcpist.errors import Conflict, InvalidArgument, NotFound
from mcpist.sieve import MIGRATIONS as SIEVE_MIGRATIONS
from mcpist.storage.engine import create_engine, normalize_url
from mcpist.storage.migrate import upgrade
from mcpist.storage.tables import users
from mcpist.storage.types import utc
from mcpist.storage.users import ensure_owner
from mcpist.vault import MIGRATIONS as VAULT_MIGRATIONS

pytestmark = pytest.mark.anyio


async def test_migrations_are_idempotent_and_owner_is_unique(database_url: str) -> None:
    engine = create_engine(database_url)
    try:
        # the sieve's and the vault's branches live beside their packages and depend on the core's
        branches = [SIEVE_MIGRATIONS, VAULT_MIGRATIONS]
        await upgrade(engine, branches)
        await upgrade(engine, branches)
        async with engine.connect() as conn:
            tables = set(await conn.run_sync(lambda sync: sa.inspect(sync).get_table_names()))
        assert {"users", "api_tokens", "roles", "security_events", "vault_accounts"} <= tables
        results = []

        async def make() -> None:
            results.append(await ensure_owner(engine))

        async with anyio.create_task_group() as tg:
            for _ in range(5):
                tg.start_soon(make)
        assert len({user.id for user, _ in results}) == 1
        assert sum(created for _, created in results) == 1
    finally:
        await engine.dispose()


async def test_tokens_roundtrip_and_only_hash_stored(database_url: str) -> None:
    engine = create_engine(database_url)
    try:
        await upgrade(engine)
        owner, _ = await ensure_owner(engine)
        store = TokenStore(engine)
        info, token = await store.create("ci", owner.id)
        verified = await store.verify(token)
        assert verified is not None and verified.name == "ci" and verified.user_id == owner.id == info.user_id
        assert info.created_at.tzinfo is UTC
        used = await store.get("ci")
        assert used is not None and used.last_used_at is not None and used.last_used_at.tzinfo is UTC
        async with engine.connect() as conn:
            rows = (await conn.execute(sa.text("SELECT token_hash, prefix FROM api_tokens"))).all()
        assert rows[0][0] == hash_token(token) and token not in rows[0][0]
        assert len(rows[0][1]) < 16
        assert await store.verify(token + "x") is None
        assert await store.verify("not-a-token") is None
        with pytest.raises(Conflict):
            await store.create("ci", owner.id)
        with pytest.raises(InvalidArgument):
            await store.create("", owner.id)
        await store.revoke("ci")
        assert await store.verify(token) is None
        with pytest.raises(NotFound):
            await store.revoke("ci")
        assert [t.name for t in await store.list()] == ["ci"]
    finally:
        await engine.dispose()


async def test_datetimes_are_written_and_read_back_as_utc(database_url: str) -> None:
    engine = create_engine(database_url)
    try:
        await upgrade(engine)
        tokyo = datetime(2025, 1, 2, 12, 0, tzinfo=timezone(timedelta(hours=9)))
        async with engine.begin() as conn:
            await conn.execute(users.insert().values(id=str(uuid.uuid4()), email="a@example.com", created_at=tokyo))
            stored = (await conn.execute(sa.select(users.c.created_at))).scalar_one()
            # an untyped read: SQLite hands back the text the column wrote, in UTC
            raw = (await conn.execute(sa.text("SELECT created_at FROM users"))).scalar_one()
        assert stored == tokyo and stored.tzinfo is UTC and stored.hour == 3
        if isinstance(raw, str):
            raw = datetime.fromisoformat(raw)
        assert utc(raw) == tokyo
    finally:
        await engine.dispose()


def test_utc_takes_a_naive_value_as_utc() -> None:
    naive = datetime(2025, 1, 2, 3, 4, 5)
    assert utc(naive) == naive.replace(tzinfo=UTC) and utc(naive).tzinfo is UTC
    tokyo = datetime(2025, 1, 2, 12, 0, tzinfo=timezone(timedelta(hours=9)))
    assert utc(tokyo) == tokyo and utc(tokyo).tzinfo is UTC
    assert utc(None) is None


async def test_sqlite_uses_wal_and_busy_timeout(sqlite_url: str) -> None:
    engine = create_engine(sqlite_url)
    try:
        async with engine.connect() as conn:
            assert (await conn.execute(sa.text("PRAGMA journal_mode"))).scalar() == "wal"
            assert (await conn.execute(sa.text("PRAGMA busy_timeout"))).scalar() == 30000
            assert (await conn.execute(sa.text("PRAGMA foreign_keys"))).scalar() == 1
    finally:
        await engine.dispose()


def test_url_normalisation() -> None:
    assert normalize_url("sqlite:////tmp/x.db").startswith("sqlite+aiosqlite:")
    assert normalize_url("postgresql://u:p@h/db") == "postgresql+asyncpg://u:p@h/db"
    with pytest.raises(Exception, match="unsupported database"):
        normalize_url("mysql://h/db")
