"""The client side of OAuth 2 with external providers: PKCE, the authorization URL and the
token endpoint (code exchange and refresh) with retries for transient failures.

Nothing here logs a token, a code or a client secret.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlencode, urlsplit

import anyio
import httpx

from .store import OAuthApp

logger = logging.getLogger("mcpist.vault")

_TRANSIENT_STATUS = frozenset({429, 500, 502, 503, 504})


class ProviderRejected(Exception):
    """The token endpoint refused the request (an OAuth error such as invalid_grant)."""

    def __init__(self, error: str, status: int) -> None:
        super().__init__(f"{error} (HTTP {status})")
        self.error = error
        self.status = status


class ProviderUnavailable(Exception):
    """The token endpoint failed transiently on every try."""


@dataclass(frozen=True)
class TokenResponse:
    access_token: str = field(repr=False)
    refresh_token: str | None = field(repr=False)
    expires_at: datetime | None
    scopes: tuple[str, ...] | None
    refresh_expires_at: datetime | None = None
    """From `refresh_token_expires_in`, which some providers send (Google for time-limited grants)."""


def pkce_pair() -> tuple[str, str]:
    """A PKCE code verifier (43 characters) and its S256 challenge."""
    verifier = secrets.token_urlsafe(32)
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return verifier, base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def authorization_url(
    authorize_url: str,
    client_id: str,
    redirect_uri: str,
    state: str,
    challenge: str,
    scopes: Sequence[str],
    *,
    extra: Mapping[str, str] | None = None,
) -> str:
    """The provider's authorization URL; `extra` (e.g. `access_type=offline`) never overrides the flow's own."""
    params = {**(extra or {})}
    params |= {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": redirect_uri,
        "state": state,
        "code_challenge": challenge,
        "code_challenge_method": "S256",
    }
    if scopes:
        params["scope"] = " ".join(scopes)
    joiner = "&" if urlsplit(authorize_url).query else "?"
    return f"{authorize_url}{joiner}{urlencode(params)}"


def _parse(response: httpx.Response, now: datetime) -> TokenResponse:
    try:
        body: Any = response.json()
    except ValueError:
        raise ProviderRejected("invalid_response", response.status_code) from None
    if not isinstance(body, dict):
        raise ProviderRejected("invalid_response", response.status_code)
    if response.status_code >= 400 or "error" in body:
        error = body.get("error")
        raise ProviderRejected(error if isinstance(error, str) and error else "error", response.status_code)
    access = body.get("access_token")
    if not isinstance(access, str) or not access:
        raise ProviderRejected("invalid_response", response.status_code)
    refresh = body.get("refresh_token")
    scope = body.get("scope")
    return TokenResponse(
        access_token=access,
        refresh_token=refresh if isinstance(refresh, str) and refresh else None,
        expires_at=_after(now, body.get("expires_in")),
        scopes=tuple(scope.replace(",", " ").split()) if isinstance(scope, str) else None,
        refresh_expires_at=_after(now, body.get("refresh_token_expires_in")),
    )


def _after(now: datetime, seconds: Any) -> datetime | None:
    """`now` plus a lifetime in seconds as token endpoints send it (a number or a numeric string)."""
    if isinstance(seconds, str) and seconds.isdigit():
        seconds = int(seconds)
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not 0 <= seconds < 10**9:
        return None
    return now + timedelta(seconds=float(seconds))


async def request_token(
    http: httpx.AsyncClient,
    token_url: str,
    form: dict[str, str],
    app: OAuthApp,
    client_secret: str,
    *,
    tries: int = 3,
    backoff_s: float = 0.5,
    json_body: bool = False,
) -> TokenResponse:
    """POST to the token endpoint, retrying network errors, 429 and 5xx with exponential backoff.

    The form goes as `application/x-www-form-urlencoded` (RFC 6749), or as JSON with `json_body`
    (Notion's token endpoint takes JSON).

    Raises:
        ProviderRejected: the provider answered with an OAuth error (e.g. invalid_grant).
        ProviderUnavailable: every try failed transiently.
    """
    data = dict(form)
    auth: httpx.BasicAuth | None = None
    if app.auth_method == "client_secret_basic" and client_secret:
        auth = httpx.BasicAuth(app.client_id, client_secret)
    else:
        data["client_id"] = app.client_id
        if client_secret:
            data["client_secret"] = client_secret
    grant = form.get("grant_type", "?")
    for attempt in range(1, tries + 1):
        if attempt > 1:
            await anyio.sleep(backoff_s * 2 ** (attempt - 2))
        try:
            response = await http.post(
                token_url,
                data=None if json_body else data,
                json=data if json_body else None,
                auth=auth or httpx.USE_CLIENT_DEFAULT,
                headers={"Accept": "application/json"},
            )
        except httpx.TransportError as exc:
            logger.warning(
                "token endpoint %s (%s): try %d/%d failed: %s", token_url, grant, attempt, tries, type(exc).__name__
            )
            continue
        if response.status_code in _TRANSIENT_STATUS:
            logger.warning(
                "token endpoint %s (%s): try %d/%d got HTTP %d", token_url, grant, attempt, tries, response.status_code
            )
            continue
        return _parse(response, datetime.now(UTC))
    raise ProviderUnavailable(f"the token endpoint {token_url} failed {tries} times")
