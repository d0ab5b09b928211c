"""Retries at the transport, so every service module gets the same patience and no module writes a loop."""

from __future__ import annotations

import email.utils
import logging
import math
import random
import time
from collections.abc import Awaitable, Callable

import anyio
import httpx

__all__ = ["RETRY_AFTER_EXTENSION", "RETRY_EXTENSION", "RetryTransport", "retry_after_s"]

RETRY_EXTENSION = "mcpist_retry"
"""Request extension: True marks an idempotent PUT/DELETE/POST as safe to retry, False turns retries off."""

RETRY_AFTER_EXTENSION = "mcpist_retry_after_s"
"""Response extension: the wait the upstream asked for, as the transport computed it."""

_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_RETRY_STATUSES = frozenset({429, 502, 503, 504})
# a read timeout may mean the request was processed, so it is retried only for requests safe to repeat
_RETRY_ERRORS = (httpx.ConnectError, httpx.ConnectTimeout, httpx.RemoteProtocolError, httpx.ReadTimeout)

logger = logging.getLogger("mcpist.upstream")


def retry_after_s(headers: httpx.Headers, status: int, now: float) -> float | None:
    """Seconds the upstream asked us to wait: `Retry-After` (seconds or HTTP-date), else GitHub's rate-limit reset.

    `now` is the wall-clock time in epoch seconds. None when the response names no wait.
    """
    value = headers.get("retry-after")
    if value:
        value = value.strip()
        seconds: float | None
        try:
            seconds = float(value)
        except ValueError:
            seconds = _seconds_until_date(value, now)
        if seconds is not None and math.isfinite(seconds):
            return max(0.0, seconds)
    if status in (403, 429) and headers.get("x-ratelimit-remaining", "").strip() == "0":
        try:
            reset = float(headers.get("x-ratelimit-reset", ""))
        except ValueError:
            return None
        if math.isfinite(reset):
            return max(0.0, reset - now)
    return None


def _seconds_until_date(value: str, now: float) -> float | None:
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        return None
    return when.timestamp() - now


class Borrowed(httpx.AsyncBaseTransport):
    """Another owner's transport (a shared connection pool): requests go through, `aclose()` leaves it open."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self._inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        """Nothing to release: the inner transport belongs to whoever made it."""


class RetryTransport(httpx.AsyncBaseTransport):
    """Retries requests that are safe to repeat on 429/502/503/504, GitHub rate limits and connection failures.

    Safe means GET, HEAD, OPTIONS, or a request whose extensions hold `mcpist_retry: True`. At most `tries`
    attempts within `deadline_s`; when the next wait would pass the deadline the last response is returned as is
    (or the last connection error raised). The inner transport is shared: `aclose()` leaves it open.
    """

    def __init__(
        self,
        inner: httpx.AsyncBaseTransport,
        *,
        tries: int = 3,
        deadline_s: float = 30.0,
        base_s: float = 0.5,
        cap_s: float = 8.0,
        sleep: Callable[[float], Awaitable[None]] = anyio.sleep,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
        jitter: Callable[[], float] = random.random,
    ) -> None:
        if tries < 1:
            raise ValueError("tries must be at least 1")
        self._inner = inner
        self._tries = tries
        self._deadline_s = deadline_s
        self._base_s = base_s
        self._cap_s = cap_s
        self._sleep = sleep
        self._clock = clock
        self._wall_clock = wall_clock
        self._jitter = jitter

    def __repr__(self) -> str:
        return f"RetryTransport(tries={self._tries}, deadline_s={self._deadline_s})"

    async def aclose(self) -> None:
        """Nothing to release: the inner transport belongs to whoever made it."""

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if not self._retryable(request):
            return await self._inner.handle_async_request(request)
        # a streamed body can be sent once; reading it makes it replayable
        await request.aread()
        deadline = self._clock() + self._deadline_s
        attempt = 1
        while True:
            try:
                response = await self._inner.handle_async_request(request)
            except _RETRY_ERRORS as exc:
                wait = self._backoff(attempt)
                if attempt >= self._tries or self._clock() + wait > deadline:
                    raise
                self._log(request, type(exc).__name__, attempt, wait)
                await self._sleep(wait)
                attempt += 1
                continue
            hint = retry_after_s(response.headers, response.status_code, self._wall_clock())
            if hint is not None:
                response.extensions[RETRY_AFTER_EXTENSION] = hint
            if not _should_retry(response.status_code, hint) or attempt >= self._tries:
                return response
            wait = hint if hint is not None else self._backoff(attempt)
            if self._clock() + wait > deadline:
                return response
            await response.aclose()
            self._log(request, str(response.status_code), attempt, wait)
            await self._sleep(wait)
            attempt += 1

    def _retryable(self, request: httpx.Request) -> bool:
        marked = request.extensions.get(RETRY_EXTENSION)
        if marked is not None:
            return bool(marked)
        return request.method.upper() in _SAFE_METHODS

    def _backoff(self, attempt: int) -> float:
        # full jitter: many clients hit by the same outage do not come back in step
        return self._jitter() * min(self._cap_s, self._base_s * 2.0 ** (attempt - 1))

    def _log(self, request: httpx.Request, outcome: str, attempt: int, wait: float) -> None:
        url = request.url
        logger.info(
            "retrying %s %s://%s%s after %s (attempt %d of %d, waiting %.2f s)",
            request.method,
            url.scheme,
            url.netloc.decode("ascii", "replace"),
            url.path,
            outcome,
            attempt,
            self._tries,
            wait,
        )


def _should_retry(status: int, hint: float | None) -> bool:
    # a 403 is retried only when it is GitHub saying "rate limited until reset"
    return status in _RETRY_STATUSES or (status == 403 and hint is not None)
