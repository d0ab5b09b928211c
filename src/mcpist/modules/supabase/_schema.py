"""The database's shape: tables and extensions (SQL over the read-only endpoint) and TypeScript types."""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import Field

from mcpist.upstream import Cursor, Limit, MaxChars, Offset, Page, clip, encode_cursor

from ._common import Project, Schemas, api, offset_of, target
from ._models import Extension, Table, TypeScriptTypes
from ._module import Ctx, module
from ._sql import query_rows

# Supabase's own MCP server reads the catalog the same way: there is no Management API endpoint for it
TABLES_SQL = """\
select n.nspname as schema, c.relname as name, c.relrowsecurity as rls_enabled,
  c.reltuples::bigint as rows_estimate, obj_description(c.oid, 'pg_class') as comment,
  coalesce((select json_agg(a.attname order by a.attnum) from pg_index i
    join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
    where i.indrelid = c.oid and i.indisprimary), '[]'::json) as primary_key{columns}
from pg_class c join pg_namespace n on n.oid = c.relnamespace
where c.relkind in ('r', 'p') and n.nspname in ({schemas})
order by n.nspname, c.relname
limit {limit} offset {offset}"""

COLUMNS_SQL = """,
  coalesce((select json_agg(json_build_object('name', a.attname, 'type', format_type(a.atttypid, a.atttypmod),
    'nullable', not a.attnotnull, 'default', pg_get_expr(d.adbin, d.adrelid)) order by a.attnum)
    from pg_attribute a left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
    where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped), '[]'::json) as columns,
  coalesce((select json_agg(pg_get_constraintdef(k.oid) order by k.conname) from pg_constraint k
    where k.conrelid = c.oid and k.contype = 'f'), '[]'::json) as foreign_keys"""

EXTENSIONS_SQL = """\
select x.name, x.default_version, x.installed_version, x.comment,
  (select n.nspname from pg_extension e join pg_namespace n on n.oid = e.extnamespace
    where e.extname = x.name) as schema
from pg_available_extensions x{where}
order by x.name
limit {limit} offset {offset}"""


def _literals(names: list[str]) -> str:
    # the schema's pattern admits no quote, so each name is a safe literal as it is
    return ", ".join(f"'{name}'" for name in dict.fromkeys(names))


def _json_field(value: Any) -> Any:
    """A json_agg value as the endpoint returns it: already parsed, or as JSON text."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


async def _paged_rows(ctx: Ctx, ref: str, sql: str, limit: int, cursor: str | None) -> tuple[list[Any], str | None]:
    offset = offset_of(cursor)
    rows, _ = await query_rows(
        ctx, ref, sql.replace("{limit}", str(limit + 1)).replace("{offset}", str(offset)), write=False
    )
    following = encode_cursor({"o": offset + limit}) if len(rows) > limit else None
    return rows[:limit], following


@module.tool(read_only=True)
async def list_tables(
    ctx: Ctx,
    project: Project = None,
    schemas: Schemas = ["public"],  # noqa: B006 - a default pydantic copies, never mutated
    columns: Annotated[bool, Field(description="include columns and foreign keys")] = True,
    limit: Annotated[int, Field(ge=1, le=100, description="tables to return at most")] = 25,
    cursor: Cursor = None,
) -> Page[Table]:
    """Tables of the given schemas: columns, primary and foreign keys, RLS, estimated row count, comment."""
    ref = target(ctx, project)
    sql = TABLES_SQL.replace("{columns}", COLUMNS_SQL if columns else "").replace("{schemas}", _literals(schemas))
    rows, following = await _paged_rows(ctx, ref, sql, limit, cursor)
    tables = []
    for row in ctx.http.parse(list[dict[str, Any]], rows):
        fixed: dict[str, Any] = dict(row)
        for key in ("primary_key", "columns", "foreign_keys"):
            if key in fixed:
                fixed[key] = _json_field(fixed[key])
        tables.append(ctx.http.parse(Table, fixed))
    return Page(items=tables, next_cursor=following)


@module.tool(read_only=True)
async def list_extensions(
    ctx: Ctx,
    project: Project = None,
    installed_only: Annotated[bool, Field(description="only extensions installed in the database")] = False,
    limit: Limit = 100,
    cursor: Cursor = None,
) -> Page[Extension]:
    """Postgres extensions available to the project, with the installed version and schema when installed."""
    ref = target(ctx, project)
    sql = EXTENSIONS_SQL.replace("{where}", " where x.installed_version is not null" if installed_only else "")
    rows, following = await _paged_rows(ctx, ref, sql, limit, cursor)
    return Page(items=ctx.http.parse(list[Extension], rows), next_cursor=following)


@module.tool(read_only=True)
async def generate_typescript_types(
    ctx: Ctx,
    project: Project = None,
    schemas: Schemas = ["public"],  # noqa: B006 - a default pydantic copies, never mutated
    offset: Offset = 0,
    max_chars: MaxChars = 40_000,
) -> TypeScriptTypes:
    """TypeScript types for the database's schemas (supabase-js `Database`); long output goes on with offset."""
    ref = target(ctx, project)
    names = list(dict.fromkeys(schemas))
    body = await ctx.http.get_json(api(ref, "/types/typescript"), params={"included_schemas": ",".join(names)})
    types = ctx.http.parse(dict[str, Any], body).get("types")
    text = types if isinstance(types, str) else ""
    return TypeScriptTypes(project=ref, schemas=names, types=clip(text, offset=offset, max_chars=max_chars))
