"""Bounds on what the unauthenticated OAuth endpoints accept and keep (`settings.limits`).

`POST /register` takes at most `max_registration_bytes` of metadata with `max_redirect_uris`
redirect URIs, `registrations_per_address` times per client address and window, and keeps at most
`max_registrations` clients (registrations nothing uses expire). `/authorize` takes a bounded
request (`state` up to `max_state_chars`), `authorizations_per_address` times per window; the
store keeps a bounded number of pending authorizations (per client and in all).
"""

from __future__ import annotations

import json
import math
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from mcp.server.auth.handlers.authorize import AuthorizationHandler
from mcp.server.auth.handlers.register import RegistrationHandler
from mcp.server.auth.routes import cors_middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive

from mcpist.config import LimitsSettings

from .store import OAuthStore

__all__ = ["AddressWindow", "Admission", "MAX_URI_CHARS"]

MAX_URI_CHARS = 2_048
MAX_AUTHORIZE_BYTES = 8_192
"""An authorization request's query or form: state, PKCE challenge, redirect URI, scopes, resource."""


class AddressWindow:
    """At most `count` events per client address in a sliding window, counted in this process.

    Remembers at most `max_addresses` addresses: the longest quiet are forgotten first.
    """

    def __init__(self, count: int, window_s: float, clock: Callable[[], float], max_addresses: int = 10_000) -> None:
        self._count = count
        self._window_s = window_s
        self._clock = clock
        self._max = max_addresses
        self._seen: dict[str, deque[float]] = {}

    def take(self, address: str) -> float:
        """Record one event and return 0, or the seconds until the address may try again (nothing recorded)."""
        now = self._clock()
        times = self._seen.pop(address, None) or deque()
        while times and times[0] <= now - self._window_s:
            times.popleft()
        self._seen[address] = times  # most recently seen last
        if len(times) >= self._count:
            return max(times[0] + self._window_s - now, 0.001)
        times.append(now)
        while len(self._seen) > self._max:
            del self._seen[next(iter(self._seen))]
        return 0.0


def _error(status: int, error: str, description: str, retry_after_s: float | None = None) -> Response:
    headers = {"Cache-Control": "no-store"}
    if retry_after_s is not None:
        headers["Retry-After"] = str(math.ceil(retry_after_s))
    return JSONResponse({"error": error, "error_description": description}, status_code=status, headers=headers)


async def _bounded_body(request: Request, limit: int) -> bytes | None:
    """The request's body, or None once it passes `limit` bytes (declared or sent)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        return None
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            return None
    return bytes(body)


def _replayed(request: Request, body: bytes) -> Request:
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if sent:
            return await request.receive()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    replay: Receive = receive
    return Request(request.scope, replay)


def _address(request: Request) -> str:
    # the proxy's address unless it is one of trusted_proxies (then uvicorn put the client's here)
    return request.client.host if request.client else "-"


def metadata_problem(raw: Any, limits: LimitsSettings) -> tuple[str, str] | None:
    """(error, description) for client metadata beyond the bounds; None when it is within them."""
    if not isinstance(raw, dict):
        return "invalid_client_metadata", "the body must be a JSON object"
    uris = raw.get("redirect_uris")
    if isinstance(uris, list):
        if len(uris) > limits.max_redirect_uris:
            return "invalid_redirect_uri", f"at most {limits.max_redirect_uris} redirect_uris, not {len(uris)}"
        if any(not isinstance(u, str) or len(u) > MAX_URI_CHARS for u in uris):
            return "invalid_redirect_uri", f"each redirect URI must be a string of at most {MAX_URI_CHARS} characters"
    for key, value in raw.items():
        if isinstance(value, str) and len(value) > MAX_URI_CHARS:
            return "invalid_client_metadata", f"{key[:64]} is longer than {MAX_URI_CHARS} characters"
        if isinstance(value, list) and len(value) > 32:
            return "invalid_client_metadata", f"{key[:64]} has more than 32 entries"
    return None


class Admission:
    """The guarded `/register` and `/authorize` endpoints."""

    def __init__(self, store: OAuthStore, limits: LimitsSettings, clock: Callable[[], float]) -> None:
        self.store = store
        self.limits = limits
        self._registrations = AddressWindow(limits.registrations_per_address, limits.address_window_s, clock)
        self._authorizations = AddressWindow(limits.authorizations_per_address, limits.address_window_s, clock)

    def register_endpoint(self, handler: RegistrationHandler) -> ASGIApp:
        """`POST /register` (with CORS, as the SDK serves it) behind the registration bounds."""

        async def register(request: Request) -> Response:
            body = await _bounded_body(request, self.limits.max_registration_bytes)
            if body is None:
                return _error(
                    413,
                    "invalid_client_metadata",
                    f"client metadata is limited to {self.limits.max_registration_bytes} bytes",
                )
            try:
                problem = metadata_problem(json.loads(body), self.limits)
            except ValueError:
                problem = None  # not JSON: the SDK's own validation answers
            if problem is not None:
                return _error(400, *problem)
            wait = self._registrations.take(_address(request))
            if wait:
                return _error(429, "slow_down", "too many registrations from this address; try again later", wait)
            await self.store.expire_unused_clients(self.limits.unused_registration_s)
            if await self.store.count_clients() >= self.limits.max_registrations:
                return _error(503, "temporarily_unavailable", "this server holds as many clients as it may; try later")
            return await handler.handle(_replayed(request, body))

        return cors_middleware(register, ["POST", "OPTIONS"])

    def authorize_endpoint(self, handler: AuthorizationHandler) -> Callable[[Request], Awaitable[Response]]:
        """`GET|POST /authorize` behind the authorization bounds (pending ones are bounded by the store)."""

        async def authorize(request: Request) -> Response:
            body = b""
            if request.method == "POST":
                got = await _bounded_body(request, MAX_AUTHORIZE_BYTES)
                if got is None:
                    return _error(
                        413, "invalid_request", f"an authorization request is limited to {MAX_AUTHORIZE_BYTES} bytes"
                    )
                body = got
            elif len(request.scope.get("query_string", b"")) > MAX_AUTHORIZE_BYTES:
                return _error(
                    414, "invalid_request", f"an authorization request is limited to {MAX_AUTHORIZE_BYTES} bytes"
                )
            replayed = _replayed(request, body)
            params = replayed.query_params if request.method == "GET" else await replayed.form()
            state = params.get("state")
            if isinstance(state, str) and len(state) > self.limits.max_state_chars:
                return _error(400, "invalid_request", f"state is limited to {self.limits.max_state_chars} characters")
            wait = self._authorizations.take(_address(request))
            if wait:
                return _error(429, "slow_down", "too many authorization requests from this address; try later", wait)
            return await handler.handle(_replayed(request, body))

        return authorize
