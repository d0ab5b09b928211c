"""MCPist's OAuth 2.1 authorization server for MCP clients, and verification of an external IdP's JWTs.

MCP's authorization is part of the MCP specification and this server is built on the SDK's auth
routes, provider interface and models, so it lives in the protocol layer. Who may sign in (users,
passwords, failed sign-ins, upstream providers) is `mcpist.auth`'s, which this package uses.

Wiring (protocol/http.py, for web/app.py): mount `oauth_routes(runtime, settings.auth, pages=...)` beside
`/mcp` (its browser pages drawn by the web layer's templates), and authenticate
`/mcp` with `ChainedTokenVerifier([ApiTokenVerifier(...), *token_verifiers(runtime, settings.auth)])`.
Every verifier checks the token's audience itself (API tokens are only ever for this server).

Its modules log as `mcpist.auth.oauth`, the name they had before they moved here.
"""

from ._crypto import Keys, load_master_key
from .external import ExternalJwtVerifier
from .pages import Pages
from .provider import MCPistAuthProvider
from .routes import RuntimeLike, authorization_servers, browser_user, oauth_routes, token_verifiers
from .session import Cookies
from .signin import PasswordOutcome, PasswordSignIn
from .verifiers import ChainedTokenVerifier, OAuthTokenVerifier

__all__ = [
    "ChainedTokenVerifier",
    "Cookies",
    "ExternalJwtVerifier",
    "Keys",
    "MCPistAuthProvider",
    "OAuthTokenVerifier",
    "Pages",
    "PasswordOutcome",
    "PasswordSignIn",
    "RuntimeLike",
    "authorization_servers",
    "browser_user",
    "load_master_key",
    "oauth_routes",
    "token_verifiers",
]
