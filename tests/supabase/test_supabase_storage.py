"""Storage: buckets and objects through the project's Storage API with its service key, never the account's token."""

from __future__ import annotations

import base64

import pytest
from supabase_harness import Harness
from supabase_storage_fake import storage_root
from supabase_world import OTHER_REF, REF, TOKEN

from mcpist.errors import Conflict, InvalidArgument, PermissionDenied
from mcpist.testing import covers

pytestmark = pytest.mark.anyio

KEY = "eyJ.service-role.acme-0001"


def put(supa: Harness, path: str, data: bytes, kind: str = "text/plain", bucket: str = "docs") -> None:
    supa.upstream.stores[REF].objects[(bucket, path)] = (data, kind)


def assert_storage_headers(supa: Harness, key: str = KEY) -> None:
    """Every Storage request carried the service key in both headers and nothing of the account's token."""
    sent = supa.upstream.storage_requests()
    assert sent
    for request in sent:
        assert request.headers["authorization"] == f"Bearer {key}" and request.headers["apikey"] == key
        assert TOKEN not in str(request.headers) and TOKEN not in request.content.decode("utf-8", "replace")
    for fake in [supa.upstream.management]:
        for request in fake.requests:
            assert request.headers["authorization"] == f"Bearer {TOKEN}" and "apikey" not in request.headers


@covers("list_buckets")
async def test_list_buckets_through_the_management_api(supa: Harness) -> None:
    listed = await supa.call("list_buckets", project=REF)
    assert [(b["name"], b["public"]) for b in listed["buckets"]] == [("avatars", True), ("docs", False)]
    assert supa.upstream.storage_requests() == [] and supa.world.api_key_calls == 0, "no service key needed"


@covers("manage_bucket")
async def test_manage_buckets_with_the_service_key_fetched_once(supa: Harness) -> None:
    created = await supa.call("manage_bucket", project=REF, action="create", bucket="media", public=False)
    assert created == {"project": REF, "bucket": "media", "action": "create"}
    assert supa.sent("POST /bucket/")[0].json == {"name": "media", "id": "media", "public": False}
    await supa.call(
        "manage_bucket",
        project=REF,
        action="update",
        bucket="media",
        file_size_limit=1024,
        allowed_mime_types=["image/png"],
    )
    assert supa.sent("PUT /bucket/{bucketId}")[0].json == {"file_size_limit": 1024, "allowed_mime_types": ["image/png"]}
    put(supa, "a.txt", b"a", bucket="media")
    with pytest.raises(Conflict, match="not empty"):
        await supa.call("manage_bucket", project=REF, action="delete", bucket="media")
    emptied = await supa.call("manage_bucket", project=REF, action="empty", bucket="media")
    assert emptied["message"] == "Successfully emptied"
    deleted = await supa.call("manage_bucket", project=REF, action="delete", bucket="media")
    assert deleted["message"] == "Successfully deleted"
    assert supa.world.api_key_calls == 1, "the key is cached for the account and project"
    assert (supa.sent("GET /v1/projects/{ref}/api-keys")[0].params) == {"reveal": "true"}
    assert_storage_headers(supa)

    with pytest.raises(InvalidArgument, match="give public"):
        await supa.call("manage_bucket", project=REF, action="update", bucket="media")
    with pytest.raises(InvalidArgument, match="takes no bucket settings"):
        await supa.call("manage_bucket", project=REF, action="delete", bucket="media", public=True)


@covers("list_objects")
async def test_list_objects_under_a_prefix(supa: Harness) -> None:
    for path in ("a/one.txt", "a/two.txt", "a/sub/three.txt", "b.txt"):
        put(supa, path, b"12345")
    page = await supa.call("list_objects", project=REF, bucket="docs", prefix="a/", limit=2)
    sent = supa.sent("POST /object/list/{bucketName}")[0]
    assert sent.path == "/object/list/docs"
    assert sent.json == {"prefix": "a/", "limit": 2, "offset": 0, "sortBy": {"column": "name", "order": "asc"}}
    assert page["items"] == [
        {
            "path": "a/one.txt",
            "folder": False,
            "size": 5,
            "content_type": "text/plain",
            "updated_at": "2026-03-01T12:00:00.000Z",
        },
        {"path": "a/sub", "folder": True},
    ]
    rest = await supa.call("list_objects", project=REF, bucket="docs", prefix="a/", limit=2, cursor=page["next_cursor"])
    assert supa.sent("POST /object/list/{bucketName}")[1].json["offset"] == 2
    assert [o["path"] for o in rest["items"]] == ["a/two.txt"] and "next_cursor" not in rest
    with pytest.raises(InvalidArgument):
        await supa.call("list_objects", project=REF, bucket="docs", prefix="a")  # a prefix ends with /
    assert_storage_headers(supa)


