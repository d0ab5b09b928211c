"""Load from `wrk` (Debian's package): a generator written in C, for measuring several workers.

With two workers on a two-core machine the load generator has to share the cores with the servers,
so its own cost per call decides how much of the second core is left to measure: the Python
generator in `throughput_bench.py` spends a few hundred microseconds of CPU per call, as much as a
third of what the server spends; wrk spends a few microseconds. The requests are the ones the SDK's
client sent (captured once), replayed with a fresh JSON-RPC id each; in 2025-11-25 mode every
request carries one of the sessions opened beforehand, in turn.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from typing import Any

JSONRPC_ID = re.compile(rb'"id":\s*(\d+|"[^"]*")')
"""A captured request's JSON-RPC id (the first `"id"` member of its body), replaced per call."""
_SKIP = {"host", "content-length", "mcp-session-id"}

_SCRIPT = """
local path, headers, prefix, suffix, openings = %(path)s, %(headers)s, %(prefix)s, %(suffix)s, %(openings)s
local threads = {}
-- globals, so that the main state can read them from each thread (thread:get) and set offset
counter, errors, offset, sample, step, session = 0, 0, 0, nil, 0, nil

function setup(thread)
  thread:set("offset", #threads * 100000000)
  table.insert(threads, thread)
end

-- wrk calls request() once more, to check the script, in the first thread's state: so request()
-- only reads `step`, which response() advances
function request()
  if session then headers["Mcp-Session-Id"] = session end
  if step < #openings then
    return wrk.format("POST", path, headers, openings[step + 1])
  end
  counter = counter + 1
  return wrk.format("POST", path, headers, prefix .. (offset + counter) .. suffix)
end

function response(status, hdrs, body)
  if step < #openings then
    step = step + 1
    session = session or hdrs["mcp-session-id"] or hdrs["Mcp-Session-Id"]
    if status >= 300 then
      errors = errors + 1
      sample = sample or (tostring(status) .. " " .. string.sub(body, 1, 200))
    end
    return
  end
  if status ~= 200 or not string.find(body, '"result"', 1, true) or string.find(body, '"isError":true', 1, true) then
    errors = errors + 1
    sample = sample or (tostring(status) .. " " .. string.sub(body, 1, 200))
  end
end

function done(summary, latency, requests)
  local failed, calls, example = 0, 0, ""
  for _, t in ipairs(threads) do
    failed = failed + (t:get("errors") or 0)
    calls = calls + (t:get("counter") or 0)
    example = example .. (t:get("sample") or "")
  end
  io.write("WRK_RESULT " .. string.format(
    '{"requests": %%d, "calls": %%d, "duration_us": %%d, "errors": %%d, "socket_errors": %%d, '
    .. '"p50_us": %%d, "p99_us": %%d}',
    summary.requests, calls, summary.duration, failed,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    latency:percentile(50), latency:percentile(99)) .. "\\n")
  if example ~= "" then io.write("WRK_SAMPLE " .. example .. "\\n") end
end
"""


def available() -> str | None:
    """The wrk executable, when installed (`apt-get install -y wrk`)."""
    return shutil.which("wrk")


def _lua(value: Any) -> str:
    """A Lua literal for a string, a list of strings or a dict of strings."""
    if isinstance(value, str):
        return json.dumps(value)  # JSON string escapes are valid Lua escapes for this ASCII input
    if isinstance(value, list):
        return "{" + ", ".join(_lua(v) for v in value) + "}"
    return "{" + ", ".join(f"[{_lua(k)}] = {_lua(v)}" for k, v in value.items()) + "}"


@dataclass
class WrkRound:
    requests: int
    errors: int
    wall_s: float
    p50_ms: float
    p99_ms: float


async def run(
    url: str,
    path: str,
    headers: list[tuple[str, str]],
    body: bytes,
    openings: list[bytes],
    clients: int,
    seconds: float,
) -> WrkRound:
    """One wrk run of `seconds` with `clients` keep-alive connections; the figures it printed.

    With `openings` (2025-11-25: initialize, notifications/initialized) every connection opens its
    own session first, on its own wrk thread (so that the session stays with the connection, and
    so with the worker that accepted it, as with a real client); otherwise one thread drives all.
    """
    threads = clients if openings else 1
    match = JSONRPC_ID.search(body)
    if match is None:
        raise ValueError("the captured request has no JSON-RPC id")
    values = {
        "path": _lua(path),
        "headers": _lua({k: v for k, v in headers if k.lower() not in _SKIP}),
        "prefix": _lua(body[: match.start()].decode() + '"id":'),
        "suffix": _lua(body[match.end() :].decode()),
        "openings": _lua([o.decode() for o in openings]),
    }
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(_SCRIPT % values)
    try:
        process = await asyncio.create_subprocess_exec(
            available() or "wrk",
            f"-t{threads}",
            f"-c{clients}",
            f"-d{max(1, round(seconds))}s",
            "--latency",
            "-s",
            script.name,
            url,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        out, _ = await process.communicate()
    finally:
        os.unlink(script.name)
    text = out.decode(errors="replace")
    line = next((x for x in text.splitlines() if x.startswith("WRK_RESULT ")), None)
    if line is None:
        raise RuntimeError(f"wrk printed no result:\n{text[-2000:]}")
    got = json.loads(line.removeprefix("WRK_RESULT "))
    sample = next((x for x in text.splitlines() if x.startswith("WRK_SAMPLE ")), None)
    if sample:
        print(f"  wrk: {got['errors']} failed calls, e.g. {sample.removeprefix('WRK_SAMPLE ')}")
    return WrkRound(
        requests=got["requests"] - threads * len(openings),
        errors=got["errors"] + got["socket_errors"],
        wall_s=got["duration_us"] / 1e6,
        p50_ms=got["p50_us"] / 1000,
        p99_ms=got["p99_us"] / 1000,
    )
