"""A small Supabase Management API behind `FakeUpstream`, checked against tests/vendor_specs/supabase.json.

Each account's token sees its own organization and projects, so one world serves two accounts at once.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from mcpist.testing import FakeUpstream

SPEC = Path(__file__).resolve().parents[1] / "vendor_specs" / "supabase.json"
API = "https://api.supabase.com"
REF = "abcdefghijklmnopqrst"
OTHER_REF = "zyxwvutsrqponmlkjihg"
TOKEN = "sbp_acme_token_000000000001"
WHEN = "2026-03-01T12:00:00.000Z"
BRANCH_ID = "0b0c3a56-9e7c-4e3b-9d51-7f1c1c2a9b10"
BRANCH_REF = "branchrefaaaaaaaaaaa"


@dataclass
class Tenant:
    """What one account's token sees: one organization, its projects, and their service keys."""

    token: str
    org: str
    refs: tuple[str, ...]
    service_keys: dict[str, str]


def project(ref: str, org: str, name: str | None = None) -> dict[str, Any]:
    return {
        "id": ref,
        "ref": ref,
        "organization_id": org,
        "organization_slug": org,
        "name": name or f"{org}-{ref[:4]}",
        "region": "ap-northeast-1",
        "created_at": WHEN,
        "status": "ACTIVE_HEALTHY",
        "database": {
            "host": f"db.{ref}.supabase.co",
            "version": "17.4.1",
            "postgres_engine": "17",
            "release_channel": "ga",
        },
    }


def edge_function(slug: str, version: int = 3) -> dict[str, Any]:
    return {
        "id": f"id-{slug}",
        "slug": slug,
        "name": slug,
        "status": "ACTIVE",
        "version": version,
        "created_at": 1_772_366_400_000,
        "updated_at": 1_772_366_400_000,
        "verify_jwt": True,
        "entrypoint_path": "index.ts",
    }


def branch(name: str, *, default: bool = False, ident: str = BRANCH_ID, ref: str = BRANCH_REF) -> dict[str, Any]:
    return {
        "id": ident,
        "name": name,
        "project_ref": ref,
        "parent_project_ref": REF,
        "is_default": default,
        "git_branch": name,
        "persistent": False,
        "status": "FUNCTIONS_DEPLOYED",
        "created_at": WHEN,
        "updated_at": WHEN,
        "with_data": False,
    }


def lint(name: str, level: str, category: str) -> dict[str, Any]:
    return {
        "name": name,
        "title": name.replace("_", " ").title(),
        "level": level,
        "facing": "EXTERNAL",
        "categories": [category],
        "description": f"about {name}",
        "detail": f"Table public.t{level}",
        "remediation": f"https://supabase.com/docs/guides/database/database-linter?lint={name}",
        "metadata": {"schema": "public", "name": "notes", "entity": "public.notes", "type": "table"},
        "cache_key": f"{name}_public_notes",
    }


SQL_WRITES = ("insert", "update", "delete", "create", "drop", "alter", "truncate", "grant")


