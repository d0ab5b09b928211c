"""How a module's accounts authenticate upstream, and the fields an account carries besides its secret."""

from __future__ import annotations

import re
import string
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal
from urllib.parse import quote

FIELD_NAME_RE = re.compile(r"^[a-z][a-z0-9_]{0,31}$")


@dataclass(frozen=True)
class NoAuth:
    """The module needs no credential."""

    kind: Literal["none"] = "none"


@dataclass(frozen=True)
class ApiKeyAuth:
    """A long-lived token or API key (seed 001 type A).

    Sent as `header: scheme secret` (no scheme: the bare secret). With `basic_user_field`, an account
    that has that field (e.g. `email`) sends HTTP Basic `field:secret` instead (Atlassian Cloud API tokens),
    while one without it keeps the header (a Data Center personal access token).
    """

    kind: Literal["api_key"] = "api_key"
    header: str = "Authorization"
    scheme: str = "Bearer"
    basic_user_field: str | None = None


@dataclass(frozen=True)
class OAuth2Auth:
    """OAuth 2 authorization code with refresh (seed 001 type B); the access token goes out as a Bearer token.

    `read_only_scopes` are asked for instead of `scopes` when an account is connected read-only;
    `authorize_params` go on the authorization URL (e.g. `access_type=offline`, `prompt=consent`);
    the client authenticates at the token endpoint as its app was registered (`--basic-auth`).
    The two URLs may hold `{name}` placeholders filled from the module's setting of that name
    (Microsoft's `{tenant}`: `common`, `organizations` or a tenant id).
    """

    authorize_url: str
    token_url: str
    scopes: tuple[str, ...] = ()
    kind: Literal["oauth2"] = "oauth2"
    pkce: bool = True
    read_only_scopes: tuple[str, ...] | None = None
    authorize_params: Mapping[str, str] = field(default_factory=dict)
    exchange_format: Literal["form", "json"] = "form"
    """How the token endpoint takes its request: a form (RFC 6749) or a JSON body (Notion)."""
    basic_user_field: str | None = None
    """As for `ApiKeyAuth`: an account added with a key and this field (Atlassian's `email`) sends HTTP
    Basic `field:key`; OAuth accounts and keys without the field send a Bearer token."""
    refresh_scopes: bool = False
    """Send the scopes again with a refresh (Microsoft's identity platform asks for them)."""
    reauth_hint: str | None = None
    """Said after "connect again" when the provider rejects a refresh token, e.g. why Google does so."""

    def placeholders(self) -> set[str]:
        """The setting names the URLs refer to."""
        names: set[str] = set()
        for url in (self.authorize_url, self.token_url):
            names |= {name for _, name, _, _ in string.Formatter().parse(url) if name is not None}
        return names

    def for_settings(self, settings: Any) -> OAuth2Auth:
        """These endpoints with their placeholders filled from `settings` (each value URL-quoted)."""
        names = self.placeholders()
        if not names:
            return self
        values = {name: quote(str(getattr(settings, name)), safe="") for name in names}
        return replace(
            self, authorize_url=self.authorize_url.format(**values), token_url=self.token_url.format(**values)
        )


AuthSpec = NoAuth | ApiKeyAuth | OAuth2Auth


@dataclass(frozen=True)
class AccountField:
    """A non-secret value an account of this service carries (`mcpist account add … --set NAME=VALUE`).

    `pattern` (a full-match regular expression) and `choices` validate what the user gives.
    """

    name: str
    description: str
    required: bool = False
    pattern: str | None = None
    choices: tuple[str, ...] = ()
    max_length: int = 500

    def __post_init__(self) -> None:
        if not FIELD_NAME_RE.fullmatch(self.name):
            raise ValueError(f"invalid account field name {self.name!r}: use 1-32 of a-z, 0-9 and _")
        if self.pattern is not None:
            re.compile(self.pattern)

    def problem(self, value: str) -> str | None:
        """Why `value` is not acceptable for this field, or None."""
        if not value or len(value) > self.max_length:
            return f"must be 1-{self.max_length} characters"
        if self.choices and value not in self.choices:
            return f"must be one of {', '.join(self.choices)}"
        if self.pattern is not None and not re.fullmatch(self.pattern, value):
            return f"must match {self.pattern}"
        return None


URL_PATTERN = r"https?://[^\s/?#]+(/[^\s?#]*)?"
"""An http(s) URL without query or fragment: what a `site` or `base_url` account field takes."""
