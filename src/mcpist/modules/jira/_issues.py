"""Tools for issues: JQL search, reading one issue with its comments and history, create, update, delete."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from mcpist.upstream import Cursor, Limit, MaxChars, Offset, clip, collect, page_token

from ._common import (
    REST,
    SERVICE,
    AccountId,
    IssueKey,
    ProjectKey,
    Raw,
    RichText,
    Site,
    drop_none,
    envelope,
    invalid,
    not_found,
    offset_paged,
    rich_in,
    rich_out,
    seg,
    target,
)
from ._meta import create_metadata
from ._models import (
    Change,
    Comment,
    IssueDetail,
    IssuePage,
    IssueSummary,
    Written,
    cut,
    issue_summary,
    name_of,
)
from ._module import Ctx, module

SUMMARY_FIELDS = ["summary", "status", "issuetype", "priority", "assignee", "updated"]
DETAIL_FIELDS = [*SUMMARY_FIELDS, "reporter", "created", "duedate", "labels", "components", "parent", "project"]
FieldNames = Annotated[
    list[Annotated[str, Field(min_length=1, max_length=100)]] | None,
    Field(max_length=50, description="more fields to return, by id (e.g. customfield_10016, fixVersions)"),
]
Summary = Annotated[str, Field(min_length=1, max_length=255)]
Labels = Annotated[list[Annotated[str, Field(min_length=1, max_length=255, pattern=r"^\S+$")]], Field(max_length=50)]
ExtraFields = Annotated[
    dict[str, Any] | None, Field(description='other fields as Jira\'s JSON, e.g. {"customfield_10016": 5}')
]


@module.tool(read_only=True)
async def search_issues(
    ctx: Ctx,
    jql: Annotated[str, Field(min_length=1, max_length=4000, description="JQL; a bounded query, e.g. project = X")],
    fields: FieldNames = None,
    limit: Limit = 30,
    cursor: Cursor = None,
    site: Site = None,
) -> IssuePage:
    """Find issues with JQL, e.g. `project = PROJ AND status != Done ORDER BY updated DESC`."""
    where = target(ctx, site)
    wanted = [*SUMMARY_FIELDS, *(fields or [])]

    async def fetch(token: str | None) -> tuple[list[IssueSummary], str | None]:
        body: dict[str, Any] = {"jql": jql, "fields": wanted, "maxResults": max(limit, 50)}
        if token:
            body["nextPageToken"] = token
        # a read sent as POST (long JQL fits no URL): safe to repeat
        found = ctx.http.parse(
            dict[str, Any], await ctx.http.post_json(f"{where.prefix}{REST}/search/jql", body, retry=True)
        )
        issues = [
            issue_summary(i, where.web, fields or [])
            for i in ctx.http.parse(list[dict[str, Any]], found.get("issues", []))
        ]
        return issues, None if found.get("isLast") else page_token(found)

    page = await collect(fetch, limit, cursor=cursor, service=SERVICE)
    return IssuePage(items=page.items, next_cursor=page.next_cursor)


@module.tool(read_only=True)
async def get_issue(
    ctx: Ctx,
    key: IssueKey,
    fields: FieldNames = None,
    comments: Annotated[int, Field(ge=0, le=100, description="comments to return, oldest first; 0 for none")] = 20,
    cursor: Annotated[Cursor, Field(description="next_cursor of a previous call: more comments")] = None,
    history: Annotated[bool, Field(description="include the change history")] = False,
    history_cursor: Cursor = None,
    offset: Offset = 0,
    max_chars: MaxChars = 20_000,
    raw: Raw = False,
    site: Site = None,
) -> IssueDetail:
    """One issue: fields, the description as Markdown, its comments and optionally its change history."""
    where = target(ctx, site)
    base = f"{where.prefix}{REST}/issue/{seg(key)}"
    params = {"fields": ",".join([*DETAIL_FIELDS, "description", *(fields or [])])}
    with not_found(f"issue {key}"):
        found = ctx.http.parse(dict[str, Any], await ctx.http.get_json(base, params=params))
        summary = issue_summary(found, where.web, fields or [])
        values: dict[str, Any] = found.get("fields") or {}
        text = clip(rich_out(values.get("description"), raw), offset=offset, max_chars=max_chars)
        detail = IssueDetail(
            **summary.model_dump(exclude={"fields"}),
            fields={k: v for k, v in (summary.fields or {}).items() if k not in DETAIL_FIELDS and k != "description"}
            or None,
            id=str(found.get("id", "")),
            project=(values.get("project") or {}).get("key"),
            reporter=name_of(values.get("reporter")),
            created=values.get("created"),
            due=values.get("duedate"),
            labels=values.get("labels") or [],
            components=[c for c in (name_of(c) for c in values.get("components") or []) if c],
            parent=(values.get("parent") or {}).get("key"),
            description=text.text,
            description_chars=text.total_chars,
            description_next_offset=text.next_offset,
        )
        if comments:
            total: list[int | None] = [None]

            def read_comments(body: Any) -> tuple[list[Comment], int | None, bool | None]:
                items, total[0], last = envelope(ctx, body, "comments")
                return [_comment(c, raw) for c in items], total[0], last

            page = await offset_paged(
                ctx, f"{base}/comment", read_comments, limit=comments, cursor=cursor, params={"orderBy": "created"}
            )
            detail.comments, detail.next_cursor, detail.comments_total = page.items, page.next_cursor, total[0]
        if history:
            changes = await offset_paged(
                ctx, f"{base}/changelog", lambda body: _changes(ctx, body), limit=50, cursor=history_cursor
            )
            detail.history, detail.history_next_cursor = changes.items, changes.next_cursor
    return detail


def _comment(raw: dict[str, Any], as_raw: bool) -> Comment:
    return Comment(
        id=str(raw.get("id", "")),
        author=name_of(raw.get("author")),
        created=raw.get("created"),
        updated=raw.get("updated"),
        body=cut(rich_out(raw.get("body"), as_raw)),
    )


def _changes(ctx: Ctx, body: Any) -> tuple[list[Change], int | None, bool | None]:
    entries, total, last = envelope(ctx, body, "values")
    out = []
    for entry in entries:
        for item in entry.get("items") or []:
            out.append(
                Change(
                    at=entry.get("created"),
                    author=name_of(entry.get("author")),
                    field=str(item.get("field", "")),
                    old=item.get("fromString"),
                    new=item.get("toString"),
                )
            )
    return out, total, last


def _fields(
    summary: str | None,
    description: str | None,
    raw: bool,
    assignee: str | None,
    labels: list[str] | None,
    priority: str | None,
    parent: str | None,
    extra: dict[str, Any] | None,
) -> dict[str, Any]:
    fields: dict[str, Any] = dict(extra or {})
    fields.update(
        drop_none(
            summary=summary,
            description=rich_in(description, raw, "description") if description is not None else None,
            assignee={"accountId": assignee} if assignee else None,
            labels=labels,
            priority={"name": priority} if priority else None,
            parent={"key": parent} if parent else None,
        )
    )
    return fields


@module.tool()
async def create_issue(
    ctx: Ctx,
    project: ProjectKey,
    issue_type: Annotated[str, Field(min_length=1, max_length=100, description="name or id, e.g. Task, Bug")],
    summary: Summary,
    description: RichText | None = None,
    assignee: AccountId | None = None,
    labels: Labels | None = None,
    priority: Annotated[str | None, Field(max_length=100, description="name, e.g. High")] = None,
    parent: Annotated[IssueKey | None, Field(description="parent issue (sub-task, epic child)")] = None,
    fields: ExtraFields = None,
    raw: Raw = False,
    site: Site = None,
) -> Written:
    """Create an issue; the project's create metadata is checked first for its type and required fields."""
    where = target(ctx, site)
    meta = await create_metadata(ctx, where.prefix, project, with_fields=False)
    kind = next((t for t in meta.issue_types if issue_type.lower() in (t.id, t.name.lower())), None)
    if kind is None:
        names = ", ".join(t.name for t in meta.issue_types)
        raise invalid(f"project {project} has no issue type {issue_type!r}; it has {names}", field="issue_type")
    detail = await create_metadata(ctx, where.prefix, project, with_fields=True, type_id=kind.id)
    payload = _fields(summary, description, raw, assignee, labels, priority, parent, fields)
    given = {"project", "issuetype", *payload}
    missing = [
        f"{f.name} ({f.id})" for t in detail.issue_types for f in t.fields or [] if f.required and f.id not in given
    ]
    if missing:
        raise invalid(
            f"issue type {kind.name} in {project} requires {', '.join(missing)}; pass them in `fields`", field="fields"
        )
    payload.update(project={"key": project} if not project.isdigit() else {"id": project}, issuetype={"id": kind.id})
    created = ctx.http.parse(
        dict[str, Any], await ctx.http.post_json(f"{where.prefix}{REST}/issue", {"fields": payload})
    )
    key = str(created.get("key", ""))
    return Written(key=key, url=f"{where.web}/browse/{key}", done=f"created {kind.name} {key}")


