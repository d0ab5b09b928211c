"""Browser state of the login and consent pages: signed HttpOnly SameSite=Lax cookies, CSRF tokens.

- session: who signed in, until when (HMAC-signed with a key derived from the master key);
- browser: a random id the CSRF tokens of the forms are bound to (so a login form is protected too);
- upstream: state, PKCE verifier and nonce of an upstream sign-in in flight;
- device: this browser once signed in with a password as this email (sign-in limits count it on its own).
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from ._crypto import Keys

UPSTREAM_TTL_S = 600
DEVICE_TTL_S = 180 * 86_400


class Cookies:
    def __init__(self, keys: Keys, *, secure: bool, session_ttl_s: int, clock: Callable[[], float]) -> None:
        self._keys = keys
        self._secure = secure
        self._session_ttl_s = session_ttl_s
        self._clock = clock
        # __Host- makes the browser refuse the cookie unless Secure, host-only and Path=/
        prefix = "__Host-" if secure else ""
        self._session = prefix + "mcpist_session"
        self._browser = prefix + "mcpist_browser"
        self._upstream = prefix + "mcpist_upstream"
        self._device = prefix + "mcpist_device"

    def _set(self, response: Response, name: str, value: str, max_age: int) -> None:
        response.set_cookie(name, value, max_age=max_age, path="/", secure=self._secure, httponly=True, samesite="lax")

    def _read(self, request: Request, name: str, kind: str) -> dict[str, Any] | None:
        raw = request.cookies.get(name)
        payload = self._keys.unsign(raw) if raw else None
        if payload is None or payload.get("t") != kind:
            return None
        expires = payload.get("exp")
        if not isinstance(expires, int | float) or expires <= self._clock():
            return None
        return payload

    def session_user(self, request: Request) -> str | None:
        payload = self._read(request, self._session, "session")
        user_id = payload.get("u") if payload else None
        return user_id if isinstance(user_id, str) else None

    def set_session(self, response: Response, user_id: str) -> None:
        value = self._keys.sign({"t": "session", "u": user_id, "exp": int(self._clock()) + self._session_ttl_s})
        self._set(response, self._session, value, self._session_ttl_s)

    def clear_session(self, response: Response) -> None:
        response.delete_cookie(self._session, path="/", secure=self._secure, httponly=True, samesite="lax")

    def browser_id(self, request: Request) -> str:
        """The browser's id from its cookie, or a new one (`set_browser` sends it), the same for the
        whole request: the form's CSRF token and the cookie sent with the page must agree."""
        value = request.cookies.get(self._browser, "")
        if 20 <= len(value) <= 64 and value.isascii():
            return value
        fresh = getattr(request.state, "mcpist_browser", None)
        if not isinstance(fresh, str):
            fresh = secrets.token_urlsafe(24)
            request.state.mcpist_browser = fresh
        return fresh

    def set_browser(self, response: Response, browser_id: str) -> None:
        self._set(response, self._browser, browser_id, 86_400)

    def csrf_token(self, browser_id: str, purpose: str) -> str:
        return self._keys.csrf_token(browser_id, purpose)

    def check_csrf(self, request: Request, submitted: object, purpose: str) -> bool:
        browser = request.cookies.get(self._browser)
        if not browser or not isinstance(submitted, str):
            return False
        return hmac.compare_digest(submitted, self._keys.csrf_token(browser, purpose))

    def set_upstream(self, response: Response, flow: dict[str, str]) -> None:
        value = self._keys.sign({**flow, "t": "upstream", "exp": int(self._clock()) + UPSTREAM_TTL_S})
        self._set(response, self._upstream, value, UPSTREAM_TTL_S)

    def upstream(self, request: Request) -> dict[str, Any] | None:
        return self._read(request, self._upstream, "upstream")

    def clear_upstream(self, response: Response) -> None:
        response.delete_cookie(self._upstream, path="/", secure=self._secure, httponly=True, samesite="lax")

    def device(self, request: Request, email: str) -> str | None:
        """The id of the device cookie this browser holds for `email`, if any."""
        payload = self._read(request, self._device, "device")
        if payload is None or payload.get("e") != email or not isinstance(payload.get("d"), str):
            return None
        return str(payload["d"])

    def set_device(self, response: Response, email: str) -> None:
        value = self._keys.sign(
            {"t": "device", "e": email, "d": secrets.token_urlsafe(12), "exp": int(self._clock()) + DEVICE_TTL_S}
        )
        self._set(response, self._device, value, DEVICE_TTL_S)
