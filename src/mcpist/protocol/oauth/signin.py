"""The browser side of signing in: login page, consent page, upstream providers; and `PasswordSignIn`,
the one password check (limits, device cookie, disabled users) behind every sign-in form.

Routes are named (`oauth:login`, `oauth:consent`, `oauth:logout`, `oauth:upstream`,
`oauth:upstream_callback`, mounted by `routes.signin_routes`) and linked by name.
"""

from __future__ import annotations

import hmac
import logging
import math
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import quote, urlencode, urlsplit

from mcp.server.auth.provider import AuthorizationParams, construct_redirect_uri
from mcp.shared.auth import OAuthClientInformationFull
from sqlalchemy.ext.asyncio import AsyncEngine
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import NoMatchFound

from mcpist.auth.ratelimit import LoginLimiter
from mcpist.auth.upstream import Upstream, UpstreamError
from mcpist.auth.users import allowlisted_user, check_password, unclaimed_owner
from mcpist.config import AuthSettings
from mcpist.storage.users import User, get_user

from .pages import Pages, notice
from .provider import MCPistAuthProvider
from .session import Cookies

logger = logging.getLogger("mcpist.auth.oauth")

Refusal = Literal["wrong", "throttled", "disabled"]


def path_to(request: Request, name: str, query: dict[str, str] | None = None, /, **params: Any) -> str:
    """The path of a named route of the app (never an absolute URL: right behind a TLS proxy too)."""
    root: str = request.scope.get("app_root_path", "")
    path = root + str(request.scope["router"].url_path_for(name, **params))
    kept = {k: v for k, v in (query or {}).items() if v}
    return path + ("?" + urlencode(kept, quote_via=quote) if kept else "")


@dataclass(frozen=True)
class PasswordOutcome:
    user: User | None
    """Who signed in; None when refused."""
    refusal: Refusal | None = None
    retry_after_s: float = 0.0


class PasswordSignIn:
    """Email and password, behind the sign-in limits (`mcpist.auth.ratelimit`) and the device cookie.

    The OAuth login page and the admin UI's `/login` both sign in through this one object, so they
    count the same failures, honour the same device cookie and refuse a disabled user alike.
    """

    def __init__(
        self, engine: AsyncEngine, settings: AuthSettings, cookies: Cookies, *, clock: Callable[[], float]
    ) -> None:
        self._engine = engine
        self._cookies = cookies
        self._limiter = LoginLimiter(
            engine,
            max_failures=settings.login_max_failures,
            max_failures_per_ip=settings.login_max_failures_per_ip,
            window_s=settings.login_window_s,
            backoff_s=settings.login_backoff_s,
            clock=clock,
        )

    async def attempt(self, request: Request, email: str, password: str) -> PasswordOutcome:
        email = email.strip().lower()
        # the client address is the proxy's unless it is one of `trusted_proxies` (uvicorn's proxy headers)
        ip = request.client.host if request.client else None
        device = self._cookies.device(request, email)
        wait = await self._limiter.wait_s(email, ip, device)
        if wait > 0:
            logger.warning("sign-in for %s from %s refused: too many failures", email, ip)
            return PasswordOutcome(None, "throttled", wait)
        user = await check_password(self._engine, email, password)
        if user is None:
            await self._limiter.record_failure(email, ip, device)
            logger.info("sign-in for %s from %s failed", email, ip)
            return PasswordOutcome(None, "wrong")
        await self._limiter.clear(email, ip, device)
        if user.disabled:
            logger.info("sign-in for %s refused: the user is disabled", email)
            return PasswordOutcome(None, "disabled")
        return PasswordOutcome(user)

    def signed_in(self, response: Response, user: User) -> None:
        """Give the browser its session and its device cookie for this email."""
        self._cookies.set_session(response, user.id)
        self._cookies.set_device(response, user.email)

    @staticmethod
    def retry_after(response: Response, outcome: PasswordOutcome) -> Response:
        if outcome.refusal == "throttled":
            response.headers["Retry-After"] = str(math.ceil(outcome.retry_after_s))
        return response


STATUS = {"wrong": 403, "throttled": 429, "disabled": 403}


