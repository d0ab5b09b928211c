"""HTTP routes of the authorization server: the SDK's OAuth endpoints plus login, consent, upstream sign-in.

/.well-known/oauth-authorization-server   RFC 8414 metadata (SDK, with CIMD and RFC 9207 flags)
/authorize /token /register /revoke       SDK handlers over `MCPistAuthProvider`

and, when the web layer hands in its templates (`pages`) and headers:

/oauth/login                               email + password, and buttons for upstream providers
/oauth/consent                             which client asks for what; Allow / Deny
/oauth/logout
/oauth/upstream/{name}[/callback]          sign in through Google, GitHub, Microsoft, OIDC
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Protocol

import httpx
from mcp.server.auth.handlers.authorize import AuthorizationHandler
from mcp.server.auth.handlers.metadata import MetadataHandler
from mcp.server.auth.handlers.register import RegistrationHandler
from mcp.server.auth.provider import TokenVerifier
from mcp.server.auth.routes import (
    AUTHORIZATION_PATH,
    REGISTRATION_PATH,
    REVOCATION_PATH,
    build_metadata,
    cors_middleware,
    create_auth_routes,
    validate_issuer_url,
)
from mcp.server.auth.settings import ClientRegistrationOptions, RevocationOptions
from pydantic import AnyHttpUrl
from sqlalchemy.ext.asyncio import AsyncEngine
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.routing import BaseRoute, Mount, Route

from mcpist.auth.upstream import Upstream
from mcpist.config import AuthSettings, Settings
from mcpist.errors import ConfigError
from mcpist.storage.users import get_user

from ._compat import OptionalClientSecret
from ._crypto import Keys, load_master_key
from .clients import ClientDocuments
from .external import ExternalJwtVerifier
from .limits import Admission
from .pages import Pages
from .provider import MCPistAuthProvider
from .session import Cookies
from .signin import SignIn
from .store import OAuthStore
from .verifiers import OAuthTokenVerifier

METADATA_PATH = "/.well-known/oauth-authorization-server"
MAX_FORM_BYTES = 16 * 1024
"""The sign-in and consent forms are a few fields; a larger body is refused before it is read."""


class RuntimeLike(Protocol):
    """What the authorization server needs from `mcpist.runtime.Runtime`."""

    @property
    def settings(self) -> Settings: ...
    @property
    def engine(self) -> AsyncEngine: ...
    @property
    def http(self) -> httpx.AsyncClient: ...


def _issuer(settings: Settings) -> AnyHttpUrl:
    issuer = AnyHttpUrl(settings.base_url)
    try:
        validate_issuer_url(issuer)
    except ValueError:
        raise ConfigError(
            f"public_url {settings.base_url} must use https for MCP clients to sign in (OAuth 2.1); "
            "plain http is allowed only on localhost"
        ) from None
    return issuer


def _store(runtime: RuntimeLike, clock: Callable[[], float]) -> OAuthStore:
    keys = Keys(load_master_key(runtime.settings.data_dir))
    limits = runtime.settings.limits
    return OAuthStore(
        runtime.engine,
        keys,
        issuer=str(_issuer(runtime.settings)),
        clock=clock,
        pending_per_client=limits.pending_authorizations_per_client,
        max_pending=limits.max_pending_authorizations,
    )


def token_verifiers(
    runtime: RuntimeLike, settings: AuthSettings, *, clock: Callable[[], float] = time.time
) -> list[TokenVerifier]:
    """Verifiers for this server's OAuth access tokens and, if configured, an external IdP's JWTs.

    Raises:
        ConfigError: the master key is unreadable or the public URL is not https.
    """
    resource = runtime.settings.mcp_url
    verifiers: list[TokenVerifier] = []
    if settings.authorization_server:
        verifiers.append(OAuthTokenVerifier(_store(runtime, clock), resource, clock=clock))
    if settings.external_jwt is not None:
        verifiers.append(
            ExternalJwtVerifier(
                settings.external_jwt, engine=runtime.engine, http=runtime.http, resource_url=resource, clock=clock
            )
        )
    return verifiers


def authorization_servers(settings: Settings, auth: AuthSettings) -> list[str]:
    """The issuers to list in `/mcp`'s protected resource metadata (RFC 9728): this server's
    authorization server, and the external IdP whose tokens `/mcp` accepts."""
    servers = [str(AnyHttpUrl(settings.base_url))] if auth.authorization_server else []
    if auth.external_jwt is not None:
        servers.append(auth.external_jwt.issuer)
    return servers


def browser_user(
    runtime: RuntimeLike, settings: AuthSettings, *, clock: Callable[[], float] = time.time
) -> Callable[[Request], Awaitable[str | None]]:
    """Reads the signed-in user from the login session cookie (None when signed out or disabled).

    Other pages (connecting an account) use it to bind a browser flow to its user.

    Raises:
        ConfigError: the master key is unreadable.
    """
    cookies = Cookies(
        Keys(load_master_key(runtime.settings.data_dir)),
        secure=runtime.settings.base_url.startswith("https://"),
        session_ttl_s=settings.session_ttl_s,
        clock=clock,
    )

    async def session_user(request: Request) -> str | None:
        user_id = cookies.session_user(request)
        user = await get_user(runtime.engine, user_id) if user_id else None
        return user.id if user is not None and not user.disabled else None

    return session_user


def oauth_routes(
    runtime: RuntimeLike,
    settings: AuthSettings,
    *,
    clock: Callable[[], float] = time.time,
    pages: Pages | None = None,
    middleware: Sequence[Middleware] = (),
) -> list[BaseRoute]:
    """The authorization server's endpoints, to mount at the root of the app beside `/mcp`, and with
    `pages` (the web layer's templates) its browser pages under `/oauth` (named `oauth:NAME`), wrapped
    in `middleware` (the web layer's security headers). Both share one provider, so a client's metadata
    document is fetched once for the whole authorization.

    Raises:
        ConfigError: the master key is unreadable or the public URL is not https.
    """
    if not settings.authorization_server:
        return []
    issuer = _issuer(runtime.settings)
    store = _store(runtime, clock)
    documents = ClientDocuments(runtime.http, clock) if settings.client_metadata_documents else None
    provider = MCPistAuthProvider(
        store, documents, settings, base_url=runtime.settings.base_url, resource_url=runtime.settings.mcp_url
    )
    registration = ClientRegistrationOptions(enabled=settings.dynamic_registration, default_scopes=["mcp"])
    revocation = RevocationOptions(enabled=True)
    metadata = build_metadata(issuer, None, registration, revocation)
    metadata.token_endpoint_auth_methods_supported = ["client_secret_post", "client_secret_basic", "none"]
    metadata.client_id_metadata_document_supported = settings.client_metadata_documents
    metadata.authorization_response_iss_parameter_supported = True
    admission = Admission(store, runtime.settings.limits, clock)
    routes: list[BaseRoute] = []
    for route in create_auth_routes(
        provider, issuer, client_registration_options=registration, revocation_options=revocation
    ):
        # the unauthenticated endpoints that store what they are sent, behind `settings.limits`
        if route.path == REGISTRATION_PATH:
            register = admission.register_endpoint(RegistrationHandler(provider, registration))
            route = Route(REGISTRATION_PATH, endpoint=register, methods=["POST", "OPTIONS"])
        elif route.path == AUTHORIZATION_PATH:
            authorize = admission.authorize_endpoint(AuthorizationHandler(provider))
            route = Route(AUTHORIZATION_PATH, endpoint=authorize, methods=["GET", "POST"])
        elif route.path == METADATA_PATH:
            route = Route(
                METADATA_PATH,
                endpoint=cors_middleware(MetadataHandler(metadata).handle, ["GET", "OPTIONS"]),
                methods=["GET", "OPTIONS"],
            )
        elif route.path == REVOCATION_PATH:
            route = Route(REVOCATION_PATH, endpoint=OptionalClientSecret(route.endpoint), methods=["POST", "OPTIONS"])
        routes.append(route)
    if pages is None:
        return routes
    base_url = runtime.settings.base_url
    upstreams = {
        p.name: Upstream(p, runtime.http, f"{base_url}/oauth/upstream/{p.name}/callback") for p in settings.upstream
    }
    flow = SignIn(
        provider=provider,
        settings=settings,
        upstreams=upstreams,
        issuer=str(metadata.issuer),
        base_url=base_url,
        pages=pages,
        clock=clock,
    )
    pages_routes = [
        Route("/login", flow.login, methods=["GET", "POST"], name="login"),
        Route("/consent", flow.consent, methods=["GET", "POST"], name="consent"),
        Route("/logout", flow.logout, methods=["POST"], name="logout"),
        Route("/upstream/{name}", flow.upstream_start, methods=["GET"], name="upstream"),
        Route("/upstream/{name}/callback", flow.upstream_callback, methods=["GET"], name="upstream_callback"),
    ]
    browser = Mount(
        "/oauth", routes=pages_routes, name="oauth", middleware=list(middleware), max_body_size=MAX_FORM_BYTES
    )
    return [*routes, browser]
