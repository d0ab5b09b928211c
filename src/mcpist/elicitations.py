"""Clients waiting for a URL elicitation (connect an account) to complete, in this process."""

from __future__ import annotations

import logging
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

    def add(self, elicitation_id: str, session: Notifiable) -> None:
        if len(self._sessions) >= _MAX_PENDING:
            self._sessions.pop(next(iter(self._sessions)))
        self._sessions[elicitation_id] = session

    async def complete(self, elicitation_id: str) -> bool:
        """Tell the waiting client the user finished; False when no session here waits for it."""
        session = self._sessions.pop(elicitation_id, None)
        if session is None:
            return False
        try:
            await session.send_elicit_complete(elicitation_id)
        except Exception:  # the client may have gone; the account is connected all the same
            logger.info("could not notify elicitation %s completion; the client disconnected", elicitation_id)
            return False
        return True
