"""`NotionWorld` served over HTTP: the 2025-09-03 endpoints the module calls, with Notion's errors.

`fake()` serves it through `FakeUpstream`, which checks every request and reply against
tests/vendor_specs/notion.json. That description documents only paragraph and bulleted-list blocks with
plain text for writes (`blockObjectRequest`), so tests writing other blocks or formatting use
`unchecked_transport()`: the same handlers, without the description's checks.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import httpx
from notion_world import ME, TIME, NotionWorld, plain_value, prop_id, title_text

from mcpist.testing import FakeUpstream

SPEC = Path(__file__).resolve().parents[1] / "vendor_specs" / "notion.json"
BASE = "https://api.notion.com"
Reply = dict[str, Any] | tuple[int, Any] | tuple[int, Any, dict[str, str]]


def error(status: int, code: str, message: str) -> tuple[int, dict[str, Any]]:
    return status, {"object": "error", "status": status, "code": code, "message": message, "request_id": "req-1"}


def missing(kind: str, oid: str) -> tuple[int, dict[str, Any]]:
    return error(
        404,
        "object_not_found",
        f"Could not find {kind} with ID: {oid}. Make sure the relevant pages and databases are shared with your "
        "integration.",
    )


def listing(items: list[dict[str, Any]], params: dict[str, Any], kind: str) -> dict[str, Any]:
    """One page of `items`; the cursor is the id of the first item of the next page, as Notion's are."""
    size = int(params.get("page_size", 100))
    ids = [item["id"] for item in items]
    start = ids.index(params["start_cursor"]) if params.get("start_cursor") else 0
    more = start + size < len(items)
    return {
        "object": "list",
        "results": items[start : start + size],
        "next_cursor": ids[start + size] if more else None,
        "has_more": more,
        "type": kind,
        kind: {},
    }


