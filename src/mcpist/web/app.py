"""The Starlette application: `/mcp` (Streamable HTTP, bearer auth), `/health`, resource metadata."""

from __future__ import annotations

import ipaddress
import logging
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlsplit

import sqlalchemy as sa
from mcp.server.auth.handlers.metadata import ProtectedResourceMetadataHandler
from mcp.server.auth.middleware.auth_context import AuthContextMiddleware
from mcp.server.auth.middleware.bearer_auth import BearerAuthBackend, RequireAuthMiddleware
from mcp.server.auth.routes import build_resource_metadata_url, cors_middleware
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.auth import ProtectedResourceMetadata
from pydantic import AnyHttpUrl
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.authentication import AuthenticationMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from mcpist.auth.tokens import TokenStore
from mcpist.config import Settings
from mcpist.errors import ConfigError
from mcpist.protocol.oauth import (
    ChainedTokenVerifier,
    authorization_servers,
    browser_user,
    oauth_routes,
    token_verifiers,
)
from mcpist.protocol.server import build_server
from mcpist.runtime import Runtime
from mcpist.vault.broker import TokenBroker
from mcpist.vault.routes import connect_routes

from .auth import ApiTokenVerifier, caller_from_request

logger = logging.getLogger("mcpist.web")

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def transport_security(settings: Settings) -> TransportSecuritySettings:
    """Host and Origin checks for every bind address (DNS rebinding, cross-site requests).

    Raises:
        ConfigError: a non-loopback bind has no public_url or allowed_hosts to check against.
    """
    hosts = list(settings.allowed_hosts)
    origins = list(settings.allowed_origins)
    base = urlsplit(settings.base_url)
    if base.netloc:
        hosts.append(base.netloc)
        if base.port is None:
            hosts.append(f"{base.hostname}:{443 if base.scheme == 'https' else 80}")
        origins.append(f"{base.scheme}://{base.netloc}")
    if _is_loopback(settings.host) or settings.host in ("0.0.0.0", "::"):  # noqa: S104 - comparing, not binding
        hosts += [f"{name}:*" for name in LOOPBACK_NAMES] + list(LOOPBACK_NAMES)
        origins += [f"http://{name}:*" for name in LOOPBACK_NAMES]
    if not _is_loopback(settings.host) and settings.public_url is None and not settings.allowed_hosts:
        raise ConfigError(
            f"public_url (MCPIST_PUBLIC_URL) is required when binding to {settings.host}: "
            "it names the host clients use, which MCPist checks every request against"
        )
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=sorted(set(hosts)), allowed_origins=sorted(set(origins))
    )


def create_app(runtime: Runtime, *, clock: Callable[[], float] = time.time) -> Starlette:
    """The HTTP application for a started runtime.

    Raises:
        ConfigError: the host settings are inconsistent.
    """
    settings = runtime.settings
    server = build_server(runtime, caller_from_request)
    manager = StreamableHTTPSessionManager(
        app=server,
        security_settings=transport_security(settings),
        max_request_body_size=settings.max_request_bytes,
    )
    resource_url = AnyHttpUrl(settings.mcp_url)
    metadata_url = build_resource_metadata_url(resource_url)
    # an API token is always accepted, so a server without any OAuth issuer still names itself
    issuers = authorization_servers(settings, settings.auth) or [settings.base_url]
    metadata = ProtectedResourceMetadata(
        resource=resource_url,
        authorization_servers=[AnyHttpUrl(issuer) for issuer in issuers],
        resource_name="MCPist",
    )
    # each verifier checks the audience itself: API tokens are only ever for this server
    verifier = ChainedTokenVerifier(
        [
            ApiTokenVerifier(TokenStore(runtime.engine), settings.access_cache_s),
            *token_verifiers(runtime, settings.auth, clock=clock),
        ]
    )
    mcp_endpoint = AuthContextMiddleware(RequireAuthMiddleware(StreamableHTTPASGIApp(manager), [], metadata_url))

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
        async with manager.run():
            yield

    routes = [
        Route("/health", health, methods=["GET"]),
        Route("/mcp", mcp_endpoint, methods=["GET", "POST", "DELETE"]),
        Route(
            urlsplit(str(metadata_url)).path,
            cors_middleware(ProtectedResourceMetadataHandler(metadata).handle, ["GET", "OPTIONS"]),
            methods=["GET", "OPTIONS"],
        ),
    ]
    routes += oauth_routes(runtime, settings.auth, clock=clock)
    if isinstance(runtime.accounts, TokenBroker):
        session_user = browser_user(runtime, settings.auth, clock=clock) if settings.auth.authorization_server else None
        routes += connect_routes(runtime, runtime.accounts, session_user=session_user)
    return Starlette(
        routes=routes,
        middleware=[Middleware(AuthenticationMiddleware, backend=BearerAuthBackend(verifier))],
        lifespan=lifespan,
    )