@module.tool(idempotent=True)
async def update_issue(
    ctx: Ctx,
    key: IssueKey,
    summary: Summary | None = None,
    description: RichText | None = None,
    assignee: AccountId | None = None,
    labels: Annotated[Labels | None, Field(description="replaces all labels; [] removes them")] = None,
    priority: Annotated[str | None, Field(max_length=100)] = None,
    fields: ExtraFields = None,
    notify: Annotated[bool, Field(description="email watchers")] = True,
    raw: Raw = False,
    site: Site = None,
) -> Written:
    """Change an issue's summary, description, assignee, labels, priority or other fields (not its status)."""
    where = target(ctx, site)
    payload = _fields(summary, description, raw, assignee, labels, priority, None, fields)
    if not payload:
        raise invalid("nothing to change; give at least one field")
    with not_found(f"issue {key}"):
        await ctx.http.request(
            "PUT",
            f"{where.prefix}{REST}/issue/{seg(key)}",
            params={"notifyUsers": str(notify).lower()},
            json={"fields": payload},
            retry=True,
        )
    return Written(key=key, url=f"{where.web}/browse/{key}", done="updated " + ", ".join(sorted(payload)))


@module.tool(destructive=True)
async def delete_issue(
    ctx: Ctx,
    key: IssueKey,
    subtasks: Annotated[bool, Field(description="also delete its sub-tasks (required when it has some)")] = False,
    site: Site = None,
) -> Written:
    """Delete an issue for good (and, with subtasks=true, its sub-tasks)."""
    where = target(ctx, site)
    with not_found(f"issue {key}"):
        await ctx.http.request(
            "DELETE", f"{where.prefix}{REST}/issue/{seg(key)}", params={"deleteSubtasks": str(subtasks).lower()}
        )
    return Written(key=key, url=f"{where.web}/browse/{key}", done="deleted")
