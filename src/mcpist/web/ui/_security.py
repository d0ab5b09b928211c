"""Headers on every UI response, and the checks every form and script request passes (CSRF token
bound to the browser's cookie and to the signed-in user, same-origin)."""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mcpist.config import is_loopback

# no inline script or style anywhere; no form-action: it would also bind the redirects after the connect
# form to the provider's sign-in page, and every form already carries a CSRF token
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "frame-ancestors 'none'; base-uri 'none'"
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    # same-origin (not no-referrer): browsers then send the real Origin on the UI's own POSTs
    "Referrer-Policy": "same-origin",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=()",
}
CSRF_FIELD = "csrf"
CSRF_HEADER = "x-csrf-token"


class SecurityHeaders:
    """Adds HEADERS to every response, and `Cache-Control: no-store` to all but the static files."""

    def __init__(self, app: ASGIApp, static_prefix: str = "/static/") -> None:
        self.app = app
        self.static_prefix = static_prefix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        static = str(scope.get("path", "")).startswith(self.static_prefix)

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in HEADERS.items():
                    headers.setdefault(name, value)
                headers["Cache-Control"] = "public, max-age=3600" if static else "no-store"
            await send(message)

        await self.app(scope, receive, send_with_headers)


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def same_origin(request: Request, base_url: str) -> bool:
    """Whether a state-changing request comes from the UI's own pages.

    A browser sends Origin on every POST and fetch; it must be the public URL's origin, or (on a
    loopback server opened as localhost instead of 127.0.0.1) the loopback origin it was sent to.
    """
    if request.headers.get("sec-fetch-site") in ("cross-site", "same-site"):
        return False
    origin = request.headers.get("origin")
    if origin is None:
        return True  # not a browser, or an old one: the CSRF token still has to match
    if origin == origin_of(base_url):
        return True
    parts = urlsplit(origin)
    return (
        is_loopback(parts.hostname)
        and is_loopback(urlsplit(base_url).hostname)
        and (parts.netloc == request.headers.get("host"))
    )
