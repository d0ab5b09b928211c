"""A 2025-11-25 session's quiet requests, answered in the task serving their HTTP request.

The SDK serves each session from tasks of its own: the transport parses a request's body again and
hands the message over a memory stream to the session's dispatcher, which starts a task for the
handler and sends the answer back over two more streams to the waiting HTTP request. When the
answer is one JSON body (`replies.choose_json`), nothing else can travel during the request, so
none of that is needed: the request runs here, through the session's own handler chain (a
`ServerRunner` on the session's `Connection`, so the negotiated version, the client's capabilities
and the server's middleware all apply as before), and only its answer is written.

What the transport would have done still happens: the session's idle countdown stops while the
request runs, a `notifications/cancelled` for it cancels it (answered `Request cancelled`, as the
SDK answers on this revision), and a session that is closed or not yet initialised, a header the
transport would refuse, a batch, a malformed envelope or a task-augmented request go the SDK's way.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

import anyio
import pydantic_core
from mcp.server import Server
from mcp.server.connection import Connection
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.runner import ServerRunner
from mcp.server.streamable_http import MCP_SESSION_ID_HEADER, REQUEST_CANCELLED, check_accept_headers
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from mcp.shared.dispatcher import CallOptions, coerce_request_id
from mcp.shared.exceptions import NoBackChannelError
from mcp.shared.jsonrpc_dispatcher import handler_exception_to_error_data
from mcp.shared.message import MessageMetadata, ServerMessageMetadata
from mcp.shared.transport_context import TransportContext
from mcp_types import INTERNAL_ERROR, ErrorData, JSONRPCRequest, RequestId
from pydantic import ValidationError
from starlette.requests import Request
from starlette.types import Receive, Scope, Send

__all__ = ["DirectReplies"]

logger = logging.getLogger("mcpist.protocol")


@dataclass
class _QuietExchange:
    """The `DispatchContext` of a request whose answer is one JSON body: nothing else reaches the
    client during it (the SDK's transport drops request-scoped notifications in this mode too)."""

    transport: TransportContext
    request_id: RequestId
    message_metadata: MessageMetadata
    cancel_requested: anyio.Event = field(default_factory=anyio.Event)
    scope: anyio.CancelScope = field(default_factory=anyio.CancelScope)
    can_send_request: bool = False

    def cancel(self) -> None:
        self.cancel_requested.set()
        self.scope.cancel()

    async def send_raw_request(
        self, method: str, params: Mapping[str, Any] | None, opts: CallOptions | None = None
    ) -> dict[str, Any]:
        raise NoBackChannelError(method)

    async def notify(self, method: str, params: Mapping[str, Any] | None, opts: CallOptions | None = None) -> None:
        logger.debug("dropped %s: the request is answered as one JSON body", method)

    async def progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        return None


def _plain_request(message: Any) -> bool:
    """A single request (not a batch, notification or response) that is neither `initialize` nor a task."""
    if not isinstance(message, dict) or "id" not in message or not isinstance(message.get("method"), str):
        return False
    params = message.get("params")
    return message["method"] != "initialize" and not (isinstance(params, dict) and "task" in params)


class DirectReplies:
    """The handler chain of each open session, to run its quiet requests without its tasks."""

    def __init__(
        self, server: Server[Any], security: TransportSecuritySettings | None, is_open: Callable[[str], bool]
    ) -> None:
        self._server = server
        self._security = TransportSecurityMiddleware(security)
        self._is_open = is_open
        self._runners: dict[str, ServerRunner[Any]] = {}
        self._running: dict[str, dict[RequestId, _QuietExchange]] = {}
        """Session id -> the requests answered here right now, by (coerced) JSON-RPC id."""
        server.middleware.append(self._learn)

    async def _learn(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        """Server middleware: the first message a session's own loop serves tells its connection."""
        connection = getattr(ctx.session, "_connection", None)
        if not isinstance(connection, Connection):
            return await call_next(ctx)
        session_id = connection.session_id
        if session_id is not None and session_id not in self._runners and self._is_open(session_id):
            self._runners[session_id] = ServerRunner(self._server, connection, ctx.lifespan_context)
        return await call_next(ctx)

    def forget(self, session_id: str) -> None:
        self._runners.pop(session_id, None)
        for exchange in self._running.pop(session_id, {}).values():
            exchange.cancel()

    def cancelled(self, session_id: str, message: Any) -> None:
        """A `notifications/cancelled` of the session: cancel the request it names, when it runs here."""
        if not isinstance(message, dict) or message.get("method") != "notifications/cancelled":
            return
        params = message.get("params")
        request_id = params.get("requestId") if isinstance(params, dict) else None
        if isinstance(request_id, str | int) and not isinstance(request_id, bool):
            exchange = self._running.get(session_id, {}).get(coerce_request_id(request_id))
            if exchange is not None:
                exchange.cancel()

    async def answer(
        self,
        session_id: str,
        message: Any,
        hold: Callable[[], AbstractContextManager[bool]],
        scope: Scope,
        receive: Receive,
        send: Send,
    ) -> bool:
        """Answer `message` (the decoded body) here; False, having sent nothing, when the SDK must.
        `hold` is the session transport's in-flight guard (`ReplyingTransport.in_flight`)."""
        runner = self._runners.get(session_id)
        if runner is None or not _plain_request(message):
            return False
        request = Request(scope, receive)
        if await self._security.validate_request(request, is_post=True) is not None:
            return False
        if not check_accept_headers(request)[0]:
            return False
        try:
            envelope = JSONRPCRequest.model_validate(message)
        except ValidationError:
            return False
        with hold() as held:
            if not held:
                return False
            body = await self._run(session_id, runner, envelope, request)
        headers = [(b"content-type", b"application/json"), (MCP_SESSION_ID_HEADER.encode(), session_id.encode())]
        headers.append((b"content-length", str(len(body)).encode()))
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})
        return True

    async def _run(
        self, session_id: str, runner: ServerRunner[Any], envelope: JSONRPCRequest, request: Request
    ) -> bytes:
        exchange = _QuietExchange(
            transport=TransportContext(kind="jsonrpc", can_send_request=False),
            request_id=envelope.id,
            message_metadata=ServerMessageMetadata(request_context=request, can_send_request=False),
        )
        key = coerce_request_id(envelope.id)
        running = self._running.setdefault(session_id, {})
        running[key] = exchange
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": envelope.id}
        try:
            with exchange.scope:
                try:
                    reply["result"] = await runner.on_request(exchange, envelope.method, envelope.params)
                except Exception as exc:
                    error = handler_exception_to_error_data(exc)
                    if error is None:
                        logger.exception("handler for %r raised", envelope.method)
                        error = ErrorData(code=INTERNAL_ERROR, message="Internal server error")
                    reply["error"] = error.model_dump(mode="json", by_alias=True, exclude_none=True)
        finally:
            if running.get(key) is exchange:
                del running[key]
            if not running:
                self._running.pop(session_id, None)
        if exchange.cancel_requested.is_set():
            reply.pop("result", None)
            reply["error"] = {"code": REQUEST_CANCELLED, "message": "Request cancelled"}
        return pydantic_core.to_json(reply)
