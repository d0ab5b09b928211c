"""Across the workspace: search, users, and the comments on pages and blocks."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from mcpist.upstream import Cursor, Page, body_cursor, collect

from ._module import Ctx, Id, Limit, module, notion_id
from .common import an_object, results
from .markdown import canonical_rich_text, parse_inline, plain_text
from .markdown.inline_render import Unrepresentable, render_inline
from .markdown.wire import wire_rich_text
from .models import Comment, SearchHit, User
from .properties import parent_of, title_of, user_label


@module.tool(read_only=True)
async def search(
    ctx: Ctx,
    query: Annotated[str, Field(max_length=500, description="words in the title; empty: everything")] = "",
    type: Annotated[Literal["page", "data_source"] | None, Field(description="only pages or data sources")] = None,
    limit: Limit = 20,
    cursor: Cursor = None,
) -> Page[SearchHit]:
    """Pages and data sources (database tables) shared with the account whose title matches, latest edited first."""
    body: dict[str, Any] = {"query": query, "page_size": min(limit, 100)}
    if type is not None:
        body["filter"] = {"property": "object", "value": type}

    async def fetch(token: str | None) -> tuple[list[SearchHit], str | None]:
        answer = await ctx.http.post_json(
            "/v1/search", {**body, **({"start_cursor": token} if token else {})}, retry=True
        )
        hits = [_hit(item) for item in results(ctx, answer) if isinstance(item.get("id"), str)]
        return hits, body_cursor(answer)

    return await collect(fetch, limit, cursor=cursor, service="notion")


def _hit(item: dict[str, Any]) -> SearchHit:
    return SearchHit(
        id=str(item["id"]),
        type=str(item.get("object", "page")),
        title=title_of(item),
        url=item.get("url"),
        parent=parent_of(item.get("parent")),
        last_edited=item.get("last_edited_time"),
    )


@module.tool(read_only=True)
async def list_users(ctx: Ctx, limit: Limit = 50, cursor: Cursor = None) -> Page[User]:
    """The workspace's people and bots, with the ids that people properties and mentions take."""

    async def fetch(token: str | None) -> tuple[list[User], str | None]:
        params: dict[str, Any] = {"page_size": min(limit, 100)}
        if token:
            params["start_cursor"] = token
        answer = await ctx.http.get_json("/v1/users", params=params)
        return [_user(item) for item in results(ctx, answer) if isinstance(item.get("id"), str)], body_cursor(answer)

    return await collect(fetch, limit, cursor=cursor, service="notion")


def _user(item: dict[str, Any]) -> User:
    person = item.get("person")
    return User(
        id=str(item["id"]),
        name=item.get("name"),
        type=item.get("type"),
        email=person.get("email") if isinstance(person, dict) else None,
    )


@module.tool(read_only=True)
async def list_comments(ctx: Ctx, block_id: Id, limit: Limit = 50, cursor: Cursor = None) -> Page[Comment]:
    """The open comments on a page or block, oldest first, with their text as Markdown."""
    bid = notion_id(block_id, "block_id")

    async def fetch(token: str | None) -> tuple[list[Comment], str | None]:
        params: dict[str, Any] = {"block_id": bid, "page_size": min(limit, 100)}
        if token:
            params["start_cursor"] = token
        answer = await ctx.http.get_json("/v1/comments", params=params)
        found = [_comment(item) for item in results(ctx, answer) if isinstance(item.get("id"), str)]
        return found, body_cursor(answer)

    return await collect(fetch, limit, cursor=cursor, service="notion")


def _comment(item: dict[str, Any]) -> Comment:
    rich = canonical_rich_text(item.get("rich_text"))
    try:
        text = render_inline(rich, line_start=False)
    except Unrepresentable:
        text = plain_text(rich)
    return Comment(
        id=str(item["id"]),
        discussion_id=item.get("discussion_id"),
        author=user_label(item.get("created_by")) or None,
        created=item.get("created_time"),
        text=text,
    )


@module.tool()
async def add_comment(
    ctx: Ctx,
    page_id: Id,
    text: Annotated[str, Field(min_length=1, max_length=20_000, description="the comment; inline Markdown")],
) -> Comment:
    """Comment on a page (a new discussion); **bold**, links and mentions in Markdown work."""
    pid = notion_id(page_id, "page_id")
    body = {"parent": {"page_id": pid}, "rich_text": wire_rich_text(parse_inline(text))}
    return _comment(an_object(ctx, await ctx.http.post_json("/v1/comments", body)))
