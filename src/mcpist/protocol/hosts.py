"""Host and Origin checked on every route with `/mcp`'s rules, against DNS rebinding and cross-site use.

The SDK checks them on `/mcp` only; the OAuth endpoints, the login and consent pages and the
metadata answered any Host. `GET /health` stays open to load balancers that call it by address, and
then says only that the process is up.
"""

from __future__ import annotations

import contextlib
import logging

from mcp.server.transport_security import TransportSecuritySettings
from starlette.datastructures import Headers
from starlette.requests import ClientDisconnect
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["HostGuard", "allowed"]

logger = logging.getLogger("mcpist.protocol")

LIVENESS_PATH = "/health"


def allowed(value: str, patterns: list[str]) -> bool:
    """The SDK's rule (`TransportSecurityMiddleware`): an exact match, or `name:*` for any port of name."""
    return value in patterns or any(p.endswith(":*") and value.startswith(p[:-1]) for p in patterns)


class HostGuard:
    """ASGI middleware refusing a request whose Host (or Origin, when sent) is not this server's."""

    def __init__(self, app: ASGIApp, security: TransportSecuritySettings) -> None:
        self.app = app
        self._hosts = list(security.allowed_hosts)
        self._origins = list(security.allowed_origins)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        host, origin = headers.get("host", ""), headers.get("origin")
        refusal = None
        if not allowed(host, self._hosts):
            refusal = Response("Invalid Host header", status_code=421)
        elif origin and not allowed(origin, self._origins):
            refusal = Response("Invalid Origin header", status_code=403)
        if refusal is None:
            # a client gone before its body arrived (or cut off for sending it too slowly): nobody to answer
            with contextlib.suppress(ClientDisconnect):
                await self.app(scope, receive, send)
        elif scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
        elif scope["path"] == LIVENESS_PATH and scope["method"] in ("GET", "HEAD"):
            await JSONResponse({"status": "up"})(scope, receive, send)
        else:
            where = f"{scope['method']} {scope['path'][:100]}"
            logger.info("refused %s: Host %r, Origin %r", where, host[:100], (origin or "")[:100])
            await refusal(scope, receive, send)
