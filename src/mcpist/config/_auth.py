"""Settings for signing in: token lifetimes, the login page, upstream providers, external JWTs.

Mounted as `Settings.auth` (TOML `[auth]`, `[[auth.upstream]]`, `[auth.external_jwt]`; environment
`MCPIST_AUTH__...`).
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationInfo, field_validator, model_validator

_NAME_RE = re.compile(r"^[a-z][a-z0-9-]{0,31}$")
# asymmetric only: a shared-secret (HS*) key taken from a JWKS is a classic algorithm-confusion hole
ASYMMETRIC_ALGORITHMS = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA")


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _check_url(value: str | None, field: str) -> str | None:
    if value is not None and not value.startswith(("https://", "http://")):
        raise ValueError(f"{field} must be an http(s) URL")
    return value


class UpstreamProvider(_Section):
    """One upstream sign-in provider; its callback is `<public_url>/oauth/upstream/<name>/callback`."""

    name: str
    """A short slug used in URLs, e.g. `google`."""
    kind: Literal["google", "github", "microsoft", "oidc"]
    client_id: str
    client_secret: SecretStr
    display_name: str | None = None
    issuer: str | None = None
    """For `oidc`: endpoints come from `<issuer>/.well-known/openid-configuration`."""
    tenant: str = "consumers"
    """For `microsoft`: a tenant id or `consumers`. `common` and `organizations` are refused: any
    tenant could then assert any email address."""
    authorization_endpoint: str | None = None
    token_endpoint: str | None = None
    userinfo_endpoint: str | None = None
    """Overrides (all three together), e.g. for GitHub Enterprise; for `github` this is the emails API."""
    scopes: list[str] | None = None
    allowed_emails: list[str] = Field(default_factory=list)
    """Who may sign in through this provider: exact addresses, or `@example.com` for a domain.
    Users already registered in MCPist may sign in too (their address is the allowlist)."""

    @field_validator("name")
    @classmethod
    def _check_name(cls, value: str) -> str:
        if not _NAME_RE.fullmatch(value):
            raise ValueError("use 1-32 lowercase letters, digits or '-', starting with a letter")
        return value

    @field_validator("allowed_emails")
    @classmethod
    def _lower(cls, value: list[str]) -> list[str]:
        return [v.strip().lower() for v in value if v.strip()]

    @model_validator(mode="after")
    def _check_endpoints(self) -> UpstreamProvider:
        for field in ("issuer", "authorization_endpoint", "token_endpoint", "userinfo_endpoint"):
            _check_url(getattr(self, field), field)
        explicit = [self.authorization_endpoint, self.token_endpoint, self.userinfo_endpoint]
        if any(explicit) and not all(explicit):
            raise ValueError("set authorization_endpoint, token_endpoint and userinfo_endpoint together")
        if self.kind == "oidc" and self.issuer is None and not all(explicit):
            raise ValueError("an oidc provider needs an issuer (or all three endpoints)")
        if self.kind == "microsoft" and self.tenant.lower() in ("common", "organizations"):
            raise ValueError("tenant must be a tenant id or 'consumers': with 'common' any tenant vouches for emails")
        return self


class ExternalJwtSettings(_Section):
    """Accept access tokens an external IdP signs (Supabase Auth, Auth0, Keycloak...)."""

    jwks_url: str
    issuer: str
    audience: str | None = None
    """The `aud` the tokens must carry; defaults to the server's `/mcp` URL."""
    algorithms: list[str] = Field(default_factory=lambda: ["RS256", "ES256"])
    email_claim: str = "email"
    allowed_emails: list[str] = Field(default_factory=list)
    """Emails (or `@domain`) that become MCPist users on first use; registered users always may."""
    jwks_cache_s: float = Field(300.0, ge=0, le=86_400)
    leeway_s: float = Field(30.0, ge=0, le=300)

    @field_validator("jwks_url", "issuer")
    @classmethod
    def _url(cls, value: str, info: ValidationInfo) -> str:
        _check_url(value, info.field_name or "this")
        return value

    @field_validator("algorithms")
    @classmethod
    def _asymmetric(cls, value: list[str]) -> list[str]:
        bad = [a for a in value if a not in ASYMMETRIC_ALGORITHMS]
        if bad or not value:
            raise ValueError(f"choose from {', '.join(ASYMMETRIC_ALGORITHMS)} (not {', '.join(bad) or 'nothing'})")
        return value

    @field_validator("allowed_emails")
    @classmethod
    def _lower(cls, value: list[str]) -> list[str]:
        return [v.strip().lower() for v in value if v.strip()]


class AuthSettings(_Section):
    authorization_server: bool = True
    """Serve the OAuth 2.1 authorization server (needs an https public_url off localhost); off leaves
    API tokens and, if configured, external JWTs."""
    access_token_ttl_s: int = Field(3_600, ge=60, le=86_400)
    refresh_token_ttl_s: int = Field(30 * 86_400, ge=300, le=365 * 86_400)
    session_ttl_s: int = Field(12 * 3_600, ge=60, le=30 * 86_400)
    """How long the sign-in cookie of the login page lasts."""
    password_login: bool = True
    dynamic_registration: bool = True
    client_metadata_documents: bool = True
    login_max_failures: int = Field(5, ge=1, le=1_000)
    """Failed sign-ins of one (client address, email) within `login_window_s` before each further try must
    wait: `login_backoff_s`, doubling with each failure, at most the window. A browser that signed in as
    that email before (a signed device cookie) is counted on its own, so nobody else can slow it down."""
    login_backoff_s: float = Field(2.0, gt=0, le=3_600)
    login_max_failures_per_ip: int = Field(100, ge=1, le=100_000)
    """Failed sign-ins from one client address (any email) within the window before it is refused."""
    login_window_s: int = Field(900, ge=1, le=86_400)
    upstream: list[UpstreamProvider] = Field(default_factory=list)
    external_jwt: ExternalJwtSettings | None = None

    @field_validator("upstream")
    @classmethod
    def _unique(cls, value: list[UpstreamProvider]) -> list[UpstreamProvider]:
        names = [p.name for p in value]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(f"duplicate provider name(s): {', '.join(duplicates)}")
        return value

    def provider(self, name: str) -> UpstreamProvider | None:
        return next((p for p in self.upstream if p.name == name), None)
