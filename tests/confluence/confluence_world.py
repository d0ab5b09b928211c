"""A small Confluence behind two `FakeUpstream`s (REST v2 and v1), routed by path, plus the v1 upload endpoint.

Every request is checked against tests/vendor_specs/confluence.json (v2, under /wiki/api/v2) or
confluence_v1_search.json (v1, whose paths hold /wiki/rest/api); attachment upload is in neither, so a plain
handler plays it (Atlassian documents it as `PUT /wiki/rest/api/content/{id}/child/attachment`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

from mcpist.testing import FakeUpstream

SPECS = Path(__file__).resolve().parents[1] / "vendor_specs"
SITE = "https://acme.atlassian.net"
WHEN = "2026-03-01T12:00:00.000Z"
PAGE_BODY = (
    "<h1>Plan</h1><p>Intro <strong>text</strong>.</p>"
    "<h2>Goals</h2><p>Old goal.</p><ul><li>one</li></ul>"
    "<h2>Risks</h2><p>None.</p>"
    '<ac:structured-macro ac:name="info"><ac:rich-text-body><p>Keep me</p></ac:rich-text-body></ac:structured-macro>'
)


def _page(pid: str, title: str, version: int, parent: str | None = "100", body: str | None = None) -> dict[str, Any]:
    page: dict[str, Any] = {
        "id": pid,
        "status": "current",
        "title": title,
        "spaceId": "9",
        "parentId": parent,
        "parentType": "page",
        "authorId": "u1",
        "createdAt": WHEN,
        "version": {"number": version, "createdAt": WHEN, "authorId": "u1", "message": "", "minorEdit": False},
        "_links": {"webui": f"/spaces/ENG/pages/{pid}/{title.replace(' ', '+')}"},
    }
    if body is not None:
        page["body"] = {"storage": {"representation": "storage", "value": body}}
    if parent is None:
        del page["parentId"]
    return page


@dataclass
class World:
    pages: dict[str, dict[str, Any]] = field(
        default_factory=lambda: {
            "100": {"title": "Home", "version": 1, "parent": None, "body": "<p>Welcome</p>"},
            "200": {"title": "Plan", "version": 4, "parent": "100", "body": PAGE_BODY},
        }
    )
    labels: list[str] = field(default_factory=lambda: ["draft"])
    bumped_meanwhile: bool = False  # the page changes between our read and our write
    puts: list[dict[str, Any]] = field(default_factory=list)
    uploads: list[httpx.Request] = field(default_factory=list)
    spaces: int = 3
    expire_once: bool = False  # the next page read answers 401, as for an expired token
    page_without_id: bool = False  # a page read answers without its `id` (the description does not require it)


def _paged(request: httpx.Request, items: list[dict[str, Any]], path: str) -> dict[str, Any]:
    """v2 paging: `limit` items from the `cursor` (an offset here), `_links.next` as Confluence writes it."""
    start = int(request.url.params.get("cursor", "0"))
    size = int(request.url.params.get("limit", "25"))
    body: dict[str, Any] = {"results": items[start : start + size], "_links": {"base": f"{SITE}/wiki"}}
    if start + size < len(items):
        body["_links"]["next"] = f"/wiki/api/v2{path}?limit={size}&cursor={start + size}"
    return body


def install_v2(fake: FakeUpstream, world: World) -> None:
    @fake.route("GET", "/spaces")
    def spaces(request: httpx.Request) -> Any:
        all_spaces = [
            {
                "id": str(9 + i),
                "key": "ENG" if i == 0 else f"S{i}",
                "name": f"Space {i}",
                "type": "global",
                "status": "current",
                "homepageId": "100",
                "_links": {"webui": f"/spaces/S{i}"},
            }
            for i in range(world.spaces)
        ]
        keys = request.url.params.get_list("keys")
        if keys:
            all_spaces = [s for s in all_spaces if s["key"] in keys]
        return _paged(request, all_spaces, "/spaces")

    @fake.route("GET", "/spaces/{id}/pages")
    def space_pages(request: httpx.Request, id: str) -> Any:
        items = [_page(str(1000 + i), f"Page {i:03d}", 1) for i in range(120)]
        return _paged(request, items, f"/spaces/{id}/pages")

    @fake.route("GET", "/pages/{id}")
    def get_page(request: httpx.Request, id: str) -> Any:
        if world.expire_once:
            world.expire_once = False
            return 401, {"code": 401, "message": "Unauthorized"}
        if id not in world.pages:
            return httpx.Response(404)  # documented without a body
        p = world.pages[id]
        page = _page(id, p["title"], p["version"], p["parent"], p["body"])
        return {k: v for k, v in page.items() if k != "id"} if world.page_without_id else page

    @fake.route("PUT", "/pages/{id}")
    def put_page(request: httpx.Request, id: str) -> Any:
        sent = json.loads(request.content)
        world.puts.append(sent)
        p = world.pages[id]
        if world.bumped_meanwhile or sent["version"]["number"] != p["version"] + 1:
            return 409, {"errors": [{"status": 409, "code": "CONFLICT", "title": "Version must be incremented"}]}
        p.update(version=p["version"] + 1, title=sent["title"], body=sent["body"]["value"])
        p["parent"] = sent.get("parentId", p["parent"])
        return _page(id, p["title"], p["version"], p["parent"], p["body"])

    @fake.route("POST", "/pages")
    def create(request: httpx.Request) -> Any:
        sent = json.loads(request.content)
        world.pages["300"] = {
            "title": sent["title"],
            "version": 1,
            "parent": sent.get("parentId", "100"),
            "body": sent["body"]["value"],
        }
        return _page("300", sent["title"], 1, sent.get("parentId", "100"), sent["body"]["value"])

    @fake.route("DELETE", "/pages/{id}")
    def delete(request: httpx.Request, id: str) -> Any:
        world.pages.pop(id, None)
        return httpx.Response(204)

    @fake.route("GET", "/pages")
    def bulk(request: httpx.Request) -> Any:
        wanted = request.url.params.get_list("id")
        return {"results": [_page(i, world.pages[i]["title"], 1) for i in wanted if i in world.pages], "_links": {}}

    @fake.route("GET", "/pages/{id}/ancestors")
    def ancestors(request: httpx.Request, id: str) -> Any:
        return {"results": [{"id": "100", "type": "page"}], "_links": {}}

    @fake.route("GET", "/pages/{id}/children")
    def children(request: httpx.Request, id: str) -> Any:
        items = [
            {"id": str(500 + i), "status": "current", "title": f"Child {i}", "spaceId": "9", "childPosition": i}
            for i in range(7)
        ]
        return _paged(request, items, f"/pages/{id}/children")

    @fake.route("GET", "/pages/{id}/versions")
    def versions(request: httpx.Request, id: str) -> Any:
        items = [
            {"number": n, "createdAt": WHEN, "authorId": "u1", "message": f"v{n}", "minorEdit": False}
            for n in range(4, 0, -1)
        ]
        return _paged(request, items, f"/pages/{id}/versions")

    def comment(cid: str, text: str, inline: bool = False) -> dict[str, Any]:
        c: dict[str, Any] = {
            "id": cid,
            "status": "current",
            "title": "Re: Plan",
            "pageId": "200",
            "version": {"number": 1, "createdAt": WHEN, "authorId": "u2"},
            "body": {"storage": {"representation": "storage", "value": f"<p><em>{text}</em></p>"}},
            "_links": {"webui": f"/spaces/ENG/pages/200?focusedCommentId={cid}"},
        }
        if inline:
            c.update(resolutionStatus="open", properties={"inlineOriginalSelection": "Old goal"})
        return c

    @fake.route("GET", "/pages/{id}/footer-comments")
    def footer(request: httpx.Request, id: str) -> Any:
        return _paged(request, [comment(str(700 + i), f"footer {i}") for i in range(3)], f"/pages/{id}/footer-comments")

    @fake.route("GET", "/pages/{id}/inline-comments")
    def inline(request: httpx.Request, id: str) -> Any:
        return _paged(request, [comment("800", "inline 0", inline=True)], f"/pages/{id}/inline-comments")

    @fake.route("POST", "/footer-comments")
    def add_comment(request: httpx.Request) -> Any:
        sent = json.loads(request.content)
        return 201, comment("799", "x") | {"body": {"storage": sent["body"]}}

    @fake.route("GET", "/pages/{id}/attachments")
    def attachments(request: httpx.Request, id: str) -> Any:
        items = [
            {
                "id": "att1",
                "status": "current",
                "title": "diagram.png",
                "createdAt": WHEN,
                "pageId": id,
                "mediaType": "image/png",
                "fileSize": 2048,
                "comment": "",
                "version": {"number": 2, "createdAt": WHEN},
                "webuiLink": f"/pages/viewpageattachments.action?pageId={id}",
                "downloadLink": f"/download/attachments/{id}/diagram.png",
            }
        ]
        return _paged(request, items, f"/pages/{id}/attachments")


def install_v1(fake: FakeUpstream, world: World) -> None:
    def labels() -> dict[str, Any]:
        items = [{"prefix": "global", "name": n, "id": str(i), "label": n} for i, n in enumerate(world.labels)]
        return {"results": items, "start": 0, "limit": 200, "size": len(items)}

    @fake.route("GET", "/wiki/rest/api/search")
    def search(request: httpx.Request) -> Any:
        start = int(request.url.params.get("cursor", "0"))
        size = int(request.url.params.get("limit", "25"))
        hits = [
            {
                "content": {
                    "id": str(1000 + i),
                    "type": "page",
                    "status": "current",
                    "title": f"Hit {i}",
                    "space": {
                        "key": "ENG",
                        "name": "Engineering",
                        "type": "global",
                        "status": "current",
                        "_expandable": {},
                        "_links": {},
                    },
                },
                "title": f"Hit {i}",
                "excerpt": "…match…",
                "url": f"/spaces/ENG/pages/{1000 + i}",
                "resultGlobalContainer": {"title": "Engineering", "displayUrl": "/spaces/ENG"},
                "breadcrumbs": [],
                "entityType": "content",
                "iconCssClass": "page",
                "lastModified": WHEN,
            }
            for i in range(30)
        ]
        links: dict[str, Any] = {"base": f"{SITE}/wiki"}
        if start + size < len(hits):
            links["next"] = f"/rest/api/search?cql=x&limit={size}&cursor={start + size}"
        return {
            "results": hits[start : start + size],
            "start": start,
            "limit": size,
            "size": len(hits[start:][:size]),
            "totalSize": len(hits),
            "cqlQuery": request.url.params["cql"],
            "searchDuration": 5,
            "_links": links,
        }

    @fake.route("POST", "/wiki/rest/api/content/{id}/label")
    def add(request: httpx.Request, id: str) -> Any:
        world.labels += [x["name"] for x in json.loads(request.content)]
        return labels()

    @fake.route("DELETE", "/wiki/rest/api/content/{id}/label/{label}")
    def remove(request: httpx.Request, id: str, label: str) -> Any:
        world.labels.remove(label)
        return httpx.Response(204)

    @fake.route("GET", "/wiki/rest/api/content/{id}/label")
    def get_labels(request: httpx.Request, id: str) -> Any:
        return labels()


class Routed(httpx.AsyncBaseTransport):
    """v2 paths to the v2 fake, the upload to its own handler, every other v1 path to the v1 fake."""

    def __init__(self, v2: FakeUpstream, v1: FakeUpstream, world: World) -> None:
        self.v2, self.v1, self.world = v2.transport(), v1.transport(), world

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        path = urlsplit(str(request.url)).path
        if "/wiki/api/v2/" in path:
            return await self.v2.handle_async_request(request)
        if path.endswith("/child/attachment"):
            await request.aread()
            self.world.uploads.append(request)
            body = {
                "results": [
                    {
                        "id": "att9",
                        "type": "attachment",
                        "status": "current",
                        "title": "notes.txt",
                        "version": {"number": 1},
                        "extensions": {"mediaType": "text/plain", "fileSize": 11, "comment": "c"},
                        "_links": {
                            "download": "/download/attachments/200/notes.txt",
                            "webui": "/pages/viewpageattachments.action?pageId=200",
                        },
                    }
                ],
                "size": 1,
            }
            return httpx.Response(200, json=body)
        return await self.v1.handle_async_request(request)


def _fixed(name: str) -> dict[str, Any]:
    """A description with two defects of Atlassian's own repaired, so that honest traffic validates.

    - `body` is `oneOf: [PageBodyWrite, PageNestedBodyWrite]` (comments alike), and neither requires a property,
      so every body matches both and `oneOf` refuses it: read as `anyOf`.
    - "empty body" answers are written `content: {}`, which openapi-core reads as "a body with no media type":
      dropped.
    """

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            if "oneOf" in node and all("BodyWrite" in str(x.get("$ref", "")) for x in node["oneOf"]):
                return {"anyOf": node["oneOf"]}
            return {k: walk(v) for k, v in node.items() if not (k == "content" and v == {})}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    fixed: dict[str, Any] = walk(json.loads((SPECS / name).read_text(encoding="utf-8")))
    return fixed


_V2 = _fixed("confluence.json")
_V1 = _fixed("confluence_v1_search.json")


def fakes(world: World, root: str = SITE) -> tuple[FakeUpstream, FakeUpstream]:
    v2 = FakeUpstream(_V2, base_url=f"{root}/wiki/api/v2")
    v1 = FakeUpstream(_V1, base_url=root)
    install_v2(v2, world)
    install_v1(v1, world)
    return v2, v1
