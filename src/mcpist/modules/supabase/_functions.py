"""Edge Functions (list, read with their source, deploy, delete) and their secrets (names only)."""

from __future__ import annotations

import email.parser
import email.policy
import json
from secrets import token_hex
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from mcpist.upstream import Cursor, Limit, MaxChars, Page, read_bounded

from ._common import Project, Slug, api, invalid, millis, page_of, seg, target
from ._models import Deleted, EdgeFunction, EdgeFunctionDetail, SecretName, SecretNames, SecretsSet, SourceFile
from ._module import Ctx, module

MAX_SOURCE_BYTES = 2 * 1024 * 1024
FilePath = Annotated[
    str,
    Field(
        min_length=1,
        max_length=300,
        pattern=r"^[A-Za-z0-9_@.+=,~ -]+(/[A-Za-z0-9_@.+=,~ -]+)*$",
        description="a path relative to the function's root, e.g. index.ts or lib/util.ts",
    ),
]


class FunctionFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: FilePath
    content: Annotated[str, Field(max_length=1_000_000)]


def _function(raw: dict[str, Any]) -> dict[str, Any]:
    return {**raw, "created_at": millis(raw.get("created_at")), "updated_at": millis(raw.get("updated_at"))}


@module.tool(read_only=True)
async def list_edge_functions(
    ctx: Ctx, project: Project = None, limit: Limit = 50, cursor: Cursor = None
) -> Page[EdgeFunction]:
    """The project's Edge Functions: slug, status, version, JWT verification, entrypoint, dates."""
    ref = target(ctx, project)
    raw = ctx.http.parse(list[dict[str, Any]], await ctx.http.get_json(api(ref, "/functions")))
    return page_of([ctx.http.parse(EdgeFunction, _function(f)) for f in raw], limit, cursor)


@module.tool(read_only=True)
async def get_edge_function(
    ctx: Ctx,
    slug: Slug,
    project: Project = None,
    include_source: Annotated[bool, Field(description="also return the deployed source files")] = False,
    max_chars: MaxChars = 20_000,
) -> EdgeFunctionDetail:
    """One Edge Function's details and, with include_source, its deployed files (each cut at max_chars)."""
    ref = target(ctx, project)
    path = api(ref, f"/functions/{seg(slug)}")
    detail = ctx.http.parse(
        EdgeFunctionDetail, _function(ctx.http.parse(dict[str, Any], await ctx.http.get_json(path)))
    )
    if not include_source:
        return detail
    async with ctx.http.stream("GET", f"{path}/body", headers={"Accept": "multipart/form-data"}) as response:
        raw, cut = await read_bounded(response, MAX_SOURCE_BYTES)
        kind = response.headers.get("content-type", "")
    if cut:
        detail.source_note = f"the source is larger than {MAX_SOURCE_BYTES} bytes and is not shown"
    elif kind.lower().startswith("multipart/"):
        detail.files = _files(kind, raw, max_chars)
    else:
        detail.source_note = "the function is stored as a bundle (eszip); its source files cannot be shown"
    return detail


def _files(content_type: str, raw: bytes, max_chars: int) -> list[SourceFile]:
    head = f"Content-Type: {content_type}\r\nMIME-Version: 1.0\r\n\r\n".encode()
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + raw)
    files = []
    for part in message.iter_parts():
        name = part.get_filename()
        payload = part.get_payload(decode=True)
        if not name or not isinstance(payload, bytes):
            continue  # the `metadata` part
        text = payload.decode("utf-8", "replace")
        files.append(SourceFile(name=name, content=text[:max_chars], truncated=len(text) > max_chars))
    return files


def _multipart(metadata: dict[str, Any], files: list[FunctionFile]) -> tuple[bytes, str]:
    boundary = token_hex(16)
    chunks = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="metadata"\r\nContent-Type: application/json\r\n\r\n',
        json.dumps(metadata, ensure_ascii=False),
        "\r\n",
    ]
    for file in files:
        name = file.name.replace('"', "")
        chunks += [
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
            "Content-Type: application/typescript\r\n\r\n",
            file.content,
            "\r\n",
        ]
    chunks.append(f"--{boundary}--\r\n")
    return "".join(chunks).encode(), f"multipart/form-data; boundary={boundary}"


