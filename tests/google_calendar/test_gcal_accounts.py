"""google_calendar through a running MCPist with two accounts added as bare access tokens (what
`mcpist account add google_calendar --token-stdin` stores): free time across both in one call, each account's
freeBusy asked with its own token; a read-only account serves reads and is refused writes; no token in answers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from gcal_world import World, fake_upstream

from mcpist.modules.google_calendar import module
from mcpist.testing import in_process_client, running

pytestmark = pytest.mark.anyio

TOKENS = {"work": "ya29.work-token-0001", "home": "ya29.home-token-0002"}


async def add_accounts(rt: Any, *, home_read_only: bool = False) -> None:
    broker: Any = rt.accounts
    for name, token in TOKENS.items():
        await broker.accounts.put(
            service="google_calendar",
            name=name,
            kind="api_key",
            secrets={"api_key": token},
            user_id=rt.owner.id,
            read_only=home_read_only and name == "home",
        )


def busy_world() -> World:
    world = World()
    world.busy[(TOKENS["work"], "primary")] = [("2026-03-09T14:00:00Z", "2026-03-09T15:00:00Z")]
    world.busy[(TOKENS["home"], "primary")] = [
        ("2026-03-09T14:30:00Z", "2026-03-09T16:00:00Z"),
        ("2026-03-09T19:00:00Z", "2026-03-09T20:45:00Z"),
    ]
    return world


async def test_free_time_across_two_accounts_in_one_call(tmp_path: Path) -> None:
    world = busy_world()
    fake = fake_upstream()
    world.install(fake)
    with fake:
        async with running([module], tmp_path, upstream=fake.transport()) as rt:
            await add_accounts(rt)
            async with in_process_client(rt) as client:
                schema = (await client.call_tool("get_module_schema", {"module": "google_calendar"})).structured_content
                assert schema["accounts"] == {"names": ["home", "work"], "default": None}
                result = await client.call_tool(
                    "call",
                    {
                        "module": "google_calendar",
                        "tool_name": "find_free_time",
                        "account": "work",
                        "params": {"time_min": "2026-03-09", "time_max": "2026-03-09", "accounts": ["home"]},
                    },
                )
    assert not result.is_error, result.content
    free = result.structured_content
    assert free["time_zone"] == "America/New_York" and free["checked"] == ["primary", "home:primary"]
    assert [(s["start"], s["end"]) for s in free["slots"]] == [
        ("2026-03-09T09:00:00-04:00", "2026-03-09T10:00:00-04:00"),
        ("2026-03-09T12:00:00-04:00", "2026-03-09T15:00:00-04:00"),
    ]  # 16:45-17:00 is free too, but shorter than min_minutes (30)
    asked = [r.headers["Authorization"] for r in fake.requests if r.operation == "POST /freeBusy"]
    assert asked == [f"Bearer {TOKENS['work']}", f"Bearer {TOKENS['home']}"]
    assert not any(token in json.dumps(free) for token in TOKENS.values())


async def test_a_read_only_account_reads_for_free_time_but_cannot_write(tmp_path: Path) -> None:
    world = busy_world()
    fake = fake_upstream()
    world.install(fake)
    with fake:
        async with running([module], tmp_path, upstream=fake.transport()) as rt:
            await add_accounts(rt, home_read_only=True)
            async with in_process_client(rt) as client:
                read = await client.call_tool(
                    "call",
                    {
                        "module": "google_calendar",
                        "tool_name": "find_free_time",
                        "account": "work",
                        "params": {"time_min": "2026-03-09", "time_max": "2026-03-09", "accounts": ["home"]},
                    },
                )
                write = await client.call_tool(
                    "call",
                    {
                        "module": "google_calendar",
                        "tool_name": "create_event",
                        "account": "home",
                        "params": {"summary": "x", "start": "2026-03-10"},
                    },
                )
    assert not read.is_error, read.content
    assert read.structured_content["checked"] == ["primary", "home:primary"]
    assert write.is_error and "read-only" in json.dumps([c.model_dump() for c in write.content])
    assert [r for r in fake.requests if r.operation == "POST /calendars/{calendarId}/events"] == []