@dataclass
class World:
    """What the handlers serve, and what the tools sent."""

    tenants: list[Tenant] = field(
        default_factory=lambda: [
            Tenant(TOKEN, "acme", (REF, OTHER_REF), {REF: "eyJ.service-role.acme-0001", OTHER_REF: "eyJ.other.0002"})
        ]
    )
    rows: list[dict[str, Any]] = field(default_factory=lambda: [{"id": i, "title": f"note {i}"} for i in range(5)])
    sql: list[tuple[str, str]] = field(default_factory=list)  # (endpoint, query)
    migrations: list[dict[str, Any]] = field(
        default_factory=lambda: [{"version": f"2026030{i}120000", "name": f"step_{i}"} for i in range(1, 4)]
    )
    functions: dict[str, dict[str, Any]] = field(default_factory=lambda: {"hello": edge_function("hello")})
    secrets: dict[str, str] = field(
        default_factory=lambda: {"SUPABASE_SERVICE_ROLE_KEY": "eyJ.service-role.acme-0001", "STRIPE_KEY": "sk_live_9"}
    )
    branches: list[dict[str, Any]] = field(
        default_factory=lambda: [branch("main", default=True, ident="1d3f0c5e-0000-4000-8000-000000000001", ref=REF)]
    )
    api_key_calls: int = 0
    log_queries: list[dict[str, str]] = field(default_factory=list)

    def tenant(self, request: httpx.Request) -> Tenant | None:
        token = request.headers.get("Authorization", "").removeprefix("Bearer ")
        return next((t for t in self.tenants if t.token == token), None)

    def answer_sql(self, query: str) -> Any:
        """The rows a query returns: the world's notes, or the catalog queries list_tables and list_extensions make."""
        if "pg_available_extensions" in query:
            return [
                {
                    "name": "pgcrypto",
                    "default_version": "1.3",
                    "installed_version": "1.3",
                    "comment": "crypto",
                    "schema": "extensions",
                },
                {
                    "name": "vector",
                    "default_version": "0.8.0",
                    "installed_version": None,
                    "comment": "vectors",
                    "schema": None,
                },
            ]
        if "from pg_class c" in query:
            return [
                {
                    "schema": "public",
                    "name": "notes",
                    "rls_enabled": True,
                    "rows_estimate": 5,
                    "comment": "user notes",
                    "primary_key": ["id"],
                    "columns": [
                        {"name": "id", "type": "bigint", "nullable": False, "default": None},
                        {"name": "title", "type": "text", "nullable": True, "default": "''::text"},
                    ],
                    "foreign_keys": ["FOREIGN KEY (owner) REFERENCES auth.users(id)"],
                }
            ]
        return self.rows


