"""Limits that keep one caller, or nobody at all, from exhausting the server.

Mounted as `Settings.limits` (TOML `[limits]`, environment `MCPIST_LIMITS__...`); `trusted_proxies`
is a top-level setting (`MCPIST_TRUSTED_PROXIES='["10.0.0.5"]'`). Each bound is derived from what the
work costs: a session holds a server task and buffers, a call a worker, a registration a database row.
A module bounds its own inputs in its own settings (`[modules.settings.memory] max_query_chars`).
"""

from __future__ import annotations

import ipaddress
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field


def _check_proxies(value: list[str]) -> list[str]:
    for item in value:
        try:
            ipaddress.ip_network(item.strip(), strict=False)
        except ValueError:
            raise ValueError(f"{item!r} is not an IP address or network (e.g. 10.0.0.5 or 10.0.0.0/24)") from None
    return [item.strip() for item in value]


TrustedProxies = Annotated[list[str], AfterValidator(_check_proxies)]
"""Addresses or networks of reverse proxies whose X-Forwarded-For / X-Forwarded-Proto are believed."""


class LimitsSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    # MCP sessions (protocol 2025-11-25 keeps one per client connection)
    sessions_per_token: int = Field(64, ge=1, le=100_000)
    """Open MCP sessions of one token (or OAuth grant). A new one beyond it closes the token's least
    recently used idle session; when every one is busy, it is refused with RESOURCE_EXHAUSTED."""
    sessions_per_user: int = Field(256, ge=1, le=100_000)
    """The same, over all of a user's tokens."""
    max_sessions: int = Field(10_000, ge=1, le=1_000_000)
    """Open MCP sessions of the whole server."""
    session_idle_s: float = Field(600.0, gt=0, le=86_400)
    """A session without a request in flight for this long is closed (the client opens a new one)."""

    # work running at once
    calls_per_token: int = Field(64, ge=1, le=100_000)
    """Tool calls of one token running at once (each `batch` task and script call counts)."""
    calls_per_user: int = Field(128, ge=1, le=100_000)
    batches_per_token: int = Field(4, ge=1, le=10_000)
    """`batch` runs of one token at once."""
    batches_per_user: int = Field(8, ge=1, le=10_000)
    scripts_per_token: int = Field(2, ge=1, le=10_000)
    """`run_script` runs of one token at once."""
    scripts_per_user: int = Field(4, ge=1, le=10_000)

    # what unauthenticated endpoints may store
    registrations_per_address: int = Field(10, ge=1, le=100_000)
    """OAuth client registrations (`POST /register`) one client address may make per `address_window_s`."""
    authorizations_per_address: int = Field(60, ge=1, le=100_000)
    """`/authorize` requests one client address may make per `address_window_s`."""
    address_window_s: float = Field(600.0, gt=0, le=86_400)
    max_registration_bytes: int = Field(16_384, ge=1_024, le=1 << 20)
    """Size of one registration request (the client's metadata)."""
    max_redirect_uris: int = Field(10, ge=1, le=100)
    max_registrations: int = Field(10_000, ge=10, le=10_000_000)
    """Registered OAuth clients kept at once; beyond it, registration answers 503 until unused ones expire."""
    unused_registration_s: float = Field(86_400.0, ge=60, le=365 * 86_400)
    """A registered client that has no code or token (none issued, or all expired) is removed after this."""
    pending_authorizations_per_client: int = Field(20, ge=1, le=100_000)
    """Authorizations of one client waiting for the user's sign-in and consent (each expires in 15 minutes)."""
    max_pending_authorizations: int = Field(2_000, ge=10, le=10_000_000)
    max_state_chars: int = Field(1_024, ge=32, le=65_536)
    """Length of an authorization request's `state` (clients send about 43)."""

    # slow clients
    header_timeout_s: float = Field(10.0, gt=0, le=600)
    """Time a client has to send a request's headers, from its first byte or from connecting."""
    body_timeout_s: float = Field(60.0, gt=0, le=3_600)
    """Time a client has to send a request's body once its headers arrived."""
    keep_alive_s: float = Field(5.0, gt=0, le=600)
    """An idle keep-alive connection is closed after this."""
    max_header_bytes: int = Field(16_384, ge=1_024, le=1 << 20)
    """A request line and headers larger than this are answered 400."""
