"""The access log at a cost that does not grow with the traffic it describes.

`access_log = "summary"` (the default) writes one line per failed (status 400 and up) or slow
request, as uvicorn's access log would, and every `interval_s` one line that sums up the rest:
requests by status class and latency percentiles. A line per successful request, which is most of
them, costs a formatted record on the hot path (~6% of a trivial call's CPU); `"all"` still gives
uvicorn's line per request, `"off"` none at all. Query strings are redacted as everywhere else.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from typing import Literal

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .serving import redact

__all__ = ["AccessLogMode", "AccessSummary"]

AccessLogMode = Literal["summary", "all", "off"]

logger = logging.getLogger("mcpist.access")

_KEEP = 2048  # latencies kept per interval for the percentiles (a uniform sample beyond)


class AccessSummary:
    """ASGI middleware: failed and slow requests one by one, the rest summed up every `interval_s`."""

    def __init__(self, app: ASGIApp, slow_s: float = 1.0, interval_s: float = 60.0) -> None:
        self.app = app
        self.slow_s = slow_s
        self.interval_s = interval_s
        self._since = time.monotonic()
        self._classes: Counter[str] = Counter()
        self._seen = 0
        self._latencies: list[float] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        began = time.monotonic()
        status = 500  # what the client gets when the application fails before answering

        async def watch(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, watch)
        finally:
            self._record(scope, status, time.monotonic() - began)

    def _record(self, scope: Scope, status: int, elapsed: float) -> None:
        if status >= 400 or elapsed >= self.slow_s:
            client = scope.get("client")
            who = f"{client[0]}:{client[1]}" if client else "-"
            path = scope.get("path", "")
            query = scope.get("query_string", b"")
            target = redact(f"{path}?{query.decode('latin-1')}") if query else path
            logger.info(
                '%s - "%s %s HTTP/%s" %d %.0fms',
                who,
                scope.get("method", ""),
                target,
                scope.get("http_version", "1.1"),
                status,
                elapsed * 1000,
            )
        self._classes[f"{status // 100}xx"] += 1
        self._seen += 1
        if len(self._latencies) < _KEEP:
            self._latencies.append(elapsed)
        elif self._seen % (self._seen // _KEEP + 1) == 0:
            self._latencies[self._seen % _KEEP] = elapsed
        now = time.monotonic()
        if now - self._since >= self.interval_s:
            self._flush(now)

    def _flush(self, now: float) -> None:
        ordered = sorted(self._latencies)
        total = sum(self._classes.values())
        classes = ", ".join(f"{k} {v}" for k, v in sorted(self._classes.items()))
        logger.info(
            "%d requests in the last %.0f s (%s), p50 %.1f ms, p99 %.1f ms",
            total,
            now - self._since,
            classes,
            1000 * ordered[len(ordered) // 2],
            1000 * ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))],
        )
        self._since = now
        self._classes.clear()
        self._seen = 0
        self._latencies = []
