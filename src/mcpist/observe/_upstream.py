"""Requests to external services, attempt by attempt: counted by status, timed and traced.

`ServiceClient` puts `ObservedTransport` between its retries and the shared connection pool, so a
429 that was retried, or a 401 answered by a token refresh and a resend, shows as what it was.
The span and the labels name the service (a module's name) and the method, never the URL: its path
and query can hold ids and keys.
"""

from __future__ import annotations

import time
from typing import Any

import httpx

from . import _tracing, metrics

__all__ = ["ObservedTransport"]


class ObservedTransport(httpx.AsyncBaseTransport):
    """Wraps a shared transport for one service; `aclose()` leaves the shared one open."""

    def __init__(self, inner: httpx.AsyncBaseTransport, service: str) -> None:
        self._inner = inner
        self.service = service

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if not _tracing.active():
            if not metrics.enabled():
                return await self._inner.handle_async_request(request)
            return await self._send(request, None)
        attributes = {"mcpist.service": self.service, "http.request.method": request.method}
        with _tracing.span(f"{self.service} {request.method}", attributes, kind="client") as span:
            return await self._send(request, span)

    async def _send(self, request: httpx.Request, span: Any) -> httpx.Response:
        status = "error"
        started = time.perf_counter()
        try:
            response = await self._inner.handle_async_request(request)
            status = str(response.status_code)
            return response
        except httpx.TimeoutException:
            status = "timeout"
            raise
        except httpx.TransportError:
            status = "unreachable"
            raise
        finally:
            if metrics.enabled():
                metrics.upstream_requests.labels(self.service, status).inc()
                metrics.upstream_request_seconds.labels(self.service).observe(time.perf_counter() - started)
            if span is not None:
                if status.isdigit():
                    span.set_attribute("http.response.status_code", int(status))
                if not status.isdigit() or int(status) >= 500:
                    _tracing.fail(span, status)

    async def aclose(self) -> None:
        """Nothing to release: the inner transport belongs to whoever made it."""
