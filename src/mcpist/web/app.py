"""The Starlette application: `/mcp` and the OAuth endpoints (mounted from `mcpist.protocol.http`),
`/health`, the pages that connect accounts to the vault, and the admin UI (`mcpist.web.ui`)."""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, nullcontext
from typing import Any

import sqlalchemy as sa
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route

from mcpist.cluster import Node
from mcpist.observe import RequestIdMiddleware, metrics_route
from mcpist.protocol.http import mcp_http
from mcpist.protocol.oauth import browser_user
from mcpist.runtime import Runtime
from mcpist.vault.broker import TokenBroker
from mcpist.vault.routes import connect_routes
from mcpist.web.ui import Pages, headers, static_mount, ui_mount, upgrade_ui, watch_for, web_settings

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
    ui = web_settings(runtime).ui
    # every HTML page (UI, sign-in and consent, connect) from the same templates, behind the same headers
    pages = Pages(runtime, command=command, ui=ui, clock=clock)
    protocol = mcp_http(runtime, clock=clock, pages=pages, page_middleware=headers(), node=node)

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
        # the UI's e-mail alerts watch the database in the background while the app serves
        async with protocol.lifespan(), watch_for(runtime).running() if ui else nullcontext():
            yield

    routes: list[BaseRoute] = [Route("/health", health, methods=["GET"]), *protocol.routes, static_mount()]
    token = settings.observe.metrics_token
    cluster = protocol.cluster
    routes.append(
        metrics_route(
            token.get_secret_value() if token else None,
            enabled=settings.observe.metrics,
            node=cluster.node.id if cluster is not None else None,
            peers=cluster.worker_metrics if cluster is not None else None,
        )
    )
    if isinstance(runtime.accounts, TokenBroker):
        session_user = browser_user(runtime, settings.auth, clock=clock) if settings.auth.authorization_server else None
        routes += connect_routes(
            runtime.accounts,
            on_connected=runtime.elicitations.complete,
            pages=pages,
            session_user=session_user,
            middleware=headers(),
        )
    if ui:
        routes.append(ui_mount(runtime, command=command, clock=clock, pages=pages))
    # outermost: every response, errors included, carries the request id
    middleware = [Middleware(RequestIdMiddleware), *protocol.middleware]
    return Starlette(routes=routes, middleware=middleware, lifespan=lifespan)
