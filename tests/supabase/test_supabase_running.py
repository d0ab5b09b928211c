"""The supabase module through a running MCPist: two accounts in two organisations in one batch, each with its
own token and each project's own service key; and a role allowed only `supabase.@read` cannot write through SQL
by any path."""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from supabase_storage_fake import Store, Upstream
from supabase_world import REF, TOKEN, Tenant, World, management_fake

from mcpist.modules.api import Caller
from mcpist.modules.supabase import module
from mcpist.runtime import Runtime
from mcpist.sieve import create_role, grant_role
from mcpist.storage.tables import users
from mcpist.testing import in_process_client, running

pytestmark = pytest.mark.anyio

BETA_REF = "betaprojectrefaaaaaa"
BETA_TOKEN = "sbp_beta_token_000000000002"
ACME_KEY = "eyJ.service-role.acme-0001"
BETA_KEY = "eyJ.service-role.beta-0002"
SECRETS = (TOKEN, BETA_TOKEN, ACME_KEY, BETA_KEY, "eyJ.other.0002")


def two_org_world() -> World:
    world = World()
    world.tenants.append(Tenant(BETA_TOKEN, "beta", (BETA_REF,), {BETA_REF: BETA_KEY}))
    return world


@asynccontextmanager
async def mcpist(tmp_path: Path, world: World) -> AsyncIterator[tuple[Runtime, Upstream]]:
    stores = {ref: Store(key) for tenant in world.tenants for ref, key in tenant.service_keys.items()}
    upstream = Upstream(management_fake(world), stores)
    async with running([module], tmp_path, upstream=upstream) as rt:
        yield rt, upstream
    upstream.assert_clean()


def task(ident: str, tool: str, account: str, **params: Any) -> str:
    return json.dumps(
        {"id": ident, "module": "supabase", "tool": tool, "account": account, "params": params, "output": True}
    )


