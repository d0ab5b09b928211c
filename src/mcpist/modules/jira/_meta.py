"""Tools about the site rather than one issue: who I am, projects, create metadata, fields and users."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from mcpist.upstream import Cursor, Limit, Page

from ._common import REST, ProjectKey, Site, envelope, not_found, offset_paged, seg, target
from ._models import CreateMetadata, FieldMeta, IssueTypeMeta, JiraField, Project, User, key_of, name_of, user
from ._module import Ctx, module

Query = Annotated[str, Field(min_length=1, max_length=200)]


@module.tool(read_only=True)
async def get_myself(ctx: Ctx, site: Site = None) -> User:
    """The account's own Jira user: accountId, name, email and time zone."""
    where = target(ctx, site)
    return user(ctx.http.parse(dict[str, Any], await ctx.http.get_json(f"{where.prefix}{REST}/myself")))


@module.tool(read_only=True)
async def list_projects(
    ctx: Ctx,
    query: Annotated[Query | None, Field(description="part of a project's key or name")] = None,
    limit: Limit = 50,
    cursor: Cursor = None,
    site: Site = None,
) -> Page[Project]:
    """Projects the account can browse, by key and name."""
    where = target(ctx, site)

    def read(body: Any) -> tuple[list[Project], int | None, bool | None]:
        items, total, last = envelope(ctx, body, "values")
        return [_project(p, where.web) for p in items], total, last

    params = {"orderBy": "key", **({"query": query} if query else {})}
    return await offset_paged(
        ctx, f"{where.prefix}{REST}/project/search", read, limit=limit, cursor=cursor, params=params
    )


def _project(raw: dict[str, Any], web: str) -> Project:
    key = key_of(raw, "a project")
    return Project(
        key=key,
        id=str(raw.get("id", "")),
        name=raw.get("name", key),
        type=raw.get("projectTypeKey"),
        lead=name_of(raw.get("lead")),
        url=f"{web}/browse/{key}",
    )


async def create_metadata(
    ctx: Ctx, prefix: str, project: str, *, with_fields: bool, type_id: str | None = None
) -> CreateMetadata:
    """A project's issue types and, with `with_fields`, the fields of each (or of `type_id` only)."""
    base = f"{prefix}{REST}/issue/createmeta/{seg(project)}/issuetypes"
    with not_found(f"project {project}"):
        body = ctx.http.parse(dict[str, Any], await ctx.http.get_json(base, params={"maxResults": 200}))
        raw_types = body.get("issueTypes") or body.get("createMetaIssueType") or body.get("values") or []
        types = [
            IssueTypeMeta(id=str(t["id"]), name=str(t.get("name", t["id"])), subtask=bool(t.get("subtask")))
            for t in ctx.http.parse(list[dict[str, Any]], raw_types)
        ]
        if with_fields:
            for kind in types:
                if type_id is not None and kind.id != type_id:
                    continue
                found = await ctx.http.get_json(f"{base}/{seg(kind.id)}", params={"maxResults": 200})
                page = ctx.http.parse(dict[str, Any], found)
                raw_fields = page.get("fields") or page.get("results") or page.get("values") or []
                kind.fields = [_field_meta(f) for f in ctx.http.parse(list[dict[str, Any]], raw_fields)]
    if type_id is not None:
        types = [t for t in types if t.id == type_id]
    return CreateMetadata(project=project, issue_types=types)


def _field_meta(raw: dict[str, Any]) -> FieldMeta:
    allowed = [name_of(v) for v in raw.get("allowedValues") or []][:20]
    return FieldMeta(
        id=str(raw.get("fieldId") or raw.get("key") or ""),
        name=str(raw.get("name", "")),
        # a field Jira fills by default is not one the caller must give
        required=bool(raw.get("required")) and not raw.get("hasDefaultValue"),
        type=(raw.get("schema") or {}).get("type"),
        allowed=[a for a in allowed if a] or None,
    )


@module.tool(read_only=True)
async def get_create_metadata(
    ctx: Ctx,
    project: ProjectKey,
    issue_type: Annotated[
        str | None, Field(max_length=100, description="name or id: that type's fields; none lists the types")
    ] = None,
    site: Site = None,
) -> CreateMetadata:
    """A project's issue types, or one type's fields (required ones, allowed values) before create_issue."""
    where = target(ctx, site)
    meta = await create_metadata(ctx, where.prefix, project, with_fields=False)
    if issue_type is None:
        return meta
    wanted = next((t for t in meta.issue_types if issue_type.lower() in (t.id, t.name.lower())), None)
    if wanted is None:
        return CreateMetadata(project=project, issue_types=[])
    return await create_metadata(ctx, where.prefix, project, with_fields=True, type_id=wanted.id)


@module.tool(read_only=True)
async def search_fields(
    ctx: Ctx,
    query: Annotated[Query | None, Field(description="part of a field's name or id; none lists all")] = None,
    custom_only: bool = False,
    site: Site = None,
) -> Page[JiraField]:
    """Fields by name or id (e.g. find `Story Points` as customfield_10016) for JQL and `fields`."""
    where = target(ctx, site)
    found = ctx.http.parse(list[dict[str, Any]], await ctx.http.get_json(f"{where.prefix}{REST}/field"))
    wanted = (query or "").lower()
    items = [
        JiraField(
            id=str(f.get("id", "")),
            name=str(f.get("name", "")),
            custom=bool(f.get("custom")),
            type=(f.get("schema") or {}).get("type"),
            clause_names=f.get("clauseNames") or [],
        )
        for f in found
        if (not custom_only or f.get("custom"))
        and (wanted in str(f.get("name", "")).lower() or wanted in str(f.get("id", "")).lower())
    ]
    return Page(items=items[:200], next_cursor=None)


@module.tool(read_only=True)
async def search_users(
    ctx: Ctx,
    query: Annotated[Query, Field(description="part of a name or email")],
    limit: Limit = 20,
    site: Site = None,
) -> Page[User]:
    """Users by name or email, for their accountId (assignee, mentions)."""
    where = target(ctx, site)
    found = await ctx.http.get_json(f"{where.prefix}{REST}/user/search", params={"query": query, "maxResults": limit})
    return Page(items=[user(u) for u in ctx.http.parse(list[dict[str, Any]], found)], next_cursor=None)
