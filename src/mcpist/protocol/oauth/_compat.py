"""Work-arounds for the MCP SDK's auth handlers; each names the behaviour it corrects."""

from __future__ import annotations

from urllib.parse import parse_qs

from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

_MAX_FORM_BYTES = 64 * 1024


class OptionalClientSecret:
    """Lets public clients revoke: the SDK's `RevocationRequest` requires a `client_secret` field
    (RFC 7009 has none for a client without a secret), so supply an empty one when it is absent.

    A class, not a function: Starlette would take a function endpoint for a request handler.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        app = self.app
        if scope["type"] != "http" or scope["method"] != "POST":
            await app(scope, receive, send)
            return
        body = b""
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return
            body += message.get("body", b"")
            if len(body) > _MAX_FORM_BYTES:
                await PlainTextResponse("request body too large", status_code=413)(scope, receive, send)
                return
            if not message.get("more_body", False):
                break
        content_type = Headers(scope=scope).get("content-type", "")
        if content_type.startswith("application/x-www-form-urlencoded"):
            fields = parse_qs(body.decode("latin-1"), keep_blank_values=True)
            if "client_secret" not in fields:
                body += b"&client_secret=" if body else b"client_secret="
                headers = [(k, v) for k, v in scope["headers"] if k.lower() != b"content-length"]
                scope = {**scope, "headers": [*headers, (b"content-length", str(len(body)).encode())]}
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await app(scope, replay, send)
