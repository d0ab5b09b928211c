"""Service calls end to end: two accounts of one service in one batch, no cookie crossing accounts,
and the broker's refresh on a 401, through a real MCP client."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcpist.errors import InvalidArgument
from support import mcp_client
from vault_support import fingerprint, vault_env

pytestmark = pytest.mark.anyio


async def test_one_batch_uses_two_accounts_of_one_service(tmp_path: Path) -> None:
    async with vault_env(tmp_path) as env:
        work = await env.seed_oauth(env.owner.user_id, "work")
        home = await env.seed_oauth(env.owner.user_id, "home")
        async with mcp_client(env.rt) as client:
            schema = (await client.call_tool("get_module_schema", {"module": "gh"})).structured_content
            assert schema["accounts"] == {"names": ["home", "work"], "default": None}
            tasks = "\n".join(
                json.dumps({"id": name, "module": "gh", "tool": "whoami", "account": name, "output": True})
                for name in ("work", "home")
            )
            result = await client.call_tool("batch", {"tasks": tasks})
            assert not result.is_error, result.content
            body = result.structured_content
        assert body["results"]["work"] == {
            "account": "work",
            "owner": "personal",
            "token": fingerprint(work["access_token"]),
        }
        assert body["results"]["home"] == {
            "account": "home",
            "owner": "personal",
            "token": fingerprint(home["access_token"]),
        }
        # each call has its own cookie jar: neither account's session cookie reached the other's request
        assert env.provider.api_cookies == [None, None]
        # without a name, two accounts and no "default" is a question for the caller, not a guess
        with pytest.raises(InvalidArgument, match="several gh accounts fit: home, work"):
            await env.rt.execute(env.owner, "gh", "whoami", {})


async def test_a_cookie_set_for_one_call_is_not_sent_on_the_next(tmp_path: Path) -> None:
    async with vault_env(tmp_path) as env:
        await env.seed_oauth(env.owner.user_id, "default")
        await env.rt.execute(env.owner, "gh", "whoami", {})
        await env.rt.execute(env.owner, "gh", "whoami", {})
        assert env.provider.api_cookies == [None, None]


async def test_a_revoked_token_is_refreshed_mid_call_through_the_mcp_client(tmp_path: Path) -> None:
    async with vault_env(tmp_path) as env:
        first = await env.seed_oauth(env.owner.user_id, "default")
        env.provider.refused.add(first["access_token"])
        async with mcp_client(env.rt) as client:
            result = await client.call_tool("call", {"module": "gh", "tool_name": "whoami"})
        assert not result.is_error, result.content
        assert result.structured_content["token"] == fingerprint(env.provider.issued[-2])
        assert env.provider.refreshes == 1
        assert first["access_token"] not in json.dumps(result.structured_content)
