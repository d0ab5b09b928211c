"""`mcpist serve`: one server process, or several workers sharing one port.

Every serving process is a cluster node (`mcpist.cluster`): it also listens on a unix socket of its
own (and, with `cluster.advertise_host`, on a TCP port of its own), so the others can pass it the
requests of the MCP sessions it holds. Workers share the public port with SO_REUSEPORT: the kernel
spreads connections over them. The parent process prepares the data directory once (migrations,
owner, master key), prints the start-up hints, starts the workers, restarts one that dies, and
stops them all on SIGINT/SIGTERM.
"""

from __future__ import annotations

import gc
import hashlib
import logging
import multiprocessing
import os
import signal
import socket
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcpist.cluster import Node, new_node_id
from mcpist.config import Settings, is_loopback
from mcpist.errors import ConfigError
from mcpist.protocol.serving import run_server_loop, uvicorn_config
from mcpist.runtime import Runtime, start_runtime
from mcpist.web.app import create_app
from mcpist.web.ui import setup_link, web_settings

logger = logging.getLogger("mcpist.launch")

__all__ = ["default_workers", "run_dir", "serve", "serve_worker", "worker_settings"]

_UNIX_PATH_MAX = 100  # sun_path holds 108 bytes on Linux, 104 on macOS; keep a margin
_RESTARTS = 5  # a worker dying more often than this within _RESTART_WINDOW_S stops the server
_RESTART_WINDOW_S = 60.0
_STOP_S = 20.0


def default_workers(settings: Settings) -> int:
    """`cluster.workers`, else one per core for a server (bound beyond loopback, on PostgreSQL), else one."""
    if settings.cluster.workers is not None:
        return settings.cluster.workers
    postgres = (settings.database_url or "").startswith("postgres")
    return max(1, os.cpu_count() or 1) if postgres and not is_loopback(settings.host) else 1


def run_dir(data_dir: Path) -> Path:
    """Where this data directory's processes keep their sockets (mode 0700): `<data_dir>/run`, or a
    directory under the system's temporary one when that path is too long for a unix socket."""
    preferred = data_dir / "run"
    if len(str(preferred / "0123456789ab.sock")) <= _UNIX_PATH_MAX:
        path = preferred
    else:
        digest = hashlib.sha256(str(data_dir.resolve()).encode()).hexdigest()[:16]
        path = Path(tempfile.gettempdir()) / f"mcpist-{os.getuid()}-{digest}"
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    if path.stat().st_uid != os.getuid() or path.stat().st_mode & 0o077:
        raise ConfigError(f"{path} must belong to this user and be private (mode 700): it holds MCPist's sockets")
    return path


