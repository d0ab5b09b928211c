"""Signing in through an upstream provider (Google, GitHub, Microsoft, any OpenID Connect IdP).

Authorization code flow with PKCE and `state`; the email comes from the userinfo endpoint (GitHub:
the emails API), fetched with the access token we just got from the token endpoint, and counts
only when the provider says it is verified.
"""

from __future__ import annotations

import base64
import hashlib
import logging
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import httpx

from mcpist.config import UpstreamProvider

logger = logging.getLogger("mcpist.auth.oauth")

_GITHUB = (
    "https://github.com/login/oauth/authorize",
    "https://github.com/login/oauth/access_token",
    "https://api.github.com/user/emails",
)
_DEFAULT_SCOPES = {"github": ["read:user", "user:email"]}
_OIDC_SCOPES = ["openid", "email", "profile"]
_DISPLAY = {"google": "Google", "github": "GitHub", "microsoft": "Microsoft"}


class UpstreamError(Exception):
    """The provider refused, failed, or gave no verified email; the message is safe to show."""


@dataclass(frozen=True)
class Endpoints:
    authorization: str
    token: str
    userinfo: str


def pkce_challenge(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()


class Upstream:
    def __init__(self, provider: UpstreamProvider, http: httpx.AsyncClient, callback_url: str) -> None:
        self.provider = provider
        self._http = http
        self.callback_url = callback_url
        self._endpoints: Endpoints | None = None

    @property
    def display_name(self) -> str:
        return self.provider.display_name or _DISPLAY.get(self.provider.kind, self.provider.name)

    def _issuer(self) -> str | None:
        p = self.provider
        if p.kind == "google":
            return p.issuer or "https://accounts.google.com"
        if p.kind == "microsoft":
            return p.issuer or f"https://login.microsoftonline.com/{p.tenant}/v2.0"
        return p.issuer

    async def endpoints(self) -> Endpoints:
        """Raises:
        UpstreamError: the discovery document cannot be read.
        """
        if self._endpoints is not None:
            return self._endpoints
        p = self.provider
        if p.authorization_endpoint and p.token_endpoint and p.userinfo_endpoint:
            self._endpoints = Endpoints(p.authorization_endpoint, p.token_endpoint, p.userinfo_endpoint)
        elif p.kind == "github":
            self._endpoints = Endpoints(*_GITHUB)
        else:
            issuer = self._issuer()
            assert issuer is not None
            document = await self._json("GET", issuer.rstrip("/") + "/.well-known/openid-configuration")
            # Microsoft's documents name the tenant id, not the alias (`consumers`) we asked under
            if p.kind == "oidc" and str(document.get("issuer", "")).rstrip("/") != issuer.rstrip("/"):
                raise UpstreamError(f"{self.display_name}: the discovery document names another issuer")
            try:
                self._endpoints = Endpoints(
                    str(document["authorization_endpoint"]),
                    str(document["token_endpoint"]),
                    str(document["userinfo_endpoint"]),
                )
            except KeyError as exc:
                raise UpstreamError(f"{self.display_name}: the discovery document has no {exc.args[0]}") from None
        return self._endpoints

    async def authorization_url(self, *, state: str, verifier: str, nonce: str) -> str:
        """Raises:
        UpstreamError: the provider's endpoints are unknown.
        """
        endpoints = await self.endpoints()
        scopes = self.provider.scopes or _DEFAULT_SCOPES.get(self.provider.kind, _OIDC_SCOPES)
        query = {
            "response_type": "code",
            "client_id": self.provider.client_id,
            "redirect_uri": self.callback_url,
            "scope": " ".join(scopes),
            "state": state,
            "code_challenge": pkce_challenge(verifier),
            "code_challenge_method": "S256",
        }
        if self.provider.kind != "github":
            query["nonce"] = nonce
        separator = "&" if "?" in endpoints.authorization else "?"
        return endpoints.authorization + separator + urlencode(query)

    async def verified_emails(self, code: str, verifier: str) -> list[str]:
        """Exchange the code, then read the account's verified email addresses (lowercase).

        Raises:
            UpstreamError: the exchange or the lookup failed.
        """
        endpoints = await self.endpoints()
        tokens = await self._json(
            "POST",
            endpoints.token,
            data={
                "grant_type": "authorization_code",
                "code": code,
                "redirect_uri": self.callback_url,
                "client_id": self.provider.client_id,
                "client_secret": self.provider.client_secret.get_secret_value(),
                "code_verifier": verifier,
            },
        )
        access_token = tokens.get("access_token")
        if not isinstance(access_token, str) or not access_token:
            raise UpstreamError(
                f"{self.display_name} did not issue an access token ({tokens.get('error', 'no error')})"
            )
        headers = {"Authorization": f"Bearer {access_token}"}
        if self.provider.kind == "github":
            headers["Accept"] = "application/vnd.github+json"
            listing = await self._json("GET", endpoints.userinfo, headers=headers, expect=list)
            ordered = sorted(
                (e for e in listing if isinstance(e, dict) and e.get("verified") is True),
                key=lambda e: not e.get("primary"),
            )
            return [str(e["email"]).lower() for e in ordered if isinstance(e.get("email"), str)]
        info = await self._json("GET", endpoints.userinfo, headers=headers)
        email = info.get("email")
        # Microsoft sends no email_verified; the tenant (never `common`) vouches for its addresses
        verified = self.provider.kind == "microsoft" or info.get("email_verified") in (True, "true")
        return [email.lower()] if isinstance(email, str) and email and verified else []

    async def _json(self, method: str, url: str, *, expect: type = dict, **kwargs: Any) -> Any:
        headers = {"Accept": "application/json", **kwargs.pop("headers", {})}
        try:
            response = await self._http.request(method, url, headers=headers, timeout=15.0, **kwargs)
            response.raise_for_status()
            body = response.json()
        except (httpx.HTTPError, ValueError) as exc:
            logger.warning("upstream %s: %s %s failed: %s", self.provider.name, method, url, exc)
            raise UpstreamError(f"{self.display_name} could not be reached or refused the request") from None
        if not isinstance(body, expect):
            raise UpstreamError(f"{self.display_name} answered with something unexpected")
        return body
