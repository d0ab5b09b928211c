"""A request for a session another process holds goes to that process, and its answer comes back.

A 2025-11-25 session lives in one process (its streams, its pending server-to-client requests), so
every request of the session must reach that process, whichever worker or replica the load
balancer picked. Session ids start with the holding node's id; a request for another node's session
is passed to it over its address (a unix socket on this machine, else HTTP) unchanged (the bearer
token, `Host` and the body as they came), the answer streamed back as it is produced (SSE
included). The holder authenticates the request again; a node that is gone answers as an expired
session does (404), so the client opens a new one. The request keeps its id (`X-Request-Id`: one id in
both nodes' logs, one header in the answer) and, signed (`_trust`), the client's address and scheme.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

import anyio
import httpx
from starlette.types import Receive, Scope, Send

from mcpist.observe import current_request_id

from ._registry import NodeRegistry

if TYPE_CHECKING:
    from ._trust import Signer

logger = logging.getLogger("mcpist.cluster")

__all__ = ["FORWARDED_HEADER", "SessionRouter", "node_of"]

FORWARDED_HEADER = b"x-mcpist-forwarded"
_REQUEST_ID = b"x-request-id"
_HOP_BY_HOP = frozenset(
    {b"connection", b"keep-alive", b"transfer-encoding", b"te", b"trailer", b"upgrade", b"proxy-connection"}
)
_NOT_FORWARDED = _HOP_BY_HOP | {b"content-length", _REQUEST_ID}  # the holder gets this node's request id
_NOT_RETURNED = _HOP_BY_HOP | {_REQUEST_ID}  # this node's own middleware adds the request id (the same one)
_NOT_FOUND = json.dumps(
    {"jsonrpc": "2.0", "id": "server-error", "error": {"code": -32600, "message": "Session not found"}}
)


def node_of(session_id: str) -> str | None:
    """The node id a session id starts with (`<node>-<random>`), if it has one."""
    node, sep, rest = session_id.partition("-")
    if not sep or not rest or len(node) != 12 or not all(c in "0123456789abcdef" for c in node):
        return None
    return node


class SessionRouter:
    def __init__(self, registry: NodeRegistry, connect_timeout_s: float = 5.0, signer: Signer | None = None) -> None:
        self.registry = registry
        self.signer = signer
        self.connect_timeout_s = connect_timeout_s
        self._clients: dict[str, httpx.AsyncClient] = {}

    def elsewhere(self, session_id: str) -> str | None:
        """The node holding `session_id` when that is another node."""
        node = node_of(session_id)
        return node if node is not None and node != self.registry.node.id else None

    async def forward(self, node: str, scope: Scope, receive: Receive, send: Send) -> None:
        headers = dict(scope["headers"])
        address = None if FORWARDED_HEADER in headers else await self.registry.address_of(node)
        if address is None:  # gone, never existed, or already passed on once: an expired session
            await _not_found(send)
            return
        client = self.client_for(address)
        own = self.registry.node.id
        forwarded = [(k, v) for k, v in scope["headers"] if k not in _NOT_FORWARDED]
        forwarded.append((FORWARDED_HEADER, own.encode()))
        request_id = current_request_id()
        if request_id is not None:
            forwarded.append((_REQUEST_ID, request_id.encode()))
        if self.signer is not None:
            forwarded += self.signer.headers(own, scope)
        body = [chunk async for chunk in _body(receive)]
        query = scope.get("query_string", b"").decode("latin-1")
        url = f"{client.base_url}{scope['path']}" + (f"?{query}" if query else "")
        request = client.build_request(scope["method"], url, headers=forwarded, content=b"".join(body))
        try:
            response = await client.send(request, stream=True)
        except httpx.TransportError:
            logger.info("node %s holding a session did not answer; the client gets 404 and reopens", node)
            await _not_found(send)
            return
        try:
            await send(
                {
                    "type": "http.response.start",
                    "status": response.status_code,
                    "headers": [(k, v) for k, v in response.headers.raw if k.lower() not in _NOT_RETURNED],
                }
            )
            async with anyio.create_task_group() as tg:

                async def until_disconnect() -> None:
                    while (await receive())["type"] != "http.disconnect":
                        pass
                    tg.cancel_scope.cancel()  # the client left: stop reading the holder's stream

                tg.start_soon(until_disconnect)
                async for chunk in response.aiter_raw():
                    await send({"type": "http.response.body", "body": chunk, "more_body": True})
                await send({"type": "http.response.body", "body": b"", "more_body": False})
                tg.cancel_scope.cancel()
        except httpx.TransportError:
            logger.info("node %s closed a forwarded answer early", node)
        finally:
            with anyio.CancelScope(shield=True):
                await response.aclose()

    def client_for(self, address: str) -> httpx.AsyncClient:
        """A pooled client for the node at `address` (kept until `aclose`)."""
        client = self._clients.get(address)
        if client is None:
            timeout = httpx.Timeout(connect=self.connect_timeout_s, read=None, write=30.0, pool=self.connect_timeout_s)
            if address.startswith("unix:"):
                transport = httpx.AsyncHTTPTransport(uds=address.removeprefix("unix:"))
                client = httpx.AsyncClient(transport=transport, base_url="http://node", timeout=timeout)
            else:
                client = httpx.AsyncClient(base_url=address, timeout=timeout)
            self._clients[address] = client
        return client

    async def aclose(self) -> None:
        for client in self._clients.values():
            await client.aclose()
        self._clients.clear()


async def _body(receive: Receive) -> AsyncIterator[bytes]:
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return
        yield message.get("body", b"")
        if not message.get("more_body", False):
            return


async def _not_found(send: Send) -> None:
    body = _NOT_FOUND.encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 404, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})
