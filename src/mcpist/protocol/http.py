"""`/mcp` over Streamable HTTP behind bearer authentication, its resource metadata, the OAuth endpoints.

`mcp_http(runtime)` hands the web layer what to mount (routes, the authentication middleware, the
session manager's lifespan), so the web layer builds the app without touching the SDK.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from functools import partial
from urllib.parse import urlsplit

from mcp.server.auth.handlers.metadata import ProtectedResourceMetadataHandler
from mcp.server.auth.middleware.auth_context import AuthContextMiddleware
from mcp.server.auth.middleware.bearer_auth import BearerAuthBackend, RequireAuthMiddleware
from mcp.server.auth.routes import build_resource_metadata_url, cors_middleware
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.auth import ProtectedResourceMetadata
from pydantic import AnyHttpUrl
from starlette.middleware import Middleware
from starlette.middleware.authentication import AuthenticationMiddleware
from starlette.middleware.cors import CORSMiddleware
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from mcpist.auth.tokens import TokenStore
from mcpist.cluster import Cluster, ForwardedClient, Node
from mcpist.config import Settings, is_loopback
from mcpist.errors import ConfigError
from mcpist.runtime import Runtime
from mcpist.vault import KeySource

from .bearer import ApiTokenVerifier, caller_from_request
from .hosts import HostGuard
from .oauth import ChainedTokenVerifier, Pages, authorization_servers, oauth_routes, token_verifiers
from .server import build_server
from .sessions import QuotaSessionManager, SessionQuotaApp

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


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
    if is_loopback(settings.host) or settings.host in ("0.0.0.0", "::"):  # noqa: S104 - comparing, not binding
        hosts += [f"{name}:*" for name in LOOPBACK_NAMES] + list(LOOPBACK_NAMES)
        origins += [f"http://{name}:*" for name in LOOPBACK_NAMES]
    if not is_loopback(settings.host) and settings.public_url is None and not settings.allowed_hosts:
        raise ConfigError(
            f"public_url (MCPIST_PUBLIC_URL) is required when binding to {settings.host}: "
            "it names the host clients use, which MCPist checks every request against"
        )
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=sorted(set(hosts)), allowed_origins=sorted(set(origins))
    )


@dataclass(frozen=True)
class McpHttp:
    """What the HTTP app mounts to serve MCP."""

    routes: list[BaseRoute]
    """`/mcp`, its protected resource metadata (RFC 9728), and the authorization server's endpoints."""
    middleware: list[Middleware]
    """Host and Origin checks on every route; bearer authentication: API tokens, this server's OAuth
    access tokens, an external IdP's JWTs."""
    lifespan: Callable[[], AbstractAsyncContextManager[None]]
    """Runs the Streamable HTTP session manager; the app holds it open while it serves."""
    cluster: Cluster | None = None
    """This process as one of several (with a `node`), else None."""


def mcp_http(
    runtime: Runtime,
    *,
    clock: Callable[[], float] = time.time,
    pages: Pages | None = None,
    page_middleware: Sequence[Middleware] = (),
    node: Node | None = None,
) -> McpHttp:
    """`/mcp` and the OAuth endpoints for a started runtime; with `pages` (the web layer's templates)
    also the sign-in and consent pages, behind `page_middleware`; `node`: this process as one of
    several serving this MCPist (its sessions named after it, the others' passed to them).

    Raises:
        ConfigError: the host settings are inconsistent, the master key is unreadable, or the
            authorization server's public URL is not https.
    """
    settings = runtime.settings
    server = build_server(runtime, caller_from_request)
    security = transport_security(settings)
    manager = QuotaSessionManager(
        app=server,
        security_settings=security,
        max_request_body_size=settings.max_request_bytes,
        limits=settings.limits,
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
    cluster = _join(runtime, manager, node) if node is not None else None
    router = cluster.router if cluster is not None else None
    mcp_endpoint = _BrowserClients(
        AuthContextMiddleware(RequireAuthMiddleware(SessionQuotaApp(manager, router), [], metadata_url))
    )
    metadata_endpoint = cors_middleware(ProtectedResourceMetadataHandler(metadata).handle, ["GET", "OPTIONS"])
    routes: list[BaseRoute] = [
        # `/mcp/` too: clients configured with a trailing slash POST there and follow no redirect
        *(Route(path, mcp_endpoint, methods=["GET", "POST", "DELETE", "OPTIONS"]) for path in ("/mcp", "/mcp/")),
        # RFC 9728's place for /mcp, and the root, where clients written before it look
        *(
            Route(path, metadata_endpoint, methods=["GET", "OPTIONS"])
            for path in dict.fromkeys((urlsplit(str(metadata_url)).path, "/.well-known/oauth-protected-resource"))
        ),
    ]
    routes += oauth_routes(runtime, settings.auth, clock=clock, pages=pages, middleware=page_middleware)
    return McpHttp(
        routes=routes,
        middleware=[
            # first, who the client is when another node passed its request on (signed by that node)
            *([Middleware(ForwardedClient, signer=cluster.signer)] if cluster is not None else []),
            # a request for another host is refused before anything else looks at it
            Middleware(HostGuard, security=security),
            Middleware(AuthenticationMiddleware, backend=BearerAuthBackend(verifier)),
        ],
        lifespan=manager.run if cluster is None else partial(_serving, cluster, manager),
        cluster=cluster,
    )


class _BrowserClients:
    """CORS for MCP clients running in a browser page (the MCP Inspector's direct mode, web IDEs): the
    preflight is answered before authentication, and the headers a client must read are exposed. Only
    origins `HostGuard` let through (this server's own and `allowed_origins`) ever get here, so the
    origin is echoed back; no cookies are involved (bearer tokens), so no credentials are allowed. A
    request without `Origin` (every non-browser client) skips it: Starlette's middleware would wrap
    each answer anyway, on the hot path."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.cors = CORSMiddleware(
            app,
            allow_origin_regex=".*",
            allow_methods=["GET", "POST", "DELETE"],
            allow_headers=[
                "Authorization",
                "Content-Type",
                "Accept",
                "Mcp-Session-Id",
                "Mcp-Protocol-Version",
                "Last-Event-ID",
            ],
            expose_headers=["Mcp-Session-Id", "Mcp-Protocol-Version", "WWW-Authenticate", "X-Request-Id"],
            max_age=600,
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if any(name == b"origin" for name, _ in scope["headers"]):
            await self.cors(scope, receive, send)
        else:
            await self.app(scope, receive, send)


ELICITATION_COMPLETE = "elicitation_complete"


def _join(runtime: Runtime, manager: QuotaSessionManager, node: Node) -> Cluster:
    source = KeySource(runtime.settings.vault, runtime.settings.data_dir)

    def keys() -> list[bytes]:
        ring = source.keyring()
        return [ring.get(kid) for kid in sorted(ring.ids, key=lambda kid: kid != ring.active_id)]

    cluster = Cluster(runtime.engine, runtime.settings.cluster, node, keys)
    manager.node_prefix = f"{node.id}-"
    bus = cluster.bus
    if bus is not None:
        elicitations = runtime.elicitations

        async def completed_elsewhere(elicitation_id: str) -> None:
            await elicitations.complete_here(elicitation_id)

        bus.subscribe(ELICITATION_COMPLETE, completed_elsewhere)
        elicitations.broadcast = partial(bus.publish, ELICITATION_COMPLETE)
    return cluster


@asynccontextmanager
async def _serving(cluster: Cluster, manager: QuotaSessionManager) -> AsyncIterator[None]:
    async with cluster.running(), manager.run():
        yield
