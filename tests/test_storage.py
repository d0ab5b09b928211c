"""Storage on SQLite and PostgreSQL: migrations, the owner, API tokens."""

from __future__ import annotations

import anyio
import pytest
import sqlalchemy as sa

from mcpist.auth.tokens import TokenStore, hash_token
from mcpist.errors import Conflict, InvalidArgument, NotFound
from mcpist.storage.engine import create_engine, normalize_url
from mcpist.storage.migrate import upgrade
from mcpist.storage.users import ensure_owner

pytestmark = pytest.mark.anyio


async def test_migrations_are_idempotent_and_owner_is_unique(database_url: str) -> None:
    engine = create_engine(database_url)
    try:
        await upgrade(engine)
        await upgrade(engine)
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
