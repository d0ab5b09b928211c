"""What the account-bound HTTP client per call costs, against one shared client (the old design).

    .venv/bin/python benchmarks/upstream_bench.py [--calls 2000]

Both paths run one GET against an in-process upstream (httpx.MockTransport, so the network is not
measured): (a) a fresh `ServiceClient` per call with its own cookie jar, the credential added by
its `httpx.Auth`, retries and error mapping, as every tool call now gets; (b) one `httpx.AsyncClient`
shared by every call with the header set by hand. Prints p50/p99 per call and the ratio, measured
in one run (the machines here are noisy; compare the ratio, not the absolute figures).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

import httpx

from mcpist.testing import FakeCredentials
from mcpist.upstream import ServiceClient

BASE = "https://api.example.test"


def handler(request: httpx.Request) -> httpx.Response:
    return httpx.Response(200, json={"ok": True}, headers={"Set-Cookie": "sid=1; Path=/"})


async def per_call(transport: httpx.AsyncBaseTransport, calls: int) -> list[float]:
    out = []
    for _ in range(calls):
        start = time.perf_counter()
        async with ServiceClient("bench", BASE, transport=transport, credentials=FakeCredentials("t")) as http:
            await http.get_json("/x")
        out.append(time.perf_counter() - start)
    return out


async def shared(transport: httpx.AsyncBaseTransport, calls: int) -> list[float]:
    out = []
    async with httpx.AsyncClient(transport=transport, base_url=BASE) as http:
        for _ in range(calls):
            start = time.perf_counter()
            response = await http.get("/x", headers={"Authorization": "Bearer t"})
            response.raise_for_status()
            response.json()
            out.append(time.perf_counter() - start)
    return out


def pct(values: list[float], q: float) -> float:
    return sorted(values)[min(len(values) - 1, int(q * len(values)))] * 1000


async def main(calls: int) -> None:
    transport = httpx.MockTransport(handler)
    await per_call(transport, 50)  # warm up imports and caches
    await shared(transport, 50)
    a: list[float] = []
    b: list[float] = []
    for _ in range(max(1, calls // 100)):  # interleaved, so load on the machine hits both alike
        a += await per_call(transport, 100)
        b += await shared(transport, 100)
    print(f"calls: {calls}")
    print(f"per-call ServiceClient: p50 {pct(a, 0.5):.3f} ms  p99 {pct(a, 0.99):.3f} ms")
    print(f"one shared AsyncClient: p50 {pct(b, 0.5):.3f} ms  p99 {pct(b, 0.99):.3f} ms")
    ratio = statistics.median(a) / statistics.median(b)
    print(f"added per call (p50): {pct(a, 0.5) - pct(b, 0.5):.3f} ms; ratio {ratio:.2f}x")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    asyncio.run(main(parser.parse_args().calls))
