"""Which processes serve this MCPist and where each answers: rows in `cluster_nodes`, kept alive.

Every process (a worker, a replica) is a node with a random id, fresh at each start, and an address
the others reach it at: `unix:<path>` for a worker of this machine, `http://host:port` for a replica's
worker elsewhere. A node writes its row at start, renews `seen_at` every `heartbeat_s` and deletes it
at a clean stop; a node silent for `node_ttl_s` is taken for gone (and its row pruned by whoever
notices). The ids start MCP session ids, so a request names the node that holds its session.
"""

from __future__ import annotations

import logging
import secrets
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import anyio
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from ._tables import nodes

logger = logging.getLogger("mcpist.cluster")

__all__ = ["Node", "NodeRegistry", "new_node_id"]

_ADDRESS_CACHE_S = 5.0


def new_node_id() -> str:
    """12 lowercase hex characters: unique among live processes, short in a session id."""
    return secrets.token_hex(6)


@dataclass(frozen=True)
class Node:
    id: str
    address: str
    """`unix:<path>` or `http://host:port`."""


class NodeRegistry:
    def __init__(self, engine: AsyncEngine, node: Node, heartbeat_s: float, node_ttl_s: float) -> None:
        self.engine = engine
        self.node = node
        self.heartbeat_s = heartbeat_s
        self.node_ttl_s = node_ttl_s
        self._cache: dict[str, tuple[float, str | None]] = {}

    async def register(self) -> None:
        now = datetime.now(UTC)
        async with self.engine.begin() as conn:
            await conn.execute(nodes.delete().where(nodes.c.node_id == self.node.id))
            await conn.execute(
                nodes.insert().values(node_id=self.node.id, address=self.node.address, started_at=now, seen_at=now)
            )
            # rows of processes that died without saying so
            await conn.execute(nodes.delete().where(nodes.c.seen_at < now - timedelta(seconds=self.node_ttl_s * 3)))

    async def unregister(self) -> None:
        with anyio.CancelScope(shield=True):
            try:
                async with self.engine.begin() as conn:
                    await conn.execute(nodes.delete().where(nodes.c.node_id == self.node.id))
            except Exception:  # the database is gone at shutdown: the row ages out
                logger.info("could not remove this process from cluster_nodes; it ages out", exc_info=True)

    async def heartbeat(self) -> None:
        """Renew this node's row every `heartbeat_s` until cancelled (re-creating it if it was pruned)."""
        while True:
            await anyio.sleep(self.heartbeat_s)
            try:
                async with self.engine.begin() as conn:
                    renewed = await conn.execute(
                        nodes.update().where(nodes.c.node_id == self.node.id).values(seen_at=datetime.now(UTC))
                    )
                if renewed.rowcount == 0:
                    await self.register()
            except Exception:
                logger.warning("cluster heartbeat failed; retrying", exc_info=True)

    async def address_of(self, node_id: str) -> str | None:
        """Where node `node_id` answers, or None when no live node has that id."""
        cached = self._cache.get(node_id)
        now = time.monotonic()
        if cached is not None and now - cached[0] < _ADDRESS_CACHE_S:
            return cached[1]
        fresh = datetime.now(UTC) - timedelta(seconds=self.node_ttl_s)
        async with self.engine.connect() as conn:
            address = (
                await conn.execute(
                    sa.select(nodes.c.address).where(nodes.c.node_id == node_id, nodes.c.seen_at >= fresh)
                )
            ).scalar()
        if len(self._cache) > 1_000:
            self._cache.clear()
        self._cache[node_id] = (now, address)
        return address

    async def peers(self) -> list[Node]:
        """The other live nodes."""
        fresh = datetime.now(UTC) - timedelta(seconds=self.node_ttl_s)
        async with self.engine.connect() as conn:
            rows = (
                await conn.execute(
                    sa.select(nodes.c.node_id, nodes.c.address).where(
                        nodes.c.seen_at >= fresh, nodes.c.node_id != self.node.id
                    )
                )
            ).all()
        return [Node(row.node_id, row.address) for row in rows]
