"""The Starlette application: `/mcp` and the OAuth endpoints (mounted from `mcpist.protocol.http`),
`/health`, the pages that connect accounts to the vault, and the admin UI (`mcpist.web.ui`)."""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import sqlalchemy as sa
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route

from mcpist.cluster import Node
from mcpist.protocol.http import mcp_http
from mcpist.protocol.oauth import browser_user
from mcpist.runtime import Runtime
from mcpist.vault.broker import TokenBroker
from mcpist.vault.routes import connect_routes
from mcpist.web.ui import ui_mount, upgrade_ui, web_settings

logger = logging.getLogger("mcpist.web")


def create_app(
    runtime: Runtime, *, clock: Callable[[], float] = time.time, command: str = "mcpist", node: Node | None = None
) -> Starlette:
    """The HTTP application for a started runtime; `command` is how its operator runs mcpist (for hints);
    `node`: this process as one of several serving this MCPist (`mcpist.cluster`).

    Raises:
        ConfigError: the host settings are inconsistent, or the authorization server cannot start
            (unreadable master key, a public URL that is not https).
    """
    settings = runtime.settings
    protocol = mcp_http(runtime, clock=clock, node=node)

    async def health(request: Request) -> JSONResponse:
        try:
            async with runtime.engine.connect() as conn:
                await conn.execute(sa.text("SELECT 1"))
            database = True
        except Exception:
            logger.warning("health check: database unreachable", exc_info=True)
            database = False
        body: dict[str, Any] = {
            "status": "ok" if database else "degraded",
            "version": runtime.version,
            "database": database,
        }
        return JSONResponse(body, status_code=200 if database else 503)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if ui:
            await upgrade_ui(runtime.engine)
        async with protocol.lifespan():
            yield

    routes: list[BaseRoute] = [Route("/health", health, methods=["GET"]), *protocol.routes]
    if isinstance(runtime.accounts, TokenBroker):
        session_user = browser_user(runtime, settings.auth, clock=clock) if settings.auth.authorization_server else None
        routes += connect_routes(
            runtime.accounts, on_connected=runtime.elicitations.complete, session_user=session_user
        )
    ui = web_settings(runtime).ui
    if ui:
        routes.append(ui_mount(runtime, command=command, clock=clock))
    return Starlette(routes=routes, middleware=protocol.middleware, lifespan=lifespan)
