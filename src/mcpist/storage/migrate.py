"""Apply the core's and every enabled module's Alembic migrations ("heads")."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

MIGRATIONS = Path(__file__).parent / "migrations"


def alembic_config(module_dirs: Iterable[Path] = ()) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    locations = [str(MIGRATIONS / "versions"), *(str(d) for d in module_dirs)]
    # a separator no path contains, so paths with spaces or colons work
    cfg.set_main_option("path_separator", ";")
    cfg.set_main_option("version_locations", ";".join(locations))
    return cfg


async def upgrade(engine: AsyncEngine, module_dirs: Iterable[Path] = ()) -> None:
    """Bring the database to the newest revision of the core and of each module branch."""
    cfg = alembic_config(module_dirs)

    def run(connection: Connection) -> None:
        cfg.attributes["connection"] = connection
        command.upgrade(cfg, "heads")

    async with engine.begin() as conn:
        await conn.run_sync(run)
