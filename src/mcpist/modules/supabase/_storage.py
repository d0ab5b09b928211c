"""Storage: buckets and objects. Bucket listing uses the Management API; the rest the project's Storage API
with its service key (see `_service_key`)."""

from __future__ import annotations

import base64
import binascii
from typing import Annotated, Any, Literal

from pydantic import Field

from mcpist.upstream import Cursor, Limit, Page, encode_cursor, read_bounded

from ._common import Project, api, invalid, object_path, offset_of, seg, target
from ._models import Bucket, BucketResult, Buckets, ObjectContent, ObjectsDeleted, ObjectWritten, StorageObject
from ._module import Ctx, module
from ._service_key import storage, storage_root

BucketName = Annotated[
    str, Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$", description="bucket name")
]
ObjectPath = Annotated[
    str,
    Field(min_length=1, max_length=1024, pattern=r"^[^/\x00-\x1f]+(/[^/\x00-\x1f]+)*$", description="e.g. a/b.png"),
]
Prefix = Annotated[str, Field(max_length=1024, pattern=r"^([^/\x00-\x1f]+/)*$", description="a folder, e.g. a/b/")]
TEXT_TYPES = ("text/", "application/json", "application/xml", "application/javascript", "application/typescript")


@module.tool(read_only=True)
async def list_buckets(ctx: Ctx, project: Project = None) -> Buckets:
    """The project's Storage buckets: name, whether public, dates."""
    ref = target(ctx, project)
    found = ctx.http.parse(list[Bucket], await ctx.http.get_json(api(ref, "/storage/buckets")))
    return Buckets(project=ref, buckets=found)


@module.tool(destructive=True)
async def manage_bucket(
    ctx: Ctx,
    action: Annotated[
        Literal["create", "update", "empty", "delete"],
        Field(description="empty deletes every object; delete needs an empty bucket"),
    ],
    bucket: BucketName,
    project: Project = None,
    public: Annotated[bool | None, Field(description="anyone may read its objects by URL")] = None,
    file_size_limit: Annotated[int | None, Field(ge=0, description="bytes per object; 0 for no limit")] = None,
    allowed_mime_types: Annotated[
        list[Annotated[str, Field(min_length=1, max_length=255)]] | None,
        Field(max_length=100, description='e.g. ["image/png", "image/*"]'),
    ] = None,
) -> BucketResult:
    """Create or update a Storage bucket, or empty or delete one (deleting needs it empty first)."""
    ref = target(ctx, project)
    settings: dict[str, Any] = {}
    for name, value in (
        ("public", public),
        ("file_size_limit", file_size_limit),
        ("allowed_mime_types", allowed_mime_types),
    ):
        if value is not None:
            settings[name] = value
    if action in ("empty", "delete") and settings:
        raise invalid(f"{action} takes no bucket settings", field="action")
    if action == "update" and not settings:
        raise invalid("update: give public, file_size_limit or allowed_mime_types", field="action")
    async with storage(ctx, ref) as http:
        if action == "create":
            answer = await http.post_json("/bucket/", {"name": bucket, "id": bucket, **settings})
        elif action == "update":
            answer = await http.put_json(f"/bucket/{seg(bucket)}", settings, retry=True)
        elif action == "empty":
            answer = await http.post_json(f"/bucket/{seg(bucket)}/empty")
        else:
            answer = await http.delete_json(f"/bucket/{seg(bucket)}")
    message = answer.get("message") if isinstance(answer, dict) else None
    return BucketResult(
        project=ref, bucket=bucket, action=action, message=message if isinstance(message, str) else None
    )


def _object(prefix: str, raw: dict[str, Any]) -> StorageObject:
    found = raw.get("metadata")
    meta: dict[str, Any] = found if isinstance(found, dict) else {}
    size = meta.get("size")
    return StorageObject(
        path=f"{prefix}{raw['name']}",
        folder=raw.get("id") is None,
        size=size if isinstance(size, int) else None,
        content_type=meta.get("mimetype") if isinstance(meta.get("mimetype"), str) else None,
        updated_at=raw.get("updated_at") if isinstance(raw.get("updated_at"), str) else None,
    )


@module.tool(read_only=True)
async def list_objects(
    ctx: Ctx,
    bucket: BucketName,
    project: Project = None,
    prefix: Prefix = "",
    search: Annotated[str | None, Field(min_length=1, max_length=200, description="part of a name")] = None,
    limit: Limit = 100,
    cursor: Cursor = None,
) -> Page[StorageObject]:
    """Objects and folders directly under a prefix of a bucket, by name, with size, type and date."""
    ref = target(ctx, project)
    offset = offset_of(cursor)
    body: dict[str, Any] = {
        "prefix": prefix,
        "limit": limit,
        "offset": offset,
        "sortBy": {"column": "name", "order": "asc"},
        **({"search": search} if search else {}),
    }
    async with storage(ctx, ref) as http:
        # listing changes nothing: safe to send again
        raw = http.parse(list[dict[str, Any]], await http.post_json(f"/object/list/{seg(bucket)}", body, retry=True))
    items = [_object(prefix, r) for r in raw if isinstance(r.get("name"), str)]
    return Page(items=items, next_cursor=encode_cursor({"o": offset + limit}) if len(raw) >= limit else None)


