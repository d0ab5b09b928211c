"""SQL: read-only queries, writes, migrations, with every result bounded in rows and bytes."""

from __future__ import annotations

import json
import uuid
from typing import Annotated, Any

from pydantic import Field

from mcpist.modules import InvalidArgument
from mcpist.upstream import Cursor, Limit, Page, read_bounded

from ._common import Project, api, bound_rows, invalid, page_of, target
from ._models import Migration, MigrationApplied, SqlResult
from ._module import Ctx, module

Query = Annotated[str, Field(min_length=1, max_length=100_000, description="SQL (PostgreSQL)")]
MaxRows = Annotated[
    int | None, Field(ge=1, le=10_000, description="rows to return at most (capped by the server's setting)")
]
READ_ONLY_REFUSAL = "read-only transaction"


async def query_rows(ctx: Ctx, ref: str, query: str, *, write: bool) -> tuple[list[Any], bool]:
    """The rows one query returns, through the read-only endpoint unless `write`; and whether they are all here.

    The answer is read up to `max_response_bytes`; past that, the rows that arrived whole are kept.

    Raises:
        MCPistError: as the Management API answers (a SQL error is InvalidArgument, with Postgres' message).
    """
    url = api(ref, "/database/query" if write else "/database/query/read-only")
    # a read-only query is safe to send again; a write is not
    async with ctx.http.stream("POST", url, json={"query": query}, retry=not write) as response:
        raw, cut = await read_bounded(response, ctx.settings.max_response_bytes)
    if not cut:
        try:
            body = json.loads(raw) if raw.strip() else []
        except ValueError:
            raise invalid("the query endpoint answered with something other than JSON rows") from None
        if isinstance(body, dict):  # a statement with no rows answers with an object on some versions
            body = [body] if body else []
        return ctx.http.parse(list[Any], body), True
    return _leading_rows(raw), False


def _leading_rows(raw: bytes) -> list[Any]:
    """The elements of a JSON array cut short that arrived whole."""
    text = raw.decode("utf-8", "ignore")
    decoder = json.JSONDecoder()
    at = text.find("[") + 1
    rows: list[Any] = []
    if at == 0:
        return rows
    while True:
        while at < len(text) and text[at] in " \t\r\n,":
            at += 1
        if at >= len(text) or text[at] == "]":
            return rows
        try:
            row, at = decoder.raw_decode(text, at)
        except ValueError:
            return rows
        rows.append(row)


async def bounded_result(ctx: Ctx, ref: str, query: str, *, write: bool, max_rows: int | None) -> SqlResult:
    rows, complete = await query_rows(ctx, ref, query, write=write)
    settings = ctx.settings
    kept, cut = bound_rows(
        rows,
        max_rows=min(max_rows or settings.max_rows, settings.max_rows),
        max_bytes=settings.max_bytes,
        max_cell_chars=settings.max_cell_chars,
    )
    return SqlResult(
        project=ref,
        rows=kept,
        row_count=len(rows),
        rows_omitted=len(rows) - len(kept),
        values_cut=cut,
        complete=complete,
    )


@module.tool(read_only=True)
async def execute_sql(ctx: Ctx, query: Query, project: Project = None, max_rows: MaxRows = None) -> SqlResult:
    """Run SQL as Supabase's read-only user; rows bounded, with the count left out. Writes need execute_sql_write."""
    ref = target(ctx, project)
    try:
        return await bounded_result(ctx, ref, query, write=False, max_rows=max_rows)
    except InvalidArgument as exc:
        if READ_ONLY_REFUSAL not in exc.message:
            raise
        raise InvalidArgument(
            f"{exc.message} (execute_sql is read-only: writes go through execute_sql_write or apply_migration)",
            exc.data,
        ) from None


@module.tool(destructive=True)
async def execute_sql_write(ctx: Ctx, query: Query, project: Project = None, max_rows: MaxRows = None) -> SqlResult:
    """Run SQL that may change data (INSERT, UPDATE, DELETE); schema changes belong in apply_migration."""
    ref = target(ctx, project)
    return await bounded_result(ctx, ref, query, write=True, max_rows=max_rows)


@module.tool(destructive=True)
async def apply_migration(
    ctx: Ctx,
    name: Annotated[
        str, Field(min_length=1, max_length=100, pattern=r"^[a-z0-9][a-z0-9_]*$", description="snake_case")
    ],
    query: Query,
    project: Project = None,
) -> MigrationApplied:
    """Apply DDL as a named migration, recorded in the project's migration history (list_migrations)."""
    ref = target(ctx, project)
    # the same key on a resend after a lost answer: Supabase applies the migration once
    headers = {"Idempotency-Key": uuid.uuid4().hex}
    await ctx.http.request(
        "POST", api(ref, "/database/migrations"), json={"query": query, "name": name}, headers=headers, retry=True
    )
    return MigrationApplied(project=ref, name=name)


@module.tool(read_only=True)
async def list_migrations(
    ctx: Ctx, project: Project = None, limit: Limit = 50, cursor: Cursor = None
) -> Page[Migration]:
    """Migrations applied to the project, by version (a timestamp) and name, oldest first."""
    ref = target(ctx, project)
    found = ctx.http.parse(list[Migration], await ctx.http.get_json(api(ref, "/database/migrations")))
    return page_of(found, limit, cursor)
