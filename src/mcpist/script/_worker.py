"""The sandbox process: runs one Starlark script at a time and asks the server for every tool call.

Started by the pool with the socket it talks over and its memory limit. It imports only the standard
library and starlark, then limits itself (address space, no core dumps, no new files or processes)
before it reports ready; the CPU limit is set afresh for each script. Starlark itself has no file,
network, clock or environment access, and `load` is switched off, so a script reaches the outside
world only through the built-ins below, whose tool calls the server runs as it runs `call`.

The server owns every error code: this side reports what happened (a syntax error at a position, a
tool error by the server's own reference, a limit by name) and the server words the answer.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import resource
import socket
import sys
import time
from typing import Any, NoReturn

import starlark as sl

from ._shaping import SHAPING, NestingError, ScriptError, check_json
from ._wire import HEADER, decode, encode

FILE = "script.star"
SOCKET_FD = 3
_LOCATION = re.compile(r"--> " + re.escape(FILE) + r":(\d+):(\d+)")
_MAX_MESSAGE = 500
_LOOSE_PREFIXES = ("error: ", "ScriptError: ", "NestingError: ", "StarlarkError: ", "_Abort: ")


def _dialect() -> sl.Dialect:
    dialect = sl.Dialect.standard()
    dialect.enable_load = False
    dialect.enable_lambda = True
    dialect.enable_f_strings = True
    dialect.enable_keyword_only_arguments = True
    return dialect


DIALECT = _dialect()
# no print, debug or breakpoint: they would reach this process's streams
GLOBALS = sl.Globals.extended_by(
    [sl.LibraryExtension.Json, sl.LibraryExtension.Map, sl.LibraryExtension.Filter, sl.LibraryExtension.StructType]
)


class _Abort(Exception):
    """Ends the script from inside a built-in; what happened is in `Job.failure`."""


def located(error: BaseException) -> dict[str, Any]:
    """A Starlark error's message (its last `error:` line) and position."""
    text = str(error)
    where = _LOCATION.search(text)
    lines = [line for line in text.splitlines() if line.startswith("error: ")]
    message = lines[-1] if lines else (text.strip().splitlines() or ["error"])[0]
    changed = True
    while changed:
        changed = False
        for prefix in _LOOSE_PREFIXES:
            if message.startswith(prefix):
                message, changed = message[len(prefix) :], True
    if len(message) > _MAX_MESSAGE:
        message = message[: _MAX_MESSAGE - 1] + "…"
    out: dict[str, Any] = {"message": message}
    if where:
        out["line"], out["column"] = int(where.group(1)), int(where.group(2))
    return out