@covers("upload_object")
async def test_upload_text_and_binary(supa: Harness) -> None:
    written = await supa.call("upload_object", project=REF, bucket="docs", path="notes/日記 1.md", text="# こんにちは")
    assert written == {
        "project": REF,
        "bucket": "docs",
        "path": "notes/日記 1.md",
        "size": 17,
        "content_type": "text/plain;charset=UTF-8",
    }
    url, body = supa.upstream.uploads[0]
    assert url == f"{storage_root(REF)}/object/docs/notes/%E6%97%A5%E8%A8%98%201.md" and body == "# こんにちは".encode()
    (sent,) = supa.sent("POST /object/{bucketName}/{*}")
    assert sent.headers["x-upsert"] == "false" and sent.headers["content-type"] == "text/plain;charset=UTF-8"

    png = b"\x89PNG\r\n\x1a\n\x00\x01"
    await supa.call(
        "upload_object",
        project=REF,
        bucket="docs",
        path="img/a.png",
        content_base64=base64.b64encode(png).decode(),
        content_type="image/png",
    )
    assert supa.upstream.stores[REF].objects[("docs", "img/a.png")] == (png, "image/png")
    with pytest.raises(InvalidArgument, match="already exists"):
        await supa.call("upload_object", project=REF, bucket="docs", path="img/a.png", text="again")
    await supa.call("upload_object", project=REF, bucket="docs", path="img/a.png", text="again", upsert=True)
    assert supa.sent("POST /object/{bucketName}/{*}")[-1].headers["x-upsert"] == "true"
    assert_storage_headers(supa)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"text": "a", "content_base64": "YQ=="}, "exactly one of text and content_base64"),
        ({}, "exactly one of text and content_base64"),
        ({"content_base64": "not base64!"}, "not valid base64"),
        ({"text": "x" * 2000}, "at most 1024"),
        ({"text": "a", "path": "a/../b.txt"}, "cannot be part of a URL path"),
        ({"text": "a", "path": "/abs.txt"}, "path"),
    ],
)
@covers("upload_object")
async def test_upload_refuses_what_does_not_fit(supa: Harness, params: dict[str, str], message: str) -> None:
    supa.settings = {"max_upload_bytes": 1024}
    with pytest.raises(InvalidArgument, match=message):
        await supa.call("upload_object", project=REF, bucket="docs", **{"path": "x.txt", **params})
    assert supa.upstream.storage_requests() == [] and supa.upstream.uploads == []


@covers("download_object")
async def test_download_as_text_base64_or_a_signed_url(supa: Harness) -> None:
    put(supa, "readme.md", "# 見出し\n".encode(), "text/markdown")
    text = await supa.call("download_object", project=REF, bucket="docs", path="readme.md")
    assert text == {
        "project": REF,
        "bucket": "docs",
        "path": "readme.md",
        "content_type": "text/markdown",
        "size": 12,
        "text": "# 見出し\n",
        "truncated": False,
    }
    assert supa.sent("GET /object/authenticated/{bucketName}/{*}")[0].path == "/object/authenticated/docs/readme.md"

    blob = bytes(range(256)) * 8
    put(supa, "b.bin", blob, "application/octet-stream")
    binary = await supa.call("download_object", project=REF, bucket="docs", path="b.bin", max_bytes=100)
    assert base64.b64decode(binary["base64"]) == blob[:100] and binary["truncated"] is True
    assert binary["size"] == 2048 and "text" not in binary
    with pytest.raises(InvalidArgument, match="not UTF-8 text; read it with mode=base64"):
        await supa.call("download_object", project=REF, bucket="docs", path="b.bin", mode="text")

    put(supa, "long.txt", "あ".encode() * 100, "text/plain")
    cut = await supa.call("download_object", project=REF, bucket="docs", path="long.txt", max_bytes=8)
    assert cut["text"] == "ああ" and cut["truncated"] is True, "a cut inside a character stays text"
    put(supa, "data.csv", b"a,b\n1,2\n", "application/octet-stream")
    csv = await supa.call("download_object", project=REF, bucket="docs", path="data.csv")
    assert csv["text"] == "a,b\n1,2\n" and "base64" not in csv, "plain UTF-8 reads as text whatever its type"
    as_base64 = await supa.call("download_object", project=REF, bucket="docs", path="readme.md", mode="base64")
    assert base64.b64decode(as_base64["base64"]) == "# 見出し\n".encode()

    supa.settings = {"max_download_bytes": 1024}
    capped = await supa.call("download_object", project=REF, bucket="docs", path="b.bin", max_bytes=4096)
    assert len(base64.b64decode(capped["base64"])) == 1024, "the server's cap wins"

    signed = await supa.call(
        "download_object", project=REF, bucket="docs", path="b.bin", mode="signed_url", expires_in=600
    )
    assert signed["signed_url"] == f"{storage_root(REF)}/object/sign/docs/b.bin?token=signed.600"
    assert signed["expires_in"] == 600 and "base64" not in signed
    assert supa.sent("POST /object/sign/{bucketName}/{*}")[0].json == {"expiresIn": 600}
    assert_storage_headers(supa)