def install(fake: FakeUpstream, world: World) -> None:
    def refused(request: httpx.Request) -> Any:
        # the Management API's 401; a careless server would echo what it was given
        said = request.headers.get("Authorization", "")
        return 401, {"message": f"Unauthorized: {said}"}

    def owned(request: httpx.Request, ref: str) -> Tenant | tuple[int, Any]:
        tenant = world.tenant(request)
        if tenant is None:
            return refused(request)
        if ref not in tenant.refs:
            return 404, {"message": "Project not found"}
        return tenant

    @fake.route("GET", "/v1/organizations")
    def _orgs(request: httpx.Request) -> Any:
        tenant = world.tenant(request)
        if tenant is None:
            return refused(request)
        return [{"id": tenant.org, "slug": tenant.org, "name": tenant.org.title()}]

    @fake.route("GET", "/v1/projects")
    def _projects(request: httpx.Request) -> Any:
        tenant = world.tenant(request)
        if tenant is None:
            return refused(request)
        return [project(ref, tenant.org) for ref in tenant.refs]

    @fake.route("GET", "/v1/organizations/{slug}/projects")
    def _org_projects(request: httpx.Request, slug: str) -> Any:
        tenant = world.tenant(request)
        if tenant is None or tenant.org != slug:
            return 404, {"message": "Organization not found"}
        offset, limit = int(request.url.params.get("offset", 0)), int(request.url.params.get("limit", 100))
        rows = [
            {
                "ref": ref,
                "name": f"{slug}-{ref[:4]}",
                "cloud_provider": "AWS",
                "region": "ap-northeast-1",
                "is_branch": False,
                "status": "ACTIVE_HEALTHY",
                "inserted_at": WHEN,
                "databases": [],
            }
            for ref in tenant.refs
        ]
        page = rows[offset : offset + limit]
        return {"projects": page, "pagination": {"count": len(rows), "limit": limit, "offset": offset}}

    @fake.route("GET", "/v1/projects/{ref}")
    def _project(request: httpx.Request, ref: str) -> Any:
        found = owned(request, ref)
        return found if isinstance(found, tuple) else project(ref, found.org)

    @fake.route("POST", "/v1/projects")
    def _create(request: httpx.Request) -> Any:
        body = json.loads(request.content)
        return 201, {
            "id": "newprojectrefaaaaaaa",
            "ref": "newprojectrefaaaaaaa",
            "organization_id": body["organization_slug"],
            "organization_slug": body["organization_slug"],
            "name": body["name"],
            "region": body.get("region", "us-east-1"),
            "created_at": WHEN,
            "status": "COMING_UP",
        }

    @fake.route("POST", "/v1/projects/{ref}/pause")
    def _pause(request: httpx.Request, ref: str) -> Any:
        found = owned(request, ref)
        return found if isinstance(found, tuple) else (200, None)

    @fake.route("POST", "/v1/projects/{ref}/restore")
    def _restore(request: httpx.Request, ref: str) -> Any:
        found = owned(request, ref)
        return found if isinstance(found, tuple) else (200, None)

    @fake.route("GET", "/v1/projects/{ref}/api-keys")
    def _keys(request: httpx.Request, ref: str) -> Any:
        found = owned(request, ref)
        if isinstance(found, tuple):
            return found
        world.api_key_calls += 1
        assert request.url.params.get("reveal") == "true"
        return [
            {"name": "anon", "api_key": "eyJ.anon.public", "type": "legacy", "id": "anon"},
            {"name": "service_role", "api_key": found.service_keys[ref], "type": "legacy", "id": "service_role"},
        ]

    def query(request: httpx.Request, ref: str, endpoint: str) -> Any:
        found = owned(request, ref)
        if isinstance(found, tuple):
            return found
        text = json.loads(request.content)["query"]
        world.sql.append((endpoint, text))
        if endpoint == "read-only" and text.strip().lower().startswith(SQL_WRITES):
            verb = text.split()[0].upper()
            return 400, {"message": f"ERROR:  25006: cannot execute {verb} in a read-only transaction\n"}
        if "syntax error" in text:
            return 400, {"message": 'ERROR:  42601: syntax error at or near "selec"'}
        return 201, world.answer_sql(text)

    @fake.route("POST", "/v1/projects/{ref}/database/query")
    def _query(request: httpx.Request, ref: str) -> Any:
        return query(request, ref, "write")

    @fake.route("POST", "/v1/projects/{ref}/database/query/read-only")
    def _read_only(request: httpx.Request, ref: str) -> Any:
        return query(request, ref, "read-only")

    @fake.route("GET", "/v1/projects/{ref}/database/migrations")
    def _migrations(request: httpx.Request, ref: str) -> Any:
        found = owned(request, ref)
        return found if isinstance(found, tuple) else world.migrations

    @fake.route("POST", "/v1/projects/{ref}/database/migrations")
    def _migrate(request: httpx.Request, ref: str) -> Any:
        body = json.loads(request.content)
        world.migrations.append({"version": "20260310120000", "name": body["name"]})
        return 200, None

    @fake.route("GET", "/v1/projects/{ref}/types/typescript")
    def _types(request: httpx.Request, ref: str) -> Any:
        schemas = request.url.params.get("included_schemas", "public")
        lines = [f"// schemas: {schemas}", "export type Json = string | number | boolean | null"]
        lines += [f"export type T{i} = {{ id: number }}" for i in range(400)]
        return {"types": "\n".join(lines) + "\n"}

    @fake.route("GET", "/v1/projects/{ref}/analytics/endpoints/logs.all")
    def _logs(request: httpx.Request, ref: str) -> Any:
        world.log_queries.append(dict(request.url.params))
        if "realtime_logs" in request.url.params.get("sql", ""):
            return {"error": {"code": 400, "errors": [], "message": "Unrecognized name: realtime_logs", "status": "x"}}
        rows = [
            {"id": f"log-{i}", "timestamp": 1_772_366_400_000_000 - i, "event_message": f"GET /rest/v1/notes {i}"}
            for i in range(3)
        ]
        rows.append({"id": "log-big", "timestamp": 1, "event_message": "x" * 5000})
        return {"result": rows}

    @fake.route("GET", "/v1/projects/{ref}/advisors/security")
    def _security(request: httpx.Request, ref: str) -> Any:
        return {
            "lints": [
                lint("rls_disabled_in_public", "ERROR", "SECURITY"),
                lint("auth_otp_long_expiry", "WARN", "SECURITY"),
            ]
        }

    @fake.route("GET", "/v1/projects/{ref}/advisors/performance")
    def _performance(request: httpx.Request, ref: str) -> Any:
        return {"lints": [lint("unindexed_foreign_keys", "INFO", "PERFORMANCE")]}

    install_functions(fake, world, owned)


