"""Small events for every process of this MCPist: PostgreSQL LISTEN/NOTIFY, or datagrams between
the workers of one machine on SQLite.

An event is a kind and a short text (an elicitation id, say), never a secret: a process that
finished something another process's client waits for (the user completed an account connection
in the browser, which any worker may have served) tells them all, and the one holding the waiting
session acts on it. Delivery is best effort, as a notification is: a lost one costs a client its
"done" signal, not the account it connected.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol

import anyio
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from ._registry import NodeRegistry

logger = logging.getLogger("mcpist.cluster")

__all__ = ["Bus", "DatagramBus", "Handler", "PostgresBus", "bus_path"]

CHANNEL = "mcpist_cluster"
_MAX_EVENT_BYTES = 4_000  # NOTIFY allows 8000; a datagram on a unix socket far more
Handler = Callable[[str], Awaitable[None]]


class Bus(Protocol):
    def subscribe(self, kind: str, handler: Handler) -> None: ...

    async def publish(self, kind: str, data: str) -> None: ...

    async def run(self) -> None:
        """Receive events until cancelled."""
        ...


class _Dispatch:
    def __init__(self, node_id: str) -> None:
        self.node_id = node_id
        self._handlers: dict[str, list[Handler]] = {}

    def subscribe(self, kind: str, handler: Handler) -> None:
        self._handlers.setdefault(kind, []).append(handler)

    def encode(self, kind: str, data: str) -> str:
        payload = json.dumps({"k": kind, "d": data, "n": self.node_id})
        if len(payload.encode()) > _MAX_EVENT_BYTES:
            raise ValueError(f"cluster event {kind!r} is too long ({len(payload)} bytes)")
        return payload

    async def deliver(self, raw: str | bytes) -> None:
        try:
            event: Any = json.loads(raw)
            kind, data, sender = event["k"], event["d"], event["n"]
        except (ValueError, KeyError, TypeError):
            logger.warning("dropped a malformed cluster event")
            return
        if sender == self.node_id or not isinstance(data, str):
            return  # the publisher acted on its own event already
        for handler in self._handlers.get(kind, ()):
            try:
                await handler(data)
            except Exception:
                logger.exception("handling cluster event %r failed", kind)


class PostgresBus(_Dispatch):
    """LISTEN on one dedicated connection (re-opened when it drops); NOTIFY through the engine."""

    def __init__(self, engine: AsyncEngine, node_id: str, retry_s: float = 2.0) -> None:
        super().__init__(node_id)
        self.engine = engine
        self.retry_s = retry_s

    async def publish(self, kind: str, data: str) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(sa.select(sa.func.pg_notify(CHANNEL, self.encode(kind, data))))

    async def run(self) -> None:
        dsn = self.engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
        while True:
            if not await self._listen(dsn):
                logger.warning("cluster events: cannot reach PostgreSQL; retrying in %g s", self.retry_s)
                await anyio.sleep(self.retry_s)

    async def _listen(self, dsn: str) -> bool:
        """Deliver events until the connection drops (True), or False when it cannot be opened."""
        import asyncpg  # type: ignore[import-untyped]

        try:
            conn = await asyncpg.connect(dsn)
        except (OSError, asyncpg.PostgresError):
            return False
        lost = anyio.Event()
        loop = asyncio.get_running_loop()
        pending: set[asyncio.Task[None]] = set()

        def received(_conn: Any, _pid: int, _channel: str, payload: str) -> None:
            task = loop.create_task(self.deliver(payload))
            pending.add(task)
            task.add_done_callback(pending.discard)

        try:
            conn.add_termination_listener(lambda _conn: lost.set())
            await conn.add_listener(CHANNEL, received)
            await lost.wait()
            logger.warning("cluster events: the LISTEN connection dropped; reconnecting")
            return True
        finally:
            with anyio.CancelScope(shield=True):
                if not conn.is_closed():
                    await conn.close(timeout=2)


def bus_path(address: str) -> Path | None:
    """The datagram socket of the node answering at `address` (`unix:<dir>/<id>.sock`), if local."""
    if not address.startswith("unix:"):
        return None
    return Path(address.removeprefix("unix:")).with_suffix(".bus")


class DatagramBus(_Dispatch):
    """On SQLite (one machine): a unix datagram socket per node, next to its HTTP socket; an event
    goes to every live node the registry lists."""

    def __init__(self, registry: NodeRegistry) -> None:
        super().__init__(registry.node.id)
        self.registry = registry
        path = bus_path(registry.node.address)
        if path is None:
            raise ValueError("a datagram bus needs a node with a unix socket address")
        self.path = path

    async def publish(self, kind: str, data: str) -> None:
        payload = self.encode(kind, data).encode()
        peers = await self.registry.peers()
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            sock.setblocking(False)
            for peer in peers:
                target = bus_path(peer.address)
                if target is None:
                    continue
                try:
                    sock.sendto(payload, str(target))
                except OSError:  # a node that just stopped, or a full queue: best effort
                    logger.debug("cluster event not delivered to %s", peer.id)

    async def run(self) -> None:
        self.path.unlink(missing_ok=True)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.bind(str(self.path))
        sock.setblocking(False)
        loop = asyncio.get_running_loop()
        try:
            while True:
                data = await loop.sock_recv(sock, 65_536)
                await self.deliver(data)
        finally:
            sock.close()
            self.path.unlink(missing_ok=True)
