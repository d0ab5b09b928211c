"""The sandbox processes themselves: warm reuse, their OS limits, and replacement after a crash or a limit."""

from __future__ import annotations

import os
import signal
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from mcpist.config import ScriptSettings
from mcpist.errors import Internal, InvalidArgument, ResourceExhausted, Unavailable
from mcpist.script import ScriptHost, ToolCall, _pool

pytestmark = pytest.mark.anyio

TRIVIAL = "def main():\n    return 1\n"


@pytest.fixture
async def host() -> AsyncIterator[ScriptHost]:
    h = ScriptHost(ScriptSettings(workers=1, memory_mb=96, cpu_time_s=0.3))
    try:
        yield h
    finally:
        h.close()


async def echo(call: ToolCall) -> Any:
    return {"tool": call.tool, "params": call.params}


def limits_of(pid: int) -> dict[str, tuple[str, str]]:
    out = {}
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines()[1:]:
        name, soft, hard = line[:26].strip(), line[26:47].strip(), line[47:68].strip()
        out[name] = (soft, hard)
    return out


def environment_of(pid: int) -> bytes:
    return Path(f"/proc/{pid}/environ").read_bytes()


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


async def test_a_warm_process_serves_script_after_script(host: ScriptHost) -> None:
    assert host.pool.pids() == []  # nothing starts before the first script
    assert await host.run(TRIVIAL, {}, echo) == 1
    pids = host.pool.pids()
    assert len(pids) == 1
    for i in range(5):
        script = f"def main():\n    return call('m', 't', {{'i': {i}}})\n"
        assert await host.run(script, {}, echo) == {"tool": "t", "params": {"i": i}}
    assert host.pool.pids() == pids


async def test_the_process_is_limited_and_sees_nothing_of_the_server(host: ScriptHost) -> None:
    await host.run(TRIVIAL, {}, echo)
    (pid,) = host.pool.pids()
    limits = limits_of(pid)
    assert limits["Max address space"] == (str(96 << 20), str(96 << 20))
    assert limits["Max core file size"] == ("0", "0")
    assert limits["Max file size"] == ("0", "0")
    assert limits["Max processes"] == ("0", "0")
    assert int(limits["Max open files"][0]) <= 5
    assert int(limits["Max cpu time"][0]) <= 5, limits  # set for each script: its 0.3 s, rounded up, plus 1
    assert environment_of(pid) == b"RUST_BACKTRACE=0\x00"
    assert os.readlink(f"/proc/{pid}/cwd") == "/"
    assert sorted(os.listdir(f"/proc/{pid}/fd")) == ["0", "1", "2", "3"]
    assert os.getsid(pid) == pid  # its own session: a terminal's Ctrl-C does not reach it


async def test_a_process_killed_while_idle_is_replaced(host: ScriptHost) -> None:
    await host.run(TRIVIAL, {}, echo)
    (pid,) = host.pool.pids()
    os.kill(pid, signal.SIGKILL)
    assert await host.run(TRIVIAL, {}, echo) == 1
    assert host.pool.pids() != [pid] and gone(pid)


async def test_a_process_that_dies_mid_script_is_an_internal_error_and_is_replaced(host: ScriptHost) -> None:
    await host.run(TRIVIAL, {}, echo)
    (pid,) = host.pool.pids()

    async def crash(call: ToolCall) -> Any:
        os.kill(pid, signal.SIGKILL)
        return {}

    with pytest.raises(Internal) as raised:
        await host.run("def main():\n    call('m', 't')\n    return 2\n", {}, crash)
    assert "request id" in raised.value.message
    assert gone(pid)
    assert await host.run(TRIVIAL, {}, echo) == 1
    assert host.pool.pids() != [pid]


async def test_a_process_that_broke_a_limit_is_replaced(host: ScriptHost) -> None:
    await host.run(TRIVIAL, {}, echo)
    (pid,) = host.pool.pids()
    with pytest.raises(ResourceExhausted):
        await host.run("def main():\n    for a in range(100000000):\n        pass\n", {}, echo)
    assert gone(pid)
    assert await host.run(TRIVIAL, {}, echo) == 1


async def test_a_failing_script_keeps_its_process(host: ScriptHost) -> None:
    await host.run(TRIVIAL, {}, echo)
    pids = host.pool.pids()
    for script in ("def main(:\n", "def main():\n    fail('x')\n"):
        with pytest.raises(InvalidArgument):
            await host.run(script, {}, echo)
    assert host.pool.pids() == pids


async def test_close_kills_every_process(host: ScriptHost) -> None:
    await host.run(TRIVIAL, {}, echo)
    (pid,) = host.pool.pids()
    host.close()
    assert host.pool.pids() == [] and gone(pid)
    assert await host.run(TRIVIAL, {}, echo) == 1  # used again: a new pool of processes


async def test_a_sandbox_that_cannot_start_is_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_pool, "_BOOT", "raise SystemExit(3)")
    pool = _pool.WorkerPool(1, 96)
    try:
        with pytest.raises(Unavailable, match="could not start"):
            async with pool.lease():
                pass
    finally:
        pool.close()
