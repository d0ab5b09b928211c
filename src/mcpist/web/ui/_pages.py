"""Every HTML page the server draws, from one set of Jinja templates: the admin UI's, the sign-in and
consent pages of the authorization server, the account-connect pages. One layout, one language choice,
one CSRF scheme; `headers()` is the middleware that puts the security headers on all of them.

`Pages` is what `mcpist.protocol.oauth.signin_routes` and `mcpist.vault.connect_routes` are given to
draw their pages with (they name a template and hand it a context; the words are the templates')."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlencode

import jinja2
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.templating import Jinja2Templates

from mcpist.config._web import WebSettings
from mcpist.protocol.oauth import Cookies, Keys, load_master_key
from mcpist.runtime import Runtime

from ._i18n import Formatter, negotiate, translations
from ._security import SecurityHeaders
from ._store import LANGUAGES

if TYPE_CHECKING:
    from ._app import Viewer

TEMPLATES = Path(__file__).resolve().parents[1] / "templates"
MOUNT = "ui"
TOP_LEVEL = ("static",)
"""Routes outside the UI's mount that templates link by a bare name."""


def web_settings(runtime: Runtime) -> WebSettings:
    return runtime.settings.web


def path_for(request: Request, name: str, query: Mapping[str, object] | None = None, /, **path_params: Any) -> str:
    """The path of a named route (a bare name is the UI's `ui:NAME`; `oauth:login` or `connect:start`
    name the others), with a query.

    A path, never an absolute URL, so links stay right behind a proxy that terminates TLS.
    """
    full = name if ":" in name or name in TOP_LEVEL else f"{MOUNT}:{name}"
    root: str = request.scope.get("app_root_path", "")
    path = root + str(request.scope["router"].url_path_for(full, **path_params))
    kept = {k: str(v) for k, v in (query or {}).items() if v not in (None, "")}
    return path + ("?" + urlencode(kept, quote_via=quote) if kept else "")


@jinja2.pass_context
def href(context: Any, name: str, /, query: Mapping[str, object] | None = None, **path_params: Any) -> str:
    return path_for(context["request"], name, query, **path_params)


@jinja2.pass_context
def here(context: Any, /, **changes: object) -> str:
    """This page's path and query with `changes` (None drops a parameter): the language switch."""
    request: Request = context["request"]
    query: dict[str, object] = {**request.query_params, **changes}
    kept = {k: str(v) for k, v in query.items() if v not in (None, "")}
    return request.url.path + ("?" + urlencode(kept, quote_via=quote) if kept else "")


def _environment(language: str) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        extensions=["jinja2.ext.i18n"],
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.install_gettext_translations(translations(language), newstyle=True)  # type: ignore[attr-defined]
    env.globals["href"] = href
    env.globals["here"] = here
    return env


def headers() -> list[Middleware]:
    """The security headers of every page (`_security.SecurityHeaders`)."""
    return [Middleware(SecurityHeaders)]


class Pages:
    """Templates per language, the reader's language, and the browser cookie the CSRF tokens bind to.

    Raises:
        ConfigError: the master key is unreadable.
    """

    def __init__(
        self, runtime: Runtime, *, command: str = "mcpist", ui: bool = True, clock: Callable[[], float] = time.time
    ) -> None:
        self.runtime = runtime
        self.settings = web_settings(runtime)
        self.command = command
        self.ui = ui
        """Whether the admin UI is served (its pages can be linked)."""
        self.keys = Keys(load_master_key(runtime.settings.data_dir))
        self.cookies = Cookies(
            self.keys,
            secure=runtime.settings.base_url.startswith("https://"),
            session_ttl_s=runtime.settings.auth.session_ttl_s,
            clock=clock,
        )
        self.templates = {lang: Jinja2Templates(env=_environment(lang)) for lang in LANGUAGES}

    def language(self, request: Request, viewer: Viewer | None = None) -> str:
        if viewer is not None and viewer.profile.language in LANGUAGES:
            return str(viewer.profile.language)
        asked = request.query_params.get("lang")
        if asked in LANGUAGES:
            return str(asked)
        return negotiate(request.headers.get("accept-language"), self.settings.default_language)

    def csrf_purpose(self, viewer: Viewer | None, anonymous: str) -> str:
        return f"ui:{viewer.id}" if viewer is not None else anonymous

    def render(
        self,
        request: Request,
        template: str,
        context: Mapping[str, Any],
        *,
        status: int = 200,
        viewer: Viewer | None = None,
        csrf_purpose: str = "ui-anonymous",
    ) -> Response:
        """`template` with `context` over what every page knows (reader, language, CSRF token, command).

        A context's own `csrf` (a sign-in form's, bound to its own purpose) wins over the page's.
        """
        lang = self.language(request, viewer)
        browser = self.cookies.browser_id(request)
        asked = request.query_params.get("lang")
        base = {
            "viewer": viewer,
            "lang": lang,
            # kept in the actions of anonymous forms, so the answer to a form comes in the language it was in
            "lang_query": {"lang": asked} if asked in LANGUAGES else {},
            "fmt": Formatter(lang, viewer.profile.time_zone if viewer else None),
            "csrf": self.cookies.csrf_token(browser, self.csrf_purpose(viewer, csrf_purpose)),
            "command": self.command,
            "mcp_url": self.runtime.settings.mcp_url,
            "path": request.url.path,
            "ui": self.ui,
            "error": None,
            "notice": None,
        }
        response = self.templates[lang].TemplateResponse(request, template, {**base, **context}, status_code=status)
        self.cookies.set_browser(response, browser)
        return response