class Channel:
    """The blocking end of the socket to the server."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock

    def send(self, message: dict[str, Any]) -> None:
        self.sock.sendall(encode(message))

    def recv(self) -> dict[str, Any] | None:
        header = self._exactly(HEADER.size)
        if header is None:
            return None
        body = self._exactly(HEADER.unpack(header)[0])
        if body is None:
            return None
        return decode(body)

    def _exactly(self, n: int) -> bytes | None:
        chunks = bytearray()
        while len(chunks) < n:
            chunk = self.sock.recv(min(n - len(chunks), 1 << 20))
            if not chunk:
                return None
            chunks += chunk
        return bytes(chunks)


class Job:
    """One script run: its built-ins, its limits, and how it ended."""

    def __init__(self, channel: Channel, request: dict[str, Any]) -> None:
        self.channel = channel
        self.source: str = request["script"]
        self.args: Any = request["args"]
        limits = request["limits"]
        self.cpu_s: float = limits["cpu_time_s"]
        self.wall_s: float = limits["wall_time_s"]
        self.max_depth: int = limits["max_depth"]
        self.max_nesting: int = limits["max_nesting"]
        self.max_output: int = limits["max_output_bytes"]
        self.failure: dict[str, Any] | None = None
        self.loading = True
        self.cpu_deadline = 0.0
        self.wall_deadline = 0.0

    def run(self) -> dict[str, Any]:
        """How the script ended, as the message for the server."""
        self._start_clocks()
        try:
            return {"op": "done", "value": self._evaluate()}
        except _Phase as exc:
            where = located(exc.cause) if isinstance(exc.cause, sl.StarlarkError) else {"message": str(exc.cause)}
            return self._failed({"kind": exc.phase, **where})
        except _Abort:
            assert self.failure is not None
            return self._failed(self.failure)
        except sl.StarlarkError as exc:
            return self._ended(exc)
        except MemoryError:
            return self._failed({"kind": "limit", "limit": "memory"})
        except Exception as exc:
            return self._failed({"kind": "crash", "message": f"{type(exc).__name__}: {str(exc)[:200]}"})
        except BaseException as exc:
            # a Rust panic (pyo3's PanicException derives from BaseException): out of memory, or a bug
            if "memory" in str(exc).lower():
                return self._failed({"kind": "limit", "limit": "memory"})
            if not type(exc).__name__.endswith("PanicException"):
                raise
            return self._failed({"kind": "crash", "message": f"{type(exc).__name__}: {str(exc)[:200]}"})

    def _start_clocks(self) -> None:
        self.cpu_deadline = time.process_time() + self.cpu_s
        self.wall_deadline = time.monotonic() + self.wall_s
        # the hard stop for work the interpreter cannot interrupt (one huge sort): whole seconds, past
        # the cooperative check below, counted on this process's lifetime CPU
        usage = resource.getrusage(resource.RUSAGE_SELF)
        soft = math.ceil(usage.ru_utime + usage.ru_stime + self.cpu_s) + 1
        _, hard = resource.getrlimit(resource.RLIMIT_CPU)
        resource.setrlimit(resource.RLIMIT_CPU, (soft if hard == resource.RLIM_INFINITY else min(soft, hard), hard))

    def _cancelled(self) -> bool:
        # Starlark asks this about once per thousand loop turns or a few hundred calls
        if time.process_time() > self.cpu_deadline:
            self.failure = {"kind": "limit", "limit": "cpu"}
        elif time.monotonic() > self.wall_deadline:
            self.failure = {"kind": "limit", "limit": "wall"}
        return self.failure is not None

    def _evaluate(self) -> Any:
        try:
            ast = sl.parse(FILE, self.source, DIALECT)
        except sl.StarlarkError as exc:
            raise _Phase("syntax", exc) from None
        module = sl.Module()
        module["args"] = self.args
        for name, fn in self._builtins().items():
            module.add_callable(name, fn)
        options = sl.EvalOptions(check_cancelled=self._cancelled, max_callstack_size=self.max_depth)
        try:
            sl.eval_with(options, module, ast, GLOBALS)
        except sl.StarlarkError as exc:
            if self.failure is not None:
                raise
            raise _Phase("load", exc) from None
        self.loading = False
        frozen = module.freeze()
        try:
            value = frozen.call_with(options, "main").value
        except sl.StarlarkError as exc:
            # an error inside main() has a position; calling main() (none, or with parameters) and converting
            # its result have not
            text = str(exc)
            if self.failure is not None or _LOCATION.search(text) is not None:
                raise
            if "exceeded while converting" in text:
                self.failure = {"kind": "limit", "limit": "nesting"}
                raise _Abort from None
            raise _Phase("result" if "serde::serialize" in text else "main", exc) from None
        return self._output(value)

    def _output(self, value: Any) -> Any:
        try:
            value = check_json(value, self.max_nesting, "the result of main()")
            size = len(json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode())
        except NestingError:
            self.failure = {"kind": "limit", "limit": "nesting"}
            raise _Abort from None
        except (ScriptError, ValueError) as exc:
            raise _Phase("result", exc) from None
        if size > self.max_output:
            self.failure = {"kind": "limit", "limit": "output", "bytes": size}
            raise _Abort
        return value

    def _ended(self, exc: sl.StarlarkError) -> dict[str, Any]:
        where = located(exc)
        position: dict[str, Any] = {k: where[k] for k in ("line", "column") if k in where}
        if self.failure is not None:
            return self._failed({**self.failure, **position})
        text = str(exc)
        if "call stack overflow" in text:
            return self._failed({"kind": "limit", "limit": "depth", **position})
        if "Maximum depth of" in text and "exceeded while converting" in text:
            return self._failed({"kind": "limit", "limit": "nesting", **position})
        if "MemoryError" in text or "out of memory" in text:
            return self._failed({"kind": "limit", "limit": "memory", **position})
        return self._failed({"kind": "runtime", **where})

    def _failed(self, error: dict[str, Any]) -> dict[str, Any]:
        return {"op": "done", "error": error}

    # -- built-ins -----------------------------------------------------------------------------

    def _builtins(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "call": self.call,
            "try_call": self.try_call,
            "call_all": self.call_all,
            "try_call_all": self.try_call_all,
        }
        for name, fn in SHAPING.items():
            out[name] = _shaping(name, fn)
        return out

    def call(self, module: Any, tool: Any, params: Any = None, account: Any = None) -> Any:
        return self._value(self._exchange([self._request("call", module, tool, params, account)])[0])

    def try_call(self, module: Any, tool: Any, params: Any = None, account: Any = None) -> Any:
        return self._envelope(self._exchange([self._request("try_call", module, tool, params, account)])[0])

    def call_all(self, calls: Any) -> list[Any]:
        return [self._value(r) for r in self._exchange(self._requests("call_all", calls))]

    def try_call_all(self, calls: Any) -> list[Any]:
        return [self._envelope(r) for r in self._exchange(self._requests("try_call_all", calls))]

    def _requests(self, name: str, calls: Any) -> list[dict[str, Any]]:
        if not isinstance(calls, list | tuple) or not all(isinstance(c, dict) for c in calls):
            raise ScriptError(f"{name}(): expected a list of {{module, tool, params, account}} objects")
        out = []
        for i, c in enumerate(calls):
            extra = sorted(set(c) - {"module", "tool", "params", "account"})
            if extra:
                raise ScriptError(f"{name}(): call {i} has an unknown field {extra[0]!r}")
            out.append(
                self._request(f"{name}() call {i}", c.get("module"), c.get("tool"), c.get("params"), c.get("account"))
            )
        return out

    def _request(self, name: str, module: Any, tool: Any, params: Any, account: Any) -> dict[str, Any]:
        if self.loading:
            raise ScriptError(f"{name.split('(')[0]}() runs only inside main() and the functions it calls")
        if not isinstance(module, str) or not module or not isinstance(tool, str) or not tool:
            raise ScriptError(f"{name}: module and tool must be non-empty strings")
        if params is None:
            params = {}
        if not isinstance(params, dict):
            raise ScriptError(f"{name}: params must be a dict, not {type(params).__name__}")
        if account is not None and (not isinstance(account, str) or not account):
            raise ScriptError(f"{name}: account must be a non-empty string or None")
        try:
            params = check_json(params, self.max_nesting, f"{name}: params")
        except NestingError:
            self.failure = {"kind": "limit", "limit": "nesting"}
            raise _Abort from None
        return {"module": module, "tool": tool, "params": params, "account": account}

    def _exchange(self, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
        if not calls:
            return []
        self.channel.send({"op": "call", "calls": calls})
        reply = self.channel.recv()
        if reply is None:
            os._exit(0)  # the server is gone
        if "fatal" in reply:
            self.failure = {"kind": "limit", "limit": reply["fatal"]}
            raise _Abort
        results: list[dict[str, Any]] = reply["results"]
        return results

    def _value(self, result: dict[str, Any]) -> Any:
        if result["ok"]:
            return result["value"]
        self.failure = {"kind": "tool", "ref": result["ref"]}
        raise _Abort

    @staticmethod
    def _envelope(result: dict[str, Any]) -> dict[str, Any]:
        if result["ok"]:
            return {"ok": True, "value": result["value"]}
        return {"ok": False, "error": result["error"]}


class _Phase(Exception):
    """The script failed before `main()` ran (syntax, load, no main) or its result is not JSON."""

    def __init__(self, phase: str, cause: BaseException) -> None:
        super().__init__(phase)
        self.phase = phase
        self.cause = cause


def _shaping(name: str, fn: Any) -> Any:
    def builtin(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except TypeError as exc:
            # a wrong number or name of arguments: Python's wording names the function already
            raise ScriptError(f"{name}(): {exc}") from None

    return builtin


def _limit_self(memory_mb: int) -> None:
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    # descriptors 0-2 (/dev/null) and 3 (the socket): no further file or socket can be opened
    resource.setrlimit(resource.RLIMIT_NOFILE, (SOCKET_FD + 1, SOCKET_FD + 1))
    with contextlib.suppress(ValueError, OSError):
        # counted per user: no new process or thread (root is exempt, so this is defence in depth)
        resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))
    limit = memory_mb << 20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def main() -> NoReturn:
    fd, memory_mb = int(sys.argv[1]), int(sys.argv[2])
    if fd != SOCKET_FD:
        os.dup2(fd, SOCKET_FD)
        os.close(fd)
    channel = Channel(socket.socket(fileno=SOCKET_FD))
    try:
        _limit_self(memory_mb)
    except Exception as exc:
        channel.send({"op": "broken", "message": f"{type(exc).__name__}: {exc}"[:_MAX_MESSAGE]})
        sys.exit(1)
    channel.send({"op": "ready"})
    while (request := channel.recv()) is not None:
        channel.send(Job(channel, request).run())
    sys.exit(0)


if __name__ == "__main__":
    main()
