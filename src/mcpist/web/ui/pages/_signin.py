"""Signing in to the UI (`/login`, `/logout`) with the login session of the OAuth sign-in pages, and
the first run's one-time set-up link (`/setup?t=...`) that gives the owner an email and a password."""

from __future__ import annotations

import logging
import time
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from mcpist.auth.upstream import Upstream
from mcpist.auth.users import claim_owner, unclaimed_owner
from mcpist.errors import MCPistError
from mcpist.protocol.oauth import Keys, PasswordSignIn, load_master_key
from mcpist.runtime import Runtime

from .._app import Ui, Viewer, path_for, web_settings
from .._store import record

logger = logging.getLogger("mcpist.web")

SETUP = "setup"


def safe_next(value: str | None) -> str:
    """A local path to go to after signing in; anything else (another site, a scheme) goes home."""
    if not value or not value.startswith("/") or value.startswith("//") or "\\" in value:
        return "/"
    return value


async def setup_link(runtime: Runtime, *, ttl_s: int | None = None, now: float | None = None) -> str | None:
    """The one-time link that sets the owner's email and password, while nobody can sign in yet
    (the owner is still the placeholder without a password); None once the owner has one.

    Single use: it works only while the owner has no password. Short-lived: `web.setup_link_ttl_s`.

    Raises:
        ConfigError: the master key is unreadable.
    """
    owner = await unclaimed_owner(runtime.engine)
    if owner is None:
        return None
    ttl = ttl_s if ttl_s is not None else web_settings(runtime).setup_link_ttl_s
    keys = Keys(load_master_key(runtime.settings.data_dir))
    token = keys.sign({"t": SETUP, "o": owner.id, "exp": int((now or time.time()) + ttl)})
    return f"{runtime.settings.base_url}/setup?t={quote(token)}"


def routes(ui: Ui) -> list[Route]:
    upstreams = {p.name: Upstream(p, ui.runtime.http, "").display_name for p in ui.auth.upstream}

    def login_page(
        request: Request, *, status: int = 200, error: str | None = None, email: str = "", nobody: bool = False
    ) -> Response:
        context = {
            "password_login": ui.auth.password_login,
            "authorization_server": ui.auth.authorization_server,
            "upstreams": upstreams,
            "next": safe_next(request.query_params.get("next") or None),
            "email": email,
            "error": error,
            "nobody": nobody,
        }
        return ui.render(request, "login.html", context, viewer=None, status=status, csrf_purpose="ui-login")

    async def login(request: Request) -> Response:
        _ = ui.gettext(request, None)
        nobody = await unclaimed_owner(ui.engine) is not None
        if request.method == "GET":
            if await ui.viewer(request) is not None:
                return RedirectResponse(safe_next(request.query_params.get("next")), status_code=303)
            return login_page(request, nobody=nobody)
        form = await ui.form(request)
        if not ui.form_ok(request, form, "ui-login"):
            return ui.message(request, None, "expired", status=403)
        if not ui.auth.password_login:
            return login_page(request, status=404, error=_("Password sign-in is turned off on this server."))
        email, password = str(form.get("email", "")).strip().lower(), str(form.get("password", ""))
        # the same check, limits, device cookie and messages as the OAuth sign-in page
        outcome = await ui.passwords.attempt(request, email, password)
        if outcome.user is None:
            errors = {
                "throttled": (429, _("Too many failed sign-ins. Wait a while and try again.")),
                "disabled": (403, _("This account is disabled. Ask an admin.")),
            }
            status, error = errors.get(outcome.refusal or "", (403, _("Wrong email or password.")))
            page = login_page(request, status=status, email=email, error=error, nobody=nobody)
            return PasswordSignIn.retry_after(page, outcome)
        target = safe_next(str(form.get("next", "")) or None)
        response = RedirectResponse(target, status_code=303)
        ui.passwords.signed_in(response, outcome.user)
        return response

    async def logout(request: Request) -> Response:
        viewer = await ui.viewer(request)
        form = await ui.form(request)
        if viewer is not None and not ui.form_ok(request, form, ui.csrf_purpose(viewer, "")):
            return ui.message(request, viewer, "expired", status=403)
        response = RedirectResponse(path_for(request, "login"), status_code=303)
        ui.cookies.clear_session(response)
        return response

    def setup_owner(token: str) -> str | None:
        payload = ui.keys.unsign(token) if token else None
        if payload is None or payload.get("t") != SETUP:
            return None
        expires = payload.get("exp")
        if not isinstance(expires, int) or expires <= ui.clock():
            return None
        owner = payload.get("o")
        return owner if isinstance(owner, str) else None

    def setup_page(
        request: Request, token: str, *, status: int = 200, error: str | None = None, email: str = ""
    ) -> Response:
        context = {"token": token, "error": error, "email": email}
        return ui.render(request, "setup.html", context, viewer=None, status=status, csrf_purpose="ui-setup")

    async def setup(request: Request) -> Response:
        _ = ui.gettext(request, None)
        form = await ui.form(request) if request.method == "POST" else None
        token = str(form.get("t", "")) if form is not None else request.query_params.get("t", "")
        owner_id = setup_owner(token)
        owner = await unclaimed_owner(ui.engine)
        if owner_id is None or owner is None or owner.id != owner_id:
            return ui.message(request, None, "setup_gone", status=404)
        if form is None:
            return setup_page(request, token)
        if not ui.form_ok(request, form, "ui-setup"):
            return ui.message(request, None, "expired", status=403)
        email = str(form.get("email", "")).strip()
        password = str(form.get("password", ""))
        if password != str(form.get("confirm", "")):
            return setup_page(request, token, status=400, email=email, error=_("The two passwords differ."))
        try:
            user = await claim_owner(ui.engine, owner.id, email, password)
        except MCPistError as exc:
            return setup_page(request, token, status=400, email=email, error=exc.message)
        if user is None:
            return ui.message(request, None, "setup_gone", status=404)
        await record(ui.engine, user.id, user.email, "owner_setup", user.email)
        logger.info("the owner was set up as %s through the set-up link", user.email)
        response = RedirectResponse(path_for(request, "dashboard"), status_code=303)
        ui.cookies.set_session(response, user.id)
        return response

    return [
        Route("/login", login, methods=["GET", "POST"], name="login"),
        Route("/logout", logout, methods=["POST"], name="logout"),
        Route("/setup", setup, methods=["GET", "POST"], name="setup"),
    ]


__all__ = ["Viewer", "routes", "safe_next", "setup_link"]
