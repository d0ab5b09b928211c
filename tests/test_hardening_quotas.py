"""Quotas per token and per user: MCP sessions, tool calls, batch runs. Over quota: a clear error; others unaffected."""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest

from demo_module import demo
from mcpist.modules import Module, ToolContext
from mcpist.modules.api import Caller
from mcpist.protocol.inprocess import in_process_client
from mcpist.runtime import Runtime
from mcpist.sieve import create_role, grant_role
from mcpist.storage.tables import users
from sieve_support import create_token
from support import new_token, runtime, served

pytestmark = pytest.mark.anyio

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
PING = {"jsonrpc": "2.0", "id": 2, "method": "ping"}


async def search_only_token(rt: Runtime) -> str:
    """A token of the owner narrowed to one read-only tool, as the issue's attacker held."""
    await create_role(rt.engine, "searcher", ["demo.echo"], registry=rt.registry)
    await grant_role(rt.engine, rt.owner.email or "", "searcher")
    _, token = await create_token(rt.engine, "search-only", roles=["searcher"])
    return token


async def open_session(http: httpx2.AsyncClient, url: str, token: str) -> httpx2.Response:
    return await http.post(url, json=INIT, headers={**HEADERS, "Authorization": f"Bearer {token}"})


async def ping(http: httpx2.AsyncClient, url: str, token: str, session: str) -> int:
    headers = {**HEADERS, "Authorization": f"Bearer {token}", "Mcp-Session-Id": session}
    headers["Mcp-Protocol-Version"] = "2025-11-25"
    return (await http.post(url, json=PING, headers=headers)).status_code


@asynccontextmanager
async def busy(http: httpx2.AsyncClient, url: str, token: str, session: str) -> AsyncIterator[None]:
    """Keeps a session busy with its standalone GET stream open."""
    headers = {
        "Accept": "text/event-stream",
        "Authorization": f"Bearer {token}",
        "Mcp-Session-Id": session,
        "Mcp-Protocol-Version": "2025-11-25",
    }
    async with http.stream("GET", url, headers=headers) as response:
        assert response.status_code == 200
        yield


def refusal(response: httpx2.Response) -> dict[str, Any]:
    assert response.status_code == 429, response.text
    error: dict[str, Any] = response.json()["error"]
    assert error["message"].startswith("RESOURCE_EXHAUSTED: ")
    return error


async def test_a_token_at_its_session_quota_closes_its_own_idle_sessions_and_the_owner_still_connects(
    tmp_path: Path,
) -> None:
    async with runtime(tmp_path, limits={"sessions_per_token": 3}) as rt:
        attacker, owner = await search_only_token(rt), await new_token(rt, "laptop")
        async with served(rt) as url, httpx2.AsyncClient(timeout=30) as http:
            sessions = []
            for _ in range(8):
                response = await open_session(http, url, attacker)
                assert response.status_code == 200, response.text
                sessions.append(response.headers["mcp-session-id"])
            # only the three most recent are open: each new one closed the least recently used idle one
            assert [await ping(http, url, attacker, s) for s in sessions] == [404] * 5 + [200] * 3
            owners = await open_session(http, url, owner)
            assert owners.status_code == 200
            assert await ping(http, url, owner, owners.headers["mcp-session-id"]) == 200


async def test_a_token_whose_sessions_are_all_busy_is_refused_and_nobody_else_is(tmp_path: Path) -> None:
    async with runtime(tmp_path, limits={"sessions_per_token": 2, "sessions_per_user": 3}) as rt:
        attacker, second, owner = await search_only_token(rt), await new_token(rt, "second"), await new_token(rt)
        other_user = await other_users_token(rt)
        async with served(rt) as url, httpx2.AsyncClient(timeout=30) as http, AsyncExitStack() as streams:
            for _ in range(2):
                session = (await open_session(http, url, attacker)).headers["mcp-session-id"]
                await streams.enter_async_context(busy(http, url, attacker, session))
            error = refusal(await open_session(http, url, attacker))
            assert error["data"]["data"] == {"quota": "limits.sessions_per_token", "limit": 2}
            assert "all are busy" in error["message"]
            # the same user's other token may still open one, up to the user's quota of 3 ...
            third = (await open_session(http, url, second)).headers["mcp-session-id"]
            await streams.enter_async_context(busy(http, url, second, third))
            error = refusal(await open_session(http, url, owner))
            assert error["data"]["data"] == {"quota": "limits.sessions_per_user", "limit": 3}
            # ... and another user is not touched by any of it
            assert (await open_session(http, url, other_user)).status_code == 200
            await streams.aclose()
            # once a stream ends its session is idle again, and makes room
            assert (await open_session(http, url, attacker)).status_code == 200


async def other_users_token(rt: Runtime) -> str:
    async with rt.engine.begin() as conn:
        await conn.execute(users.insert().values(id=str(uuid.uuid4()), email="bob@example.com", created_at=now()))
    await create_role(rt.engine, "echoer", ["demo.echo"], registry=rt.registry)
    await grant_role(rt.engine, "bob@example.com", "echoer")
    _, token = await create_token(rt.engine, "bob", email="bob@example.com")
    return token


def now() -> datetime:
    return datetime.now(UTC)


