"""SQL through the read-only and the write endpoints, migrations, the catalog and TypeScript types; bounds."""

from __future__ import annotations

import json

import pytest
from supabase_harness import Harness
from supabase_world import REF

from mcpist.errors import InvalidArgument
from mcpist.testing import covers

pytestmark = pytest.mark.anyio


@covers("execute_sql")
async def test_execute_sql_goes_to_the_read_only_endpoint(supa: Harness) -> None:
    result = await supa.call("execute_sql", project=REF, query="select id, title from notes")
    assert supa.world.sql == [("read-only", "select id, title from notes")]
    (sent,) = supa.sent("POST /v1/projects/{ref}/database/query/read-only")
    assert sent.json == {"query": "select id, title from notes"}
    assert supa.sent("POST /v1/projects/{ref}/database/query") == []
    assert result == {
        "project": REF,
        "rows": [{"id": i, "title": f"note {i}"} for i in range(5)],
        "row_count": 5,
        "rows_omitted": 0,
        "values_cut": False,
        "complete": True,
    }


@covers("execute_sql")
async def test_a_write_through_execute_sql_is_refused_upstream_and_points_to_the_write_tool(supa: Harness) -> None:
    with pytest.raises(InvalidArgument, match=r"read-only transaction.*execute_sql_write") as raised:
        await supa.call("execute_sql", project=REF, query="insert into notes(title) values ('x')")
    assert raised.value.data["status"] == 400
    assert [endpoint for endpoint, _ in supa.world.sql] == ["read-only"]
    with pytest.raises(InvalidArgument, match="syntax error") as other:
        await supa.call("execute_sql", project=REF, query="selec syntax error")
    assert "execute_sql_write" not in other.value.message


@covers("execute_sql_write")
async def test_execute_sql_write_goes_to_the_query_endpoint(supa: Harness) -> None:
    supa.world.rows = [{"id": 9}]
    result = await supa.call("execute_sql_write", project=REF, query="delete from notes where id = 9 returning id")
    (sent,) = supa.sent("POST /v1/projects/{ref}/database/query")
    assert sent.json == {"query": "delete from notes where id = 9 returning id"}
    assert result["rows"] == [{"id": 9}] and result["row_count"] == 1
    assert supa.sent("POST /v1/projects/{ref}/database/query/read-only") == []


@covers("execute_sql")
async def test_rows_are_bounded_in_count_and_bytes_and_the_rest_is_counted(supa: Harness) -> None:
    supa.world.rows = [{"id": i, "body": "x" * 100} for i in range(1000)]
    by_count = await supa.call("execute_sql", project=REF, query="select * from notes")
    assert len(by_count["rows"]) == 200 and by_count["rows_omitted"] == 800 and by_count["row_count"] == 1000

    fewer = await supa.call("execute_sql", project=REF, query="select * from notes", max_rows=3)
    assert [r["id"] for r in fewer["rows"]] == [0, 1, 2] and fewer["rows_omitted"] == 997

    supa.settings = {"max_rows": 10_000, "max_bytes": 4096}
    by_bytes = await supa.call("execute_sql", project=REF, query="select * from notes")
    size = len(json.dumps(by_bytes["rows"], separators=(",", ":")).encode())
    following = len(json.dumps(supa.world.rows[34], separators=(",", ":")).encode()) + 1
    assert size <= 4096 < size + following, "as many rows as fit, no more"
    assert len(by_bytes["rows"]) == 34 and by_bytes["rows_omitted"] == 966

    supa.settings = {"max_cell_chars": 100}
    supa.world.rows = [{"id": 1, "body": "y" * 5000}]
    cut = await supa.call("execute_sql", project=REF, query="select * from notes")
    assert cut["values_cut"] is True and cut["rows"][0]["body"].startswith("y" * 100 + "…[cut: 100 of 5000")


@covers("execute_sql")
async def test_an_answer_too_large_to_read_keeps_the_rows_that_arrived_whole(supa: Harness) -> None:
    supa.settings = {"max_response_bytes": 65_536, "max_rows": 10_000, "max_bytes": 4 * 1024 * 1024}
    supa.world.rows = [{"id": i, "body": "z" * 200} for i in range(2000)]
    result = await supa.call("execute_sql", project=REF, query="select * from notes")
    assert result["complete"] is False and 250 < result["row_count"] < 320
    assert result["rows"][-1]["id"] == result["row_count"] - 1 and result["rows_omitted"] == 0


