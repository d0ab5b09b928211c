"""MCPist's OAuth 2.1 authorization server for MCP clients, and verification of an external IdP's JWTs.

Wiring (web/app.py): mount `oauth_routes(runtime, settings.auth)` beside `/mcp`, and authenticate
`/mcp` with `ChainedTokenVerifier([ApiTokenVerifier(...), *token_verifiers(runtime, settings.auth)])`.
Every verifier checks the token's audience itself (API tokens are only ever for this server).
"""

from .external import ExternalJwtVerifier
from .provider import MCPistAuthProvider
from .routes import RuntimeLike, authorization_servers, browser_user, oauth_routes, token_verifiers
from .verifiers import ChainedTokenVerifier, OAuthTokenVerifier

__all__ = [
    "ChainedTokenVerifier",
    "ExternalJwtVerifier",
    "MCPistAuthProvider",
    "OAuthTokenVerifier",
    "RuntimeLike",
    "authorization_servers",
    "browser_user",
    "oauth_routes",
    "token_verifiers",
]
