"""The other workers of this machine asked for their own metrics, for one scrape of them all."""

from __future__ import annotations

import logging
from urllib.parse import urlsplit

import anyio
import httpx

from ._registry import Node, NodeRegistry
from ._routing import FORWARDED_HEADER, SessionRouter

logger = logging.getLogger("mcpist.cluster")

__all__ = ["scrape_workers"]

_TIMEOUT_S = 2.0


def _same_machine(mine: Node, other: Node) -> bool:
    if mine.address.startswith("unix:") or other.address.startswith("unix:"):
        return mine.address.startswith("unix:") and other.address.startswith("unix:")
    return urlsplit(mine.address).hostname == urlsplit(other.address).hostname


async def scrape_workers(
    registry: NodeRegistry, router: SessionRouter, path: str, headers: dict[str, str]
) -> list[tuple[str, str]]:
    """(node id, text) of every other live worker on this machine that answered `path` in time;
    `headers` (the scrape's own: its bearer, its Host) go along."""
    peers = [p for p in await registry.peers() if _same_machine(registry.node, p)]
    found: list[tuple[str, str]] = []
    headers = {**headers, FORWARDED_HEADER.decode(): registry.node.id}

    async def one(peer: Node) -> None:
        try:
            with anyio.fail_after(_TIMEOUT_S):
                answer = await router.client_for(peer.address).get(path, headers=headers)
        except (TimeoutError, httpx.HTTPError):
            logger.info("worker %s did not give its metrics in time; left out of this scrape", peer.id)
            return
        if answer.status_code == 200:
            found.append((peer.id, answer.text))
        else:
            logger.info("worker %s answered %d for its metrics; left out of this scrape", peer.id, answer.status_code)

    async with anyio.create_task_group() as tg:
        for peer in peers:
            tg.start_soon(one, peer)
    return found
