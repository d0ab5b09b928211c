"""What the tools share: the site and API prefix of a call, parameter types, paging and page bodies."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal, TypeVar
from urllib.parse import parse_qs, urlsplit

from pydantic import Field

from mcpist.modules import InvalidArgument, NotFound, site_url, sites_named, stored_sites
from mcpist.upstream import Page, collect

from ._module import Ctx
from .markdown import to_markdown, to_storage

T = TypeVar("T")
SERVICE = "confluence"
PAGE_SIZE = 50  # fixed, so that a cursor which ends inside an upstream page finds the same page again

SiteName = Annotated[
    str | None,
    Field(max_length=200, description="OAuth accounts with several sites: the site's name, URL or cloud id"),
]
PageId = Annotated[str, Field(pattern=r"^[0-9]{1,20}$", description="numeric page id")]
SpaceRef = Annotated[str, Field(pattern=r"^[A-Za-z0-9_~-]{1,255}$", description="space key (ENG) or numeric id")]
Format = Annotated[
    Literal["markdown", "storage"], Field(description="markdown, or Confluence storage format (XHTML) as is")
]
Body = Annotated[str, Field(max_length=500_000, description="the body, in `format`")]


@dataclass(frozen=True)
class Site:
    prefix: str  # before /wiki: "" for a site's own URL, /ex/confluence/{cloudId} through the OAuth gateway
    web: str  # the site's root URL, for links people open


def resolve_site(ctx: Ctx, site: str | None) -> Site:
    """Where this call goes: the override, the account's own site, or one of an OAuth grant's sites.

    Raises:
        InvalidArgument: no site is known, or an OAuth account covers several and `site` names none of them.
    """
    fields: Mapping[str, str] = ctx.account.fields if ctx.account else {}
    own = fields.get("site")
    if ctx.settings.site_override:
        return Site("", (own or ctx.settings.site_override).rstrip("/"))
    if own:
        return Site("", own.rstrip("/"))
    sites = stored_sites(fields.get("sites"))
    if not sites:
        raise InvalidArgument(
            "confluence: this account has no site; run `mcpist account add confluence --set "
            "site=https://YOUR-SITE.atlassian.net ...` (or connect it with OAuth)",
            {"service": SERVICE},
        )
    chosen = sites_named(sites, site) if site else (sites if len(sites) == 1 else [])
    if len(chosen) != 1:
        names = [s.get("name") or s.get("url") or s["id"] for s in sites]
        raise InvalidArgument(
            f"confluence: name one of this account's sites as `site`: {', '.join(map(str, names))}",
            {"service": SERVICE, "sites": names},
        )
    return Site(f"/ex/confluence/{chosen[0]['id']}", site_url(chosen[0]))


def api(ctx: Ctx, site: str | None) -> str:
    """The path prefix before `/wiki`: "" for token accounts, `/ex/confluence/{cloudId}` for OAuth ones."""
    return resolve_site(ctx, site).prefix


def v2(where: Site, path: str) -> str:
    return f"{where.prefix}/wiki/api/v2{path}"


def v1(where: Site, path: str) -> str:
    return f"{where.prefix}/wiki/rest/api{path}"


def web_url(where: Site, webui: str | None) -> str | None:
    """A link for people: the site, `/wiki`, and the `webui` path Confluence gives."""
    if not webui or not where.web:
        return None
    return webui if webui.startswith("http") else f"{where.web}/wiki{webui}"


def next_cursor(body: Mapping[str, Any]) -> str | None:
    """The `cursor` parameter of v2's `_links.next` (its path is the site's, not the OAuth gateway's)."""
    link = body.get("_links", {}).get("next") if isinstance(body.get("_links"), dict) else None
    if not isinstance(link, str):
        return None
    values = parse_qs(urlsplit(link).query).get("cursor")
    return values[0] if values else None


async def paged(
    ctx: Ctx,
    path: str,
    convert: Any,
    *,
    limit: int,
    cursor: str | None,
    params: Mapping[str, Any] | None = None,
) -> Page[Any]:
    """Up to `limit` items of a v2 list, each made by `convert(raw dict)`, following `_links.next`'s cursor.

    Raises:
        MCPistError: the mapped upstream status; InvalidArgument for a cursor this tool did not make.
    """

    async def fetch(state: str | None) -> tuple[list[Any], str | None]:
        query = {**(params or {}), "limit": PAGE_SIZE}
        if state:
            query["cursor"] = state
        body = ctx.http.parse(dict[str, Any], await ctx.http.get_json(path, params=query))
        results = ctx.http.parse(list[dict[str, Any]], body.get("results", []))
        return [convert(item) for item in results], next_cursor(body)

    return await collect(fetch, limit, cursor=cursor, service=SERVICE)


async def space_id(ctx: Ctx, where: Site, space: str) -> str:
    """A space's numeric id, from its key when that is what was given.

    Raises:
        NotFound: no space has that key (or the account cannot see it).
    """
    if space.isdigit():
        return space
    body = ctx.http.parse(dict[str, Any], await ctx.http.get_json(v2(where, "/spaces"), params={"keys": [space]}))
    found = ctx.http.parse(list[dict[str, Any]], body.get("results", []))
    if not found or not isinstance(found[0].get("id"), str):
        raise NotFound(f"confluence: no space with key {space!r}, or the account cannot see it", {"service": SERVICE})
    return str(found[0]["id"])


async def read_page(ctx: Ctx, where: Site, page_id: str, **params: Any) -> dict[str, Any]:
    """`GET /pages/{id}` with its storage body and version."""
    query = {"body-format": "storage", **params}
    return ctx.http.parse(dict[str, Any], await ctx.http.get_json(v2(where, f"/pages/{page_id}"), params=query))


def storage_of(page: Mapping[str, Any]) -> str:
    body = page.get("body") or {}
    storage = body.get("storage") or {} if isinstance(body, dict) else {}
    value = storage.get("value") if isinstance(storage, dict) else None
    return value if isinstance(value, str) else ""


def version_of(item: Mapping[str, Any]) -> int | None:
    version = item.get("version")
    number = version.get("number") if isinstance(version, dict) else None
    return number if isinstance(number, int) else None


def created_of(item: Mapping[str, Any]) -> str | None:
    version = item.get("version")
    when = version.get("createdAt") if isinstance(version, dict) else None
    return when if isinstance(when, str) else item.get("createdAt")


def webui_of(item: Mapping[str, Any]) -> str | None:
    links = item.get("_links")
    webui = links.get("webui") if isinstance(links, dict) else None
    return webui if isinstance(webui, str) else None


def as_storage(body: str, fmt: str) -> str:
    return body if fmt == "storage" else to_storage(body)


def as_text(storage: str, fmt: str) -> str:
    return storage if fmt == "storage" else to_markdown(storage)


def obj(value: Any) -> dict[str, Any]:
    """`value` when Confluence sent an object there, else an empty one."""
    return value if isinstance(value, dict) else {}


def drop_none(**values: Any) -> dict[str, Any]:
    return {name: value for name, value in values.items() if value is not None}


def ids(values: Sequence[Any]) -> list[str]:
    return [str(v) for v in values]
