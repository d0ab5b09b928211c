"""The warm pool of sandbox processes: started ahead of need, lent out one script at a time, killed and
replaced when a script breaks a limit or the process dies.

Each process talks over its own Unix socket pair; the server's end is non-blocking and awaited with
`anyio.wait_readable`/`wait_writable`, so the pool belongs to no event loop. Processes start lazily
(with the first script) in their own session, with an empty environment and no inherited descriptors
but their socket; whatever is still alive when the pool is closed or collected, or the interpreter
exits, is killed and reaped.
"""

from __future__ import annotations

import logging
import signal
import socket
import subprocess
import sys
import weakref
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio

from mcpist.errors import Unavailable

from ._wire import HEADER, decode, encode

__all__ = ["Lease", "TooLarge", "Worker", "WorkerGone", "WorkerPool"]

logger = logging.getLogger("mcpist.script")

MAX_JOBS = 200
"""Scripts one process runs before it is replaced, so its heap stays young."""
READY_TIMEOUT_S = 20.0
_SRC = str(Path(__file__).resolve().parents[2])
# -I: no PYTHON* variables, no user site-packages, no current directory on the path
_BOOT = f"import sys; sys.path.insert(0, {_SRC!r}); from mcpist.script._worker import main; main()"


class WorkerGone(Exception):
    """The process closed its socket (it ended) or broke the message format."""


class TooLarge(Exception):
    """The process announced a message over the allowed size."""

    def __init__(self, size: int) -> None:
        super().__init__(size)
        self.size = size


class Worker:
    """One sandbox process and the server's end of its socket."""

    def __init__(self, memory_mb: int) -> None:
        ours, theirs = socket.socketpair()
        try:
            self.proc = subprocess.Popen(  # noqa: S603 - our own interpreter and module, no shell
                [sys.executable, "-I", "-c", _BOOT, str(theirs.fileno()), str(memory_mb)],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                pass_fds=[theirs.fileno()],
                env={"RUST_BACKTRACE": "0"},
                cwd="/",
                start_new_session=True,
            )
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        ours.setblocking(False)
        self.sock = ours
        self.ready = False
        self.jobs = 0

    @property
    def pid(self) -> int:
        return self.proc.pid

    async def send(self, message: dict[str, Any]) -> None:
        """Raises: WorkerGone: the process has ended."""
        data = memoryview(encode(message))
        while data:
            try:
                sent = self.sock.send(data)
            except BlockingIOError:
                await anyio.wait_writable(self.sock)
                continue
            except OSError:
                raise WorkerGone from None
            data = data[sent:]

    async def recv(self, max_bytes: int) -> dict[str, Any]:
        """The next message.

        Raises:
            WorkerGone: the process ended or sent something that is not a message.
            TooLarge: the message is over `max_bytes`.
        """
        (size,) = HEADER.unpack(await self._exactly(HEADER.size))
        if size > max_bytes:
            raise TooLarge(size)
        try:
            return decode(await self._exactly(size))
        except ValueError:
            raise WorkerGone from None

    async def _exactly(self, n: int) -> bytes:
        buf = bytearray()
        while len(buf) < n:
            try:
                chunk = self.sock.recv(min(n - len(buf), 1 << 20))
            except BlockingIOError:
                await anyio.wait_readable(self.sock)
                continue
            except OSError:
                raise WorkerGone from None
            if not chunk:
                raise WorkerGone
            buf += chunk
        return bytes(buf)

    async def wait_ready(self) -> None:
        """Raises: Unavailable: the process did not start (the log says why)."""
        try:
            with anyio.fail_after(READY_TIMEOUT_S):
                message = await self.recv(1 << 16)
        except (TimeoutError, WorkerGone, TooLarge):
            message = {}
        if message.get("op") != "ready":
            logger.error(
                "a script sandbox process did not start: %s (exit status %s)",
                str(message.get("message", "no answer"))[:500],
                self.proc.poll(),
            )
            raise Unavailable("the script sandbox could not start; the server log says why")
        self.ready = True

    async def ended(self) -> int:
        """The exit status of a process whose socket closed: negative for a signal."""
        try:
            return await anyio.to_thread.run_sync(self.proc.wait, 5.0)
        except subprocess.TimeoutExpired:
            self.kill()
            return self.proc.returncode

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            try:
                self.proc.wait(5.0)
            except subprocess.TimeoutExpired:
                logger.error("script sandbox process %d did not end after SIGKILL", self.proc.pid)
        self.sock.close()


class Lease:
    """A worker lent to one script; `keep()` returns it to the pool afterwards, otherwise it is replaced."""

    def __init__(self, worker: Worker) -> None:
        self.worker = worker
        self.kept = False

    def keep(self) -> None:
        self.kept = True


def _kill_all(live: set[Worker]) -> None:
    for worker in list(live):
        worker.kill()
    live.clear()


class WorkerPool:
    """`size` sandbox processes, each running one script at a time; a script waits for a free one."""

    def __init__(self, size: int, memory_mb: int) -> None:
        self.size = size
        self.memory_mb = memory_mb
        self._idle: deque[Worker] = deque()
        self._live: set[Worker] = set()
        self._limiter: anyio.CapacityLimiter | None = None
        self._finalizer = weakref.finalize(self, _kill_all, self._live)

    def pids(self) -> list[int]:
        """The processes alive now, idle or busy."""
        return sorted(w.pid for w in self._live)

    def close(self) -> None:
        """Kill every process; the pool starts new ones if it is used again."""
        _kill_all(self._live)
        self._idle.clear()

    @asynccontextmanager
    async def lease(self) -> AsyncIterator[Lease]:
        """A ready worker for one script.

        Raises:
            Unavailable: no sandbox process could be started.
        """
        if self._limiter is None:
            self._limiter = anyio.CapacityLimiter(self.size)
        async with self._limiter:
            lease = Lease(await self._ready_worker())
            try:
                yield lease
            finally:
                worker = lease.worker
                worker.jobs += 1
                if lease.kept and worker.jobs < MAX_JOBS and worker.proc.poll() is None:
                    self._idle.append(worker)
                else:
                    self._discard(worker)
                self._top_up()

    async def _ready_worker(self) -> Worker:
        self._top_up()
        while True:
            try:
                worker = self._idle.popleft() if self._idle else self._spawn()
            except OSError:
                logger.exception("a script sandbox process could not be started")
                raise Unavailable("the script sandbox could not start; the server log says why") from None
            if worker.proc.poll() is not None:
                # died while idle (killed from outside, say): replace it
                logger.warning("script sandbox process %d ended while idle (%s)", worker.pid, worker.proc.returncode)
                self._discard(worker)
                continue
            if not worker.ready:
                try:
                    await worker.wait_ready()
                except BaseException:
                    self._discard(worker)
                    raise
            return worker

    def _spawn(self) -> Worker:
        worker = Worker(self.memory_mb)
        self._live.add(worker)
        return worker

    def _discard(self, worker: Worker) -> None:
        worker.kill()
        self._live.discard(worker)

    def _top_up(self) -> None:
        try:
            while len(self._live) < self.size:
                self._idle.append(self._spawn())
        except OSError:
            # out of processes or descriptors: the next script starts one itself, or says why it cannot
            logger.exception("a script sandbox process could not be started")
