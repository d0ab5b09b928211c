"""Pending connect flows: one row per connect URL handed out, single use, with an expiry.

The connect URL carries a random token; only its hash is stored. Starting an OAuth flow
consumes that token and creates the `state` sent to the provider and a browser-binding
cookie (again, only hashes stored); the PKCE verifier is sealed in the row. The callback
consumes the row.
"""

from __future__ import annotations

import hashlib
import secrets
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from .crypto import aad
from .oauth import pkce_pair
from .store import Sealer, sealed_of, sealed_values, utc
from .tables import connect_flows

MAX_PENDING_PER_USER = 50

FlowStatus = Literal["new", "started"]


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class Flow:
    id: str
    user_id: str
    role: str | None
    service: str
    account_name: str
    elicitation_id: str | None
    status: FlowStatus
    browser_hash: str | None
    expires_at: datetime
    read_only: bool = False


@dataclass(frozen=True)
class StartedFlow:
    """What the start of an OAuth flow hands the browser: never stored in plain."""

    state: str
    browser_secret: str
    code_challenge: str


def flow_identity(flow: Flow) -> bytes:
    return aad("connect_flow", flow.id, flow.user_id, flow.role, flow.service, flow.account_name)


def flow_of(row: Any) -> Flow:
    return Flow(
        id=row.id,
        user_id=row.user_id,
        role=row.role,
        service=row.service,
        account_name=row.account_name,
        elicitation_id=row.elicitation_id,
        status=row.status,
        browser_hash=row.browser_hash,
        expires_at=utc(row.expires_at) or row.expires_at,
        read_only=bool(row.read_only),
    )


class FlowStore:
    def __init__(self, engine: AsyncEngine, sealer: Sealer, ttl_s: float) -> None:
        self.engine = engine
        self.sealer = sealer
        self.ttl = timedelta(seconds=ttl_s)

    async def create(
        self,
        user_id: str,
        service: str,
        account_name: str,
        *,
        role: str | None = None,
        elicitation_id: str | None = None,
        read_only: bool = False,
    ) -> tuple[Flow, str]:
        """A new pending flow and the token for its connect URL (shown only here)."""
        token = secrets.token_urlsafe(32)
        now = datetime.now(UTC)
        flow_id = str(uuid.uuid4())
        async with self.engine.begin() as conn:
            await conn.execute(connect_flows.delete().where(connect_flows.c.expires_at < now))
            stale = (
                sa.select(connect_flows.c.id)
                .where(connect_flows.c.user_id == user_id)
                .order_by(connect_flows.c.created_at.desc())
                .offset(MAX_PENDING_PER_USER - 1)
            )
            await conn.execute(connect_flows.delete().where(connect_flows.c.id.in_(stale.scalar_subquery())))
            await conn.execute(
                connect_flows.insert().values(
                    id=flow_id,
                    token_hash=digest(token),
                    user_id=user_id,
                    role=role,
                    service=service,
                    account_name=account_name,
                    elicitation_id=elicitation_id,
                    read_only=read_only,
                    status="new",
                    created_at=now,
                    expires_at=now + self.ttl,
                )
            )
        flow = await self._one(connect_flows.c.id == flow_id)
        assert flow is not None
        return flow, token

    async def _one(self, *where: sa.ColumnElement[bool]) -> Flow | None:
        query = sa.select(connect_flows).where(*where, connect_flows.c.expires_at >= datetime.now(UTC))
        async with self.engine.connect() as conn:
            row = (await conn.execute(query)).first()
        return flow_of(row) if row else None

    async def by_token(self, token: str) -> Flow | None:
        """The unexpired, not yet started flow of a connect URL token."""
        return await self._one(connect_flows.c.token_hash == digest(token), connect_flows.c.status == "new")

    async def by_state(self, state: str) -> Flow | None:
        """The unexpired, started flow an OAuth callback's `state` belongs to."""
        return await self._one(connect_flows.c.state_hash == digest(state), connect_flows.c.status == "started")

    async def start(self, flow: Flow) -> StartedFlow | None:
        """Consume the connect token and begin the OAuth leg; None if another request got there first."""
        verifier, challenge = pkce_pair()
        state = secrets.token_urlsafe(32)
        browser = secrets.token_urlsafe(32)
        sealed = self.sealer.seal(flow_identity(flow), {"code_verifier": verifier})
        async with self.engine.begin() as conn:
            result = await conn.execute(
                connect_flows.update()
                .where(connect_flows.c.id == flow.id, connect_flows.c.status == "new")
                .values(
                    status="started", state_hash=digest(state), browser_hash=digest(browser), **sealed_values(sealed)
                )
            )
        if result.rowcount != 1:
            return None
        return StartedFlow(state=state, browser_secret=browser, code_challenge=challenge)

    async def take(self, flow: Flow, status: FlowStatus) -> str | None:
        """Consume the flow (single use): its PKCE verifier ("" for API-key flows), or None if already used."""
        query = sa.select(connect_flows).where(connect_flows.c.id == flow.id, connect_flows.c.status == status)
        async with self.engine.begin() as conn:
            row = (await conn.execute(query)).first()
            if row is None:
                return None
            result = await conn.execute(
                connect_flows.delete().where(connect_flows.c.id == flow.id, connect_flows.c.status == status)
            )
            if result.rowcount != 1:
                return None
        if row.kek_id is None:
            return ""
        return self.sealer.open(flow_identity(flow), sealed_of(row))["code_verifier"]

    async def discard(self, flow: Flow) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(connect_flows.delete().where(connect_flows.c.id == flow.id))
