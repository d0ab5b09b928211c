"""Small server-rendered pages: `string.Template` files, every value HTML-escaped unless it is `Html`."""

from __future__ import annotations

import html
from functools import cache
from importlib.resources import files
from string import Template

from starlette.responses import HTMLResponse

SECURITY_HEADERS = {
    "Cache-Control": "no-store",
    "Pragma": "no-cache",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    # no form-action: browsers apply it to the redirect after the consent form, to the client's URI
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
}


class Html(str):
    """Markup that is already safe; everything else is escaped."""

    __slots__ = ()


@cache
def _template(name: str) -> Template:
    return Template(files(__package__).joinpath("templates", name).read_text(encoding="utf-8"))


def render(name: str, **values: str) -> Html:
    escaped = {k: v if isinstance(v, Html) else html.escape(v) for k, v in values.items()}
    return Html(_template(name).substitute(escaped))


def page(title: str, body: Html, status_code: int = 200) -> HTMLResponse:
    return HTMLResponse(render("base.html", title=title, body=body), status_code=status_code, headers=SECURITY_HEADERS)


def message(title: str, text: str, *, status_code: int, error: bool = True, link: Html | None = None) -> HTMLResponse:
    body = render("message.html", css="error" if error else "note", message=text, link=link or Html(""))
    return page(title, body, status_code)
