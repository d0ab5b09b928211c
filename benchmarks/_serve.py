"""A real `mcpist serve` (or another server command) for a benchmark: a free port, the command as it
is installed, an environment without the caller's own `MCPIST_*` settings, a log file, waiting until
the server answers, and stopping it (terminate, then kill) whatever happened meanwhile.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import sys
import time
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from pathlib import Path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def mcpist_command() -> list[str]:
    """`mcpist` beside this Python (the virtualenv's), else on PATH, else the module."""
    script = Path(sys.executable).with_name("mcpist")
    if script.exists():
        return [str(script)]
    found = shutil.which("mcpist")
    return [found] if found else [sys.executable, "-m", "mcpist.cli"]


def clean_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """This process's environment without `MCPIST_*` (a benchmark measures the defaults), plus `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MCPIST_")}
    env.update(extra or {})
    return env


async def create_token(data_dir: Path, env: Mapping[str, str], name: str = "bench") -> str:
    """A new API token for the owner (`mcpist token create`), which also creates the database."""
    process = await asyncio.create_subprocess_exec(
        *mcpist_command(),
        "token",
        "create",
        "--name",
        name,
        "--data-dir",
        str(data_dir),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=dict(env),
    )
    out, err = await process.communicate()
    if process.returncode != 0:
        raise RuntimeError(f"mcpist token create failed: {err.decode(errors='replace')[-2000:]}")
    return out.decode().strip().splitlines()[-1]


async def _answers(host: str, port: int, path: str | None) -> bool:
    """Whether the server accepts a connection (and, with `path`, answers GET `path` with 200)."""
    try:
        reader, writer = await asyncio.open_connection(host, port)
    except OSError:
        return False
    try:
        if path is None:
            return True
        writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n\r\n".encode())
        await writer.drain()
        status = await asyncio.wait_for(reader.readline(), 5)
        return status.split()[1:2] == [b"200"]
    except (OSError, TimeoutError, IndexError):
        return False
    finally:
        writer.close()


def _tail(path: Path) -> str:
    """The end of a server's log (read once, when it has died)."""
    return path.read_text(errors="replace")[-2000:]


@asynccontextmanager
async def running(
    argv: list[str],
    *,
    port: int,
    log_path: Path,
    env: Mapping[str, str],
    ready_path: str | None = "/health",
    ready_timeout_s: float = 60,
    stop_timeout_s: float = 15,
    preexec_fn: Callable[[], None] | None = None,
) -> AsyncIterator[asyncio.subprocess.Process]:
    """Run `argv` (a server on 127.0.0.1:`port`) until the block ends; ready once GET `ready_path`
    answers 200 (None: once it accepts a connection). Its output goes to `log_path`, whose tail is
    in the error when it exits before it is ready."""
    with log_path.open("wb") as log:
        process = await asyncio.create_subprocess_exec(
            *argv, stdout=log, stderr=log, env=dict(env), preexec_fn=preexec_fn, start_new_session=True
        )
    try:
        deadline = time.monotonic() + ready_timeout_s
        while not await _answers("127.0.0.1", port, ready_path):
            if process.returncode is not None:
                tail = _tail(log_path)
                raise RuntimeError(f"{argv[0]} exited with {process.returncode} before it was ready:\n{tail}")
            if time.monotonic() > deadline:
                raise TimeoutError(f"{argv[0]} not ready after {ready_timeout_s:.0f} s; see {log_path}")
            await asyncio.sleep(0.05)
        yield process
    finally:
        if process.returncode is None:
            process.terminate()
        try:
            await asyncio.wait_for(process.wait(), stop_timeout_s)
        except TimeoutError:
            process.kill()
            await process.wait()
