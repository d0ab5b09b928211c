"""Edge Functions with their source, secrets by name only, and database branches."""

from __future__ import annotations

import email.parser
import email.policy
import json

import pytest
from supabase_harness import Harness
from supabase_world import BRANCH_ID, REF

from mcpist.errors import InvalidArgument, NotFound
from mcpist.testing import covers

pytestmark = pytest.mark.anyio


@covers("list_edge_functions", "get_edge_function")
async def test_functions_and_their_source(supa: Harness) -> None:
    listed = await supa.call("list_edge_functions", project=REF)
    assert listed["items"] == [
        {
            "slug": "hello",
            "name": "hello",
            "id": "id-hello",
            "status": "ACTIVE",
            "version": 3,
            "verify_jwt": True,
            "entrypoint_path": "index.ts",
            "created_at": "2026-03-01T12:00:00Z",
            "updated_at": "2026-03-01T12:00:00Z",
        }
    ]
    plain = await supa.call("get_edge_function", project=REF, slug="hello")
    assert plain["version"] == 3 and "files" not in plain
    assert supa.sent("GET /v1/projects/{ref}/functions/{function_slug}/body") == []

    with_source = await supa.call("get_edge_function", project=REF, slug="hello", include_source=True)
    assert with_source["files"] == [
        {"name": "index.ts", "content": "Deno.serve(() => new Response('こんにちは'))", "truncated": False}
    ]
    # the description documents the body as JSON; Supabase serves the files as multipart/form-data
    management = supa.upstream.management
    assert [v.kind for v in management.violations] == ["invalid response"]
    assert "multipart/form-data" in str(management.violations[0])
    management.violations.clear()

    supa.world.functions["bundled"] = {**supa.world.functions["hello"], "slug": "bundled", "name": "bundled"}
    bundle = await supa.call("get_edge_function", project=REF, slug="bundled", include_source=True)
    assert "eszip" in bundle["source_note"] and "files" not in bundle
    assert "application/octet-stream" in str(management.violations.pop())  # the same gap in the description

    with pytest.raises(NotFound, match="Function not found"):
        await supa.call("get_edge_function", project=REF, slug="missing")


@covers("deploy_edge_function")
async def test_deploy_sends_every_file_with_its_metadata(supa: Harness) -> None:
    files = [
        {"name": "index.ts", "content": "import { hi } from './lib/hi.ts'\nDeno.serve(() => new Response(hi))"},
        {"name": "lib/hi.ts", "content": "export const hi = 'やあ'"},
    ]
    deployed = await supa.call("deploy_edge_function", project=REF, slug="greet", files=files, verify_jwt=False)
    assert deployed["slug"] == "greet" and deployed["version"] == 4
    (sent,) = supa.sent("POST /v1/projects/{ref}/functions/deploy")
    assert sent.params == {"slug": "greet"}
    head = f"Content-Type: {sent.headers['content-type']}\r\n\r\n".encode()
    parts = list(email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + sent.content).iter_parts())
    assert [p.get_param("name", header="content-disposition") for p in parts] == ["metadata", "file", "file"]
    assert json.loads(parts[0].get_payload(decode=True)) == {
        "name": "greet",
        "entrypoint_path": "index.ts",
        "verify_jwt": False,
    }
    assert [(p.get_filename(), p.get_payload(decode=True).decode()) for p in parts[1:]] == [
        (f["name"], f["content"]) for f in files
    ]


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"files": [{"name": "main.ts", "content": "x"}]}, "entrypoint_path 'index.ts' is not among files"),
        ({"files": [{"name": "index.ts", "content": "x"}] * 2}, "each name may appear once"),
        ({"files": [{"name": "index.ts", "content": "x"}, {"name": "a/../b.ts", "content": "x"}]}, "segments"),
        ({"files": [{"name": "/etc/passwd", "content": "x"}]}, "files"),
        ({"files": [{"name": "index.ts", "content": "x"}], "import_map_path": "deno.json"}, "import_map_path"),
    ],
)
@covers("deploy_edge_function")
async def test_deploy_refuses_files_that_do_not_fit(supa: Harness, params: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidArgument, match=message):
        await supa.call("deploy_edge_function", project=REF, slug="greet", **params)
    assert supa.sent("POST /v1/projects/{ref}/functions/deploy") == []


