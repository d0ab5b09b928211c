"""How the sign-in and consent pages are drawn: by the web layer's templates, passed in as `Pages`.

The flow (what is checked, what is stored, where the browser goes next) is this package's; the
markup, the languages and the security headers are the web layer's (`mcpist.web.ui.Pages`), shared
with the admin UI and the account-connect pages. Templates are named by what they show:

- `oauth_login.html`: the sign-in form and the upstream providers' buttons;
- `oauth_consent.html`: which client asks for what, Allow / Deny;
- `notice.html`: a one-line outcome, by `kind` (the template holds each kind's words in every language).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from starlette.requests import Request
from starlette.responses import Response


class Pages(Protocol):
    """Renders one of the web layer's templates with `context` for this request."""

    def render(self, request: Request, template: str, context: Mapping[str, Any], *, status: int = 200) -> Response: ...


def notice(pages: Pages, request: Request, kind: str, *, status: int, **values: str) -> Response:
    """A page that says one thing (`notice.html`); `values` fill the kind's sentence, `detail` is the
    server's own words (an upstream's error), shown as they are."""
    return pages.render(request, "notice.html", {"kind": kind, "values": values}, status=status)