@covers("delete_objects")
async def test_delete_objects_says_what_was_not_found(supa: Harness) -> None:
    put(supa, "a.txt", b"a")
    put(supa, "b/c.txt", b"c")
    done = await supa.call(
        "delete_objects", project=REF, bucket="docs", paths=["a.txt", "b/c.txt", "gone.txt", "a.txt"]
    )
    assert done == {"project": REF, "bucket": "docs", "deleted": ["a.txt", "b/c.txt"], "not_found": ["gone.txt"]}
    assert supa.sent("DELETE /object/{bucketName}")[0].json == {"prefixes": ["a.txt", "b/c.txt", "gone.txt"]}
    assert supa.upstream.stores[REF].objects == {}
    assert_storage_headers(supa)


async def test_each_project_gets_its_own_key_at_its_own_host(supa: Harness) -> None:
    supa.upstream.stores[OTHER_REF].objects[("docs", "x.txt")] = (b"other", "text/plain")
    put(supa, "x.txt", b"mine")
    mine = await supa.call("download_object", project=REF, bucket="docs", path="x.txt")
    other = await supa.call("download_object", project=OTHER_REF, bucket="docs", path="x.txt")
    assert (mine["text"], other["text"]) == ("mine", "other")
    assert supa.world.api_key_calls == 2
    other_sent = supa.upstream.storage[OTHER_REF].requests
    assert [r.headers["apikey"] for r in other_sent] == ["eyJ.other.0002"]


async def test_a_rotated_key_is_fetched_again(supa: Harness) -> None:
    store = supa.upstream.stores[REF]
    put(supa, "x.txt", b"x")
    await supa.call("download_object", project=REF, bucket="docs", path="x.txt")
    # rotated: Storage answers 401 to the cached key, which is fetched again within the same call
    store.deny_status = 401
    supa.world.tenants[0].service_keys[REF] = store.service_key = "eyJ.service-role.acme-0002"
    again = await supa.call("download_object", project=REF, bucket="docs", path="x.txt")
    assert again["text"] == "x" and supa.world.api_key_calls == 2
    # rotated again, refused with 403: this call fails, the next one fetches the new key
    store.deny_status = 403
    supa.world.tenants[0].service_keys[REF] = store.service_key = "eyJ.service-role.acme-0003"
    with pytest.raises(PermissionDenied, match="supabase storage denied access"):
        await supa.call("download_object", project=REF, bucket="docs", path="x.txt")
    assert (await supa.call("download_object", project=REF, bucket="docs", path="x.txt"))["text"] == "x"
    assert supa.world.api_key_calls == 3


async def test_the_key_expires_after_its_ttl(supa: Harness) -> None:
    put(supa, "x.txt", b"x")
    supa.settings = {"service_key_ttl_s": 0}
    for _ in range(2):
        await supa.call("download_object", project=REF, bucket="docs", path="x.txt")
    assert supa.world.api_key_calls == 2 and len(supa.cache) == 0
    now = [1000.0]
    supa.cache = type(supa.cache)(clock=lambda: now[0])
    supa.settings = {"service_key_ttl_s": 60}
    await supa.call("download_object", project=REF, bucket="docs", path="x.txt")
    now[0] += 59
    await supa.call("download_object", project=REF, bucket="docs", path="x.txt")
    assert supa.world.api_key_calls == 3
    now[0] += 1
    await supa.call("download_object", project=REF, bucket="docs", path="x.txt")
    assert supa.world.api_key_calls == 4


async def test_a_configured_storage_root_is_used_for_every_project(supa: Harness) -> None:
    put(supa, "x.txt", b"x")
    supa.settings = {"storage_base_url": storage_root(REF)}
    got = await supa.call("download_object", project=REF, bucket="docs", path="x.txt")
    assert got["text"] == "x" and supa.upstream.hosts[-1] == f"{REF}.supabase.co"
