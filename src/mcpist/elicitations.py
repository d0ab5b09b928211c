"""Clients waiting for a URL elicitation (connect an account) to complete, in this process.

With several processes (workers, replicas) the browser's request that completes an elicitation may
reach another process than the one holding the waiting session: `broadcast` (set by the cluster)
then tells the others, and each calls `complete_here`.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Protocol

logger = logging.getLogger("mcpist.elicitations")

_MAX_PENDING = 10_000


class Notifiable(Protocol):
    """The part of an MCP server session used here."""

    async def send_elicit_complete(self, elicitation_id: str) -> None: ...


class PendingElicitations:
    """Sessions waiting for an elicitation to complete, by elicitation id."""

    def __init__(self) -> None:
        self._sessions: dict[str, Notifiable] = {}
        self.broadcast: Callable[[str], Awaitable[None]] | None = None
        """Tells the other processes of this MCPist that an elicitation completed (None: alone)."""

    def add(self, elicitation_id: str, session: Notifiable) -> None:
        if len(self._sessions) >= _MAX_PENDING:
            self._sessions.pop(next(iter(self._sessions)))
        self._sessions[elicitation_id] = session

    async def complete(self, elicitation_id: str) -> bool:
        """Tell the waiting client the user finished, wherever it waits; False when no session of
        this process waits for it (another process may have been told)."""
        if await self.complete_here(elicitation_id):
            return True
        if self.broadcast is not None:
            try:
                await self.broadcast(elicitation_id)
            except Exception:
                logger.warning("could not tell the other processes that elicitation %s completed", elicitation_id)
        return False

    async def complete_here(self, elicitation_id: str) -> bool:
        """Tell the client waiting in this process, if one does."""
        session = self._sessions.pop(elicitation_id, None)
        if session is None:
            return False
        try:
            await session.send_elicit_complete(elicitation_id)
        except Exception:  # the client may have gone; the account is connected all the same
            logger.info("could not notify elicitation %s completion; the client disconnected", elicitation_id)
            return False
        return True
