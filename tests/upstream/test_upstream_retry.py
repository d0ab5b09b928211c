"""RetryTransport: bounded, polite retries of requests that are safe to repeat."""

from __future__ import annotations

import email.utils
import logging
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import httpx
import pytest
from upstream_fakes import BASE, FakeTime, SharedTransport, make_client

from mcpist.errors import Unavailable
from mcpist.upstream import RETRY_EXTENSION, RetryTransport

NOW = 1_700_000_000.0


def replies(*answers: httpx.Response | Exception) -> Callable[[httpx.Request], httpx.Response]:
    """A handler giving `answers` in turn, then the last one forever."""
    queue = list(answers)

    def handler(request: httpx.Request) -> httpx.Response:
        answer = queue.pop(0) if len(queue) > 1 else queue[0]
        if isinstance(answer, Exception):
            raise answer
        return answer

    return handler


def retrying(
    handler: Callable[[httpx.Request], httpx.Response], time: FakeTime, **options: Any
) -> tuple[httpx.AsyncClient, SharedTransport]:
    inner = SharedTransport(handler)
    options.setdefault("jitter", lambda: 1.0)
    transport = RetryTransport(inner, sleep=time.sleep, clock=time.clock, wall_clock=lambda: NOW, **options)
    return httpx.AsyncClient(transport=transport, base_url=BASE), inner


@pytest.mark.anyio
async def test_a_503_is_retried_then_succeeds() -> None:
    time = FakeTime()
    client, inner = retrying(replies(httpx.Response(503), httpx.Response(200, json={"ok": True})), time)
    async with client:
        response = await client.get("/x")
    assert response.status_code == 200
    assert len(inner.seen) == 2
    assert time.waits == [0.5]


@pytest.mark.anyio
@pytest.mark.parametrize("status", [429, 502, 503, 504])
async def test_retryable_statuses(status: int) -> None:
    time = FakeTime()
    client, inner = retrying(replies(httpx.Response(status), httpx.Response(200)), time)
    async with client:
        assert (await client.get("/x")).status_code == 200
    assert len(inner.seen) == 2


@pytest.mark.anyio
@pytest.mark.parametrize("status", [400, 401, 403, 404, 500, 501])
async def test_other_statuses_are_not_retried(status: int) -> None:
    time = FakeTime()
    client, inner = retrying(replies(httpx.Response(status)), time)
    async with client:
        assert (await client.get("/x")).status_code == status
    assert len(inner.seen) == 1
    assert time.waits == []


@pytest.mark.anyio
async def test_retry_after_seconds_is_honoured() -> None:
    time = FakeTime()
    client, _ = retrying(replies(httpx.Response(429, headers={"Retry-After": "7"}), httpx.Response(200)), time)
    async with client:
        await client.get("/x")
    assert time.waits == [7.0]


@pytest.mark.anyio
async def test_retry_after_http_date_is_honoured() -> None:
    time = FakeTime()
    date = email.utils.formatdate(NOW + 12, usegmt=True)
    client, _ = retrying(replies(httpx.Response(503, headers={"Retry-After": date}), httpx.Response(200)), time)
    async with client:
        await client.get("/x")
    assert time.waits == [12.0]


