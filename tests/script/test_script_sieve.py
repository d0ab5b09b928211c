"""The Tool Sieve inside scripts: a hidden tool or module fails a script exactly as a missing one, and
every attempt is recorded as a security event made via "script"."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from script_support import client, error, ok, world

from mcpist.modules.api import Caller
from mcpist.sieve import create_role, grant_role, list_security_events
from mcpist.storage.tables import users

pytestmark = pytest.mark.anyio

ALICE = "alice@example.com"
CALL = 'def main():\n    x = 1\n    return call("{module}", "{tool}", {{"namespace": "n", "memo_id": "{memo}"}})\n'
TRY = 'def main():\n    return try_call("{module}", "{tool}", {{"session_id": "s"}})\n'
MEMO = "00000000-0000-4000-8000-000000000000"


def same(hidden: dict[str, Any], missing: dict[str, Any], hidden_name: str, missing_name: str) -> None:
    text = json.dumps(hidden, sort_keys=True, ensure_ascii=False)
    assert missing_name not in text
    assert text.replace(hidden_name, "<N>") == json.dumps(missing, sort_keys=True, ensure_ascii=False).replace(
        missing_name, "<N>"
    )


async def test_a_hidden_tool_fails_a_script_exactly_as_a_missing_one(tmp_path: Path) -> None:
    async with world(tmp_path, "memory", "context") as rt:
        alice_id = str(uuid.uuid4())
        async with rt.engine.begin() as conn:
            await conn.execute(users.insert().values(id=alice_id, email=ALICE, created_at=datetime.now(UTC)))
        # memory without delete, the probe; context not at all
        await create_role(rt.engine, "limited", ["memory.*", "probe.*"], ["memory.delete"], registry=rt.registry)
        await grant_role(rt.engine, ALICE, "limited")
        alice = Caller(user_id=alice_id, email=ALICE)
        async with client(rt, alice) as c:
            hidden = await error(c, CALL.format(module="memory", tool="delete", memo=MEMO))
            missing = await error(c, CALL.format(module="memory", tool="zzzzzz", memo=MEMO))
            assert hidden["code"] == "NOT_FOUND" and hidden["data"]["line"] == 3
            same(hidden, missing, "delete", "zzzzzz")
            same(
                await error(c, CALL.format(module="context", tool="get_context", memo=MEMO)),
                await error(c, CALL.format(module="zzzzzzz", tool="get_context", memo=MEMO)),
                "context",
                "zzzzzzz",
            )
            same(
                await ok(c, TRY.format(module="context", tool="get_context")),
                await ok(c, TRY.format(module="zzzzzzz", tool="get_context")),
                "context",
                "zzzzzzz",
            )
            # what the role allows still runs
            assert await ok(c, "def main():\n    return call('probe', 'count')['calls'] >= 1\n") == {"result": True}
        found = await list_security_events(rt.engine)
    assert {(e.user_id, e.email) for e in found} == {(alice_id, ALICE)}
    assert [(e.kind, e.via, e.module, e.tool) for e in reversed(found)] == [
        ("hidden_tool_call", "script", "memory", "delete"),
        ("unknown_tool_call", "script", "memory", "zzzzzz"),
        ("hidden_tool_call", "script", "context", "get_context"),
        ("unknown_tool_call", "script", "zzzzzzz", "get_context"),
        ("hidden_tool_call", "script", "context", "get_context"),
        ("unknown_tool_call", "script", "zzzzzzz", "get_context"),
    ]
