"""One id per HTTP request: taken from `X-Request-Id` when it is a short token, else made here;
returned in the response's `X-Request-Id`, put on every log record, and carried by Internal errors.

A context variable carries it: the MCP SDK hands each message's handler the context of the HTTP
request that delivered it, so a tool call sees the id of its request.
"""

from __future__ import annotations

import random
import re
from contextvars import ContextVar

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from . import _tracing

__all__ = ["HEADER", "RequestIdMiddleware", "accept_request_id", "current_request_id", "new_request_id"]

HEADER = "x-request-id"
_HEADER_BYTES = HEADER.encode()
# what a proxy or client typically sends (a UUID, a hex or base64url token); anything else could smuggle
# text into log lines, so it is replaced
_VALID = re.compile(r"[A-Za-z0-9._-]{1,64}")

_current: ContextVar[str | None] = ContextVar("mcpist_request_id", default=None)


def current_request_id() -> str | None:
    """The id of the HTTP request being handled, if any."""
    return _current.get()


def new_request_id() -> str:
    # it names a request in logs and errors, it grants nothing (a client may choose its own), so the
    # process's PRNG does: os.urandom per request was ~1% of a trivial call
    return f"{_ids.getrandbits(64):016x}"


_ids = random.Random()  # noqa: S311 (not a secret: see new_request_id)


def accept_request_id(value: str | None) -> str:
    """`value` when it is 1-64 letters, digits, `.`, `_` or `-`; else a new id."""
    if value is not None and _VALID.fullmatch(value):
        return value
    return new_request_id()


class RequestIdMiddleware:
    """Pure ASGI (no response buffering, so streams pass through): sets the request id for the request,
    returns it in the response, and opens the request's trace span when tracing is on."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        sent = None
        for name, value in scope["headers"]:
            if name == _HEADER_BYTES:
                sent = value.decode("latin-1")
                break
        request_id = accept_request_id(sent)
        header = (_HEADER_BYTES, request_id.encode())
        status: list[int] = []

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                status.append(message["status"])
                message = {**message, "headers": [*message.get("headers", ()), header]}
            await send(message)

        token = _current.set(request_id)
        try:
            if _tracing.active():
                with _tracing.request_span(scope, request_id, status):
                    await self.app(scope, receive, send_with_id)
            else:
                await self.app(scope, receive, send_with_id)
        finally:
            _current.reset(token)