@covers("apply_migration", "list_migrations")
async def test_migrations(supa: Harness) -> None:
    applied = await supa.call("apply_migration", project=REF, name="add_notes", query="create table notes(id int)")
    assert applied == {"project": REF, "name": "add_notes", "applied": True}
    (sent,) = supa.sent("POST /v1/projects/{ref}/database/migrations")
    assert sent.json == {"query": "create table notes(id int)", "name": "add_notes"}
    assert len(sent.headers["idempotency-key"]) == 32
    assert supa.world.sql == [], "a migration is not run through the query endpoints"
    with pytest.raises(InvalidArgument):
        await supa.call("apply_migration", project=REF, name="Add Notes", query="select 1")

    first = await supa.call("list_migrations", project=REF, limit=2)
    assert first["items"] == [
        {"version": "20260301120000", "name": "step_1"},
        {"version": "20260302120000", "name": "step_2"},
    ]
    rest = await supa.call("list_migrations", project=REF, limit=2, cursor=first["next_cursor"])
    assert [m["name"] for m in rest["items"]] == ["step_3", "add_notes"] and "next_cursor" not in rest


@covers("list_tables")
async def test_list_tables_reads_the_catalog_read_only(supa: Harness) -> None:
    page = await supa.call("list_tables", project=REF, schemas=["public", "auth"], limit=1)
    ((endpoint, query),) = supa.world.sql
    assert endpoint == "read-only"
    assert "n.nspname in ('public', 'auth')" in query and "limit 2 offset 0" in query and "pg_attrdef" in query
    assert page["items"] == [
        {
            "schema_name": "public",
            "name": "notes",
            "rls_enabled": True,
            "rows_estimate": 5,
            "comment": "user notes",
            "primary_key": ["id"],
            "columns": [
                {"name": "id", "type": "bigint", "nullable": False},
                {"name": "title", "type": "text", "nullable": True, "default": "''::text"},
            ],
            "foreign_keys": ["FOREIGN KEY (owner) REFERENCES auth.users(id)"],
        }
    ]
    assert "next_cursor" not in page
    await supa.call("list_tables", project=REF, columns=False)
    assert "pg_attrdef" not in supa.world.sql[-1][1] and "('public')" in supa.world.sql[-1][1]
    with pytest.raises(InvalidArgument):
        await supa.call("list_tables", project=REF, schemas=["public'; drop table notes; --"])
    assert len(supa.world.sql) == 2


@covers("list_extensions")
async def test_list_extensions(supa: Harness) -> None:
    page = await supa.call("list_extensions", project=REF, limit=1)
    assert page["items"] == [
        {
            "name": "pgcrypto",
            "schema_name": "extensions",
            "default_version": "1.3",
            "installed_version": "1.3",
            "comment": "crypto",
        }
    ]
    assert "limit 2 offset 0" in supa.world.sql[-1][1]
    more = await supa.call("list_extensions", project=REF, limit=1, cursor=page["next_cursor"])
    assert "limit 2 offset 1" in supa.world.sql[-1][1] and more["items"][0]["name"] == "pgcrypto"
    await supa.call("list_extensions", project=REF, installed_only=True)
    assert "where x.installed_version is not null" in supa.world.sql[-1][1]
    assert {endpoint for endpoint, _ in supa.world.sql} == {"read-only"}


@covers("generate_typescript_types")
async def test_typescript_types_come_in_windows(supa: Harness) -> None:
    first = await supa.call("generate_typescript_types", project=REF, schemas=["public", "storage"], max_chars=2000)
    assert supa.sent("GET /v1/projects/{ref}/types/typescript")[0].params == {"included_schemas": "public,storage"}
    assert first["schemas"] == ["public", "storage"]
    types = first["types"]
    assert types["text"].startswith("// schemas: public,storage\n") and types["truncated"] is True
    assert len(types["text"]) <= 2000 and types["text"].endswith("\n")
    rest = await supa.call("generate_typescript_types", project=REF, offset=types["next_offset"], max_chars=200_000)
    assert rest["types"]["offset"] == types["next_offset"] and rest["types"]["truncated"] is False
