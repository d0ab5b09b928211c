"""End to end: `mcpist serve` and `mcpist stdio` as real processes, driven by the SDK's client."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from mcp import Client, StdioServerParameters

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

MCPIST = str(Path(sys.executable).parent / "mcpist")
MODES = ["legacy", "2026-07-28"]
START_TIMEOUT_S = 60


def run_cli(*args: str, data_dir: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [MCPIST, *args, "--data-dir", str(data_dir)], capture_output=True, text=True, timeout=60, check=False
    )


class Served:
    def __init__(self, data_dir: Path) -> None:
        self.proc = subprocess.Popen(
            [MCPIST, "serve", "--port", "0", "--data-dir", str(data_dir)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.url = self._wait_for_url()
        self.stderr = ""

    def _wait_for_url(self) -> str:
        found: list[str] = []
        ready = threading.Event()

        def read() -> None:
            assert self.proc.stdout is not None
            for line in self.proc.stdout:
                match = re.search(r"serving MCP at (http://\S+)", line)
                if match:
                    found.append(match.group(1))
                    ready.set()
            ready.set()

        threading.Thread(target=read, daemon=True).start()
        if not ready.wait(START_TIMEOUT_S) or not found:
            self.proc.kill()
            raise AssertionError(f"mcpist serve did not start: {self.proc.communicate()[1][-2000:]}")
        return found[0]

    def stop(self) -> None:
        self.proc.terminate()
        try:
            _, self.stderr = self.proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            _, self.stderr = self.proc.communicate()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Served, str, Path]]:
    data_dir = tmp_path_factory.mktemp("e2e")
    created = run_cli("token", "create", "--name", "e2e", data_dir=data_dir)
    assert created.returncode == 0, created.stderr
    token = created.stdout.strip().splitlines()[-1]
    server = Served(data_dir)
    yield server, token, data_dir
    server.stop()
    assert token not in server.stderr


def test_first_start_creates_key_database_and_owner(served: tuple[Served, str, Path]) -> None:
    _, _, data_dir = served
    key = data_dir / "master.key"
    assert key.stat().st_size == 32
    assert key.stat().st_mode & 0o777 == 0o600
    assert (data_dir / "mcpist.db").stat().st_mode & 0o077 == 0


def test_health_over_real_http(served: tuple[Served, str, Path]) -> None:
    server, _, _ = served
    response = httpx.get(server.url.removesuffix("/mcp") + "/health", timeout=10)
    assert response.status_code == 200
    assert response.json()["database"] is True


def test_mcp_without_token_is_401(served: tuple[Served, str, Path]) -> None:
    server, _, _ = served
    response = httpx.post(server.url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, timeout=10)
    assert response.status_code == 401
    assert "resource_metadata=" in response.headers["www-authenticate"]


@pytest.mark.parametrize("mode", MODES)
async def test_http_client_both_revisions(served: tuple[Served, str, Path], mode: str) -> None:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    server, token, _ = served
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http,
        Client(streamable_http_client(server.url, http_client=http), mode=mode) as client,
    ):
        names = [t.name for t in (await client.list_tools()).tools]
        assert names == ["get_module_schema", "call", "batch", "run_script"]
        started = await client.call_tool("call", {"module": "context", "tool_name": "start_session", "params": {}})
        assert not started.is_error, started.content
        session_id = started.structured_content["session_id"]
        listed = await client.call_tool(
            "batch",
            {
                "tasks": json.dumps(
                    {"id": "s", "module": "context", "tool": "list_sessions", "params": {}, "output": True}
                )
            },
        )
        assert session_id in json.dumps(listed.structured_content)


@pytest.mark.parametrize("mode", MODES)
async def test_stdio_both_revisions(tmp_path: Path, mode: str) -> None:
    params = StdioServerParameters(
        command=MCPIST, args=["stdio", "--data-dir", str(tmp_path)], env={**os.environ, "MCPIST_LOG_LEVEL": "WARNING"}
    )
    async with Client(params, mode=mode) as client:
        names = [t.name for t in (await client.list_tools()).tools]
        assert names == ["get_module_schema", "call", "batch", "run_script"]
        schema = await client.call_tool("get_module_schema", {"module": "context"})
        assert not schema.is_error
        assert any(t["name"] == "add_turn" for t in schema.structured_content["tools"])
