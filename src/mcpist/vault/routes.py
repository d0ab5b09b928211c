"""HTTP routes for connecting accounts in the browser (the URL of a URL elicitation).

    GET  /connect/{service}?t=TOKEN     type B: redirect to the provider (PKCE S256, fresh state)
                                        type A: a form to paste the key
    POST /connect/{service}             type A: store the pasted key
    GET  /connect/{service}/callback    type B: exchange the code, store the tokens

The connect token reaches only the user it was made for (through their MCP client or CLI).
Until the web login exists, that token is what binds the browser to the user; pass
`session_user` to also require the browser to be signed in as that user.
"""

from __future__ import annotations

import html
import logging
from collections.abc import Awaitable, Callable
from urllib.parse import parse_qs, urlsplit

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from mcpist.errors import MCPistError
from mcpist.modules.api import ApiKeyAuth

from .broker import TokenBroker
from .flows import Flow

logger = logging.getLogger("mcpist.vault")

SessionUser = Callable[[Request], Awaitable[str | None]]
MAX_FORM_BYTES = 16 * 1024
_HEADERS = {
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'",
}
_STYLE = "body{font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;line-height:1.5}"


def _page(title: str, message: str, status: int = 200, form: str = "") -> HTMLResponse:
    body = (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)} · MCPist</title>"
        f"<style>{_STYLE}</style></head><body><h1>{html.escape(title)}</h1>"
        f"<p>{html.escape(message)}</p>{form}</body></html>"
    )
    return HTMLResponse(body, status_code=status, headers=_HEADERS)


def _gone() -> HTMLResponse:
    return _page(
        "Link expired", "This link is invalid, already used or expired. Go back to your client and try again.", 404
    )


def _cookie_name(flow: Flow) -> str:
    return f"mcpist_connect_{flow.id.replace('-', '')[:16]}"


Connected = Callable[[str], Awaitable[object]]
"""Told the elicitation id of a connect flow that finished, so the client waiting on it can go on."""


def connect_routes(
    broker: TokenBroker, *, on_connected: Connected, session_user: SessionUser | None = None
) -> list[Route]:
    """The connect routes for `broker`; a finished connection calls `on_connected(elicitation_id)`."""
    connector = broker.connector
    secure = urlsplit(connector.base_url).scheme == "https"

    async def check_user(request: Request, flow: Flow) -> Response | None:
        if session_user is None:
            return None
        user = await session_user(request)
        if user is None:
            return _page("Sign in first", "Sign in to MCPist in this browser, then open the link again.", 401)
        if user != flow.user_id:
            logger.warning("connect %s:%s: browser signed in as another user", flow.service, flow.account_name)
            return _page("Wrong user", "This link was made for another MCPist user.", 403)
        return None

    async def done(flow: Flow) -> HTMLResponse:
        if flow.elicitation_id is not None:
            await on_connected(flow.elicitation_id)
        return _page(
            "Connected",
            f"Your {flow.service} account {flow.account_name!r} is connected. You can close this window "
            "and go back to your client.",
        )

    async def start(request: Request) -> Response:
        service = request.path_params["service"]
        flow = await connector.flows.by_token(request.query_params.get("t", ""))
        if flow is None or flow.service != service:
            return _gone()
        refused = await check_user(request, flow)
        if refused is not None:
            return refused
        try:
            found = connector.service(service)
            if isinstance(found.auth, ApiKeyAuth):
                token = html.escape(request.query_params["t"], quote=True)
                form = (
                    f"<form method='post' action='/connect/{html.escape(service, quote=True)}'>"
                    f"<input type='hidden' name='t' value='{token}'>"
                    "<label>API key or token <input type='password' name='secret' autocomplete='off' required>"
                    "</label> <button type='submit'>Save</button></form>"
                )
                return _page(
                    f"Connect {service}",
                    f"Paste the key for your {service} account {flow.account_name!r}. It is stored encrypted "
                    "and never shown again.",
                    form=form,
                )
            started = await connector.start_oauth(flow)
        except MCPistError as exc:
            return _page("Cannot connect", exc.message, 400)
        if started is None:
            return _gone()
        url, browser = started
        response = RedirectResponse(url, status_code=302, headers=_HEADERS)
        response.set_cookie(
            _cookie_name(flow),
            browser.browser_secret,
            max_age=int(connector.settings.connect_ttl_s),
            path=f"/connect/{service}/callback",
            secure=secure,
            httponly=True,
            samesite="lax",
        )
        return response

    async def submit(request: Request) -> Response:
        service = request.path_params["service"]
        origin = request.headers.get("origin")
        if origin is not None and origin != _origin(connector.base_url):
            return _page("Refused", "This form must be sent from MCPist's own page.", 403)
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_FORM_BYTES:
                return _page("Too large", "The form is too large.", 413)
        fields = parse_qs(body.decode("utf-8", "replace"), max_num_fields=4)
        flow = await connector.flows.by_token((fields.get("t") or [""])[0])
        if flow is None or flow.service != service:
            return _gone()
        refused = await check_user(request, flow)
        if refused is not None:
            return refused
        try:
            await connector.finish_api_key(flow, (fields.get("secret") or [""])[0])
        except MCPistError as exc:
            return _page("Cannot connect", exc.message, 400)
        return await done(flow)

    async def callback(request: Request) -> Response:
        service = request.path_params["service"]
        flow = await connector.flows.by_state(request.query_params.get("state", ""))
        if flow is None or flow.service != service:
            return _gone()
        refused = await check_user(request, flow)
        if refused is not None:
            return refused
        error = request.query_params.get("error")
        code = request.query_params.get("code")
        if error is not None or not code:
            await connector.flows.discard(flow)
            logger.info("connect %s:%s: the provider returned no code", flow.service, flow.account_name)
            return _page("Not connected", f"{service} did not grant access. Go back to your client to try again.", 400)
        try:
            await connector.finish_oauth(flow, code, request.cookies.get(_cookie_name(flow)))
        except MCPistError as exc:
            return _page("Cannot connect", exc.message, 400)
        response = await done(flow)
        response.delete_cookie(_cookie_name(flow), path=f"/connect/{service}/callback")
        return response

    return [
        Route("/connect/{service}", start, methods=["GET"]),
        Route("/connect/{service}", submit, methods=["POST"]),
        Route("/connect/{service}/callback", callback, methods=["GET"]),
    ]


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"