class SignIn:
    def __init__(
        self,
        *,
        provider: MCPistAuthProvider,
        settings: AuthSettings,
        upstreams: dict[str, Upstream],
        issuer: str,
        base_url: str,
        pages: Pages,
        clock: Callable[[], float],
    ) -> None:
        self._provider = provider
        self._store = provider.store
        self._engine = provider.store.engine
        self._settings = settings
        self._upstreams = upstreams
        self._issuer = issuer
        self._pages = pages
        self._origin = "{0.scheme}://{0.netloc}".format(urlsplit(base_url))
        self._cookies = Cookies(
            provider.store.keys,
            secure=base_url.startswith("https://"),
            session_ttl_s=settings.session_ttl_s,
            clock=clock,
        )
        self._passwords = PasswordSignIn(self._engine, settings, self._cookies, clock=clock)

    # helpers

    async def _signed_in(self, request: Request) -> User | None:
        user_id = self._cookies.session_user(request)
        user = await get_user(self._engine, user_id) if user_id else None
        return user if user is not None and not user.disabled else None

    async def _pending(self, request_id: str) -> tuple[OAuthClientInformationFull, AuthorizationParams] | None:
        found = await self._store.load_request(request_id) if request_id else None
        if found is None:
            return None
        client = await self._provider.get_client(found[0])
        return (client, found[1]) if client is not None else None

    def _cross_site(self, request: Request) -> bool:
        origin = request.headers.get("origin")
        return origin is not None and origin != self._origin

    def _to(self, request: Request, name: str, request_id: str) -> Response:
        return RedirectResponse(path_to(request, name, {"request": request_id}), status_code=303)

    def _notice(self, request: Request, kind: str, status: int, **values: str) -> Response:
        return notice(self._pages, request, kind, status=status, **values)

    def _after_sign_in(self, request: Request, user: User, request_id: str, *, upstream: bool = False) -> Response:
        """On to the consent of the MCP client that asked. Without one: an upstream sign-in (the admin UI's
        "Sign in with ..." button) lands on the UI's dashboard when the UI is served; otherwise a notice."""
        if request_id:
            return self._to(request, "oauth:consent", request_id)
        if upstream:
            try:
                return RedirectResponse(path_to(request, "ui:dashboard"), status_code=303)
            except NoMatchFound:
                pass  # no UI on this server
        return self._notice(request, "signed_in", 200, email=user.email)

    def _expired(self, request: Request) -> Response:
        return self._notice(request, "request_expired", 400)

    async def _login_page(
        self,
        request: Request,
        request_id: str,
        *,
        refusal: str | None = None,
        email: str = "",
        status: int = 200,
        client: OAuthClientInformationFull | None = None,
    ) -> Response:
        browser = self._cookies.browser_id(request)
        context = {
            "request_id": request_id,
            "client_name": _client_name(client) if client is not None else None,
            "password_login": self._settings.password_login,
            "upstreams": {name: u.display_name for name, u in self._upstreams.items()},
            "refusal": refusal,
            "email": email,
            "csrf": self._cookies.csrf_token(browser, "login"),
            # nobody can sign in yet: the page says how to set the owner up
            "nobody": self._settings.password_login and await unclaimed_owner(self._engine) is not None,
        }
        response = self._pages.render(request, "oauth_login.html", context, status=status)
        self._cookies.set_browser(response, browser)
        return response

    # endpoints

    async def login(self, request: Request) -> Response:
        if request.method == "GET":
            request_id = request.query_params.get("request", "")
            pending = await self._pending(request_id) if request_id else None
            if request_id and pending is None:
                return self._expired(request)
            user = await self._signed_in(request)
            if user is not None and request_id:
                return self._to(request, "oauth:consent", request_id)
            status = 200 if self._settings.password_login or self._upstreams else 404
            return await self._login_page(request, request_id, client=pending[0] if pending else None, status=status)
        form = await request.form(max_files=0, max_fields=8)
        request_id = str(form.get("request", ""))
        if self._cross_site(request) or not self._cookies.check_csrf(request, form.get("csrf"), "login"):
            return self._notice(request, "expired", 403)
        if not self._settings.password_login:
            return self._notice(request, "password_off", 404)
        email, password = str(form.get("email", "")).strip().lower(), str(form.get("password", ""))
        outcome = await self._passwords.attempt(request, email, password)
        if outcome.user is None:
            assert outcome.refusal is not None
            page = await self._login_page(
                request, request_id, email=email, status=STATUS[outcome.refusal], refusal=outcome.refusal
            )
            return PasswordSignIn.retry_after(page, outcome)
        response = self._after_sign_in(request, outcome.user, request_id)
        self._passwords.signed_in(response, outcome.user)
        return response

    async def consent(self, request: Request) -> Response:
        if request.method == "GET":
            request_id = request.query_params.get("request", "")
            pending = await self._pending(request_id)
            if pending is None:
                return self._expired(request)
            user = await self._signed_in(request)
            if user is None:
                return self._to(request, "oauth:login", request_id)
            client, params = pending
            browser = self._cookies.browser_id(request)
            context = {
                "request_id": request_id,
                "client_name": _client_name(client),
                "client_id": client.client_id,
                "client_host": _client_host(client),
                "email": user.email,
                "redirect_uri": str(params.redirect_uri),
                "scopes": " ".join(params.scopes or []),
                "resource": self._provider.resource_for(params.resource),
                "csrf": self._cookies.csrf_token(browser, f"consent:{request_id}"),
                "logout_csrf": self._cookies.csrf_token(browser, "logout"),
            }
            response = self._pages.render(request, "oauth_consent.html", context)
            self._cookies.set_browser(response, browser)
            return response
        form = await request.form(max_files=0, max_fields=8)
        request_id = str(form.get("request", ""))
        if self._cross_site(request) or not self._cookies.check_csrf(
            request, form.get("csrf"), f"consent:{request_id}"
        ):
            return self._notice(request, "expired", 403)
        user = await self._signed_in(request)
        if user is None:
            return self._to(request, "oauth:login", request_id)
        pending = await self._pending(request_id)
        if pending is None or not await self._store.take_request(request_id):
            return self._expired(request)
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
        form = await request.form(max_files=0, max_fields=8)
        if self._cross_site(request) or not self._cookies.check_csrf(request, form.get("csrf"), "logout"):
            return self._notice(request, "expired", 403)
        request_id = str(form.get("request", ""))
        response = self._to(request, "oauth:login", request_id) if request_id else None
        if response is None:
            response = self._notice(request, "signed_out", 200)
        self._cookies.clear_session(response)
        return response

    async def upstream_start(self, request: Request) -> Response:
        upstream = self._upstreams.get(request.path_params["name"])
        if upstream is None:
            return self._notice(request, "no_provider", 404)
        request_id = request.query_params.get("request", "")
        if request_id and await self._pending(request_id) is None:
            return self._expired(request)
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
            return self._notice(request, "upstream_failed", 502, detail=str(exc))
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
            return self._notice(request, "upstream_expired", 400)
        request_id = str(flow.get("r", ""))
        provider = upstream.display_name
        if "error" in request.query_params:
            reason = request.query_params.get("error_description") or request.query_params["error"]
            return self._notice(request, "upstream_denied", 403, provider=provider, detail=reason)
        code = request.query_params.get("code", "")
        if not code:
            return self._notice(request, "upstream_no_code", 400, provider=provider)
        try:
            emails = await upstream.verified_emails(code, str(flow["v"]))
        except UpstreamError as exc:
            return self._notice(request, "upstream_failed", 502, detail=str(exc))
        user = None
        for email in emails:
            user = await allowlisted_user(self._engine, email, upstream.provider.allowed_emails)
            if user is not None:
                break
        response: Response
        if user is None:
            shown = emails[0] if emails else ""
            logger.warning("upstream sign-in through %s refused for %s: not allowlisted", name, shown or "-")
            response = self._notice(request, "not_allowed", 403, email=shown)
        elif user.disabled:
            logger.info("upstream sign-in through %s refused for %s: the user is disabled", name, user.email)
            response = self._notice(request, "disabled", 403)
        else:
            logger.info("%s signed in through %s", user.email, name)
            response = self._after_sign_in(request, user, request_id, upstream=True)
            self._cookies.set_session(response, user.id)
        self._cookies.clear_upstream(response)
        return response


def _client_name(client: OAuthClientInformationFull) -> str:
    return client.client_name or client.client_id


def _client_host(client: OAuthClientInformationFull) -> str | None:
    """The host publishing the client's metadata document; None for a client that registered itself."""
    return urlsplit(client.client_id).hostname if client.client_id.startswith("https://") else None
