"""Modules an admin switched off: hidden from every caller on every path, whatever their roles allow.

The runtime reads the set with the roles (`Runtime.principal`) and takes the modules out of the
caller's `Grants`, so listing, schemas, calls, batches, scripts, resources and prompts all agree.
"""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from mcpist.errors import NotFound
from mcpist.modules.registry import Registry

from ._roles import insert_ignore
from ._tables import disabled_modules


async def list_disabled_modules(engine: AsyncEngine) -> frozenset[str]:
    async with engine.connect() as conn:
        return frozenset((await conn.scalars(sa.select(disabled_modules.c.module))).all())


async def set_module_enabled(engine: AsyncEngine, module: str, enabled: bool, *, registry: Registry) -> bool:
    """Switch a loaded module on or off for everyone; returns whether anything changed.

    Raises:
        NotFound: no module of this name is loaded.
    """
    if registry.module(module) is None:
        raise NotFound(f"no module named {module!r} is loaded", {"module": module})
    async with engine.begin() as conn:
        if enabled:
            result = await conn.execute(disabled_modules.delete().where(disabled_modules.c.module == module))
            return result.rowcount == 1
        return await insert_ignore(conn, disabled_modules, [{"module": module, "disabled_at": datetime.now(UTC)}]) == 1
