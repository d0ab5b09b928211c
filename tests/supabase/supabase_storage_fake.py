"""Each project's Storage API behind `FakeUpstream` (tests/vendor_specs/supabase_storage.json), and the transport
that sends each request to the Management API's fake or to its project's Storage fake by host.

Storage's description documents no request body for uploads (its server reads the raw body outside the
schema), so the transport checks an upload's method, path and query against the description with the body
set aside, and keeps the body in `uploads` for the test to read.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from supabase_world import API

from mcpist.testing import FakeUpstream

SPEC = Path(__file__).resolve().parents[1] / "vendor_specs" / "supabase_storage.json"
WHEN = "2026-03-01T12:00:00.000Z"
_UPLOAD = re.compile(
    r"^/storage/v1/object/(?!list/|list-v2/|sign/|upload/|move$|copy$|info/|authenticated/|public/)[^/]+/.+"
)


def storage_root(ref: str) -> str:
    return f"https://{ref}.supabase.co/storage/v1"


@dataclass
class Store:
    """One project's objects, and the service key its Storage API accepts."""

    service_key: str
    deny_status: int = 403
    echo: bool = False  # a careless server quotes the credential it refused
    objects: dict[tuple[str, str], tuple[bytes, str]] = field(default_factory=dict)
    buckets: dict[str, dict[str, Any]] = field(default_factory=dict)


def storage_fake(ref: str, store: Store) -> FakeUpstream:
    fake = FakeUpstream.from_file(SPEC, base_url=storage_root(ref))

    def authorized(request: httpx.Request) -> bool:
        key = store.service_key
        return request.headers.get("authorization") == f"Bearer {key}" and request.headers.get("apikey") == key

    def _denied(request: httpx.Request) -> Any:
        said = f"invalid signature for {request.headers.get('apikey')}" if store.echo else "invalid signature"
        return store.deny_status, {"statusCode": str(store.deny_status), "error": "Unauthorized", "message": said}

    @fake.route("POST", "/bucket/")
    def _create(request: httpx.Request) -> Any:
        if not authorized(request):
            return _denied(request)
        body = json.loads(request.content)
        store.buckets[body["name"]] = body
        return {"name": body["name"]}

    @fake.route("PUT", "/bucket/{bucketId}")
    def _update(request: httpx.Request, bucketId: str) -> Any:
        if not authorized(request):
            return _denied(request)
        store.buckets.setdefault(bucketId, {}).update(json.loads(request.content))
        return {"message": "Successfully updated"}

    @fake.route("POST", "/bucket/{bucketId}/empty")
    def _empty(request: httpx.Request, bucketId: str) -> Any:
        if not authorized(request):
            return _denied(request)
        for key in [k for k in store.objects if k[0] == bucketId]:
            del store.objects[key]
        return {"message": "Successfully emptied"}

    @fake.route("DELETE", "/bucket/{bucketId}")
    def _delete_bucket(request: httpx.Request, bucketId: str) -> Any:
        if not authorized(request):
            return _denied(request)
        if any(k[0] == bucketId for k in store.objects):
            return 409, {
                "statusCode": "409",
                "error": "InvalidRequest",
                "message": "The bucket you tried to delete is not empty",
            }
        store.buckets.pop(bucketId, None)
        return {"message": "Successfully deleted"}

    @fake.route("POST", "/object/list/{bucketName}")
    def _list(request: httpx.Request, bucketName: str) -> Any:
        if not authorized(request):
            return _denied(request)
        body = json.loads(request.content)
        prefix, offset, limit = body["prefix"], body.get("offset", 0), body.get("limit", 100)
        names: dict[str, dict[str, Any]] = {}
        for (bucket, path), (data, kind) in sorted(store.objects.items()):
            if bucket != bucketName or not path.startswith(prefix):
                continue
            rest = path[len(prefix) :]
            if "/" in rest:
                folder = rest.split("/", 1)[0]
                names.setdefault(folder, {"name": folder, "id": None, "updated_at": None, "metadata": None})
            else:
                names[rest] = {
                    "name": rest,
                    "id": f"id-{rest}",
                    "updated_at": WHEN,
                    "created_at": WHEN,
                    "metadata": {"size": len(data), "mimetype": kind},
                }
        return list(names.values())[offset : offset + limit]

    @fake.route("POST", "/object/{bucketName}/{*}")
    def _upload(request: httpx.Request, bucketName: str, wildcard: str) -> Any:
        if not authorized(request):
            return _denied(request)
        if (bucketName, wildcard) in store.objects and request.headers.get("x-upsert") != "true":
            return 400, {"statusCode": "409", "error": "Duplicate", "message": "The resource already exists"}
        # the body was set aside by the transport; it puts the real one in place after this reply
        store.objects[(bucketName, wildcard)] = (b"", request.headers.get("content-type", ""))
        return {"Id": f"id-{wildcard}", "Key": f"{bucketName}/{wildcard}"}

    @fake.route("GET", "/object/authenticated/{bucketName}/{*}")
    def _download(request: httpx.Request, bucketName: str, wildcard: str) -> Any:
        if not authorized(request):
            return _denied(request)
        found = store.objects.get((bucketName, wildcard))
        if found is None:
            return 400, {"statusCode": "404", "error": "not_found", "message": "Object not found"}
        data, kind = found
        return httpx.Response(200, content=data, headers={"content-type": kind})

    @fake.route("POST", "/object/sign/{bucketName}/{*}")
    def _sign(request: httpx.Request, bucketName: str, wildcard: str) -> Any:
        if not authorized(request):
            return _denied(request)
        seconds = json.loads(request.content)["expiresIn"]
        return {"signedURL": f"/object/sign/{bucketName}/{wildcard}?token=signed.{seconds}"}

    @fake.route("DELETE", "/object/{bucketName}")
    def _delete(request: httpx.Request, bucketName: str) -> Any:
        if not authorized(request):
            return _denied(request)
        gone = []
        for path in json.loads(request.content)["prefixes"]:
            if store.objects.pop((bucketName, path), None) is not None:
                gone.append({"name": path, "bucket_id": bucketName, "id": f"id-{path}"})
        return gone

    return fake