@module.tool()
async def upload_object(
    ctx: Ctx,
    bucket: BucketName,
    path: ObjectPath,
    project: Project = None,
    text: Annotated[str | None, Field(description="the content as text (UTF-8)")] = None,
    content_base64: Annotated[str | None, Field(description="the content, base64-encoded (binary files)")] = None,
    content_type: Annotated[
        str, Field(min_length=1, max_length=255, pattern=r"^[\w.+-]+/[\w.+-]+(;.*)?$")
    ] = "text/plain;charset=UTF-8",
    upsert: Annotated[bool, Field(description="replace an object already at path")] = False,
) -> ObjectWritten:
    """Upload one object (text or base64) to a bucket; with upsert it replaces what is at path."""
    ref = target(ctx, project)
    if (text is None) == (content_base64 is None):
        raise invalid("give exactly one of text and content_base64", field="text")
    if text is not None:
        data = text.encode()
    else:
        try:
            data = base64.b64decode(content_base64 or "", validate=True)
        except (binascii.Error, ValueError):
            raise invalid("content_base64 is not valid base64", field="content_base64") from None
    if len(data) > ctx.settings.max_upload_bytes:
        raise invalid(f"the content is {len(data)} bytes; at most {ctx.settings.max_upload_bytes}", field="text")
    headers = {"Content-Type": content_type, "x-upsert": "true" if upsert else "false"}
    async with storage(ctx, ref) as http:
        await http.request("POST", f"/object/{seg(bucket)}/{object_path(path)}", content=data, headers=headers)
    return ObjectWritten(project=ref, bucket=bucket, path=path, size=len(data), content_type=content_type)


@module.tool(read_only=True)
async def download_object(
    ctx: Ctx,
    bucket: BucketName,
    path: ObjectPath,
    project: Project = None,
    mode: Annotated[
        Literal["auto", "text", "base64", "signed_url"],
        Field(description="auto: text when it is text, else base64; signed_url: a link instead of the content"),
    ] = "auto",
    max_bytes: Annotated[int, Field(ge=1, le=64 * 1024 * 1024, description="bytes to return at most")] = 256 * 1024,
    expires_in: Annotated[int, Field(ge=60, le=7 * 86400, description="signed_url: seconds it stays valid")] = 3600,
) -> ObjectContent:
    """Read one object as text or base64 (bounded to max_bytes), or get a signed download URL for it."""
    ref = target(ctx, project)
    where = f"{seg(bucket)}/{object_path(path)}"
    result = ObjectContent(project=ref, bucket=bucket, path=path)
    async with storage(ctx, ref) as http:
        if mode == "signed_url":
            answer = http.parse(
                dict[str, Any], await http.post_json(f"/object/sign/{where}", {"expiresIn": expires_in})
            )
            signed = answer.get("signedURL") or answer.get("signedUrl")
            if not isinstance(signed, str) or not signed.startswith("/"):
                raise invalid("Storage answered without a signed URL")
            result.signed_url = storage_root(ctx, ref) + signed
            result.expires_in = expires_in
            return result
        async with http.stream("GET", f"/object/authenticated/{where}") as response:
            data, cut = await read_bounded(response, min(max_bytes, ctx.settings.max_download_bytes))
            result.content_type = response.headers.get("content-type")
            length = response.headers.get("content-length")
    result.size = int(length) if length and length.isdigit() else (None if cut else len(data))
    result.truncated = cut
    as_text = _text(data, cut) if mode != "base64" else None
    if mode == "text" and as_text is None:
        raise invalid(f"{path} is not UTF-8 text; read it with mode=base64", field="mode")
    if as_text is not None and (mode == "text" or _looks_textual(result.content_type) or _plain(as_text)):
        result.text = as_text
    else:
        result.base64 = base64.b64encode(data).decode("ascii")
    return result


def _text(data: bytes, cut: bool) -> str | None:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        # a cut may fall inside a character: up to 3 bytes at the end are not a reason to call it binary
        if cut and exc.start >= len(data) - 3:
            return data[: exc.start].decode("utf-8")
        return None


def _plain(text: str) -> bool:
    """Text without control characters other than tab and line breaks: worth showing as text whatever its type."""
    return not any(ord(c) < 32 and c not in "\t\n\r" for c in text)


def _looks_textual(content_type: str | None) -> bool:
    kind = (content_type or "").lower()
    return kind.startswith(TEXT_TYPES) or kind.endswith(("+json", "+xml")) or "charset=" in kind


@module.tool(destructive=True, idempotent=True)
async def delete_objects(
    ctx: Ctx,
    bucket: BucketName,
    paths: Annotated[list[ObjectPath], Field(min_length=1, max_length=100, description="object keys to delete")],
    project: Project = None,
) -> ObjectsDeleted:
    """Delete objects from a bucket by path; says which were deleted and which were not found."""
    ref = target(ctx, project)
    for path in paths:
        object_path(path)  # refuses . and .. segments
    wanted = list(dict.fromkeys(paths))
    async with storage(ctx, ref) as http:
        answer = http.parse(
            list[dict[str, Any]], await http.delete_json(f"/object/{seg(bucket)}", {"prefixes": wanted}, retry=True)
        )
    deleted = [str(o["name"]) for o in answer if isinstance(o.get("name"), str)]
    gone = set(deleted)
    return ObjectsDeleted(project=ref, bucket=bucket, deleted=deleted, not_found=[p for p in wanted if p not in gone])
