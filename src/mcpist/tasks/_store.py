"""Tasks in the database: created, read by their owner only, moved through their statuses, expired.

Every read filters by owner (user and token) and expiry, so a task of another caller, an expired task
and one that never existed are the same `None`. A terminal status is final: each update is a
conditional write that leaves completed, failed and cancelled rows alone.
"""

from __future__ import annotations

import base64
import binascii
import json
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from mcpist.errors import InvalidArgument

from ._tables import tasks

__all__ = ["LIVE", "TERMINAL", "Outcome", "Owner", "Status", "TaskRecord", "TaskStore"]

Status = Literal["working", "input_required", "completed", "failed", "cancelled"]
LIVE: frozenset[str] = frozenset({"working", "input_required"})
TERMINAL: frozenset[str] = frozenset({"completed", "failed", "cancelled"})
_MESSAGE_CHARS = 1000


@dataclass(frozen=True)
class Owner:
    """Whose a task is: a user, through one token (None: a caller without a token, such as stdio)."""

    user_id: str
    token_id: str | None


@dataclass(frozen=True)
class Outcome:
    """How the work of a task ended: its request's result (wire form) or its JSON-RPC error."""

    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    is_error: bool = False
    """The result is a tool error (`isError`)."""
    message: str | None = None


@dataclass(frozen=True)
class TaskRecord:
    id: str
    owner: Owner
    tool: str
    status: Status
    message: str | None
    created_at: datetime
    updated_at: datetime
    ttl_ms: int
    poll_ms: int
    result: dict[str, Any] | None
    error: dict[str, Any] | None
    is_error: bool
    pending_input: dict[str, Any] | None

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL


def _loads(text: str | None) -> dict[str, Any] | None:
    if text is None:
        return None
    value = json.loads(text)
    return value if isinstance(value, dict) else None


def _dumps(value: dict[str, Any] | None) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _record(row: Any) -> TaskRecord:
    return TaskRecord(
        id=row.id,
        owner=Owner(row.user_id, row.token_id),
        tool=row.tool,
        status=row.status,
        message=row.status_message,
        created_at=row.created_at,
        updated_at=row.updated_at,
        ttl_ms=row.ttl_ms,
        poll_ms=row.poll_ms,
        result=_loads(row.result),
        error=_loads(row.error),
        is_error=bool(row.is_error),
        pending_input=_loads(row.pending_input),
    )


def _short(message: str | None) -> str | None:
    return None if message is None else message[:_MESSAGE_CHARS]


def _owned(owner: Owner) -> sa.ColumnElement[bool]:
    token = tasks.c.token_id.is_(None) if owner.token_id is None else tasks.c.token_id == owner.token_id
    return sa.and_(tasks.c.user_id == owner.user_id, token)


def _encode_cursor(record: TaskRecord) -> str:
    raw = f"{record.created_at.astimezone(UTC).isoformat()}|{record.id}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode_cursor(cursor: str) -> tuple[datetime, str]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        at, _, task_id = raw.partition("|")
        when = datetime.fromisoformat(at)
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise InvalidArgument("invalid tasks/list cursor", {"field": "cursor"}) from None
    if not task_id or when.tzinfo is None:
        raise InvalidArgument("invalid tasks/list cursor", {"field": "cursor"})
    return when, task_id


def _now() -> datetime:
    return datetime.now(UTC)


