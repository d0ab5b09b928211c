"""Several processes serving one MCPist: which are alive and where (`_registry`), the requests of a
session passed to the process holding it (`_routing`), and small events for all of them (`_bus`).

`mcpist serve --workers N` runs N processes on one port; replicas on several machines share one
PostgreSQL database. Everything a request needs lives in the database, except a 2025-11-25 session
(its streams, the server's pending requests to the client), which lives in one process: its
requests are routed there. An elicitation completed in any process reaches the waiting client
through the bus.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
from sqlalchemy.ext.asyncio import AsyncEngine

from mcpist.config import ClusterSettings

from ._bus import Bus, DatagramBus, Handler, PostgresBus, bus_path
from ._registry import Node, NodeRegistry, new_node_id
from ._routing import FORWARDED_HEADER, SessionRouter, node_of
from ._scrape import scrape_workers
from ._trust import ForwardedClient, Keys, Signer

MIGRATIONS = Path(__file__).parent / "migrations"
"""The cluster branch of Alembic revisions, for `mcpist.storage.migrate.upgrade`."""

logger = logging.getLogger("mcpist.cluster")

__all__ = [
    "FORWARDED_HEADER",
    "MIGRATIONS",
    "Bus",
    "Cluster",
    "ForwardedClient",
    "Handler",
    "Node",
    "NodeRegistry",
    "SessionRouter",
    "Signer",
    "bus_path",
    "new_node_id",
    "node_of",
    "scrape_workers",
]


class Cluster:
    """This process as a node: registered while it serves, with a router and a bus."""

    def __init__(self, engine: AsyncEngine, settings: ClusterSettings, node: Node, keys: Keys) -> None:
        """`keys`: the vault's keys, active first; the client of a request passed on is signed with them."""
        self.node = node
        self.registry = NodeRegistry(engine, node, settings.heartbeat_s, settings.node_ttl_s)
        self.signer = Signer(keys)
        self.router = SessionRouter(self.registry, signer=self.signer)
        self.bus: Bus | None
        if engine.dialect.name == "postgresql":
            self.bus = PostgresBus(engine, node.id)
        elif bus_path(node.address) is not None:
            self.bus = DatagramBus(self.registry)
        else:
            self.bus = None

    async def worker_metrics(self, authorization: str, host: str) -> list[tuple[str, str]]:
        """The other workers' own metrics (`/metrics`, passed the scrape's bearer and Host)."""
        return await scrape_workers(
            self.registry, self.router, "/metrics", {"Authorization": authorization, "Host": host}
        )

    async def prune_sockets(self) -> int:
        """Remove the socket files of nodes that are gone (a worker killed before it could clean up);
        returns how many. Only files older than `node_ttl_s`: a worker just starting has made its
        socket before its row."""
        path = bus_path(self.node.address)
        if path is None:
            return 0
        live = {self.node.id, *(peer.id for peer in await self.registry.peers())}
        cutoff = time.time() - self.registry.node_ttl_s
        removed = 0
        for leftover in [*path.parent.glob("*.sock"), *path.parent.glob("*.bus")]:
            try:
                if leftover.stem not in live and leftover.stat().st_mtime < cutoff:
                    leftover.unlink()
                    removed += 1
            except OSError:  # another worker removed it first
                continue
        return removed

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        await self.registry.register()
        await self.prune_sockets()
        logger.info("serving as cluster node %s at %s", self.node.id, self.node.address)
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(self.registry.heartbeat)
                if self.bus is not None:
                    tg.start_soon(self.bus.run)
                try:
                    yield
                finally:
                    tg.cancel_scope.cancel()
        finally:
            with anyio.CancelScope(shield=True):
                await self.router.aclose()
                await self.registry.unregister()