@pytest.mark.anyio
async def test_github_rate_limit_reset_is_honoured_on_403() -> None:
    time = FakeTime()
    limited = httpx.Response(403, headers={"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(NOW) + 5)})
    client, inner = retrying(replies(limited, httpx.Response(200)), time)
    async with client:
        assert (await client.get("/x")).status_code == 200
    assert time.waits == [5.0]
    assert len(inner.seen) == 2


@pytest.mark.anyio
async def test_at_most_three_tries_by_default() -> None:
    time = FakeTime()
    client, inner = retrying(replies(httpx.Response(503)), time)
    async with client:
        assert (await client.get("/x")).status_code == 503
    assert len(inner.seen) == 3
    assert len(time.waits) == 2


@pytest.mark.anyio
async def test_backoff_doubles_and_is_capped() -> None:
    time = FakeTime()
    client, _ = retrying(replies(httpx.Response(502)), time, tries=8, deadline_s=1000)
    async with client:
        await client.get("/x")
    assert time.waits == [0.5, 1.0, 2.0, 4.0, 8.0, 8.0, 8.0]


@pytest.mark.anyio
async def test_backoff_is_jittered_below_the_bound() -> None:
    time = FakeTime()
    client, _ = retrying(replies(httpx.Response(502)), time, tries=4, jitter=lambda: 0.25)
    async with client:
        await client.get("/x")
    assert time.waits == [0.125, 0.25, 0.5]


@pytest.mark.anyio
async def test_post_is_not_retried() -> None:
    time = FakeTime()
    client, inner = retrying(replies(httpx.Response(503), httpx.Response(200)), time)
    async with client:
        assert (await client.post("/x", json={"a": 1})).status_code == 503
    assert len(inner.seen) == 1


@pytest.mark.anyio
async def test_a_marked_put_is_retried_with_its_body() -> None:
    time = FakeTime()
    client, inner = retrying(replies(httpx.Response(503), httpx.Response(200)), time)
    async with client:
        response = await client.put("/x", json={"a": 1}, extensions={RETRY_EXTENSION: True})
    assert response.status_code == 200
    assert [request.content for request in inner.seen] == [b'{"a":1}', b'{"a":1}']


@pytest.mark.anyio
async def test_a_streamed_body_of_a_marked_request_is_replayed() -> None:
    async def body() -> AsyncIterator[bytes]:
        yield b"part-1 "
        yield b"part-2"

    time = FakeTime()
    client, inner = retrying(replies(httpx.Response(503), httpx.Response(200)), time)
    async with client:
        await client.put("/x", content=body(), extensions={RETRY_EXTENSION: True})
    assert [request.content for request in inner.seen] == [b"part-1 part-2"] * 2


@pytest.mark.anyio
async def test_a_get_marked_false_is_not_retried() -> None:
    time = FakeTime()
    client, inner = retrying(replies(httpx.Response(503), httpx.Response(200)), time)
    async with client:
        await client.get("/x", extensions={RETRY_EXTENSION: False})
    assert len(inner.seen) == 1


@pytest.mark.anyio
async def test_a_wait_past_the_deadline_returns_the_last_response() -> None:
    time = FakeTime()
    client, inner = retrying(
        replies(httpx.Response(429, headers={"Retry-After": "120"}), httpx.Response(200)), time, deadline_s=30
    )
    async with client:
        response = await client.get("/x")
    assert response.status_code == 429
    assert len(inner.seen) == 1
    assert time.waits == []


@pytest.mark.anyio
async def test_the_deadline_counts_earlier_waits() -> None:
    time = FakeTime()
    busy = httpx.Response(503, headers={"Retry-After": "20"})
    client, inner = retrying(replies(busy), time, tries=5, deadline_s=30)
    async with client:
        await client.get("/x")
    assert time.waits == [20.0]
    assert len(inner.seen) == 2


@pytest.mark.anyio
async def test_client_error_after_the_deadline_carries_retry_after() -> None:
    time = FakeTime()
    client, transport = make_client(
        replies(httpx.Response(429, headers={"Retry-After": "120"})), time=time, deadline_s=30
    )
    async with client:
        with pytest.raises(Unavailable) as caught:
            await client.get_json("/x")
    assert caught.value.data["retry_after_s"] == 120
    assert caught.value.data["status"] == 429
    assert len(transport.seen) == 1
    assert time.waits == []


@pytest.mark.anyio
@pytest.mark.parametrize("error", [httpx.ConnectError, httpx.ConnectTimeout, httpx.RemoteProtocolError])
async def test_connection_failures_are_retried(error: type[httpx.TransportError]) -> None:
    time = FakeTime()
    client, inner = retrying(replies(error("down"), httpx.Response(200)), time)
    async with client:
        assert (await client.get("/x")).status_code == 200
    assert len(inner.seen) == 2


@pytest.mark.anyio
async def test_connection_failures_give_up_after_the_last_try() -> None:
    time = FakeTime()
    client, inner = retrying(replies(httpx.ConnectError("down")), time)
    async with client:
        with pytest.raises(httpx.ConnectError):
            await client.get("/x")
    assert len(inner.seen) == 3


@pytest.mark.anyio
async def test_a_read_timeout_of_a_post_is_not_retried() -> None:
    time = FakeTime()
    client, inner = retrying(replies(httpx.ReadTimeout("slow"), httpx.Response(200)), time)
    async with client:
        with pytest.raises(httpx.ReadTimeout):
            await client.post("/x", json={})
    assert len(inner.seen) == 1


class TrackedStream(httpx.AsyncByteStream):
    def __init__(self) -> None:
        self.closed = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield b"busy"

    async def aclose(self) -> None:
        self.closed = True


@pytest.mark.anyio
async def test_discarded_responses_are_closed() -> None:
    streams: list[TrackedStream] = []

    def handler(request: httpx.Request) -> httpx.Response:
        streams.append(TrackedStream())
        return httpx.Response(503 if len(streams) == 1 else 200, stream=streams[-1])

    time = FakeTime()
    client, _ = retrying(handler, time)
    async with client:
        await client.get("/x")
    assert streams[0].closed


@pytest.mark.anyio
async def test_closing_does_not_close_the_inner_transport() -> None:
    inner = SharedTransport(replies(httpx.Response(200)))
    await RetryTransport(inner).aclose()
    assert not inner.closed


def test_tries_must_be_positive() -> None:
    with pytest.raises(ValueError, match="tries"):
        RetryTransport(SharedTransport(replies(httpx.Response(200))), tries=0)


@pytest.fixture
def upstream_log(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    with caplog.at_level(logging.INFO, logger="mcpist.upstream"):
        yield caplog


@pytest.mark.anyio
async def test_each_retry_is_logged_without_query_or_headers(upstream_log: pytest.LogCaptureFixture) -> None:
    time = FakeTime()
    client, _ = retrying(replies(httpx.Response(503, text="secret-body"), httpx.Response(200)), time)
    async with client:
        await client.get("/items?api_key=query-secret", headers={"Authorization": "Bearer header-secret"})
    records = [r for r in upstream_log.records if r.name == "mcpist.upstream"]
    assert len(records) == 1
    assert records[0].levelno == logging.INFO
    line = records[0].getMessage()
    assert "GET https://api.example/items after 503 (attempt 1 of 3" in line
    for secret in ("query-secret", "header-secret", "secret-body"):
        assert secret not in line
