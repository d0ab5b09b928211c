"""The library functions `mcpist role ...`, `mcpist token create --role` and `mcpist events` call."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcpist.errors import InvalidArgument, NotFound
from mcpist.modules.api import Caller
from mcpist.modules.registry import Registry
from mcpist.sieve.cli import (
    create_role,
    format_events,
    format_roles,
    grant_role,
    list_roles,
    list_security_events,
    read_only_allows,
    token_roles_by_token,
)
from sieve_support import create_token
from support import runtime

pytestmark = pytest.mark.anyio


async def test_role_commands_validate_against_installed_modules_and_print(tmp_path: Path) -> None:
    registry = Registry.from_entry_points()
    assert "context" in registry
    async with runtime(tmp_path) as rt:
        allow = read_only_allows(["context.start_session"], ["context"])
        assert allow == ["context.start_session", "context.@read"]
        role = await create_role(
            rt.engine, "notes", allow, ["context.end_session"], "Context, mostly read", registry=registry
        )
        assert role.allow == ("context.start_session", "context.@read")
        with pytest.raises(InvalidArgument, match=r"unknown module 'githb'; installed: .*context"):
            await create_role(rt.engine, "typo", ["githb.*"], registry=registry)
        await grant_role(rt.engine, rt.owner.email, "notes")

        text = format_roles(await list_roles(rt.engine))
        assert text.splitlines() == [
            "admin (built in): Built in: every tool of every module. The owner always holds it.",
            "  allow: *",
            f"  users: {rt.owner.email}",
            "notes: Context, mostly read",
            "  allow: context.@read context.start_session",
            "  deny:  context.end_session",
            f"  users: {rt.owner.email}",
        ]
        assert format_roles([]) == "No roles."

        info, _ = await create_token(rt.engine, "ci", roles=["notes"])
        assert await token_roles_by_token(rt.engine) == {info.id: ("notes",)}

        assert format_events([]) == "No security events."
        caller = Caller(user_id=rt.owner.id, token_id=info.id)
        with pytest.raises(NotFound, match="unknown module 'demo'"):
            await rt.execute(caller, "demo", "echo", {"text": "x"})
        lines = format_events(await list_security_events(rt.engine)).splitlines()
        assert lines[0].split() == ["TIME", "(UTC)", "KIND", "VIA", "USER", "TOKEN", "TOOL"]
        assert lines[1].split()[2:] == ["hidden_tool_call", "call", rt.owner.email, "ci", "demo.echo"]


async def test_a_role_may_name_a_disabled_module_which_is_never_imported(tmp_path: Path) -> None:
    enabled = Registry.from_entry_points(disabled=["memory"])
    assert "memory" not in enabled
    async with runtime(tmp_path) as rt:
        role = await create_role(
            rt.engine, "later", ["memory.search", "context.*"], registry=enabled, unloaded={"memory"}
        )
        assert role.allow == ("memory.search", "context.*")
        with pytest.raises(InvalidArgument, match=r"unknown tool 'nope' of module 'context'"):
            await create_role(rt.engine, "typo", ["context.nope"], registry=enabled, unloaded={"memory"})