def install_functions(fake: FakeUpstream, world: World, owned: Any) -> None:
    @fake.route("GET", "/v1/projects/{ref}/functions")
    def _functions(request: httpx.Request, ref: str) -> Any:
        found = owned(request, ref)
        return found if isinstance(found, tuple) else list(world.functions.values())

    @fake.route("GET", "/v1/projects/{ref}/functions/{function_slug}")
    def _function(request: httpx.Request, ref: str, function_slug: str) -> Any:
        if function_slug not in world.functions:
            return 404, {"message": "Function not found"}
        return world.functions[function_slug]

    @fake.route("GET", "/v1/projects/{ref}/functions/{function_slug}/body")
    def _body(request: httpx.Request, ref: str, function_slug: str) -> Any:
        assert request.headers["accept"] == "multipart/form-data"
        if function_slug == "bundled":
            return httpx.Response(200, content=b"ESZIP2\x00\x01", headers={"content-type": "application/octet-stream"})
        body = (
            b'--xyz\r\nContent-Disposition: form-data; name="metadata"\r\nContent-Type: application/json\r\n\r\n'
            b'{"deno2_entrypoint_path":"index.ts"}\r\n'
            b'--xyz\r\nContent-Disposition: form-data; name="file"; filename="index.ts"\r\n\r\n'
            b"Deno.serve(() => new Response('\xe3\x81\x93\xe3\x82\x93\xe3\x81\xab\xe3\x81\xa1\xe3\x81\xaf'))\r\n"
            b"--xyz--\r\n"
        )
        return httpx.Response(200, content=body, headers={"content-type": "multipart/form-data; boundary=xyz"})

    @fake.route("POST", "/v1/projects/{ref}/functions/deploy")
    def _deploy(request: httpx.Request, ref: str) -> Any:
        slug = request.url.params["slug"]
        world.functions[slug] = edge_function(slug, version=4)
        return 201, world.functions[slug]

    @fake.route("DELETE", "/v1/projects/{ref}/functions/{function_slug}")
    def _delete(request: httpx.Request, ref: str, function_slug: str) -> Any:
        world.functions.pop(function_slug, None)
        return 200, None

    @fake.route("GET", "/v1/projects/{ref}/secrets")
    def _secrets(request: httpx.Request, ref: str) -> Any:
        return [{"name": k, "value": v, "updated_at": WHEN} for k, v in world.secrets.items()]

    @fake.route("POST", "/v1/projects/{ref}/secrets")
    def _set_secrets(request: httpx.Request, ref: str) -> Any:
        for item in json.loads(request.content):
            world.secrets[item["name"]] = item["value"]
        return 201, None

    @fake.route("GET", "/v1/projects/{ref}/branches")
    def _branches(request: httpx.Request, ref: str) -> Any:
        return world.branches

    @fake.route("POST", "/v1/projects/{ref}/branches")
    def _branch(request: httpx.Request, ref: str) -> Any:
        created = branch(json.loads(request.content)["branch_name"])
        world.branches.append(created)
        return 201, created

    @fake.route("PATCH", "/v1/branches/{branch_id_or_ref}")
    def _patch_branch(request: httpx.Request, branch_id_or_ref: str) -> Any:
        found = next(b for b in world.branches if b["id"] == branch_id_or_ref)
        changes = json.loads(request.content)
        found.update(
            {"name": changes.get("branch_name", found["name"]), "persistent": changes.get("persistent", False)}
        )
        return found

    @fake.route("DELETE", "/v1/branches/{branch_id_or_ref}")
    def _delete_branch(request: httpx.Request, branch_id_or_ref: str) -> Any:
        world.branches = [b for b in world.branches if b["id"] != branch_id_or_ref]
        return {"message": "ok"}

    @fake.route("GET", "/v1/projects/{ref}/storage/buckets")
    def _buckets(request: httpx.Request, ref: str) -> Any:
        found = owned(request, ref)
        if isinstance(found, tuple):
            return found
        return [
            {"id": "avatars", "name": "avatars", "owner": "", "created_at": WHEN, "updated_at": WHEN, "public": True},
            {"id": "docs", "name": "docs", "owner": "", "created_at": WHEN, "updated_at": WHEN, "public": False},
        ]


def management_fake(world: World) -> FakeUpstream:
    fake = FakeUpstream.from_file(SPEC)
    install(fake, world)
    return fake
