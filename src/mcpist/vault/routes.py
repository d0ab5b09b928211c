"""HTTP routes for connecting accounts in the browser (the URL of a URL elicitation), named `connect:NAME`.

    GET  /connect/{service}?t=TOKEN     connect:start     type B: redirect to the provider (PKCE S256,
                                                          fresh state); type A: a form to paste the key
    POST /connect/{service}             connect:submit    type A: store the pasted key
    GET  /connect/{service}/callback    connect:callback  type B: exchange the code, store the tokens

The connect token reaches only the user it was made for (through their MCP client or CLI), and works
once. Pass `session_user` to also require the browser to be signed in as that user. The pages are
drawn by the web layer's templates (`Pages`: `connect_key.html`, `notice.html`), which also add the
security headers through `middleware`.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Protocol
from urllib.parse import urlsplit

from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route

from mcpist.errors import MCPistError
from mcpist.modules.api import ApiKeyAuth

from .broker import TokenBroker
from .flows import Flow

logger = logging.getLogger("mcpist.vault")

SessionUser = Callable[[Request], Awaitable[str | None]]
MAX_FORM_BYTES = 16 * 1024
# the paste form posts to this server only; the pages that redirect to a provider carry no form
KEY_FORM_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)

NO_REFERRER = {"Referrer-Policy": "no-referrer"}


class Pages(Protocol):
    """Renders one of the web layer's templates with `context` for this request."""

    def render(self, request: Request, template: str, context: Mapping[str, Any], *, status: int = 200) -> Response: ...


def _cookie_name(flow: Flow) -> str:
    return f"mcpist_connect_{flow.id.replace('-', '')[:16]}"


def _path(request: Request, name: str, **params: str) -> str:
    root: str = request.scope.get("app_root_path", "")
    return root + str(request.scope["router"].url_path_for(name, **params))


Connected = Callable[[str], Awaitable[object]]
"""Told the elicitation id of a connect flow that finished, so the client waiting on it can go on."""


def connect_routes(
    broker: TokenBroker,
    *,
    on_connected: Connected,
    pages: Pages,
    session_user: SessionUser | None = None,
    middleware: Sequence[Middleware] = (),
) -> list[BaseRoute]:
    """The connect routes for `broker` under `/connect`; a finished connection calls
    `on_connected(elicitation_id)`."""
    connector = broker.connector

    def notice(request: Request, kind: str, status: int, **values: str) -> Response:
        return pages.render(request, "notice.html", {"kind": kind, "values": values}, status=status)

    def gone(request: Request) -> Response:
        return notice(request, "link_gone", 404)

    async def check_user(request: Request, flow: Flow) -> Response | None:
        if session_user is None:
            return None
        user = await session_user(request)
        if user is None:
            return notice(request, "sign_in_first", 401)
        if user != flow.user_id:
            logger.warning("connect %s:%s: browser signed in as another user", flow.service, flow.account_name)
            return notice(request, "wrong_user", 403)
        return None

    async def done(request: Request, flow: Flow) -> Response:
        if flow.elicitation_id is not None:
            await on_connected(flow.elicitation_id)
        return notice(request, "connected", 200, service=flow.service, account=flow.account_name)

    async def start(request: Request) -> Response:
        service = request.path_params["service"]
        token = request.query_params.get("t", "")
        flow = await connector.flows.by_token(token)
        if flow is None or flow.service != service:
            return gone(request)
        refused = await check_user(request, flow)
        if refused is not None:
            return refused
        try:
            found = connector.service(service)
            if isinstance(found.auth, ApiKeyAuth):
                context = {"service": service, "account": flow.account_name, "token": token}
                page = pages.render(request, "connect_key.html", context)
                page.headers["Content-Security-Policy"] = KEY_FORM_CSP
                # same-origin, not no-referrer: a browser then sends the real Origin with the form
                page.headers["Referrer-Policy"] = "same-origin"
                return page
            started = await connector.start_oauth(flow)
        except MCPistError as exc:
            return notice(request, "cannot_connect", 400, detail=exc.message)
        if started is None:
            return gone(request)
        url, browser = started
        # the connect URL carries its token: the provider must not see it as the referrer
        response = RedirectResponse(url, status_code=302, headers={"Cache-Control": "no-store", **NO_REFERRER})
        response.set_cookie(
            _cookie_name(flow),
            browser.browser_secret,
            max_age=int(connector.settings.connect_ttl_s),
            path=_path(request, "connect:callback", service=service),
            secure=urlsplit(connector.base_url).scheme == "https",
            httponly=True,
            samesite="lax",
        )
        return response

    async def submit(request: Request) -> Response:
        service = request.path_params["service"]
        sent_from = request.headers.get("origin")
        if sent_from is not None and sent_from != "{0.scheme}://{0.netloc}".format(urlsplit(connector.base_url)):
            return notice(request, "refused", 403)
        form = await request.form(max_files=0, max_fields=4)
        token, secret = form.get("t"), form.get("secret")
        flow = await connector.flows.by_token(token if isinstance(token, str) else "")
        if flow is None or flow.service != service:
            return gone(request)
        refused = await check_user(request, flow)
        if refused is not None:
            return refused
        try:
            await connector.finish_api_key(flow, secret if isinstance(secret, str) else "")
        except MCPistError as exc:
            return notice(request, "cannot_connect", 400, detail=exc.message)
        return await done(request, flow)

    async def callback(request: Request) -> Response:
        service = request.path_params["service"]
        flow = await connector.flows.by_state(request.query_params.get("state", ""))
        if flow is None or flow.service != service:
            return gone(request)
        refused = await check_user(request, flow)
        if refused is not None:
            return refused
        error = request.query_params.get("error")
        code = request.query_params.get("code")
        if error is not None or not code:
            await connector.flows.discard(flow)
            logger.info("connect %s:%s: the provider returned no code", flow.service, flow.account_name)
            return notice(request, "not_granted", 400, service=service)
        try:
            await connector.finish_oauth(flow, code, request.cookies.get(_cookie_name(flow)))
        except MCPistError as exc:
            return notice(request, "cannot_connect", 400, detail=exc.message)
        response = await done(request, flow)
        response.delete_cookie(_cookie_name(flow), path=_path(request, "connect:callback", service=service))
        return response

    routes = [
        Route("/{service}", start, methods=["GET"], name="start"),
        Route("/{service}", submit, methods=["POST"], name="submit"),
        Route("/{service}/callback", callback, methods=["GET"], name="callback"),
    ]
    return [Mount("/connect", routes=routes, name="connect", middleware=list(middleware), max_body_size=MAX_FORM_BYTES)]
