"""Debugging a project: its logs by service, and the security and performance advisors."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import Field

from mcpist.modules import InvalidArgument
from mcpist.upstream import Cursor, Limit, Page

from ._common import SERVICE, Project, api, bound_rows, page_of, target
from ._models import Lint, LogEntries
from ._module import Ctx, module

LogService = Literal["api", "postgres", "auth", "storage", "realtime", "edge-function", "branch-action"]

# the log explorer's sources and the fields worth reading, as Supabase's own MCP server queries them
LOG_SQL: dict[str, str] = {
    "api": "select id, identifier, timestamp, event_message, request.method, request.path, response.status_code "
    "from edge_logs cross join unnest(metadata) as m cross join unnest(m.request) as request "
    "cross join unnest(m.response) as response",
    "postgres": "select identifier, postgres_logs.timestamp, id, event_message, parsed.error_severity "
    "from postgres_logs cross join unnest(metadata) as m cross join unnest(m.parsed) as parsed",
    "auth": "select id, auth_logs.timestamp, event_message, metadata.level, metadata.status, metadata.path, "
    "metadata.msg as msg, metadata.error from auth_logs cross join unnest(metadata) as metadata",
    "storage": "select id, storage_logs.timestamp, event_message from storage_logs",
    "realtime": "select id, realtime_logs.timestamp, event_message from realtime_logs",
    "edge-function": "select id, function_edge_logs.timestamp, event_message, response.status_code, request.method, "
    "m.function_id, m.execution_time_ms, m.deployment_id, m.version from function_edge_logs "
    "cross join unnest(metadata) as m cross join unnest(m.response) as response "
    "cross join unnest(m.request) as request",
    "branch-action": "select workflow_run, workflow_run_logs.timestamp, id, event_message from workflow_run_logs",
}


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="seconds").replace("+00:00", "Z")


@module.tool(read_only=True)
async def get_logs(
    ctx: Ctx,
    service: Annotated[LogService, Field(description="whose logs: api (gateway), postgres, auth, storage, ...")],
    project: Project = None,
    minutes: Annotated[int, Field(ge=1, le=1440, description="how far back to look")] = 60,
    limit: Annotated[int, Field(ge=1, le=100, description="entries to return at most")] = 50,
) -> LogEntries:
    """Recent log entries of one service of the project, newest first; messages bounded."""
    ref = target(ctx, project)
    end = datetime.now(UTC).replace(microsecond=0)
    start = end - timedelta(minutes=minutes)
    sql = f"{LOG_SQL[service]} order by timestamp desc limit {limit}"
    params = {"sql": sql, "iso_timestamp_start": _iso(start), "iso_timestamp_end": _iso(end)}
    body = ctx.http.parse(
        dict[str, Any], await ctx.http.get_json(api(ref, "/analytics/endpoints/logs.all"), params=params)
    )
    error = body.get("error")
    if error:
        said = error.get("message") if isinstance(error, dict) else error
        raise InvalidArgument(f"{SERVICE}: the log query failed: {str(said)[:300]}", {"service": SERVICE})
    rows = ctx.http.parse(list[Any], body.get("result") or [])
    kept, _ = bound_rows(
        rows, max_rows=limit, max_bytes=ctx.settings.max_bytes, max_cell_chars=min(ctx.settings.max_cell_chars, 2000)
    )
    return LogEntries(
        project=ref,
        service=service,
        start=_iso(start),
        end=_iso(end),
        entries=kept,
        entries_omitted=len(rows) - len(kept),
    )


@module.tool(read_only=True)
async def get_advisors(
    ctx: Ctx,
    kind: Annotated[Literal["security", "performance"], Field(description="which advisor")],
    project: Project = None,
    level: Annotated[
        Literal["ERROR", "WARN", "INFO"] | None, Field(description="only this level; all when left out")
    ] = None,
    limit: Limit = 50,
    cursor: Cursor = None,
) -> Page[Lint]:
    """Security or performance advice on the project (missing RLS, unindexed keys...), with a remediation URL."""
    ref = target(ctx, project)
    body = ctx.http.parse(dict[str, Any], await ctx.http.get_json(api(ref, f"/advisors/{kind}")))
    lints = ctx.http.parse(list[Lint], body.get("lints") or [])
    if level is not None:
        lints = [lint for lint in lints if lint.level == level]
    return page_of(lints, limit, cursor)
