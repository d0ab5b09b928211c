"""One mapping from upstream HTTP statuses to MCPist errors, so no service module writes its own.

    400, 422, other 4xx   InvalidArgument   "<service>: <vendor message>"
    401                   Unauthenticated   (ServiceClient raises the credential source's `rejected()` instead)
    403                   PermissionDenied, or Unavailable when it is a rate limit
    404, 410              NotFound
    409, 412              Conflict
    429, 5xx, 3xx         Unavailable

`data` always holds `service` and `status`, plus `retry_after_s` and `request_id` when the upstream gave them.
"""

from __future__ import annotations

import json
import math
import re
import time
import urllib.parse
from collections.abc import Iterable
from typing import Any

import httpx

from mcpist.errors import (
    Conflict,
    InvalidArgument,
    MCPistError,
    NotFound,
    PermissionDenied,
    Unauthenticated,
    Unavailable,
)

from ._retry import RETRY_AFTER_EXTENSION, retry_after_s

__all__ = ["raise_for_status", "read_bounded", "redact", "vendor_message"]

MAX_MESSAGE = 300
_MAX_ERROR_BODY = 64 * 1024
_MAX_TEXT_BODY = 2000
_MIN_SECRET = 4
_REDACTED = "[redacted]"
_REQUEST_ID_HEADERS = ("x-github-request-id", "x-request-id", "request-id", "x-ms-request-id")
_RATE_LIMIT = re.compile(r"rate[ _-]?limit", re.IGNORECASE)
_SPACE = re.compile(r"\s+")
_PRIMARY_KEYS = ("message", "msg", "error_description", "detail", "title")


def redact(text: str, secrets: Iterable[str]) -> str:
    """`text` with every secret (and its URL-encoded form) replaced; secrets under 4 characters are ignored."""
    variants: set[str] = set()
    for secret in secrets:
        if len(secret) >= _MIN_SECRET:
            variants.add(secret)
            variants.add(urllib.parse.quote(secret, safe=""))
            variants.add(urllib.parse.quote_plus(secret))
    # longest first, so a secret containing another is removed whole
    for variant in sorted(variants, key=len, reverse=True):
        text = text.replace(variant, _REDACTED)
    return text


def vendor_message(response: httpx.Response, *, secrets: Iterable[str] = ()) -> str | None:
    """The upstream's own explanation from its error body: whitespace collapsed, secrets redacted, ≤ 300 chars.

    Requires a read response (`raise_for_status` reads a streamed one). None when the body says nothing useful.
    """
    try:
        body = response.content
    except httpx.ResponseNotRead:
        return None
    return _message(body, response.headers.get("content-type", ""), secrets)


async def raise_for_status(response: httpx.Response, service: str, *, secrets: Iterable[str] = ()) -> None:
    """Raise the MCPist error for a response that is not 2xx; return for 2xx (1xx is treated as an error).

    Raises:
        InvalidArgument: 400, 422 and other 4xx not listed below.
        Unauthenticated: 401.
        PermissionDenied: 403 that is not a rate limit.
        NotFound: 404, 410.
        Conflict: 409, 412.
        Unavailable: 429, a rate-limit 403, 5xx, and a redirect that was not followed.
    """
    status = response.status_code
    if 200 <= status < 300:
        return
    try:
        body = response.content
    except httpx.ResponseNotRead:
        body = await _read_error_body(response)
    message = _message(body, response.headers.get("content-type", ""), secrets)
    raise _error(response, service, message)


def _error(response: httpx.Response, service: str, message: str | None) -> MCPistError:
    status = response.status_code
    data: dict[str, Any] = {"service": service, "status": status}
    request_id = _request_id(response.headers)
    if request_id:
        data["request_id"] = request_id
    said = f": {message}" if message else ""
    if status in (400, 422):
        return InvalidArgument(f"{service}{said or f' refused the request (HTTP {status})'}", data)
    if status == 401:
        return Unauthenticated(f"{service} did not accept the account's credentials{said}", data)
    if status == 403 and not _is_rate_limit(response, message):
        return PermissionDenied(f"{service} denied access{said}", data)
    if status in (404, 410):
        return NotFound(f"{service}: {message or 'not found'}", data)
    if status in (409, 412):
        return Conflict(f"{service}: {message or 'the resource changed or already exists'}", data)
    if status in (403, 429):
        wait = _retry_after(response)
        if wait is not None:
            data["retry_after_s"] = wait
        when = f"; retry in {wait} s" if wait is not None else ""
        return Unavailable(f"{service} is rate limiting requests{when}{said}", data)
    if 400 <= status < 500:
        return InvalidArgument(f"{service}{said or f' refused the request (HTTP {status})'}", data)
    wait = _retry_after(response)
    if wait is not None:
        data["retry_after_s"] = wait
    if 300 <= status < 400:
        return Unavailable(f"{service} answered with an unexpected redirect (HTTP {status})", data)
    return Unavailable(f"{service} is unavailable (HTTP {status}){said}", data)