class FakeNotion(NotionWorld):
    def routes(self) -> list[tuple[str, str, Callable[..., Reply]]]:
        return [
            ("GET", "/v1/users", self.list_users),
            ("POST", "/v1/search", self.search),
            ("GET", "/v1/blocks/{block_id}/children", self.get_children),
            ("PATCH", "/v1/blocks/{block_id}/children", self.append_children),
            ("GET", "/v1/blocks/{block_id}", self.get_block),
            ("PATCH", "/v1/blocks/{block_id}", self.update_block),
            ("DELETE", "/v1/blocks/{block_id}", self.delete_block),
            ("GET", "/v1/pages/{page_id}", self.get_page),
            ("PATCH", "/v1/pages/{page_id}", self.update_page),
            ("POST", "/v1/pages", self.create_page),
            ("POST", "/v1/pages/{page_id}/move", self.move_page),
            ("GET", "/v1/pages/{page_id}/properties/{property_id}", self.get_property),
            ("GET", "/v1/comments", self.list_comments),
            ("POST", "/v1/comments", self.add_comment),
            ("POST", "/v1/data_sources/{data_source_id}/query", self.query),
            ("GET", "/v1/data_sources/{data_source_id}", self.get_data_source),
            ("PATCH", "/v1/data_sources/{data_source_id}", self.update_data_source),
            ("POST", "/v1/data_sources", self.create_data_source),
            ("GET", "/v1/databases/{database_id}", self.get_database),
        ]

    def fake(self) -> FakeUpstream:
        fake = FakeUpstream.from_file(SPEC, base_url=BASE)
        for method, path, handler in self.routes():
            fake.route(method, path)(handler)
        return fake

    def unchecked_transport(self) -> httpx.MockTransport:
        table = [(m, re.compile("^" + re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", p) + "$"), h) for m, p, h in self.routes()]

        def handle(request: httpx.Request) -> httpx.Response:
            for method, pattern, handler in table:
                found = pattern.match(request.url.path)
                if method == request.method and found:
                    reply = handler(request, **found.groupdict())
                    status, body = (200, reply) if isinstance(reply, dict) else reply[:2]
                    return httpx.Response(status, json=body)
            return httpx.Response(404, json={"message": f"no route {request.method} {request.url.path}"})

        return httpx.MockTransport(handle)

    def _object(self, oid: str, kind: str) -> dict[str, Any] | None:
        found = self.objects.get(oid)
        return found if found is not None and found["object"] == kind else None

    # --- users, search, comments -----------------------------------------------------------------

    def list_users(self, request: httpx.Request) -> Reply:
        return listing(self.users, dict(request.url.params), "user")

    def search(self, request: httpx.Request) -> Reply:
        body = json.loads(request.content or b"{}")
        query = str(body.get("query", "")).lower()
        wanted = (body.get("filter") or {}).get("value")
        found = [
            o
            for o in self.objects.values()
            if o["object"] in ("page", "data_source")
            and not o.get("in_trash")
            and wanted in (None, o["object"])
            and query in title_text(o).lower()
        ]
        return listing(found, body, "page_or_data_source")

    def list_comments(self, request: httpx.Request) -> Reply:
        wanted = request.url.params["block_id"]
        found = [c for c in self.comments if wanted in (c["parent"].get("page_id"), c["parent"].get("block_id"))]
        return listing(found, dict(request.url.params), "comment")

    def add_comment(self, request: httpx.Request) -> Reply:
        body = json.loads(request.content)
        page_id = body["parent"]["page_id"]
        if self._object(page_id, "page") is None:
            return missing("page", page_id)
        comment = {
            "object": "comment",
            "id": self.new_id(),
            "parent": {"type": "page_id", "page_id": page_id},
            "discussion_id": self.new_id(),
            "created_time": TIME,
            "last_edited_time": TIME,
            "created_by": {"object": "user", "id": ME},
            "rich_text": [self.answer(r) for r in body["rich_text"]],
        }
        self.comments.append(comment)
        return comment

    # --- blocks ------------------------------------------------------------------------------------

    def get_children(self, request: httpx.Request, block_id: str) -> Reply:
        if block_id not in self.children:
            return missing("block", block_id)
        return listing(self.live(block_id), dict(request.url.params), "block")

    def append_children(self, request: httpx.Request, block_id: str) -> Reply:
        if block_id not in self.children:
            return missing("block", block_id)
        body = json.loads(request.content)
        if len(body["children"]) > 100:
            return error(
                400,
                "validation_error",
                f"body.children.length should be ≤ `100`, instead was `{len(body['children'])}`.",
            )
        made = self.add_blocks(block_id, body["children"], after=body.get("after"))
        return listing([self.answer_block(self.blocks[b]) for b in made], {}, "block")

    def get_block(self, request: httpx.Request, block_id: str) -> Reply:
        block = self.blocks.get(block_id)
        return self.answer_block(block) if block else missing("block", block_id)

    def update_block(self, request: httpx.Request, block_id: str) -> Reply:
        block = self.blocks.get(block_id)
        if block is None:
            return missing("block", block_id)
        body = json.loads(request.content)
        kind = block["type"]
        if kind in body:
            scratch = self._block(block_id, {"type": kind, kind: body[kind]}, "scratch")
            block[kind] = {**block[kind], **self.blocks.pop(scratch)[kind]}
        return self.answer_block(block)

    def delete_block(self, request: httpx.Request, block_id: str) -> Reply:
        block = self.blocks.get(block_id)
        if block is None:
            return missing("block", block_id)
        block["in_trash"] = block["archived"] = True
        if block_id in self.objects:  # a child page's block: the page goes to the trash with it
            self.objects[block_id]["in_trash"] = True
        return self.answer_block(block)

    # --- pages ---------------------------------------------------------------------------------------

    def get_page(self, request: httpx.Request, page_id: str) -> Reply:
        return self._object(page_id, "page") or missing("page", page_id)

    def update_page(self, request: httpx.Request, page_id: str) -> Reply:
        page = self._object(page_id, "page")
        if page is None:
            return missing("page", page_id)
        body = json.loads(request.content)
        for name, value in (body.get("properties") or {}).items():
            if name not in page["properties"]:
                return error(400, "validation_error", f"{name} is not a property that exists.")
            prop = page["properties"][name]
            prop[prop["type"]] = self.answer_value(prop["type"], value[prop["type"]])
        if "in_trash" in body:
            page["in_trash"] = page["archived"] = body["in_trash"]
        if "icon" in body:
            page["icon"] = {"type": "emoji", "emoji": body["icon"]["emoji"]}
        return page

    def _page_parent(self, parent: dict[str, Any]) -> tuple[Any, Any]:
        """(the parent a page answers with, the properties it may have), or an error reply."""
        if "database_id" in parent:
            database = self._object(parent["database_id"], "database")
            if database is None:
                return missing("database", parent["database_id"])
            dsid = database["data_sources"][0]["id"]
            where = {"type": "data_source_id", "data_source_id": dsid, "database_id": parent["database_id"]}
            return where, self.objects[dsid]["properties"]
        if "page_id" in parent and self._object(parent["page_id"], "page") is None:
            return missing("page", parent["page_id"])
        where = {"type": "page_id", "page_id": parent["page_id"]} if "page_id" in parent else parent
        return where, {"title": {"id": "title", "type": "title"}}

    def create_page(self, request: httpx.Request) -> Reply:
        body = json.loads(request.content)
        found = self._page_parent(body["parent"])
        if isinstance(found[0], int):
            return found
        parent, schema = found
        properties = {}
        for name, value in body["properties"].items():
            if name not in schema:
                return error(400, "validation_error", f"{name} is not a property that exists.")
            kind = schema[name]["type"]
            properties[name] = {"id": schema[name]["id"], "type": kind, kind: self.answer_value(kind, value[kind])}
        title = next(p for p in properties.values() if p["type"] == "title")
        pid = self.add_page("".join(r["plain_text"] for r in title["title"]), parent)
        self.objects[pid]["properties"] = properties
        return self.objects[pid]

    def move_page(self, request: httpx.Request, page_id: str) -> Reply:
        page = self._object(page_id, "page")
        if page is None:
            return missing("page", page_id)
        found = self._page_parent(json.loads(request.content)["parent"])
        if isinstance(found[0], int):
            return found
        page["parent"] = found[0]
        return page

    def get_property(self, request: httpx.Request, page_id: str, property_id: str) -> Reply:
        page = self._object(page_id, "page")
        found = [p for p in (page or {}).get("properties", {}).values() if unquote(p["id"]) == unquote(property_id)]
        if page is None or not found:
            return missing("property", property_id)
        kind = found[0]["type"]
        if kind not in ("title", "rich_text", "relation", "people"):
            return {"object": "property_item", "id": property_id, "type": kind, kind: found[0][kind]}
        values = found[0].get("all", found[0][kind])  # "all": what a page object cuts at 25
        items = [
            {"object": "property_item", "id": f"{property_id}-{i}", "type": kind, kind: v} for i, v in enumerate(values)
        ]
        answer = listing(items, dict(request.url.params), "property_item")
        for item in answer["results"]:
            item["id"] = property_id
        return {**answer, "property_item": {"id": property_id, "next_url": None, "type": kind, kind: {}}}

    # --- databases and data sources ------------------------------------------------------------------

    def query(self, request: httpx.Request, data_source_id: str) -> Reply:
        if self._object(data_source_id, "data_source") is None:
            return missing("data_source", data_source_id)
        body = json.loads(request.content or b"{}")
        rows = [
            o
            for o in self.objects.values()
            if o["object"] == "page" and not o["in_trash"] and o["parent"].get("data_source_id") == data_source_id
        ]
        if condition := body.get("filter"):
            test = next(v for k, v in condition.items() if k != "property")
            rows = [r for r in rows if plain_value(r["properties"].get(condition["property"])) == test["equals"]]
        for sort in reversed(body.get("sorts") or []):
            rows.sort(
                key=lambda r: str(plain_value(r["properties"].get(sort["property"]))),
                reverse=sort["direction"] == "descending",
            )
        return listing(rows, body, "page_or_data_source")

    def get_data_source(self, request: httpx.Request, data_source_id: str) -> Reply:
        return self._object(data_source_id, "data_source") or missing("data_source", data_source_id)

    def update_data_source(self, request: httpx.Request, data_source_id: str) -> Reply:
        source = self._object(data_source_id, "data_source")
        if source is None:
            return missing("data_source", data_source_id)
        body = json.loads(request.content)
        for name, spec in (body.get("properties") or {}).items():
            if spec is None:
                source["properties"].pop(name, None)
            elif set(spec) == {"name"}:
                source["properties"][spec["name"]] = {**source["properties"].pop(name), "name": spec["name"]}
            else:
                kind = next(k for k in spec if k != "name")
                source["properties"][name] = {"id": prop_id(name), "name": name, "type": kind, kind: spec[kind]}
        if "title" in body:
            source["title"] = [self.answer(r) for r in body["title"]]
        return source

    def create_data_source(self, request: httpx.Request) -> Reply:
        body = json.loads(request.content)
        if self._object(body["parent"]["page_id"], "page") is None:
            return missing("page", body["parent"]["page_id"])
        specs = {name: {"type": next(iter(spec)), **spec} for name, spec in body["properties"].items()}
        title = "".join(r["text"]["content"] for r in body.get("title", []))
        _, dsid = self.add_data_source(title, body["parent"]["page_id"], specs)
        return self.objects[dsid]

    def get_database(self, request: httpx.Request, database_id: str) -> Reply:
        return self._object(database_id, "database") or missing("database", database_id)