@covers("delete_edge_function")
async def test_delete_a_function(supa: Harness) -> None:
    assert await supa.call("delete_edge_function", project=REF, slug="hello") == {"project": REF, "deleted": "hello"}
    assert [r.path for r in supa.sent("DELETE /v1/projects/{ref}/functions/{function_slug}")] == [
        f"/v1/projects/{REF}/functions/hello"
    ]
    assert supa.world.functions == {}


@covers("list_secrets", "set_secrets")
async def test_secrets_by_name_only(supa: Harness) -> None:
    listed = await supa.call("list_secrets", project=REF)
    assert listed == {
        "project": REF,
        "secrets": [
            {"name": "SUPABASE_SERVICE_ROLE_KEY", "updated_at": "2026-03-01T12:00:00.000Z"},
            {"name": "STRIPE_KEY", "updated_at": "2026-03-01T12:00:00.000Z"},
        ],
    }
    assert "sk_live_9" not in json.dumps(listed) and "service-role" not in json.dumps(listed)

    done = await supa.call("set_secrets", project=REF, secrets={"OPENAI_KEY": "sk-new-1", "A_FLAG": "on"})
    assert done == {"project": REF, "names": ["A_FLAG", "OPENAI_KEY"]} and "sk-new-1" not in json.dumps(done)
    assert supa.sent("POST /v1/projects/{ref}/secrets")[0].json == [
        {"name": "OPENAI_KEY", "value": "sk-new-1"},
        {"name": "A_FLAG", "value": "on"},
    ]
    with pytest.raises(InvalidArgument, match="reserved: SUPABASE_URL"):
        await supa.call("set_secrets", project=REF, secrets={"SUPABASE_URL": "https://evil"})
    with pytest.raises(InvalidArgument):
        await supa.call("set_secrets", project=REF, secrets={"BAD NAME": "x"})
    assert len(supa.sent("POST /v1/projects/{ref}/secrets")) == 1


@covers("list_branches", "manage_branch")
async def test_branches(supa: Harness) -> None:
    created = await supa.call("manage_branch", project=REF, action="create", branch="feature-x", with_data=False)
    assert created["branch"]["name"] == "feature-x" and created["branch"]["id"] == BRANCH_ID
    assert supa.sent("POST /v1/projects/{ref}/branches")[0].json == {"branch_name": "feature-x", "with_data": False}

    listed = await supa.call("list_branches", project=REF)
    assert [(b["name"], b["is_default"]) for b in listed["branches"]] == [("main", True), ("feature-x", False)]

    renamed = await supa.call("manage_branch", project=REF, action="update", branch="feature-x", new_name="feat-y")
    (patch,) = supa.sent("PATCH /v1/branches/{branch_id_or_ref}")
    assert patch.path == f"/v1/branches/{BRANCH_ID}" and patch.json == {"branch_name": "feat-y"}
    assert renamed["branch"]["name"] == "feat-y"
    with pytest.raises(InvalidArgument, match="give new_name"):
        await supa.call("manage_branch", project=REF, action="update", branch="feat-y")

    with pytest.raises(InvalidArgument, match="default branch"):
        await supa.call("manage_branch", project=REF, action="delete", branch="main")
    with pytest.raises(NotFound, match="no branch named 'nope'"):
        await supa.call("manage_branch", project=REF, action="delete", branch="nope")
    deleted = await supa.call("manage_branch", project=REF, action="delete", branch="feat-y")
    assert deleted == {"project": REF, "action": "delete", "deleted": "feat-y"}
    assert [r.path for r in supa.sent("DELETE /v1/branches/{branch_id_or_ref}")] == [f"/v1/branches/{BRANCH_ID}"]
