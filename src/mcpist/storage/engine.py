"""Database engines: SQLite (default, WAL, busy timeout) and PostgreSQL."""

from __future__ import annotations

from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from mcpist.errors import ConfigError

SQLITE_BUSY_TIMEOUT_MS = 30_000


def normalize_url(url: str) -> str:
    """Pick the async driver for a plain `sqlite://` or `postgresql://` URL.

    Raises:
        ConfigError: the URL is not SQLite or PostgreSQL.
    """
    try:
        parsed = make_url(url)
    except Exception as exc:
        raise ConfigError(f"database_url is not a valid database URL: {exc}") from None
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        return parsed.set(drivername="sqlite+aiosqlite").render_as_string(hide_password=False)
    if backend in ("postgresql", "postgres"):
        return parsed.set(drivername="postgresql+asyncpg").render_as_string(hide_password=False)
    raise ConfigError(f"database_url: unsupported database {backend!r}; use sqlite or postgresql")


def is_sqlite(engine: AsyncEngine) -> bool:
    return engine.dialect.name == "sqlite"


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def create_engine(url: str, **kwargs: Any) -> AsyncEngine:
    """An async engine for `url`; SQLite connections get WAL, a busy timeout and foreign keys.

    Raises:
        ConfigError: the URL is not SQLite or PostgreSQL.
    """
    url = normalize_url(url)
    if url.startswith("sqlite"):
        engine = create_async_engine(url, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000}, **kwargs)
        event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
        return engine
    kwargs.setdefault("pool_pre_ping", True)
    return create_async_engine(url, **kwargs)
