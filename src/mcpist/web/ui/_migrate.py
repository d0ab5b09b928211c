"""Bring the UI's tables to their newest revision (run when the app starts)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

MIGRATIONS = Path(__file__).parent / "migrations"


async def upgrade_ui(engine: AsyncEngine) -> None:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("path_separator", ";")
    cfg.set_main_option("version_locations", str(MIGRATIONS / "versions"))

    def run(connection: Connection) -> None:
        cfg.attributes["connection"] = connection
        command.upgrade(cfg, "heads")

    async with engine.begin() as conn:
        await conn.run_sync(run)
