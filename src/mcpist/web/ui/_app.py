"""What every page shares: the signed-in viewer, the language, templates, CSRF, and the route wrapper
that checks sign-in, admin rights and the form's token on the server before a page runs."""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from mcpist.errors import MCPistError
from mcpist.protocol.oauth import PasswordSignIn
from mcpist.runtime import Runtime
from mcpist.storage.users import get_user

from ._i18n import Formatter, translations
from ._pages import MOUNT, Pages, path_for, web_settings
from ._security import CSRF_FIELD, CSRF_HEADER, same_origin
from ._store import Profile, get_profile, record

logger = logging.getLogger("mcpist.web")

MAX_FIELDS = 200

__all__ = ["MOUNT", "Call", "Handler", "Ui", "Viewer", "path_for", "web_settings"]


@dataclass(frozen=True)
class Viewer:
    """The signed-in user a page is shown to."""

    id: str
    email: str
    system_role: str
    profile: Profile

    @property
    def is_admin(self) -> bool:
        return self.system_role == "admin"

    @property
    def name(self) -> str:
        return self.profile.display_name or self.email


class Ui:
    def __init__(
        self, runtime: Runtime, *, command: str, clock: Callable[[], float] = time.time, pages: Pages | None = None
    ) -> None:
        self.runtime = runtime
        self.engine = runtime.engine
        self.settings = web_settings(runtime)
        self.auth = runtime.settings.auth
        self.base_url = runtime.settings.base_url
        self.command = command
        self.clock = clock
        self.pages = pages or Pages(runtime, command=command, clock=clock)
        self.keys = self.pages.keys
        self.cookies = self.pages.cookies
        self.passwords = PasswordSignIn(self.engine, self.auth, self.cookies, clock=clock)

    async def viewer(self, request: Request) -> Viewer | None:
        user_id = self.cookies.session_user(request)
        user = await get_user(self.engine, user_id) if user_id else None
        if user is None or user.disabled:
            return None
        profile = await get_profile(self.engine, user.id)
        return Viewer(user.id, user.email, user.system_role, profile)

    def language(self, request: Request, viewer: Viewer | None = None) -> str:
        return self.pages.language(request, viewer)

    def csrf_purpose(self, viewer: Viewer | None, anonymous: str) -> str:
        return self.pages.csrf_purpose(viewer, anonymous)

    async def form(self, request: Request) -> FormData:
        return await request.form(max_files=0, max_fields=MAX_FIELDS)

    def form_ok(self, request: Request, form: FormData, purpose: str) -> bool:
        submitted = form.get(CSRF_FIELD) or request.headers.get(CSRF_HEADER)
        return same_origin(request, self.base_url) and self.cookies.check_csrf(request, submitted, purpose)

    def render(
        self,
        request: Request,
        template: str,
        context: Mapping[str, Any],
        *,
        viewer: Viewer | None,
        status: int = 200,
        csrf_purpose: str = "ui-anonymous",
    ) -> Response:
        return self.pages.render(request, template, context, status=status, viewer=viewer, csrf_purpose=csrf_purpose)

    def gettext(self, request: Request, viewer: Viewer | None) -> Callable[[str], str]:
        return translations(self.language(request, viewer)).gettext

    def route(
        self,
        path: str,
        handler: Handler,
        *,
        name: str,
        methods: tuple[str, ...] = ("GET",),
        admin: bool = False,
    ) -> Route:
        """A page (GET) or an action (POST) for signed-in users; `admin` ones answer others 403."""

        async def endpoint(request: Request) -> Response:
            viewer = await self.viewer(request)
            if viewer is None:
                if request.method == "GET":
                    target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
                    return RedirectResponse(path_for(request, "login", {"next": target}), status_code=303)
                return self.message(request, None, "signed_out", status=401)
            if admin and not viewer.is_admin:
                logger.info("%s was refused the admin page %s", viewer.email, request.url.path)
                return self.message(request, viewer, "forbidden", status=403)
            form = None
            if request.method == "POST":
                form = await self.form(request)
                if not self.form_ok(request, form, self.csrf_purpose(viewer, "")):
                    return self.message(request, viewer, "expired", status=403)
            return await handler(Call(self, request, viewer, form))

        return Route(path, endpoint, methods=list(methods), name=name)

    async def not_found(self, request: Request) -> Response:
        return self.message(request, await self.viewer(request), "not_found", status=404)

    def message(self, request: Request, viewer: Viewer | None, kind: str, *, status: int) -> Response:
        return self.render(request, "message.html", {"kind": kind}, viewer=viewer, status=status)


@dataclass
class Call:
    """One request to a page or action of a signed-in viewer."""

    ui: Ui
    request: Request
    viewer: Viewer
    form: FormData | None
    _gettext: Callable[[str], str] | None = field(default=None, repr=False)

    @property
    def runtime(self) -> Runtime:
        return self.ui.runtime

    @property
    def lang(self) -> str:
        return self.ui.language(self.request, self.viewer)

    @property
    def fmt(self) -> Formatter:
        return Formatter(self.lang, self.viewer.profile.time_zone)

    def _(self, message: str) -> str:
        if self._gettext is None:
            self._gettext = self.ui.gettext(self.request, self.viewer)
        return self._gettext(message)

    def field(self, name: str, default: str = "") -> str:
        value = self.form.get(name) if self.form is not None else None
        return value.strip() if isinstance(value, str) else default

    def fields(self, name: str) -> list[str]:
        if self.form is None:
            return []
        return [v.strip() for v in self.form.getlist(name) if isinstance(v, str) and v.strip()]

    def query(self, name: str, default: str = "") -> str:
        return self.request.query_params.get(name, default)

    def render(self, template: str, status: int = 200, **context: Any) -> Response:
        return self.ui.render(self.request, template, context, viewer=self.viewer, status=status)

    def redirect(self, route: str, **query: str) -> Response:
        return RedirectResponse(path_for(self.request, route, query), status_code=303)

    def failure(self, exc: MCPistError) -> dict[str, str]:
        """What a page shows for a refused action: a summary in the reader's language and the server's detail."""
        summaries = {
            "INVALID_ARGUMENT": self._("The input is not valid."),
            "NOT_FOUND": self._("It no longer exists."),
            "CONFLICT": self._("That conflicts with what exists."),
            "PERMISSION_DENIED": self._("That is not allowed."),
        }
        return {"summary": summaries.get(exc.code, self._("The action failed.")), "detail": exc.message}

    async def record(self, action: str, target: str = "", detail: str = "") -> None:
        await record(self.ui.engine, self.viewer.id, self.viewer.email, action, target, detail)


Handler = Callable[[Call], Awaitable[Response]]