def bind(host: str, port: int, *, reuse_port: bool = False, listen: bool = True) -> socket.socket:
    """Bind before announcing, so the printed URL (and port 0's real port) is already reachable."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        sock = socket.socket(family, kind, proto)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if reuse_port:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind(address)
    except OSError as exc:
        raise ConfigError(f"cannot listen on host {host!r} port {port}: {exc.strerror or exc}") from None
    if listen:
        sock.listen(2048)
    sock.setblocking(False)
    return sock


def _node_sockets(settings: Settings) -> tuple[Node, list[socket.socket]]:
    """This process's node and the sockets only it listens on: a unix socket, and with
    `cluster.advertise_host` a TCP port the other replicas reach it at."""
    node_id = new_node_id()
    path = run_dir(settings.data_dir) / f"{node_id}.sock"
    path.unlink(missing_ok=True)
    unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    unix.bind(str(path))
    os.chmod(path, 0o600)
    unix.listen(2048)
    unix.setblocking(False)
    advertised = settings.cluster.advertise_host
    if advertised is None:
        return Node(node_id, f"unix:{path}"), [unix]
    own = bind(settings.host, 0)
    return Node(node_id, f"http://{advertised}:{own.getsockname()[1]}"), [unix, own]


def _print_hints(settings: Settings, runtime: Runtime, command: str, link: str | None, workers: int) -> None:
    if runtime.owner_created:
        print(f"First start: created {settings.data_dir} (database, master key, owner user).")
    processes = f" ({workers} workers)" if workers > 1 else ""
    print(f"MCPist {runtime.version} serving MCP at {settings.mcp_url}{processes}")
    if link is not None:
        minutes = web_settings(runtime).setup_link_ttl_s // 60
        print(f"Nobody can sign in yet. Set the owner's email and password within {minutes} minutes (works once):")
        print(f"  {link}")
    print(f"Connect a client: create a token with `{command} token create --name laptop`")
    print(f"  then add the server, e.g. claude mcp add --transport http mcpist {settings.mcp_url} \\")
    print('    --header "Authorization: Bearer <token>"', flush=True)


async def _serve_here(settings: Settings, command: str, public: socket.socket, workers: int, hints: bool) -> None:
    import uvicorn

    node, own = _node_sockets(settings)
    try:
        async with start_runtime(settings) as runtime:
            app = create_app(runtime, command=command, node=node)
            server = uvicorn.Server(uvicorn_config(app, settings))
            if hints:
                _print_hints(settings, runtime, command, await setup_link(runtime), workers)
            # what start-up loaded (modules, models, dictionaries) lives as long as the process: keep it
            # out of the collector's full passes, which otherwise walk it all and stall every request
            gc.collect()
            gc.freeze()
            # a request allocates thousands of short-lived objects: collect the young ones less often
            gc.set_threshold(20_000, 20, 20)
            await server.serve(sockets=[public, *own])
    finally:
        for sock in own:
            if sock.family == socket.AF_UNIX:
                os.unlink(sock.getsockname())
            sock.close()


def serve(settings: Settings, command: str, workers: int | None, worker_entry: Callable[..., None]) -> None:
    """Serve until SIGINT/SIGTERM: in this process, or in `workers` processes started as
    `worker_entry(settings values, command, index)` (a module-level function: it is pickled to the
    child; `worker_settings` turns the values back into settings).

    Raises:
        ConfigError: the address cannot be bound, the workers option is unusable here, or the
            settings are inconsistent.
    """
    count = workers if workers is not None else default_workers(settings)
    if count < 1:
        raise ConfigError(f"--workers must be 1 or more, not {count}")
    if count == 1:
        public = bind(settings.host, settings.port)
        settings = settings.model_copy(update={"port": public.getsockname()[1]})
        run_server_loop(_serve_here(settings, command, public, 1, hints=True))
        return
    if not hasattr(socket, "SO_REUSEPORT"):
        raise ConfigError("--workers needs SO_REUSEPORT (Linux, BSD, macOS); run one process per port instead")
    # the port is chosen (and held) here, so port 0 resolves once for every worker
    reserved = bind(settings.host, settings.port, reuse_port=True, listen=False)
    settings = settings.model_copy(update={"port": reserved.getsockname()[1]})
    run_server_loop(_prepare(settings, command, count))
    _supervise(settings, command, count, worker_entry, reserved)


async def _prepare(settings: Settings, command: str, workers: int) -> None:
    """Create or migrate the data directory once, before the workers race to, and print the hints."""
    async with start_runtime(settings, start_modules=False) as runtime:
        create_app(runtime, command=command)  # checks the host settings and the authorization server's
        _print_hints(settings, runtime, command, await setup_link(runtime), workers)


def worker_settings(values: dict[str, Any]) -> Settings:
    """The parent's settings again, in a worker (they travel as plain values)."""
    return Settings.model_validate(values)


def serve_worker(settings: Settings, command: str, index: int) -> None:
    """One worker's life: its own runtime, the shared port, its node sockets."""
    public = bind(settings.host, settings.port, reuse_port=True)
    logger.info("worker %d (pid %d) serving", index, os.getpid())
    run_server_loop(_serve_here(settings, command, public, 1, hints=False))


def _supervise(
    settings: Settings, command: str, count: int, entry: Callable[..., None], reserved: socket.socket
) -> None:
    context = multiprocessing.get_context("spawn")
    stopping = False

    def stop(signum: int, _frame: Any) -> None:
        nonlocal stopping
        stopping = True

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}

    values = settings.model_dump()  # the settings class itself does not pickle; its values do

    def start(index: int) -> Any:
        process = context.Process(target=entry, args=(values, command, index), name=f"mcpist-worker-{index}")
        process.start()
        return process

    workers = [start(i) for i in range(count)]
    deaths: list[float] = []
    failed = False
    try:
        while not stopping:
            time.sleep(0.5)
            for index, process in enumerate(workers):
                if process.is_alive() or stopping:
                    continue
                now = time.monotonic()
                deaths = [t for t in deaths if now - t < _RESTART_WINDOW_S] + [now]
                if len(deaths) > _RESTARTS:
                    print(
                        f"mcpist: workers keep dying ({len(deaths)} in {_RESTART_WINDOW_S:g} s); stopping. "
                        "The log above says why.",
                        file=sys.stderr,
                    )
                    failed = stopping = True
                    break
                logger.warning("worker %d exited with %s; starting it again", index, process.exitcode)
                workers[index] = start(index)
    finally:
        for process in workers:
            if process.is_alive():
                process.terminate()  # SIGTERM: uvicorn finishes what is in flight
        deadline = time.monotonic() + _STOP_S
        for process in workers:
            process.join(max(0.1, deadline - time.monotonic()))
            if process.is_alive():
                process.kill()
                process.join()
        reserved.close()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if failed:
        raise SystemExit(1)
