"""The browser side of signing in: login page, consent page, upstream providers."""

from __future__ import annotations

import hmac
import html
import logging
import math
import secrets
from collections.abc import Callable
from urllib.parse import quote, urlsplit

from mcp.server.auth.provider import AuthorizationParams, construct_redirect_uri
from mcp.shared.auth import OAuthClientInformationFull
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from mcpist.auth.ratelimit import LoginLimiter
from mcpist.auth.upstream import Upstream, UpstreamError
from mcpist.auth.users import allowlisted_user, check_password
from mcpist.config import AuthSettings
from mcpist.storage.users import User, get_user

from .pages import Html, message, page, render
from .provider import MCPistAuthProvider
from .session import Cookies

logger = logging.getLogger("mcpist.auth.oauth")


def _link(path: str, request_id: str | None) -> str:
    return f"{path}?request={quote(request_id)}" if request_id else path


class SignIn:
    def __init__(
        self,
        *,
        provider: MCPistAuthProvider,
        settings: AuthSettings,
        upstreams: dict[str, Upstream],
        issuer: str,
        base_url: str,
        clock: Callable[[], float],
    ) -> None:
        self._provider = provider
        self._store = provider.store
        self._engine = provider.store.engine
        self._settings = settings
        self._upstreams = upstreams
        self._issuer = issuer
        self._origin = "{0.scheme}://{0.netloc}".format(urlsplit(base_url))
        self._cookies = Cookies(
            provider.store.keys,
            secure=base_url.startswith("https://"),
            session_ttl_s=settings.session_ttl_s,
            clock=clock,
        )
        self._limiter = LoginLimiter(
            self._engine,
            max_failures=settings.login_max_failures,
            max_failures_per_ip=settings.login_max_failures_per_ip,
            window_s=settings.login_window_s,
            backoff_s=settings.login_backoff_s,
            clock=clock,
        )

    # helpers

    async def _signed_in(self, request: Request) -> User | None:
        user_id = self._cookies.session_user(request)
        return await get_user(self._engine, user_id) if user_id else None

    async def _pending(self, request_id: str) -> tuple[OAuthClientInformationFull, AuthorizationParams] | None:
        found = await self._store.load_request(request_id) if request_id else None
        if found is None:
            return None
        client = await self._provider.get_client(found[0])
        return (client, found[1]) if client is not None else None

    def _cross_site(self, request: Request) -> bool:
        origin = request.headers.get("origin")
        return origin is not None and origin != self._origin

    def _after_sign_in(self, user: User, request_id: str) -> Response:
        if request_id:
            response: Response = RedirectResponse(_link("/oauth/consent", request_id), status_code=303)
        else:
            response = message("Signed in", f"Signed in as {user.email}.", status_code=200, error=False)
        self._cookies.set_session(response, user.id)
        return response

    @staticmethod
    def _expired() -> Response:
        return message(
            "Sign-in expired",
            "This sign-in request has expired or was already answered. Start again from your MCP client.",
            status_code=400,
        )

    def _login_page(
        self,
        request: Request,
        request_id: str,
        *,
        error: str = "",
        email: str = "",
        status: int = 200,
        client: OAuthClientInformationFull | None = None,
    ) -> Response:
        browser = self._cookies.browser_id(request)
        intro = Html("")
        if client is not None:
            intro = render(
                "message.html", css="note", message=f"Sign in to continue to {_client_name(client)}.", link=Html("")
            )
        password_form = Html("")
        if self._settings.password_login:
            password_form = render(
                "password_form.html", csrf=self._cookies.csrf_token(browser, "login"), request=request_id, email=email
            )
        buttons = "".join(
            f'<a class="button secondary" href="{html.escape(_link(f"/oauth/upstream/{name}", request_id))}">'
            f"Sign in with {html.escape(upstream.display_name)}</a>"
            for name, upstream in self._upstreams.items()
        )
        if buttons and self._settings.password_login:
            buttons = '<p class="or">or</p>' + buttons
        body = render(
            "login.html",
            intro=intro,
            error=Html(f'<p class="error">{html.escape(error)}</p>') if error else Html(""),
            password_form=password_form,
            providers=Html(buttons),
        )
        response = page("Sign in to MCPist", body, status)
        self._cookies.set_browser(response, browser)
        return response

    # endpoints

    async def login(self, request: Request) -> Response:
        if request.method == "GET":
            request_id = request.query_params.get("request", "")
            pending = await self._pending(request_id) if request_id else None
            if request_id and pending is None:
                return self._expired()
            user = await self._signed_in(request)
            if user is not None and request_id:
                return RedirectResponse(_link("/oauth/consent", request_id), status_code=303)
            if not self._settings.password_login and not self._upstreams:
                return message("Sign in", "No sign-in method is configured on this server.", status_code=404)
            return self._login_page(request, request_id, client=pending[0] if pending else None)
        form = await request.form()
        request_id = str(form.get("request", ""))
        if self._cross_site(request) or not self._cookies.check_csrf(request, form.get("csrf"), "login"):
            return message("Sign in", "The form expired. Reload the page and try again.", status_code=403)
        if not self._settings.password_login:
            return message("Sign in", "Password sign-in is turned off on this server.", status_code=404)
        email, password = str(form.get("email", "")).strip().lower(), str(form.get("password", ""))
        # the client address is the proxy's unless it is one of `trusted_proxies` (uvicorn's proxy headers)
        ip = request.client.host if request.client else None
        device = self._cookies.device(request, email)
        wait = await self._limiter.wait_s(email, ip, device)
        if wait > 0:
            logger.warning("sign-in for %s from %s refused: too many failures", email, ip)
            response = self._login_page(
                request,
                request_id,
                email=email,
                status=429,
                error="Too many failed sign-ins. Wait a while and try again.",
            )
            response.headers["Retry-After"] = str(math.ceil(wait))
            return response
        user = await check_password(self._engine, email, password)
        if user is None:
            await self._limiter.record_failure(email, ip, device)
            logger.info("sign-in for %s from %s failed", email, ip)
            return self._login_page(request, request_id, email=email, status=403, error="Wrong email or password.")
        await self._limiter.clear(email, ip, device)
        response = self._after_sign_in(user, request_id)
        self._cookies.set_device(response, email)
        return response

    async def consent(self, request: Request) -> Response:
        if request.method == "GET":
            request_id = request.query_params.get("request", "")
            pending = await self._pending(request_id)
            if pending is None:
                return self._expired()
            user = await self._signed_in(request)
            if user is None:
                return RedirectResponse(_link("/oauth/login", request_id), status_code=303)
            client, params = pending
            browser = self._cookies.browser_id(request)
            body = render(
                "consent.html",
                client_name=_client_name(client),
                client_note=_client_note(client),
                client_id=client.client_id,
                email=user.email,
                redirect_uri=str(params.redirect_uri),
                scopes=" ".join(params.scopes or []) or "MCP tools (no extra scopes)",
                resource=self._provider.resource_for(params.resource),
                csrf=self._cookies.csrf_token(browser, f"consent:{request_id}"),
                logout_csrf=self._cookies.csrf_token(browser, "logout"),
                request=request_id,
            )
            response = page("Allow access?", body)
            self._cookies.set_browser(response, browser)
            return response
        form = await request.form()
        request_id = str(form.get("request", ""))
        if self._cross_site(request) or not self._cookies.check_csrf(
            request, form.get("csrf"), f"consent:{request_id}"
        ):
            return message("Allow access?", "The form expired. Reload the page and try again.", status_code=403)
        user = await self._signed_in(request)
        if user is None:
            return RedirectResponse(_link("/oauth/login", request_id), status_code=303)
        pending = await self._pending(request_id)
        if pending is None or not await self._store.take_request(request_id):
            return self._expired()
        client, params = pending
        target = str(params.redirect_uri)
        if form.get("decision") == "approve":
            resource = self._provider.resource_for(params.resource)
            code = await self._store.create_code(client.client_id, user.id, params, resource)
            logger.info("%s allowed client %s", user.email, client.client_id)
            location = construct_redirect_uri(target, code=code, state=params.state, iss=self._issuer)
        else:
            location = construct_redirect_uri(
                target,
                error="access_denied",
                error_description="the user denied access",
                state=params.state,
                iss=self._issuer,
            )
        return RedirectResponse(location, status_code=303, headers={"Cache-Control": "no-store"})

    async def logout(self, request: Request) -> Response:
        form = await request.form()
        if self._cross_site(request) or not self._cookies.check_csrf(request, form.get("csrf"), "logout"):
            return message("Sign out", "The form expired. Reload the page and try again.", status_code=403)
        request_id = str(form.get("request", ""))
        response: Response
        if request_id:
            response = RedirectResponse(_link("/oauth/login", request_id), status_code=303)
        else:
            response = message("Signed out", "You are signed out.", status_code=200, error=False)
        self._cookies.clear_session(response)
        return response

    async def upstream_start(self, request: Request) -> Response:
        upstream = self._upstreams.get(request.path_params["name"])
        if upstream is None:
            return message("Sign in", "No such sign-in provider.", status_code=404)
        request_id = request.query_params.get("request", "")
        if request_id and await self._pending(request_id) is None:
            return self._expired()
        flow = {
            "p": upstream.provider.name,
            "s": secrets.token_urlsafe(24),
            "v": secrets.token_urlsafe(48),
            "n": secrets.token_urlsafe(24),
            "r": request_id,
        }
        try:
            url = await upstream.authorization_url(state=flow["s"], verifier=flow["v"], nonce=flow["n"])
        except UpstreamError as exc:
            return message("Sign in", str(exc), status_code=502)
        response = RedirectResponse(url, status_code=302)
        self._cookies.set_upstream(response, flow)
        return response

    async def upstream_callback(self, request: Request) -> Response:
        name = request.path_params["name"]
        upstream = self._upstreams.get(name)
        flow = self._cookies.upstream(request)
        state = request.query_params.get("state", "")
        if (
            upstream is None
            or flow is None
            or flow.get("p") != name
            or not hmac.compare_digest(str(flow.get("s", "")), state)
        ):
            return message(
                "Sign in", "This sign-in expired or was started in another browser. Try again.", status_code=400
            )
        request_id = str(flow.get("r", ""))
        if "error" in request.query_params:
            reason = request.query_params.get("error_description") or request.query_params["error"]
            return message("Sign in", f"{upstream.display_name} did not sign you in: {reason}", status_code=403)
        code = request.query_params.get("code", "")
        if not code:
            return message("Sign in", f"{upstream.display_name} returned no authorization code.", status_code=400)
        try:
            emails = await upstream.verified_emails(code, str(flow["v"]))
        except UpstreamError as exc:
            return message("Sign in", str(exc), status_code=502)
        user = None
        for email in emails:
            user = await allowlisted_user(self._engine, email, upstream.provider.allowed_emails)
            if user is not None:
                break
        response: Response
        if user is None:
            shown = emails[0] if emails else "an account without a verified email"
            logger.warning("upstream sign-in through %s refused for %s: not allowlisted", name, shown)
            response = message(
                "Not allowed", f"{shown} is not allowed to sign in to this server. Ask its admin.", status_code=403
            )
        else:
            logger.info("%s signed in through %s", user.email, name)
            response = self._after_sign_in(user, request_id)
        self._cookies.clear_upstream(response)
        return response


def _client_name(client: OAuthClientInformationFull) -> str:
    return client.client_name or client.client_id


def _client_note(client: OAuthClientInformationFull) -> str:
    if client.client_id.startswith("https://"):
        host = urlsplit(client.client_id).hostname
        return f"This client is identified by a metadata document published at {host}."
    return (
        "This client registered itself; MCPist cannot vouch for its name. Allow only if you just started connecting it."
    )
