"""Client ID Metadata Documents (a client_id that is an HTTPS URL) and the redirect URIs we accept."""

from __future__ import annotations

import ipaddress
import json
import logging
from collections.abc import Callable
from urllib.parse import urlsplit

import httpx
from mcp.shared.auth import OAuthClientInformationFull
from pydantic import AnyUrl, ValidationError

logger = logging.getLogger("mcpist.auth.oauth")

MAX_DOCUMENT_BYTES = 5 * 1024
_FORBIDDEN_SCHEMES = {"javascript", "data", "file", "vbscript", "about", "blob", "ftp", "ws", "wss"}


def is_loopback_host(host: str | None) -> bool:
    if not host:
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def redirect_uri_problem(uri: AnyUrl | str) -> str | None:
    """Why this redirect URI is refused (OAuth 2.1 §2.3.1, RFC 8252), or None."""
    parts = urlsplit(str(uri))
    scheme = parts.scheme.lower()
    if parts.fragment:
        return f"redirect URI {uri} has a fragment"
    if scheme in _FORBIDDEN_SCHEMES or not scheme:
        return f"redirect URI {uri} uses a scheme that cannot receive a code"
    if scheme == "http" and not is_loopback_host(parts.hostname):
        return f"redirect URI {uri} must use https (plain http only for loopback addresses)"
    return None


def metadata_url_problem(url: str) -> str | None:
    """Why `url` cannot be a client_id metadata document URL, or None."""
    parts = urlsplit(url)
    if parts.scheme != "https" or not parts.hostname:
        return "the client_id URL must use https"
    if parts.path in ("", "/") or parts.fragment or parts.username or parts.password:
        return "the client_id URL needs a path and no fragment or credentials"
    if "/./" in parts.path or "/../" in parts.path:
        return "the client_id URL must not contain dot segments"
    host = parts.hostname
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return "the client_id URL must not name localhost" if host == "localhost" else None
    if not address.is_global:
        return "the client_id URL must not point at a private address"
    return None


class ClientDocuments:
    """Fetches and caches client metadata documents (draft-ietf-oauth-client-id-metadata-document)."""

    def __init__(self, http: httpx.AsyncClient, clock: Callable[[], float], *, cache_s: float = 300.0) -> None:
        self._http = http
        self._clock = clock
        self._cache_s = cache_s
        self._cache: dict[str, tuple[float, OAuthClientInformationFull | None]] = {}

    async def get(self, client_id: str) -> OAuthClientInformationFull | None:
        cached = self._cache.get(client_id)
        if cached is not None and cached[0] > self._clock():
            return cached[1]
        client = await self._fetch(client_id)
        if len(self._cache) > 1_000:
            self._cache.clear()
        # failures are cached briefly too, so a bad client_id cannot make us fetch on every request
        self._cache[client_id] = (self._clock() + (self._cache_s if client else 30.0), client)
        return client

    async def _fetch(self, client_id: str) -> OAuthClientInformationFull | None:
        problem = metadata_url_problem(client_id)
        if problem:
            logger.info("client metadata document %s refused: %s", client_id, problem)
            return None
        try:
            async with self._http.stream(
                "GET", client_id, headers={"Accept": "application/json"}, follow_redirects=False, timeout=10.0
            ) as response:
                if response.status_code != 200:
                    logger.info("client metadata document %s: HTTP %s", client_id, response.status_code)
                    return None
                body = b""
                async for chunk in response.aiter_bytes():
                    body += chunk
                    if len(body) > MAX_DOCUMENT_BYTES:
                        logger.info("client metadata document %s is over %d bytes", client_id, MAX_DOCUMENT_BYTES)
                        return None
        except httpx.HTTPError as exc:
            logger.info("client metadata document %s cannot be fetched: %s", client_id, exc)
            return None
        return parse_document(client_id, body)


def parse_document(client_id: str, body: bytes) -> OAuthClientInformationFull | None:
    try:
        document = json.loads(body)
    except ValueError:
        return None
    if not isinstance(document, dict) or document.get("client_id") != client_id:
        logger.info("client metadata document %s does not name itself as client_id", client_id)
        return None
    # a document is public: a secret in it would be no secret, and we cannot check private_key_jwt
    if document.get("token_endpoint_auth_method", "none") != "none" or "client_secret" in document:
        logger.info("client metadata document %s asks for client authentication we do not support", client_id)
        return None
    document.pop("client_secret_expires_at", None)
    try:
        client = OAuthClientInformationFull.model_validate(document)
    except ValidationError:
        return None
    if not client.redirect_uris or any(redirect_uri_problem(u) for u in client.redirect_uris):
        return None
    if "authorization_code" not in client.grant_types:
        return None
    client.token_endpoint_auth_method = "none"  # noqa: S105 - the name of a method, not a secret
    return client
