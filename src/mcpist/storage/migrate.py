"""Apply the Alembic migrations of the core and of every other branch ("heads").

Each package above storage (the sieve, the vault, each module) owns a branch in a directory of its
own and hands it in; storage never imports them.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

MIGRATIONS = Path(__file__).parent / "migrations"


def alembic_config(dirs: Iterable[Path] = ()) -> Config:
    """The core's revisions and those in `dirs` (a revision's `depends_on` may name another directory's)."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    locations = [str(MIGRATIONS / "versions"), *(str(d) for d in dirs)]
    # a separator no path contains, so paths with spaces or colons work
    cfg.set_main_option("path_separator", ";")
    cfg.set_main_option("version_locations", ";".join(locations))
    return cfg


async def upgrade(engine: AsyncEngine, dirs: Iterable[Path] = ()) -> None:
    """Bring the database to the newest revision of the core's branch and of each branch in `dirs`.

    A database that already holds a revision of a branch left out of `dirs` cannot be upgraded:
    Alembic refuses a revision it cannot locate.
    """
    cfg = alembic_config(dirs)

    def run(connection: Connection) -> None:
        cfg.attributes["connection"] = connection
        command.upgrade(cfg, "heads")

    async with engine.begin() as conn:
        await conn.run_sync(run)