class TaskStore:
    """The `tasks` table. `clock` is read for every timestamp and expiry check (tests move it)."""

    def __init__(self, engine: AsyncEngine, clock: Callable[[], datetime] = _now) -> None:
        self.engine = engine
        self.clock = clock

    async def create(
        self, owner: Owner, tool: str, *, ttl_ms: int, poll_ms: int, runner: str, lease_s: float
    ) -> TaskRecord:
        now = self.clock()
        values = {
            "id": secrets.token_urlsafe(24),
            "user_id": owner.user_id,
            "token_id": owner.token_id,
            "tool": tool,
            "status": "working",
            "status_message": None,
            "result": None,
            "error": None,
            "is_error": False,
            "pending_input": None,
            "created_at": now,
            "updated_at": now,
            "ttl_ms": ttl_ms,
            "expires_at": now + timedelta(milliseconds=ttl_ms),
            "poll_ms": poll_ms,
            "runner": runner,
            "lease_until": now + timedelta(seconds=lease_s),
        }
        async with self.engine.begin() as conn:
            await conn.execute(tasks.insert().values(**values))
        return _record(_Row(values))

    async def get(self, task_id: str, owner: Owner) -> TaskRecord | None:
        """The owner's task, if it exists and has not expired."""
        query = sa.select(tasks).where(tasks.c.id == task_id, _owned(owner), tasks.c.expires_at > self.clock())
        async with self.engine.connect() as conn:
            row = (await conn.execute(query)).first()
        return _record(row) if row is not None else None

    async def page(self, owner: Owner, cursor: str | None, limit: int) -> tuple[list[TaskRecord], str | None]:
        """The owner's live tasks, newest first, `limit` at a time; and the cursor of the next page.

        Raises:
            InvalidArgument: `cursor` is not one this store handed out.
        """
        query = sa.select(tasks).where(_owned(owner), tasks.c.expires_at > self.clock())
        if cursor is not None:
            at, last = _decode_cursor(cursor)
            query = query.where(sa.or_(tasks.c.created_at < at, sa.and_(tasks.c.created_at == at, tasks.c.id < last)))
        query = query.order_by(tasks.c.created_at.desc(), tasks.c.id.desc()).limit(limit + 1)
        async with self.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        found = [_record(r) for r in rows[:limit]]
        return found, (_encode_cursor(found[-1]) if len(rows) > limit else None)

    async def count_live(self, owner: Owner) -> int:
        query = (
            sa.select(sa.func.count())
            .select_from(tasks)
            .where(_owned(owner), tasks.c.status.in_(LIVE), tasks.c.expires_at > self.clock())
        )
        async with self.engine.connect() as conn:
            return int((await conn.execute(query)).scalar_one())

    async def _update(self, task_id: str, extra: sa.ColumnElement[bool] | None, **values: Any) -> TaskRecord | None:
        """Write `values` to a live task (and `extra` holds); the row as written, or None."""
        where = sa.and_(tasks.c.id == task_id, tasks.c.status.in_(LIVE))
        if extra is not None:
            where = sa.and_(where, extra)
        async with self.engine.begin() as conn:
            updated = await conn.execute(tasks.update().where(where).values(updated_at=self.clock(), **values))
            if updated.rowcount != 1:
                return None
            row = (await conn.execute(sa.select(tasks).where(tasks.c.id == task_id))).first()
        return _record(row) if row is not None else None

    async def set_status(
        self, task_id: str, status: Status, message: str | None = None, pending_input: dict[str, Any] | None = None
    ) -> TaskRecord | None:
        """Move a live task to `status` (working or input_required); None when it is over already."""
        return await self._update(
            task_id, None, status=status, status_message=_short(message), pending_input=_dumps(pending_input)
        )

    async def finish(self, task_id: str, outcome: Outcome) -> TaskRecord | None:
        """Record how a live task ended; None when it is over already (a cancelled task stays cancelled)."""
        status: Status = "failed" if outcome.error is not None else "completed"
        return await self._update(
            task_id,
            None,
            status=status,
            status_message=_short(outcome.message),
            result=_dumps(outcome.result),
            error=_dumps(outcome.error),
            is_error=outcome.is_error,
            pending_input=None,
            runner=None,
            lease_until=None,
        )

    async def cancel(self, task_id: str, owner: Owner, message: str) -> TaskRecord | None:
        """Cancel the owner's task; None when there is no such task (for this owner).

        Raises:
            InvalidArgument: the task is over already (completed, failed or cancelled).
        """
        record = await self._update(
            task_id,
            sa.and_(_owned(owner), tasks.c.expires_at > self.clock()),
            status="cancelled",
            status_message=_short(message),
            pending_input=None,
            runner=None,
            lease_until=None,
        )
        if record is not None:
            return record
        current = await self.get(task_id, owner)
        if current is None:
            return None
        raise InvalidArgument(
            f"Cannot cancel task: already in terminal status '{current.status}'", {"status": current.status}
        )

    async def renew(self, runner: str, task_ids: Iterable[str], lease_s: float) -> set[str]:
        """Extend the lease of `runner`'s live tasks; the ids among `task_ids` that are no longer its to run
        (cancelled elsewhere, expired, failed as orphans, purged)."""
        wanted = set(task_ids)
        if not wanted:
            return set()
        now = self.clock()
        mine = sa.and_(
            tasks.c.id.in_(wanted), tasks.c.runner == runner, tasks.c.status.in_(LIVE), tasks.c.expires_at > now
        )
        async with self.engine.begin() as conn:
            await conn.execute(tasks.update().where(mine).values(lease_until=now + timedelta(seconds=lease_s)))
            kept = set((await conn.execute(sa.select(tasks.c.id).where(mine))).scalars())
        return wanted - kept

    async def fail_orphans(self) -> int:
        """Fail live tasks whose runner's lease ran out: the process running them died."""
        now = self.clock()
        orphaned = sa.and_(tasks.c.status.in_(LIVE), tasks.c.lease_until < now)
        async with self.engine.begin() as conn:
            rows = (await conn.execute(sa.select(tasks.c.id, tasks.c.lease_until).where(orphaned))).all()
            for row in rows:
                lease = row.lease_until.astimezone(UTC).isoformat(timespec="seconds")
                message = (
                    f"the server process running this task stopped before it finished (its lease ran out at {lease})"
                )
                await conn.execute(
                    tasks.update()
                    .where(tasks.c.id == row.id, tasks.c.status.in_(LIVE))
                    .values(
                        status="failed",
                        status_message=message,
                        error=_dumps({"code": -32603, "message": message}),
                        pending_input=None,
                        runner=None,
                        lease_until=None,
                        updated_at=now,
                    )
                )
        return len(rows)

    async def fail_runner(self, runner: str, message: str) -> int:
        """Fail `runner`'s live tasks (its process is stopping)."""
        async with self.engine.begin() as conn:
            done = await conn.execute(
                tasks.update()
                .where(tasks.c.runner == runner, tasks.c.status.in_(LIVE))
                .values(
                    status="failed",
                    status_message=message,
                    error=_dumps({"code": -32603, "message": message}),
                    pending_input=None,
                    runner=None,
                    lease_until=None,
                    updated_at=self.clock(),
                )
            )
        return int(done.rowcount)

    async def delete(self, task_id: str) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(tasks.delete().where(tasks.c.id == task_id))

    async def purge(self) -> int:
        """Delete expired tasks, whatever their status."""
        async with self.engine.begin() as conn:
            done = await conn.execute(tasks.delete().where(tasks.c.expires_at <= self.clock()))
        return int(done.rowcount)


class _Row:
    """The values just inserted, read like a result row."""

    def __init__(self, values: dict[str, Any]) -> None:
        self.__dict__.update(values)
