"""A request one node passes to the node holding its session keeps who the client is and its id.

The holder sees the client's own address and scheme (signed by the passing node with a key derived
from the vault key, so a client cannot claim them), the request keeps the passing node's request id
(one id in both nodes' logs) and the answer carries that id once. Real parts: the router over a unix
socket to a uvicorn-served holder."""

from __future__ import annotations

import os
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
import uvicorn
from starlette.types import Receive, Scope, Send

from mcpist.cluster import ForwardedClient, Node, SessionRouter, Signer
from mcpist.observe import RequestIdMiddleware

pytestmark = pytest.mark.anyio

KEY = bytes(range(32))
OTHER_KEY = bytes(range(1, 33))


class Registry:
    """What the router asks of the node registry: this node, and where another answers."""

    def __init__(self, node: Node, peers: dict[str, str]) -> None:
        self.node = node
        self.peers = peers

    async def address_of(self, node_id: str) -> str | None:
        return self.peers.get(node_id)


class Holder:
    """The node holding a session: records what reached its app after the trust middleware."""

    def __init__(self) -> None:
        self.seen: list[dict[str, Any]] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        self.seen.append({"client": scope.get("client"), "scheme": scope["scheme"], "headers": dict(scope["headers"])})
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
        await send({"type": "http.response.body", "body": b"held"})


@asynccontextmanager
async def holder_at(path: Path, keys: list[bytes]) -> AsyncIterator[Holder]:
    holder = Holder()
    app = RequestIdMiddleware(ForwardedClient(holder, Signer(lambda: keys)))
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(path))
    sock.listen(16)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    async with anyio.create_task_group() as tg:
        tg.start_soon(server.serve, [sock])
        while not server.started:  # noqa: ASYNC110 - uvicorn offers no event to wait on
            await anyio.sleep(0.02)
        try:
            yield holder
        finally:
            server.should_exit = True
    os.unlink(path)


def passing_node(holder_path: Path, keys: list[bytes]) -> tuple[Any, SessionRouter]:
    """The node that took the client's connection: its app passes every request to the holder."""
    registry = Registry(Node("aaaaaaaaaaaa", "unix:/nowhere"), {"bbbbbbbbbbbb": f"unix:{holder_path}"})
    # the stub stands for NodeRegistry, which needs a database: only `node` and `address_of` are used
    router = SessionRouter(registry, signer=Signer(lambda: keys))  # type: ignore[arg-type]

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await router.forward("bbbbbbbbbbbb", scope, receive, send)

    return RequestIdMiddleware(app), router


async def forwarded(
    tmp_path: Path,
    holder_keys: list[bytes],
    node_keys: list[bytes],
    headers: dict[str, str],
    client: tuple[str, int],
    scheme: str,
) -> tuple[httpx.Response, list[dict[str, Any]]]:
    """A client's request through the passing node (signing with `node_keys`) to the holder (believing
    `holder_keys`): the answer the client got and what reached the holder's app."""
    path = tmp_path / "holder.sock"
    async with holder_at(path, holder_keys) as holder:
        app, router = passing_node(path, node_keys)
        try:
            transport = httpx.ASGITransport(app=app, client=client)
            async with httpx.AsyncClient(transport=transport, base_url=f"{scheme}://mcp.example") as http:
                response = await http.post("/mcp", headers=headers, content=b"{}")
        finally:
            await router.aclose()
    return response, holder.seen


async def test_the_holder_sees_the_clients_address_scheme_and_request_id(tmp_path: Path) -> None:
    headers = {"Mcp-Session-Id": "bbbbbbbbbbbb-x"}
    response, (seen,) = await forwarded(tmp_path, [KEY], [KEY], headers, ("203.0.113.7", 50123), "https")
    assert response.status_code == 200 and response.text == "held"
    assert seen["client"] == ("203.0.113.7", 0)
    assert seen["scheme"] == "https"
    # the signing headers are gone before the app reads the request
    assert b"x-mcpist-client" not in seen["headers"] and b"x-mcpist-proof" not in seen["headers"]
    # one id on both nodes, and once in the answer
    assert response.headers.get_list("x-request-id") == [seen["headers"][b"x-request-id"].decode()]


async def test_a_request_id_the_client_sent_is_the_one_both_nodes_use(tmp_path: Path) -> None:
    headers = {"X-Request-Id": "client-chosen-1"}
    response, (seen,) = await forwarded(tmp_path, [KEY], [KEY], headers, ("198.51.100.2", 1), "http")
    assert seen["headers"][b"x-request-id"] == b"client-chosen-1"
    assert response.headers.get_list("x-request-id") == ["client-chosen-1"]


async def test_a_node_signing_with_another_key_is_not_believed(tmp_path: Path) -> None:
    _, (seen,) = await forwarded(tmp_path, [KEY], [OTHER_KEY], {}, ("203.0.113.7", 50123), "https")
    assert seen["client"] != ("203.0.113.7", 0) and seen["scheme"] == "http"


async def test_a_key_retired_by_a_rotation_is_still_believed(tmp_path: Path) -> None:
    # the holder rotated: KEY is retired
    _, (seen,) = await forwarded(tmp_path, [OTHER_KEY, KEY], [KEY], {}, ("2001:db8::5", 1), "https")
    assert seen["client"] == ("2001:db8::5", 0)


@pytest.mark.parametrize(
    "claimed",
    [
        {"x-mcpist-client": "10.0.0.1 https"},  # no signature
        {"x-mcpist-client": "10.0.0.1 https", "x-mcpist-proof": "0" * 64, "x-mcpist-forwarded": "aaaaaaaaaaaa"},
        {"x-mcpist-client": "not-an-address https", "x-mcpist-proof": "0" * 64},
    ],
)
async def test_a_client_claiming_another_address_changes_nothing(tmp_path: Path, claimed: dict[str, str]) -> None:
    path = tmp_path / "holder.sock"
    async with holder_at(path, [KEY]) as holder:
        transport = httpx.AsyncHTTPTransport(uds=str(path))
        async with httpx.AsyncClient(transport=transport, base_url="http://holder") as http:
            await http.post("/mcp", headers=claimed, content=b"{}")
    (seen,) = holder.seen
    assert seen["client"] != ("10.0.0.1", 0) and seen["scheme"] == "http"
    assert b"x-mcpist-client" not in seen["headers"] and b"x-mcpist-proof" not in seen["headers"]


def test_a_signature_is_bound_to_the_address_scheme_and_node() -> None:
    signer = Signer(lambda: [KEY])
    (_, value), (_, proof) = signer.headers("aaaaaaaaaaaa", {"client": ("203.0.113.7", 1), "scheme": "https"})
    assert signer.verify("aaaaaaaaaaaa", value.decode(), proof.decode())
    assert not signer.verify("aaaaaaaaaaaa", "203.0.113.8 https", proof.decode())
    assert not signer.verify("aaaaaaaaaaaa", "203.0.113.7 http", proof.decode())
    assert not signer.verify("cccccccccccc", value.decode(), proof.decode())
