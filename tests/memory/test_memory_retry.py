"""A write that PostgreSQL aborted to break a deadlock runs again; other failures do not."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from sqlalchemy.exc import DBAPIError

from mcpist.modules.memory.store import WRITE_TRIES, retry_aborted

pytestmark = pytest.mark.anyio


class PgError(Exception):
    def __init__(self, sqlstate: str) -> None:
        super().__init__(f"sqlstate {sqlstate}")
        self.sqlstate = sqlstate


def failing(sqlstate: str, times: int) -> tuple[list[int], Callable[[], Awaitable[str]]]:
    calls: list[int] = []

    async def op() -> str:
        calls.append(1)
        if len(calls) <= times:
            raise DBAPIError("UPDATE memory_entries ...", {}, PgError(sqlstate))
        return "done"

    return calls, op


@pytest.mark.parametrize("sqlstate", ["40P01", "40001"])
async def test_deadlock_and_serialization_failures_are_retried(sqlstate: str) -> None:
    calls, op = failing(sqlstate, WRITE_TRIES - 1)
    assert await retry_aborted(op) == "done"
    assert len(calls) == WRITE_TRIES


async def test_gives_up_after_the_last_try() -> None:
    calls, op = failing("40P01", WRITE_TRIES)
    with pytest.raises(DBAPIError):
        await retry_aborted(op)
    assert len(calls) == WRITE_TRIES


async def test_other_database_errors_are_not_retried() -> None:
    calls, op = failing("23505", 1)
    with pytest.raises(DBAPIError):
        await retry_aborted(op)
    assert len(calls) == 1