async def test_one_batch_two_accounts_in_two_organisations(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    world = two_org_world()
    async with mcpist(tmp_path, world) as (rt, upstream):
        upstream.stores[REF].objects[("docs", "who.txt")] = (b"acme file", "text/plain")
        upstream.stores[BETA_REF].objects[("docs", "who.txt")] = (b"beta file", "text/plain")
        broker: Any = rt.accounts
        for name, token in (("acme", TOKEN), ("beta", BETA_TOKEN)):
            await broker.accounts.put(
                service="supabase", name=name, kind="api_key", secrets={"api_key": token}, user_id=rt.owner.id
            )
        tasks = [
            task("acme_orgs", "list_organizations", "acme"),
            task("beta_orgs", "list_organizations", "beta"),
            task("acme_file", "download_object", "acme", project=REF, bucket="docs", path="who.txt"),
            task("beta_file", "download_object", "beta", project=BETA_REF, bucket="docs", path="who.txt"),
            task("beta_sql", "execute_sql", "beta", project=BETA_REF, query="select 1"),
            # one organisation's account cannot reach the other's project
            task("crossed", "download_object", "beta", project=REF, bucket="docs", path="who.txt"),
        ]
        async with in_process_client(rt) as client:
            result = await client.call_tool("batch", {"tasks": "\n".join(tasks)})
    body = result.structured_content
    assert body["summary"] == {"tasks": 6, "succeeded": 5, "failed": 1, "skipped": 0}, body
    results = body["results"]
    assert results["acme_orgs"] == {"organizations": [{"slug": "acme", "name": "Acme"}]}
    assert results["beta_orgs"] == {"organizations": [{"slug": "beta", "name": "Beta"}]}
    assert (results["acme_file"]["text"], results["beta_file"]["text"]) == ("acme file", "beta file")
    assert results["beta_sql"]["project"] == BETA_REF
    assert body["failed"]["crossed"]["code"] == "NOT_FOUND"

    by_path: dict[str, set[str]] = {}
    for request in upstream.management.requests:
        assert "apikey" not in request.headers
        by_path.setdefault(request.path, set()).add(request.headers["authorization"].removeprefix("Bearer "))
    assert by_path["/v1/organizations"] == {TOKEN, BETA_TOKEN}
    assert by_path[f"/v1/projects/{BETA_REF}/api-keys"] == {BETA_TOKEN}
    # the crossed task asked for acme's key with beta's token, and was refused
    assert by_path[f"/v1/projects/{REF}/api-keys"] == {TOKEN, BETA_TOKEN}
    for ref, key in ((REF, ACME_KEY), (BETA_REF, BETA_KEY)):
        sent = upstream.storage[ref].requests
        assert sent and all(
            r.headers["apikey"] == key == r.headers["authorization"].removeprefix("Bearer ") for r in sent
        )
    assert {h for h in upstream.hosts} == {"api.supabase.com", f"{REF}.supabase.co", f"{BETA_REF}.supabase.co"}
    text = json.dumps(body) + caplog.text
    for secret in SECRETS:
        assert secret not in text, secret


async def add_user(rt: Runtime, email: str) -> str:
    user_id = str(uuid.uuid4())
    async with rt.engine.begin() as conn:
        await conn.execute(users.insert().values(id=user_id, email=email, created_at=datetime.now(UTC)))
    return user_id


WRITES = [
    ("execute_sql_write", {"query": "delete from notes"}),
    ("apply_migration", {"name": "drop_notes", "query": "drop table notes"}),
]


async def test_a_read_only_role_cannot_write_through_sql_by_any_path(tmp_path: Path) -> None:
    world = World()
    async with mcpist(tmp_path, world) as (rt, upstream):
        reader = await add_user(rt, "reader@example.com")
        await create_role(rt.engine, "reader", ["supabase.@read"], registry=rt.registry)
        await grant_role(rt.engine, "reader@example.com", "reader")
        broker: Any = rt.accounts
        await broker.accounts.put(
            service="supabase",
            name="work",
            kind="api_key",
            secrets={"api_key": TOKEN},
            user_id=reader,
            fields={"project_ref": REF},
        )
        async with in_process_client(rt, Caller(user_id=reader, email="reader@example.com")) as client:
            schema = await client.call_tool("get_module_schema", {"module": "supabase"})
            listed = schema.structured_content.get("index") or schema.structured_content["tools"]
            names = {t["name"] for t in listed}
            assert names == {n for n, spec in module.tools.items() if spec.read_only}
            assert "execute_sql" in names and not names & {"execute_sql_write", "apply_migration"}

            for tool, params in WRITES:
                called = await client.call_tool("call", {"module": "supabase", "tool_name": tool, "params": params})
                assert called.is_error and f"unknown tool '{tool}'" in json.dumps(called.structured_content)
                # a batch naming it is refused whole, before any task runs
                tasks = "\n".join([task("r", "list_tables", "work"), task("w", tool, "work", **params)])
                batch = await client.call_tool("batch", {"tasks": tasks})
                assert batch.is_error and batch.structured_content["code"] == "NOT_FOUND"
                # as for any missing name: perhaps a close name this role sees (execute_sql for execute_sql_write)
                assert batch.structured_content["message"].startswith(f"unknown tool '{tool}' in module 'supabase'")

            # execute_sql takes any SQL, but only ever to the read-only endpoint, where Postgres refuses writes
            write = {"module": "supabase", "tool_name": "execute_sql", "params": {"query": "delete from notes"}}
            refused = await client.call_tool("call", write)
            assert refused.is_error and "read-only transaction" in json.dumps(refused.structured_content)
            batch = await client.call_tool(
                "batch",
                {
                    "tasks": "\n".join(
                        [
                            task("r", "execute_sql", "work", query="select 1"),
                            task("w", "execute_sql", "work", query="insert into notes values (1)"),
                        ]
                    )
                },
            )
            assert batch.structured_content["results"]["r"]["rows"] == world.rows
            assert "read-only transaction" in batch.structured_content["failed"]["w"]["message"]
    assert [endpoint for endpoint, _ in world.sql] == ["read-only"] * 3
    written = [
        r
        for r in upstream.management.requests
        if r.operation in ("POST /v1/projects/{ref}/database/query", "POST /v1/projects/{ref}/database/migrations")
    ]
    assert written == [], "the write endpoints were never reached"