def _is_rate_limit(response: httpx.Response, message: str | None) -> bool:
    headers = response.headers
    return (
        headers.get("x-ratelimit-remaining", "").strip() == "0"
        or "retry-after" in headers
        or bool(message and _RATE_LIMIT.search(message))
    )


def _retry_after(response: httpx.Response) -> int | None:
    seconds = response.extensions.get(RETRY_AFTER_EXTENSION)
    if not isinstance(seconds, float | int):
        seconds = retry_after_s(response.headers, response.status_code, time.time())
    return None if seconds is None else math.ceil(seconds)


def _request_id(headers: httpx.Headers) -> str | None:
    for name in _REQUEST_ID_HEADERS:
        value: str | None = headers.get(name)
        if value:
            return value[:128]
    return None


async def read_bounded(response: httpx.Response, max_bytes: int) -> tuple[bytes, bool]:
    """At most `max_bytes` of the body, and whether there was more; a streamed response is closed once cut short.

    Raises:
        httpx.HTTPError: the upstream broke off while a streamed body was read.
    """
    try:
        content = response.content
    except httpx.ResponseNotRead:
        pass
    else:
        return content[:max_bytes], len(content) > max_bytes
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        if size + len(chunk) > max_bytes:
            chunks.append(chunk[: max_bytes - size])
            await response.aclose()
            return b"".join(chunks), True
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks), False


async def _read_error_body(response: httpx.Response) -> bytes:
    try:
        body, _ = await read_bounded(response, _MAX_ERROR_BODY)
    except httpx.HTTPError:
        # the status decides the error; a body cut short only loses the vendor's wording
        body = b""
    finally:
        await response.aclose()
    return body


def _message(body: bytes, content_type: str, secrets: Iterable[str]) -> str | None:
    text = body.decode("utf-8", "replace").strip()
    if not text:
        return None
    try:
        parsed = json.loads(text)
    except ValueError:
        parsed = None
        found = None if _looks_like_markup(text, content_type) or len(text) > _MAX_TEXT_BODY else text
    else:
        found = "; ".join(_dedupe(_from_json(parsed))) or None
    if found is None:
        return None
    found = redact(_SPACE.sub(" ", found).strip(), secrets)
    return found if len(found) <= MAX_MESSAGE else found[: MAX_MESSAGE - 1] + "…"


def _looks_like_markup(text: str, content_type: str) -> bool:
    return "html" in content_type.lower() or "xml" in content_type.lower() or text.startswith("<")


def _from_json(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [part for item in value[:5] for part in _item(item)]
    if not isinstance(value, dict):
        return []
    found = [value[key] for key in _PRIMARY_KEYS if isinstance(value.get(key), str) and value[key].strip()]
    error = value.get("error")
    if isinstance(error, str) and error.strip():
        # an OAuth-style code says less than its description, so it goes last
        found.append(error)
    elif isinstance(error, dict):
        found.extend(_from_json(error))
    messages = value.get("errorMessages")  # Jira
    if isinstance(messages, list):
        found.extend(m for m in messages[:5] if isinstance(m, str))
    errors = value.get("errors")
    if isinstance(errors, list):  # GitHub, Google
        found.extend(part for item in errors[:5] for part in _item(item))
    elif isinstance(errors, dict):  # Jira: field -> message
        found.extend(f"{key}: {msg}" for key, msg in list(errors.items())[:5] if isinstance(msg, str))
    return found


def _item(item: Any) -> list[str]:
    if isinstance(item, str):
        return [item]
    if not isinstance(item, dict):
        return []
    if isinstance(item.get("message"), str):
        return [item["message"]]
    # GitHub validation errors name the field and a code instead of a message
    named = [str(item[key]) for key in ("resource", "field", "code") if isinstance(item.get(key), str)]
    return [" ".join(named)] if named else []


def _dedupe(parts: list[str]) -> list[str]:
    seen: set[str] = set()
    unique: list[str] = []
    for part in parts:
        key = part.strip()
        if key and key not in seen:
            seen.add(key)
            unique.append(key)
    return unique
