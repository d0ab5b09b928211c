"""Two microsoft_todo accounts, a personal (MSA) one and a work one, in one batch through a running MCPist: each
task reaches its own account's To Do with its own token, due dates stay on their day, and no token is answered."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from mstodo_world import World, fake_upstream

from mcpist.modules.microsoft_todo import module
from mcpist.testing import FakeUpstream, in_process_client, running

pytestmark = pytest.mark.anyio

TOKENS = {"personal": "EwPersonal-access-0001", "work": "eyJ0eXAiOiJKV1Qi.work-0002"}


class ByToken(httpx.AsyncBaseTransport):
    """One Graph, two mailboxes: the bearer token decides whose To Do answers; an unknown one gets Graph's 401."""

    def __init__(self, fakes: dict[str, FakeUpstream]) -> None:
        self.transports = {TOKENS[name]: fake.transport() for name, fake in fakes.items()}
        self.seen: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        token = request.headers.get("authorization", "").removeprefix("Bearer ")
        self.seen.append(token)
        if token not in self.transports:
            body = {"error": {"code": "InvalidAuthenticationToken", "message": "Access token is empty."}}
            return httpx.Response(401, json=body)
        return await self.transports[token].handle_async_request(request)


async def test_one_batch_over_a_personal_and_a_work_account(tmp_path: Path) -> None:
    worlds = {"personal": World(), "work": World()}
    worlds["work"].lists[next(iter(worlds["work"].lists))]["displayName"] = "Tasks (Contoso)"
    fakes = {name: fake_upstream() for name in worlds}
    for name, world in worlds.items():
        world.install(fakes[name])
    upstream = ByToken(fakes)
    settings = {"modules": {"settings": {"microsoft_todo": {"time_zone": "Asia/Tokyo"}}}}
    async with running([module], tmp_path, upstream=upstream, **settings) as rt:
        broker: Any = rt.accounts
        for name, token in TOKENS.items():
            await broker.accounts.put(
                service="microsoft_todo",
                name=name,
                kind="oauth2",
                secrets={"access_token": token, "refresh_token": f"refresh-{name}-secret"},
                user_id=rt.owner.id,
                expires_at=datetime.now(UTC) + timedelta(hours=1),
                scopes=module.auth.scopes,  # type: ignore[union-attr]
            )
        lists = {name: next(iter(world.lists)) for name, world in worlds.items()}
        tasks = [
            {
                "id": f"{name}_lists",
                "module": "microsoft_todo",
                "tool": "list_task_lists",
                "account": name,
                "output": True,
            }
            for name in TOKENS
        ] + [
            {
                "id": "personal_task",
                "module": "microsoft_todo",
                "tool": "create_task",
                "account": "personal",
                "output": True,
                "params": {"list_id": lists["personal"], "title": "Dentist", "due_date": "2026-03-08"},
            },
            {
                "id": "work_task",
                "module": "microsoft_todo",
                "tool": "create_task",
                "account": "work",
                "output": True,
                "params": {
                    "list_id": lists["work"],
                    "title": "Quarterly report",
                    "due_date": "2026-10-25",
                    "reminder": "2026-10-25T09:00:00",
                    "time_zone": "W. Europe Standard Time",
                },
            },
        ]
        async with in_process_client(rt) as client:
            result = await client.call_tool("batch", {"tasks": "\n".join(json.dumps(t) for t in tasks)})
    for fake in fakes.values():
        fake.assert_clean()
    assert not result.is_error, result.content
    out = result.structured_content["results"]
    assert [item["name"] for item in out["personal_lists"]["items"]] == ["Tasks"]
    assert [item["name"] for item in out["work_lists"]["items"]] == ["Tasks (Contoso)"]
    personal, work = out["personal_task"], out["work_task"]
    assert personal["due_date"] == "2026-03-08" and personal["time_zone"] == "Asia/Tokyo"  # the setting's zone
    assert work["due_date"] == "2026-10-25" and work["reminder"] == "2026-10-25T09:00:00+01:00"
    assert [t["title"] for t in worlds["personal"].tasks[lists["personal"]].values()] == ["Dentist"]
    assert [t["title"] for t in worlds["work"].tasks[lists["work"]].values()] == ["Quarterly report"]
    stored = worlds["personal"].tasks[lists["personal"]][personal["id"]]["_dueDateTime"]
    assert stored.instant == datetime(2026, 3, 7, 15, 0, tzinfo=UTC)  # midnight in Tokyo, kept by Graph in UTC
    assert set(upstream.seen) == set(TOKENS.values())
    text = json.dumps(result.structured_content)
    assert all(secret not in text for secret in [*TOKENS.values(), "refresh-personal-secret", "refresh-work-secret"])
