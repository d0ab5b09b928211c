"""`/logs` (admins): security events (refused tool calls, never their arguments) and the audit log of
admin actions and access requests, filterable and paginated. Tool calls themselves are not recorded
yet, so there is no log of them to show."""

from __future__ import annotations

from starlette.responses import Response
from starlette.routing import Route

from mcpist.sieve import list_security_events
from mcpist.sieve._events import MAX_EVENTS

from .._app import Call, Ui
from .._store import list_audit

VIEWS = ("security", "admin")


def _page(call: Call) -> int:
    try:
        return max(1, min(int(call.query("page", "1")), 10_000))
    except ValueError:
        return 1


async def logs(call: Call) -> Response:
    engine = call.runtime.engine
    size = call.ui.settings.page_size
    page = _page(call)
    shown = call.query("view")
    shown = shown if shown in VIEWS else "security"
    user = call.query("user").strip().lower()
    kind = call.query("kind").strip()
    rows: list[object]
    if shown == "security":
        events = await list_security_events(engine, MAX_EVENTS)
        matching = [e for e in events if (not user or (e.email or "").lower() == user) and (not kind or e.kind == kind)]
        rows = list(matching[(page - 1) * size : page * size + 1])
        kinds = sorted({e.kind for e in events})
    else:
        rows = list(
            await list_audit(engine, offset=(page - 1) * size, limit=size + 1, action=kind or None, actor=user or None)
        )
        kinds = []
    more = len(rows) > size
    return call.render(
        "logs.html",
        view=shown,
        rows=rows[:size],
        page=page,
        more=more,
        user=user,
        kind=kind,
        kinds=kinds,
    )


def routes(ui: Ui) -> list[Route]:
    return [ui.route("/logs", logs, name="logs", admin=True)]
