"""Organizations and projects: list, read, create, pause and restore."""

from __future__ import annotations

import secrets
from typing import Annotated, Any, Literal

from pydantic import Field

from mcpist.modules import PermissionDenied
from mcpist.upstream import Cursor, Limit, Page, encode_cursor

from ._common import SERVICE, OrgSlug, Project, api, offset_of, page_of, pinned, seg, target
from ._models import CreatedProject, Organization, Organizations, ProjectAction, ProjectDetail, ProjectSummary
from ._module import Ctx, module

Region = Literal[
    "us-east-1",
    "us-east-2",
    "us-west-1",
    "us-west-2",
    "ca-central-1",
    "sa-east-1",
    "eu-west-1",
    "eu-west-2",
    "eu-west-3",
    "eu-north-1",
    "eu-central-1",
    "eu-central-2",
    "ap-south-1",
    "ap-east-1",
    "ap-southeast-1",
    "ap-southeast-2",
    "ap-northeast-1",
    "ap-northeast-2",
]


def api_url(ref: str) -> str:
    return f"https://{ref}.supabase.co"


@module.tool(read_only=True)
async def list_organizations(ctx: Ctx) -> Organizations:
    """The organizations the account belongs to, by slug and name."""
    found = ctx.http.parse(list[Organization], await ctx.http.get_json("/v1/organizations"))
    return Organizations(organizations=found)


@module.tool(read_only=True)
async def list_projects(
    ctx: Ctx,
    organization: Annotated[OrgSlug | None, Field(description="only this organization's projects")] = None,
    search: Annotated[str | None, Field(min_length=1, max_length=100, description="part of a name")] = None,
    limit: Limit = 50,
    cursor: Cursor = None,
) -> Page[ProjectSummary]:
    """Projects the account can see, by ref, name, organization, region and status (a pinned account: its own)."""
    only = pinned(ctx)
    if organization is None or only is not None:
        raw = ctx.http.parse(list[dict[str, Any]], await ctx.http.get_json("/v1/projects"))
        found = [
            ctx.http.parse(ProjectSummary, p)
            for p in raw
            if (only is None or p.get("ref") == only)
            and (organization is None or p.get("organization_slug") == organization)
            and (search is None or search.lower() in str(p.get("name", "")).lower())
        ]
        return page_of(found, limit, cursor)
    offset = offset_of(cursor)
    params: dict[str, Any] = {"offset": offset, "limit": limit, **({"search": search} if search else {})}
    body = ctx.http.parse(
        dict[str, Any], await ctx.http.get_json(f"/v1/organizations/{seg(organization)}/projects", params=params)
    )
    items = [
        ctx.http.parse(ProjectSummary, {**p, "organization": organization})
        for p in ctx.http.parse(list[dict[str, Any]], body.get("projects", []))
    ]
    total = ctx.http.parse(dict[str, Any], body.get("pagination") or {}).get("count")
    following = offset + len(items)
    more = bool(items) and (following < total if isinstance(total, int | float) else len(items) >= limit)
    return Page(items=items, next_cursor=encode_cursor({"o": following}) if more else None)


@module.tool(read_only=True)
async def get_project(ctx: Ctx, project: Project = None) -> ProjectDetail:
    """One project: name, organization, region, status, database host and Postgres version, API URL."""
    ref = target(ctx, project)
    raw = ctx.http.parse(dict[str, Any], await ctx.http.get_json(api(ref)))
    found = raw.get("database")
    database: dict[str, Any] = found if isinstance(found, dict) else {}
    return ctx.http.parse(
        ProjectDetail,
        {
            **raw,
            "database_host": database.get("host"),
            "postgres_version": database.get("version"),
            "api_url": api_url(ref),
            "pinned": pinned(ctx) == ref,
        },
    )


@module.tool()
async def create_project(
    ctx: Ctx,
    name: Annotated[str, Field(min_length=1, max_length=256)],
    organization: OrgSlug,
    region: Annotated[Region, Field(description="where the database runs, near its users")],
    plan: Annotated[
        Literal["free", "pro"] | None, Field(description="the organization's plan applies if left out")
    ] = None,
) -> CreatedProject:
    """Create a project (it may cost money on a paid plan); its database password is generated and not shown."""
    if pinned(ctx) is not None:
        raise PermissionDenied(
            f"{SERVICE}: account {ctx.account.label if ctx.account else SERVICE} is pinned to one project "
            "and cannot create others",
            {"service": SERVICE, "pinned": pinned(ctx)},
        )
    body: dict[str, Any] = {
        "name": name,
        "organization_slug": organization,
        # the user resets it in the dashboard when needed: a password shown here would sit in the LLM's context
        "db_pass": secrets.token_urlsafe(24),
        "region": region,
    }
    if plan is not None:
        body["plan"] = plan
    created = ctx.http.parse(dict[str, Any], await ctx.http.post_json("/v1/projects", body))
    ref = str(created.get("ref", ""))
    return CreatedProject(
        ref=ref,
        name=str(created.get("name", name)),
        organization=str(created.get("organization_slug", organization)),
        region=str(created.get("region", region)),
        status=str(created.get("status", "")),
        api_url=api_url(ref),
        note="the database password was generated and not kept; reset it in the dashboard to connect directly",
    )


@module.tool(idempotent=True)
async def pause_project(ctx: Ctx, project: Project = None) -> ProjectAction:
    """Pause a project: its database and APIs stop until restore_project."""
    ref = target(ctx, project)
    await ctx.http.request("POST", api(ref, "/pause"))
    return ProjectAction(project=ref, action="pause", status="requested")


@module.tool(idempotent=True)
async def restore_project(ctx: Ctx, project: Project = None) -> ProjectAction:
    """Restore a paused project; it takes a few minutes to come up (get_project shows the status)."""
    ref = target(ctx, project)
    await ctx.http.request("POST", api(ref, "/restore"))
    return ProjectAction(project=ref, action="restore", status="requested")
