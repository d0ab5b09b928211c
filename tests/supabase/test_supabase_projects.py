"""Organizations and projects, and an account pinned to one project."""

from __future__ import annotations

import pytest
from supabase_harness import Harness
from supabase_world import OTHER_REF, REF

from mcpist.errors import InvalidArgument, PermissionDenied
from mcpist.testing import covers

pytestmark = pytest.mark.anyio


@covers("list_organizations", "list_projects")
async def test_organizations_and_projects(supa: Harness) -> None:
    orgs = await supa.call("list_organizations")
    assert orgs == {"organizations": [{"slug": "acme", "name": "Acme"}]}

    every = await supa.call("list_projects")
    assert [p["ref"] for p in every["items"]] == [REF, OTHER_REF] and "next_cursor" not in every
    first = every["items"][0]
    assert first == {
        "ref": REF,
        "name": "acme-abcd",
        "organization": "acme",
        "region": "ap-northeast-1",
        "status": "ACTIVE_HEALTHY",
        "created_at": "2026-03-01T12:00:00.000Z",
    }
    one = await supa.call("list_projects", limit=1)
    assert [p["ref"] for p in one["items"]] == [REF]
    rest = await supa.call("list_projects", limit=1, cursor=one["next_cursor"])
    assert [p["ref"] for p in rest["items"]] == [OTHER_REF] and "next_cursor" not in rest

    # one organization's projects come from its own paged endpoint
    page = await supa.call("list_projects", organization="acme", limit=1, search="acme")
    sent = supa.sent("GET /v1/organizations/{slug}/projects")
    assert sent[-1].params == {"offset": "0", "limit": "1", "search": "acme"}
    assert [p["ref"] for p in page["items"]] == [REF] and page["items"][0]["organization"] == "acme"
    following = await supa.call("list_projects", organization="acme", limit=1, cursor=page["next_cursor"])
    assert supa.sent("GET /v1/organizations/{slug}/projects")[-1].params["offset"] == "1"
    assert [p["ref"] for p in following["items"]] == [OTHER_REF] and "next_cursor" not in following


@covers("get_project", "pause_project", "restore_project")
async def test_one_project_pause_and_restore(supa: Harness) -> None:
    found = await supa.call("get_project", project=REF)
    assert found["database_host"] == f"db.{REF}.supabase.co" and found["postgres_version"] == "17.4.1"
    assert found["api_url"] == f"https://{REF}.supabase.co" and found["pinned"] is False
    assert await supa.call("pause_project", project=REF) == {"project": REF, "action": "pause", "status": "requested"}
    assert (await supa.call("restore_project", project=REF))["action"] == "restore"
    assert [r.path for r in supa.sent("POST /v1/projects/{ref}/pause")] == [f"/v1/projects/{REF}/pause"]
    assert [r.content for r in supa.sent("POST /v1/projects/{ref}/restore")] == [b""]


@covers("create_project")
async def test_create_a_project_with_a_password_nobody_sees(supa: Harness) -> None:
    created = await supa.call("create_project", name="Demo", organization="acme", region="ap-northeast-1")
    (sent,) = supa.sent("POST /v1/projects")
    password = sent.json.pop("db_pass")
    assert sent.json == {"name": "Demo", "organization_slug": "acme", "region": "ap-northeast-1"}
    assert len(password) >= 32 and password not in str(created)
    assert created["ref"] == "newprojectrefaaaaaaa" and created["status"] == "COMING_UP"

    await supa.call("create_project", name="Anywhere", organization="acme", region="eu-central-1", plan="free")
    body = supa.sent("POST /v1/projects")[-1].json
    assert (body["region"], body["plan"]) == ("eu-central-1", "free") and body["db_pass"] != password


async def test_a_project_is_required_unless_pinned(supa: Harness) -> None:
    with pytest.raises(InvalidArgument, match="`project` is required") as raised:
        await supa.call("get_project")
    assert raised.value.data["field"] == "project"
    with pytest.raises(InvalidArgument):
        await supa.call("get_project", project="not-a-ref")


@pytest.mark.parametrize(
    ("tool", "params"),
    [
        ("get_project", {}),
        ("pause_project", {}),
        ("execute_sql", {"query": "select 1"}),
        ("execute_sql_write", {"query": "delete from notes"}),
        ("apply_migration", {"name": "x", "query": "create table x()"}),
        ("list_tables", {}),
        ("get_logs", {"service": "api"}),
        ("list_secrets", {}),
        ("set_secrets", {"secrets": {"A": "b"}}),
        ("manage_branch", {"action": "delete", "branch": "main"}),
        ("list_buckets", {}),
        ("download_object", {"bucket": "docs", "path": "a.txt"}),
        ("delete_objects", {"bucket": "docs", "paths": ["a.txt"]}),
    ],
)
async def test_a_pinned_account_refuses_every_other_project(supa: Harness, tool: str, params: dict[str, str]) -> None:
    supa.pin(REF)
    with pytest.raises(PermissionDenied, match=f"pinned to project {REF}; project {OTHER_REF} is refused") as raised:
        await supa.call(tool, project=OTHER_REF, **params)
    assert raised.value.data == {"service": "supabase", "field": "project", "pinned": REF}
    assert [f.requests for f in supa.upstream.fakes()] == [[] for _ in supa.upstream.fakes()], "nothing was sent"


async def test_a_pinned_account_defaults_to_its_project_and_sees_only_it(supa: Harness) -> None:
    supa.pin(REF)
    found = await supa.call("get_project")
    assert found["ref"] == REF and found["pinned"] is True
    assert (await supa.call("execute_sql", query="select 1"))["project"] == REF
    assert supa.world.sql == [("read-only", "select 1")]
    listed = await supa.call("list_projects")
    assert [p["ref"] for p in listed["items"]] == [REF]
    assert [p["ref"] for p in (await supa.call("list_projects", organization="acme"))["items"]] == [REF]
    assert supa.sent("GET /v1/organizations/{slug}/projects") == [], "the filtered full list is used"
    with pytest.raises(PermissionDenied, match="pinned to one project and cannot create others"):
        await supa.call("create_project", name="Demo", organization="acme", region="eu-west-1")
    assert supa.sent("POST /v1/projects") == []
