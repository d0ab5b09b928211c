"""Failed sign-ins, counted in a sliding window in the database (so every replica sees the same count).

Guessing slows down without locking anyone out who knows the password:

- per (client address, email): a few free failures, then each further try waits, the wait doubling
  with each failure (at most the window); a sign-in elsewhere is unaffected;
- per client address: a higher ceiling over all emails, against one address spraying many accounts;
- a browser that signed in as that email before (a signed device cookie, see `protocol.oauth.session`)
  is counted on its own key instead: someone else's failures, from its address or for its email,
  never slow it down.

Only failures are recorded; a refused try checks no password, so it teaches nothing and costs nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from mcpist.storage.types import utc

from .tables import login_failures

_MAX_EMAIL = 320
_MAX_ADDRESS = 64


class LoginLimiter:
    def __init__(
        self,
        engine: AsyncEngine,
        *,
        max_failures: int,
        max_failures_per_ip: int,
        window_s: float,
        clock: Callable[[], float],
        backoff_s: float = 2.0,
    ) -> None:
        self._engine = engine
        self._free = max_failures
        self._ceiling = max_failures_per_ip
        self._backoff_s = backoff_s
        self._window_s = window_s
        self._clock = clock

    def _now(self) -> datetime:
        return datetime.fromtimestamp(self._clock(), UTC)

    @staticmethod
    def _keys(email: str, ip: str | None, device: str | None) -> tuple[str, str | None]:
        """The key that backs off, and the address key that has a ceiling (None for a known device)."""
        email = email.strip().lower()[:_MAX_EMAIL]
        if device is not None:
            return f"device:{device[:64]}|{email}", None
        address = (ip or "-")[:_MAX_ADDRESS]
        return f"pair:{address}|{email}", f"ip:{address}"

    async def wait_s(self, email: str, ip: str | None, device: str | None = None) -> float:
        """Seconds before this sign-in may be tried; 0 when it may be tried now.

        `device` is the id of a device cookie the browser holds for this very email.
        """
        now = self._now()
        since = now - timedelta(seconds=self._window_s)
        backing_off, address = self._keys(email, ip, device)
        wait = 0.0
        async with self._engine.connect() as conn:
            recent = sa.and_(login_failures.c.key == backing_off, login_failures.c.at > since)
            count, last = (
                await conn.execute(sa.select(sa.func.count(), sa.func.max(login_failures.c.at)).where(recent))
            ).one()
            if count >= self._free and last is not None:
                delay = min(self._window_s, self._backoff_s * 2.0 ** (count - self._free))
                wait = max(wait, (utc(last) + timedelta(seconds=delay) - now).total_seconds())
            if address is not None:
                # the failure whose expiry brings the address back under its ceiling
                query = (
                    sa.select(login_failures.c.at)
                    .where(login_failures.c.key == address, login_failures.c.at > since)
                    .order_by(login_failures.c.at.desc())
                    .offset(self._ceiling - 1)
                    .limit(1)
                )
                oldest = (await conn.execute(query)).scalar()
                if oldest is not None:
                    wait = max(wait, (utc(oldest) + timedelta(seconds=self._window_s) - now).total_seconds())
        return max(wait, 0.0)

    async def record_failure(self, email: str, ip: str | None, device: str | None = None) -> None:
        now = self._now()
        keys = [k for k in self._keys(email, ip, device) if k is not None]
        async with self._engine.begin() as conn:
            await conn.execute(
                login_failures.delete().where(login_failures.c.at <= now - timedelta(seconds=self._window_s))
            )
            await conn.execute(login_failures.insert(), [{"key": k, "at": now} for k in keys])

    async def clear(self, email: str, ip: str | None, device: str | None = None) -> None:
        """Forget this (address or device, email)'s failures after it signed in; the address's stay."""
        backing_off, _ = self._keys(email, ip, device)
        async with self._engine.begin() as conn:
            await conn.execute(login_failures.delete().where(login_failures.c.key == backing_off))