@module.tool()
async def deploy_edge_function(
    ctx: Ctx,
    slug: Slug,
    files: Annotated[list[FunctionFile], Field(min_length=1, max_length=50, description="every file of the function")],
    project: Project = None,
    entrypoint_path: Annotated[FilePath, Field(description="the file Deno runs")] = "index.ts",
    import_map_path: Annotated[FilePath | None, Field(description="e.g. deno.json, when one is among files")] = None,
    verify_jwt: Annotated[bool, Field(description="require a valid JWT on each request")] = True,
) -> EdgeFunction:
    """Create or update an Edge Function from its source files; a new version replaces the running one."""
    ref = target(ctx, project)
    names = [f.name for f in files]
    for name in names:
        if any(part in (".", "..") for part in name.split("/")):
            raise invalid(f"files: {name!r} may not contain . or .. segments", field="files")
    if len(set(names)) != len(names):
        raise invalid("files: each name may appear once", field="files")
    if entrypoint_path not in names:
        raise invalid(f"entrypoint_path {entrypoint_path!r} is not among files", field="entrypoint_path")
    if import_map_path is not None and import_map_path not in names:
        raise invalid(f"import_map_path {import_map_path!r} is not among files", field="import_map_path")
    if sum(len(f.content.encode()) for f in files) > MAX_SOURCE_BYTES:
        raise invalid(f"files: at most {MAX_SOURCE_BYTES} bytes in all", field="files")
    metadata: dict[str, Any] = {"name": slug, "entrypoint_path": entrypoint_path, "verify_jwt": verify_jwt}
    if import_map_path is not None:
        metadata["import_map_path"] = import_map_path
    body, content_type = _multipart(metadata, files)
    response = await ctx.http.request(
        "POST",
        api(ref, "/functions/deploy"),
        params={"slug": slug},
        content=body,
        headers={"Content-Type": content_type},
    )
    return ctx.http.parse(EdgeFunction, _function(ctx.http.parse(dict[str, Any], ctx.http.json(response))))


@module.tool(destructive=True, idempotent=True)
async def delete_edge_function(ctx: Ctx, slug: Slug, project: Project = None) -> Deleted:
    """Delete an Edge Function: it stops answering at once."""
    ref = target(ctx, project)
    await ctx.http.request("DELETE", api(ref, f"/functions/{seg(slug)}"))
    return Deleted(project=ref, deleted=slug)


@module.tool(read_only=True)
async def list_secrets(ctx: Ctx, project: Project = None) -> SecretNames:
    """Names of the project's Edge Function secrets (environment variables); values are never shown."""
    ref = target(ctx, project)
    raw = ctx.http.parse(list[dict[str, Any]], await ctx.http.get_json(api(ref, "/secrets")))
    # the upstream sends the values too: only the names leave this function
    names = [
        SecretName(name=str(s["name"]), updated_at=s.get("updated_at")) for s in raw if isinstance(s.get("name"), str)
    ]
    return SecretNames(project=ref, secrets=names)


SecretKey = Annotated[str, Field(min_length=1, max_length=256, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]


@module.tool(idempotent=True)
async def set_secrets(
    ctx: Ctx,
    secrets: Annotated[
        dict[SecretKey, Annotated[str, Field(max_length=24_576)]],
        Field(min_length=1, max_length=100, description="name -> value; names starting SUPABASE_ are reserved"),
    ],
    project: Project = None,
) -> SecretsSet:
    """Create or replace Edge Function secrets; the values are sent to Supabase and never shown again."""
    ref = target(ctx, project)
    reserved = sorted(name for name in secrets if name.upper().startswith("SUPABASE_"))
    if reserved:
        raise invalid(f"secrets: names starting SUPABASE_ are reserved: {', '.join(reserved)}", field="secrets")
    body = [{"name": name, "value": value} for name, value in secrets.items()]
    await ctx.http.request("POST", api(ref, "/secrets"), json=body, retry=True)
    return SecretsSet(project=ref, names=sorted(secrets))
