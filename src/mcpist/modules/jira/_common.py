"""What every group of tools shares: the site an account's call goes to, parameter types, paging, rich text."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Annotated, Any, TypeVar
from urllib.parse import quote

from pydantic import Field

from mcpist.modules import InvalidArgument, NotFound, site_url, sites_named, stored_sites
from mcpist.upstream import Page, collect, offset_next

from ._module import Ctx
from .adf import adf_to_markdown, markdown_to_adf

T = TypeVar("T")
SERVICE = "jira"
REST = "/rest/api/3"
AGILE = "/rest/agile/1.0"

Site = Annotated[
    str | None,
    Field(max_length=300, description="OAuth accounts with several sites: the site's name, URL or cloud id"),
]
IssueKey = Annotated[
    str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z][A-Za-z0-9_]*-\d+$|^\d+$", description="e.g. PROJ-123")
]
ProjectKey = Annotated[
    str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_]+$", description="project key or id")
]
AccountId = Annotated[str, Field(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9:_-]+$", description="accountId")]
Raw = Annotated[bool, Field(description="rich text as Jira's ADF JSON instead of Markdown")]
RichText = Annotated[str, Field(min_length=1, max_length=65_536, description="Markdown (ADF JSON with raw)")]


def invalid(message: str, **data: Any) -> InvalidArgument:
    return InvalidArgument(f"{SERVICE}: {message}", {"service": SERVICE, **data})


@dataclass(frozen=True)
class Target:
    prefix: str  # "" for a token account, "/ex/jira/{cloudId}" through the OAuth gateway
    web: str  # the site's root, for `{web}/browse/KEY`


def target(ctx: Ctx, site: str | None) -> Target:
    """Where this call's requests go, for the account and the `site` the caller named.

    Raises:
        InvalidArgument: a token account without a site; an OAuth account covering no site, several and none
            named, or not the one named.
    """
    account = ctx.account
    override = ctx.settings.site_override
    if account is None or account.kind != "oauth2":
        web = override or (account.fields.get("site") if account else None)
        if not web:
            raise invalid("the account has no site: mcpist account add jira --set site=https://YOUR.atlassian.net")
        return Target("", web.rstrip("/"))
    sites = stored_sites(account.fields.get("sites"))
    if site is not None:
        wanted = site.strip().rstrip("/").lower()
        sites = sites_named(sites, site) or [s for s in sites if site_url(s).lower().split("//")[-1] == wanted]
        if not sites:
            raise invalid(f"the account covers no site {site!r}", sites=_names(account.fields.get("sites")))
    if len(sites) != 1:
        names = _names(account.fields.get("sites"))
        if not names:
            raise invalid("the account covers no Jira site; connect it again: mcpist account connect jira")
        raise invalid(f"the account covers several sites; pass `site`, one of {', '.join(names)}", sites=names)
    chosen = sites[0]
    return Target(f"/ex/jira/{quote(chosen['id'], safe='')}", (override or site_url(chosen)).rstrip("/"))


def _names(raw: str | None) -> list[str]:
    return [str(s.get("name") or s["id"]) for s in stored_sites(raw)]


def api(ctx: Ctx, site: str | None) -> str:
    """The path prefix of this call's requests: '' for token accounts, `/ex/jira/{cloudId}` for OAuth ones."""
    return target(ctx, site).prefix


def seg(value: str | int) -> str:
    text = str(value)
    if text in ("", ".", ".."):
        raise invalid(f"{text!r} cannot be part of a URL path")
    return quote(text, safe="")


@contextmanager
def not_found(what: str) -> Iterator[None]:
    """Jira answers 404 both for what does not exist and for what the account may not see: say both."""
    try:
        yield
    except NotFound as exc:
        if exc.data.get("status") != 404:
            raise
        raise NotFound(f"{SERVICE}: {what} not found, or the account cannot see it", exc.data) from None


async def offset_paged(
    ctx: Ctx,
    url: str,
    parse: Callable[[Any], tuple[list[T], int | None, bool | None]],
    *,
    limit: int,
    cursor: str | None,
    params: Mapping[str, Any] | None = None,
    page_size: int = 50,
) -> Page[T]:
    """Up to `limit` items of a `startAt`/`maxResults` list; `parse(body) -> (items, total, isLast)`."""

    async def fetch(start: int | None) -> tuple[list[T], int | None]:
        at = start or 0
        size = max(limit, page_size)
        body = await ctx.http.get_json(url, params={**(params or {}), "startAt": at, "maxResults": size})
        items, total, last = parse(body)
        answered = body.get("maxResults", size) if isinstance(body, dict) else size
        return items, offset_next(at, answered if isinstance(answered, int) else size, total, len(items), is_last=last)

    return await collect(fetch, limit, cursor=cursor, service=SERVICE, state_type=int)


def envelope(ctx: Ctx, body: Any, key: str) -> tuple[list[Any], int | None, bool | None]:
    """The items, `total` and `isLast` of Jira's paged envelope `{"startAt", "maxResults", "total", key: [...]}`."""
    found = ctx.http.parse(dict[str, Any], body)
    total, last = found.get("total"), found.get("isLast")
    return (
        ctx.http.parse(list[Any], found.get(key, [])),
        total if isinstance(total, int) else None,
        last if isinstance(last, bool) else None,
    )


def rich_in(text: str, raw: bool, what: str) -> dict[str, Any]:
    """What the caller wrote, as the ADF document Jira takes.

    Raises:
        InvalidArgument: `raw` text that is not an ADF document.
    """
    if not raw:
        return markdown_to_adf(text)
    try:
        doc = json.loads(text)
    except ValueError:
        raise invalid(f'{what}: raw=true takes ADF JSON, e.g. {{"type":"doc","version":1,"content":[]}}') from None
    if not isinstance(doc, dict) or doc.get("type") != "doc":
        raise invalid(f'{what}: an ADF document has "type": "doc"')
    return doc


def rich_out(doc: Any, raw: bool) -> str:
    """A rich text field as the caller reads it: Markdown, or compact ADF JSON with `raw`."""
    if doc is None:
        return ""
    if raw:
        return json.dumps(doc, ensure_ascii=False, separators=(",", ":"))
    return adf_to_markdown(doc)


def drop_none(**values: Any) -> dict[str, Any]:
    return {name: value for name, value in values.items() if value is not None}
