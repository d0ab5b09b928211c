"""`/`: for everyone, the roles in force and the connected accounts; for admins, counts (tool calls and
errors today among them) and what needs attention (accounts that are broken or about to stop working,
access requests)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from starlette.responses import Response
from starlette.routing import Route

from mcpist.auth.users import list_users
from mcpist.modules.api import Caller
from mcpist.observe import count_tool_calls
from mcpist.sieve import count_security_events, list_roles

from .._app import Call, Ui
from .._store import ACCESS_REQUEST, count_audit, list_audit
from ._accounts import broker_of, view


async def dashboard(call: Call) -> Response:
    runtime, viewer = call.runtime, call.viewer
    fmt = call.fmt
    principal = await runtime.principal(Caller(user_id=viewer.id, email=viewer.email))
    broker = broker_of(runtime)
    now = datetime.now(UTC)
    mine = []
    if broker is not None:
        found = await broker.accounts.find(user_id=viewer.id, roles=principal.roles)
        mine = [view(a, fmt, call._, now) for a in found]
    context: dict[str, object] = {
        "roles": principal.roles,
        "accounts": mine,
        "tool_count": len(principal.grants.tools),
        "module_count": len(principal.grants.modules),
    }
    if viewer.is_admin:
        # "today" starts at midnight where the admin is
        midnight = now.astimezone(fmt.zone).replace(hour=0, minute=0, second=0, microsecond=0)
        everyone = [view(a, fmt, call._, now) for a in await broker.accounts.find()] if broker is not None else []
        week_ago = now - timedelta(days=7)
        context["counts"] = {
            "users": len(await list_users(runtime.engine)),
            "roles": len(await list_roles(runtime.engine)),
            "accounts": len(everyone),
            "events_today": await count_security_events(runtime.engine, midnight),
            "admin_actions_today": await count_audit(runtime.engine, since=midnight),
            "calls_today": await count_tool_calls(runtime.engine, midnight),
            "errors_today": await count_tool_calls(runtime.engine, midnight, errors=True),
        }
        context["attention"] = [a for a in everyone if a.attention]
        context["requests"] = [
            r for r in await list_audit(runtime.engine, limit=20, action=ACCESS_REQUEST) if r.at >= week_ago
        ]
    return call.render("dashboard.html", 200, **context)


def routes(ui: Ui) -> list[Route]:
    return [ui.route("/", dashboard, name="dashboard")]
