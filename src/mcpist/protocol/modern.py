"""A 2026-07-28 request whose answer is one JSON body, served without the SDK's second pass over it.

The SDK's entry for this revision (`handle_modern_request`) buffers the body again behind its size
limit, parses it again, wraps the request in a fresh transport guard, and writes the answer through a
pydantic envelope, `json.dumps` and a Starlette `Response`. MCPist has by then read and decoded the
body once already (`replies`, to choose JSON or SSE), so for a request answered as one JSON body the
same ladder runs here on that decoding, with the headers decoded once into one lookup: the SDK's own
Host/Origin/Content-Type guard and Accept check, its routing-header and envelope classification
(`find_duplicated_routing_header`, `classify_inbound_request`), and then `serve_one`, the
SDK's single-exchange driver, on a per-request `Connection` built from the envelope, exactly as the
SDK's entry does. Errors map through the SDK's `modern_error_data` and its HTTP status table.

Anything this path does not take on is left, with nothing sent, to the SDK: a notification, a batch or
malformed envelope, a request a guard or the classifier refuses (the SDK words those refusals), a
request carrying `Mcp-Param-*` headers, `subscriptions/listen`, and a task-augmented request.
`tests/test_modern_replies.py` holds the answers of both paths side by side.
"""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass
from typing import Any, cast

import anyio
import pydantic_core
from mcp.server import Server
from mcp.server.connection import Connection
from mcp.server.runner import ServerRunner, aclose_shielded, modern_error_data
from mcp.server.streamable_http import check_accept_headers
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from mcp.shared.dispatcher import CallOptions
from mcp.shared.exceptions import NoBackChannelError
from mcp.shared.inbound import (
    ERROR_CODE_HTTP_STATUS,
    MCP_PARAM_HEADER_PREFIX,
    InboundLadderRejection,
    classify_inbound_request,
    find_duplicated_routing_header,
)
from mcp.shared.message import MessageMetadata, ServerMessageMetadata
from mcp.shared.transport_context import TransportContext
from mcp_types import JSONRPCRequest, ProgressToken, RequestId
from pydantic import ValidationError
from starlette.requests import Request
from starlette.types import Receive, Scope, Send

__all__ = ["ModernReplies"]

logger = logging.getLogger("mcpist.protocol")

_MCP_PARAM_PREFIX = MCP_PARAM_HEADER_PREFIX.lower()


@dataclass
class _HeaderView:
    """What the SDK's request guards (`validate_request`, `check_accept_headers`) read of a request."""

    headers: dict[str, str]


@dataclass
class _OneExchange:
    """The `DispatchContext` of one 2026-07-28 request answered as one JSON body: the server can ask
    the client nothing on this revision, and no notification can travel before the answer."""

    transport: TransportContext
    request_id: RequestId
    message_metadata: MessageMetadata
    progress_token: ProgressToken | None = None
    can_send_request: bool = False

    @functools.cached_property
    def cancel_requested(self) -> anyio.Event:
        """Never set on this path (nothing can cancel a request answered as one body); made when read."""
        return anyio.Event()

    async def send_raw_request(
        self, method: str, params: Any = None, opts: CallOptions | None = None
    ) -> dict[str, Any]:
        raise NoBackChannelError(method)

    async def notify(self, method: str, params: Any = None, opts: CallOptions | None = None) -> None:
        logger.debug("dropped %s: the request is answered as one JSON body", method)

    async def progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        return None


def _servable(message: Any) -> bool:
    """One request (not a notification, response or batch) this path serves: not a listen, not a task."""
    if not isinstance(message, dict) or "id" not in message:
        return False
    method, params = message.get("method"), message.get("params")
    if not isinstance(method, str) or method == "subscriptions/listen":
        return False
    return not (isinstance(params, dict) and "task" in params)


async def _serve_one(runner: ServerRunner[Any], exchange: _OneExchange, method: str, params: Any) -> dict[str, Any]:
    """The SDK's `serve_one`, whose shielded, time-bounded unwind of the connection's exit stack (a
    cancel scope of its own, ~5% of a trivial call) runs only when something was entered on the stack."""
    try:
        return await runner.on_request(exchange, method, params)
    finally:
        # `_exit_callbacks` is contextlib's own record; where it is missing, unwind as the SDK does
        if getattr(runner.connection.exit_stack, "_exit_callbacks", True):
            await aclose_shielded(runner.connection)


class ModernReplies:
    """Serves 2026-07-28 requests answered as one JSON body in the task of their HTTP request."""

    def __init__(self, server: Server[Any], security: TransportSecuritySettings | None) -> None:
        self._server = server
        self._security = TransportSecurityMiddleware(security)

    async def answer(self, message: Any, lifespan_state: Any, scope: Scope, receive: Receive, send: Send) -> bool:
        """Answer `message` (the decoded body); False, having sent nothing, when the SDK must."""
        if not _servable(message):
            return False
        pairs = [(name.decode("latin-1"), value.decode("latin-1")) for name, value in scope["headers"]]
        if any(name.startswith(_MCP_PARAM_PREFIX) for name, _ in pairs):
            return False
        # each name's first value, as Starlette's `Headers` reads it, looked up without a scan each time
        view = _HeaderView(dict(reversed(pairs)))
        if await self._security.validate_request(cast("Request", view), is_post=True) is not None:
            return False
        if not check_accept_headers(cast("Request", view))[0]:
            return False
        if find_duplicated_routing_header(pairs) is not None:
            return False
        verdict = classify_inbound_request(message, headers=view.headers)
        if isinstance(verdict, InboundLadderRejection):
            return False
        try:
            envelope = JSONRPCRequest.model_validate(message)
        except ValidationError:
            return False
        connection = Connection.from_envelope(
            verdict.protocol_version, verdict.client_info, verdict.client_capabilities
        )
        request = Request(scope, receive)
        exchange = _OneExchange(
            transport=TransportContext(kind="streamable-http", can_send_request=False, headers=request.headers),
            request_id=envelope.id,
            message_metadata=ServerMessageMetadata(request_context=request),
        )
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": envelope.id}
        status = 200
        try:
            reply["result"] = await _serve_one(
                ServerRunner(self._server, connection, lifespan_state), exchange, envelope.method, envelope.params
            )
        except Exception as exc:
            error = modern_error_data(exc)
            status = ERROR_CODE_HTTP_STATUS.get(error.code, 200)
            reply["error"] = error.model_dump(mode="json", by_alias=True, exclude_none=True)
        body = pydantic_core.to_json(reply)
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
            }
        )
        await send({"type": "http.response.body", "body": body})
        return True