class IdleClosed(logging.Handler):
    """Sets an event when the session manager closes a session for being idle."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.closed = anyio.Event()

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage().endswith("idle timeout"):
            self.closed.set()


async def test_idle_sessions_close_after_the_configured_idle_time(tmp_path: Path) -> None:
    watch = IdleClosed()
    log = logging.getLogger("mcp.server.streamable_http_manager")
    level = log.level
    log.addHandler(watch)
    log.setLevel(logging.INFO)
    try:
        async with runtime(tmp_path, limits={"session_idle_s": 0.3}) as rt:
            token = await new_token(rt)
            async with served(rt) as url, httpx2.AsyncClient(timeout=30) as http:
                session = (await open_session(http, url, token)).headers["mcp-session-id"]
                with anyio.fail_after(10):
                    await watch.closed.wait()
                assert await ping(http, url, token, session) == 404
    finally:
        log.removeHandler(watch)
        log.setLevel(level)


# tool calls, batches: counted in the runtime, for every transport

held = Module("held", summary="A tool that runs until the test lets it finish")
release: dict[str, anyio.Event] = {}
started: list[str] = []
finished: list[str] = []
progress = {"event": anyio.Event}  # replaced per test: an Event made inside the test's loop


@held.tool(read_only=True)
async def hold(ctx: ToolContext[Any], key: str) -> dict[str, str]:
    """Wait until released."""
    started.append(key)
    progress["now"].set()
    await release[key].wait()
    finished.append(key)
    return {"key": key}


def reset(*keys: str) -> None:
    started.clear()
    finished.clear()
    release.clear()
    release.update({k: anyio.Event() for k in keys})
    progress["now"] = anyio.Event()


async def wait_for(count: int) -> None:
    with anyio.fail_after(10):
        while len(started) < count:
            progress["now"] = anyio.Event()
            await progress["now"].wait()


def caller(rt: Runtime, token: str) -> Caller:
    return Caller(user_id=rt.owner.id, email=rt.owner.email, token_id=token)


def result(answer: Any) -> dict[str, Any]:
    data: dict[str, Any] = answer.structured_content
    return data


async def test_calls_over_a_tokens_quota_are_refused_while_other_tokens_and_batches_proceed(tmp_path: Path) -> None:
    reset("a", "c")
    limits = {"calls_per_token": 2, "calls_per_user": 10}
    async with (
        runtime(tmp_path, [held, demo], limits=limits) as rt,
        in_process_client(rt, caller(rt, "tok-a")) as a,
        in_process_client(rt, caller(rt, "tok-b")) as b,
        anyio.create_task_group() as tg,
    ):
        hold_a = {"module": "held", "tool_name": "hold", "params": {"key": "a"}}
        for _ in range(2):
            tg.start_soon(a.call_tool, "call", hold_a)
        await wait_for(2)
        over = await a.call_tool("call", {"module": "demo", "tool_name": "add", "params": {"a": 1}})
        assert over.is_error
        assert over.structured_content["code"] == "RESOURCE_EXHAUSTED"
        assert over.structured_content["data"] == {"quota": "limits.calls_per_token", "limit": 2}
        assert "this token already has 2 tool calls running" in over.structured_content["message"]
        # another token of the same user is not affected
        answer = await b.call_tool("call", {"module": "demo", "tool_name": "add", "params": {"a": 1}})
        assert result(answer) == {"result": 1}
        # a batch already admitted queues its calls for a slot rather than failing them
        done = anyio.Event()
        answers: list[Any] = []

        async def run_batch() -> None:
            line = {"id": "c", "module": "held", "tool": "hold", "params": {"key": "c"}, "output": True}
            answers.append(await a.call_tool("batch", {"tasks": json.dumps(line)}))
            done.set()

        tg.start_soon(run_batch)
        release["a"].set()
        await wait_for(3)
        assert finished, "the batch's call started before a slot was free"
        release["c"].set()
        with anyio.fail_after(10):
            await done.wait()
        assert result(answers[0])["results"] == {"c": {"key": "c"}}


async def test_batch_runs_over_a_tokens_quota_are_refused(tmp_path: Path) -> None:
    reset("b")
    async with (
        runtime(tmp_path, [held], limits={"batches_per_token": 1}) as rt,
        in_process_client(rt, caller(rt, "tok-a")) as a,
        in_process_client(rt, caller(rt, "tok-b")) as b,
        anyio.create_task_group() as tg,
    ):
        line = json.dumps({"id": "h", "module": "held", "tool": "hold", "params": {"key": "b"}})
        tg.start_soon(a.call_tool, "batch", {"tasks": line})
        await wait_for(1)
        over = await a.call_tool("batch", {"tasks": line})
        assert over.structured_content["code"] == "RESOURCE_EXHAUSTED"
        assert over.structured_content["data"] == {"quota": "limits.batches_per_token", "limit": 1}
        tg.start_soon(b.call_tool, "batch", {"tasks": line})  # another token runs its batch meanwhile
        await wait_for(2)
        release["b"].set()


async def test_a_notification_racing_its_sessions_end_is_answered_once_and_breaks_nothing() -> None:
    from mcpist.protocol.sessions import _answer

    sent: list[dict[str, Any]] = []

    class RacingManager:
        """As the SDK does when a DELETE ends the session under a notification it already accepted."""

        def __init__(self, accept_first: bool) -> None:
            self.accept_first = accept_first

        async def handle_request(self, scope: Any, receive: Any, send: Any) -> None:
            if self.accept_first:
                await send({"type": "http.response.start", "status": 202, "headers": []})
                await send({"type": "http.response.body", "body": b""})
            await send({"type": "http.response.start", "status": 500, "headers": []})
            raise anyio.ClosedResourceError

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def receive() -> dict[str, Any]:
        return {"type": "http.disconnect"}

    await _answer(RacingManager(True), {}, receive, send)  # type: ignore[arg-type]
    assert [m.get("status") for m in sent if m["type"] == "http.response.start"] == [202]
    with pytest.raises(anyio.ClosedResourceError):  # not answered yet: a real failure, left to surface
        await _answer(RacingManager(False), {}, receive, send)  # type: ignore[arg-type]
