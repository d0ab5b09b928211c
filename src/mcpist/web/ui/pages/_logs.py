"""`/logs` (admins): security events (refused tool calls, never their arguments), the audit log of
admin actions and access requests, and the audit of tool calls (who, module, tool, account, outcome,
duration; never arguments or results), each filterable and paginated, newest first."""

from __future__ import annotations

from starlette.responses import Response
from starlette.routing import Route

from mcpist.sieve import list_security_events
from mcpist.sieve._events import MAX_EVENTS

from .._app import Call, Ui
from .._calls import OUTCOMES, list_tool_calls
from .._store import list_audit

VIEWS = ("security", "admin", "calls")


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
    modules = sorted(call.runtime.registry.names())
    module = call.query("module").strip()
    module = module if module in modules else ""
    outcome = call.query("outcome").strip()
    outcome = outcome if outcome in OUTCOMES else ""
    rows: list[object]
    kinds: list[str] = []
    if shown == "security":
        events = await list_security_events(engine, MAX_EVENTS)
        matching = [e for e in events if (not user or (e.email or "").lower() == user) and (not kind or e.kind == kind)]
        rows = list(matching[(page - 1) * size : page * size + 1])
        kinds = sorted({e.kind for e in events})
    elif shown == "admin":
        rows = list(
            await list_audit(engine, offset=(page - 1) * size, limit=size + 1, action=kind or None, actor=user or None)
        )
    else:
        rows = list(
            await list_tool_calls(
                engine,
                offset=(page - 1) * size,
                limit=size + 1,
                email=user or None,
                module=module or None,
                outcome=outcome or None,
            )
        )
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
        module=module,
        modules=modules,
        outcome=outcome,
        outcomes=OUTCOMES,
    )


def routes(ui: Ui) -> list[Route]:
    return [ui.route("/logs", logs, name="logs", admin=True)]
