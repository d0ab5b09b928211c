"""Failed sign-ins, counted per email and per client address in a sliding window (in the database,
so every replica sees the same count)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from .tables import login_failures


class LoginLimiter:
    def __init__(
        self,
        engine: AsyncEngine,
        *,
        max_failures: int,
        max_failures_per_ip: int,
        window_s: float,
        clock: Callable[[], float],
    ) -> None:
        self._engine = engine
        self._limits = {"email": max_failures, "ip": max_failures_per_ip}
        self._window = timedelta(seconds=window_s)
        self._clock = clock

    def _now(self) -> datetime:
        return datetime.fromtimestamp(self._clock(), UTC)

    @staticmethod
    def _keys(email: str, ip: str | None) -> dict[str, str]:
        keys = {"email": "email:" + email.strip().lower()[:320]}
        if ip:
            keys["ip"] = "ip:" + ip[:64]
        return keys

    async def blocked(self, email: str, ip: str | None) -> bool:
        """Whether the email or the address used up its failures in the window."""
        since = self._now() - self._window
        async with self._engine.connect() as conn:
            for kind, key in self._keys(email, ip).items():
                query = sa.select(sa.func.count()).where(login_failures.c.key == key, login_failures.c.at > since)
                if (await conn.scalar(query) or 0) >= self._limits[kind]:
                    return True
        return False

    async def record_failure(self, email: str, ip: str | None) -> None:
        now = self._now()
        async with self._engine.begin() as conn:
            await conn.execute(login_failures.delete().where(login_failures.c.at <= now - self._window))
            await conn.execute(login_failures.insert(), [{"key": k, "at": now} for k in self._keys(email, ip).values()])

    async def clear(self, email: str) -> None:
        async with self._engine.begin() as conn:
            await conn.execute(login_failures.delete().where(login_failures.c.key == self._keys(email, None)["email"]))