class Upstream(httpx.AsyncBaseTransport):
    """api.supabase.com to the Management API's fake; `<ref>.supabase.co` to that project's Storage fake."""

    def __init__(self, management: FakeUpstream, stores: dict[str, Store]) -> None:
        self.management = management
        self.stores = stores
        self.storage = {ref: storage_fake(ref, store) for ref, store in stores.items()}
        self._transports = {ref: fake.transport() for ref, fake in self.storage.items()}
        self._api = management.transport()
        self.uploads: list[tuple[str, bytes]] = []  # (url, body)
        self.hosts: list[str] = []

    def fakes(self) -> list[FakeUpstream]:
        return [self.management, *self.storage.values()]

    def assert_clean(self) -> None:
        for fake in self.fakes():
            fake.assert_clean()

    def storage_requests(self) -> list[Any]:
        return [r for fake in self.storage.values() for r in fake.requests]

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.hosts.append(request.url.host)
        if f"https://{request.url.host}" == API:
            return await self._api.handle_async_request(request)
        ref = request.url.host.removesuffix(".supabase.co")
        if ref not in self._transports:
            raise httpx.ConnectError(f"no such host {request.url.host}", request=request)
        await request.aread()
        if request.method in ("POST", "PUT") and _UPLOAD.match(request.url.path):
            body = request.content
            bare = httpx.Request(request.method, request.url, headers=request.headers, content=b"")
            bare.headers.pop("content-length", None)
            response = await self._transports[ref].handle_async_request(bare)
            if response.status_code == 200:
                self.uploads.append((str(request.url), body))
                bucket, path = request.url.path.removeprefix("/storage/v1/object/").split("/", 1)
                self.stores[ref].objects[(bucket, path)] = (body, request.headers.get("content-type", ""))
            return response
        return await self._transports[ref].handle_async_request(request)
