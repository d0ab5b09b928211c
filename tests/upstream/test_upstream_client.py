"""ServiceClient: isolation between clients, transport failures, JSON and shape checks."""

from __future__ import annotations

from collections.abc import AsyncIterator

import anyio
import httpx
import pytest
from pydantic import BaseModel
from upstream_fakes import BASE, FakeAccount, FakeTime, SharedTransport, make_client

from mcpist.errors import DeadlineExceeded, InvalidArgument, NotFound, Unavailable
from mcpist.testing import FakeCredentials
from mcpist.upstream import ServiceClient, read_bounded


class Issue(BaseModel):
    number: int
    title: str


def ok(request: httpx.Request) -> httpx.Response:
    return httpx.Response(200, json={"ok": True})


@pytest.mark.anyio
async def test_clients_on_one_transport_do_not_share_cookies_or_closing() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/login":
            return httpx.Response(200, json={}, headers={"Set-Cookie": "sid=alice-session; Path=/"})
        return httpx.Response(200, json={"cookie": request.headers.get("cookie")})

    shared = SharedTransport(handler)
    time = FakeTime()
    alice = ServiceClient("example", BASE, transport=shared, credentials=FakeAccount("alice"), sleep=time.sleep)
    bob = ServiceClient("example", BASE, transport=shared, credentials=FakeAccount("bob"), sleep=time.sleep)
    async with bob:
        async with alice:
            await alice.get_json("/login")
            assert await alice.get_json("/echo") == {"cookie": "sid=alice-session"}
            assert await bob.get_json("/echo") == {"cookie": None}
        assert not shared.closed
        assert await bob.get_json("/echo") == {"cookie": None}
    assert not shared.closed


@pytest.mark.anyio
async def test_default_headers_and_relative_paths_under_the_base_path() -> None:
    transport = SharedTransport(ok)
    client = ServiceClient(
        "jira", "https://site.example/rest/api/3", transport=transport, user_agent="mcpist/1.0", headers={"X-A": "b"}
    )
    async with client:
        await client.get_json("/issue/KEY-1", params={"fields": "summary"})
    sent = transport.seen[0]
    assert str(sent.url) == "https://site.example/rest/api/3/issue/KEY-1?fields=summary"
    assert sent.headers["User-Agent"] == "mcpist/1.0"
    assert sent.headers["Accept"] == "application/json"
    assert sent.headers["X-A"] == "b"


@pytest.mark.anyio
@pytest.mark.parametrize("error", [httpx.ReadTimeout, httpx.WriteTimeout, httpx.PoolTimeout])
async def test_timeouts_are_deadline_exceeded(error: type[httpx.TimeoutException]) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise error("timed out", request=request)

    client, _ = make_client(handler, timeout_s=5)
    async with client:
        with pytest.raises(DeadlineExceeded, match="example did not answer within 5 s"):
            await client.get_json("/x")


@pytest.mark.anyio
async def test_a_connect_timeout_is_unavailable_it_never_reached_the_service() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectTimeout("timed out", request=request)

    client, _ = make_client(handler, timeout_s=5)
    async with client:
        with pytest.raises(Unavailable, match="example cannot be reached: ConnectTimeout"):
            await client.get_json("/x")


@pytest.mark.anyio
async def test_the_overall_deadline_stops_a_stalled_request() -> None:
    async def stalled(request: httpx.Request) -> httpx.Response:
        await anyio.Event().wait()
        raise AssertionError("unreachable")  # pragma: no cover

    client, _ = make_client(stalled, deadline_s=0.05)
    async with client:
        with pytest.raises(DeadlineExceeded, match=r"within 0\.05 s"):
            await client.get_json("/x")


@pytest.mark.anyio
@pytest.mark.parametrize("error", [httpx.ConnectError, httpx.RemoteProtocolError, httpx.ReadError])
async def test_connection_failures_are_unavailable(error: type[httpx.TransportError]) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise error(f"failed talking to {request.url}", request=request)

    client, _ = make_client(handler)
    async with client:
        with pytest.raises(Unavailable) as caught:
            await client.get_json("/x?token=in-query")
    assert caught.value.message == f"example cannot be reached: {error.__name__}"
    assert caught.value.data == {"service": "example"}


@pytest.mark.anyio
async def test_a_body_that_is_not_json_is_unavailable() -> None:
    client, _ = make_client(lambda request: httpx.Response(200, text="<html>login</html>"))
    async with client:
        with pytest.raises(Unavailable, match="something other than JSON"):
            await client.get_json("/x")


@pytest.mark.anyio
@pytest.mark.parametrize("answer", [httpx.Response(204), httpx.Response(200, text=""), httpx.Response(202, text=" ")])
async def test_an_empty_body_is_none(answer: httpx.Response) -> None:
    client, _ = make_client(lambda request: answer)
    async with client:
        assert await client.delete_json("/x") is None


@pytest.mark.anyio
async def test_json_helpers_send_their_method_and_body() -> None:
    client, transport = make_client(lambda request: httpx.Response(200, json={"m": request.method}))
    async with client:
        assert await client.post_json("/x", {"a": 1}) == {"m": "POST"}
        assert await client.put_json("/x", {"a": 1}) == {"m": "PUT"}
        assert await client.patch_json("/x", {"a": 1}) == {"m": "PATCH"}
        assert await client.delete_json("/x") == {"m": "DELETE"}
    assert [r.content for r in transport.seen] == [b'{"a":1}'] * 3 + [b""]


@pytest.mark.anyio
async def test_a_status_in_ok_is_returned() -> None:
    client, _ = make_client(lambda request: httpx.Response(404, json={"message": "gone"}))
    async with client:
        assert await client.delete_json("/x", ok={404}) == {"message": "gone"}
        with pytest.raises(NotFound):
            await client.delete_json("/x")


def test_parse_validates_the_shape() -> None:
    client, _ = make_client(ok)
    assert client.parse(Issue, {"number": 1, "title": "t"}) == Issue(number=1, title="t")
    assert client.parse_list(Issue, [{"number": 1, "title": "t"}]) == [Issue(number=1, title="t")]


def test_a_shape_mismatch_is_unavailable_naming_the_service_not_the_body() -> None:
    client, _ = make_client(ok)
    with pytest.raises(Unavailable) as caught:
        client.parse(Issue, {"number": "private-value-xyz", "title": None})
    assert caught.value.message.startswith("example answered an unexpected shape: number:")
    assert "(and 1 more)" in caught.value.message
    assert "private-value-xyz" not in caught.value.message
    assert caught.value.data == {"service": "example", "problems": 2}
    assert caught.value.__cause__ is None


def test_a_list_shape_mismatch_names_the_item() -> None:
    client, _ = make_client(ok)
    with pytest.raises(Unavailable, match=r"shape: 1\.title: Field required") as caught:
        client.parse_list(Issue, [{"number": 1, "title": "a"}, {"number": 2}])
    assert caught.value.data["problems"] == 1
    with pytest.raises(Unavailable, match="expected a list"):
        client.parse_list(Issue, {"items": []})


@pytest.mark.anyio
async def test_read_bounded_cuts_a_streamed_body() -> None:
    async def body() -> AsyncIterator[bytes]:
        for _ in range(10):
            yield b"0123456789"

    client, _ = make_client(lambda request: httpx.Response(200, content=body()))
    async with client, client.stream("GET", "/log") as response:
        data, truncated = await read_bounded(response, 25)
    assert (data, truncated) == (b"0123456789012345678901234", True)


@pytest.mark.anyio
async def test_read_bounded_on_a_read_response() -> None:
    response = httpx.Response(200, content=b"short")
    assert await read_bounded(response, 100) == (b"short", False)
    assert await read_bounded(response, 2) == (b"sh", True)


@pytest.mark.anyio
async def test_a_body_broken_off_inside_stream_is_unavailable() -> None:
    class Broken(httpx.AsyncByteStream):
        async def __aiter__(self) -> AsyncIterator[bytes]:
            yield b"start"
            raise httpx.ReadError("connection reset")

    client, _ = make_client(lambda request: httpx.Response(200, stream=Broken()))
    async with client:
        with pytest.raises(Unavailable, match="cannot be reached: ReadError"):
            async with client.stream("GET", "/big") as response:
                await read_bounded(response, 1000)


@pytest.mark.anyio
async def test_download_goes_to_another_host_without_the_credential_or_cookies() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.url.host == "api.example.test":
            return httpx.Response(
                302, headers={"Location": "https://blobs.example.net/log?sig=abc", "Set-Cookie": "s=1"}
            )
        return httpx.Response(200, content=b"x" * 5000)

    client = ServiceClient(
        "example",
        "https://api.example.test",
        transport=httpx.MockTransport(handler),
        credentials=FakeCredentials("tok"),
    )
    async with client:
        response = await client.request("GET", "/logs", ok={302})
        body, truncated = await client.download(response.headers["Location"], max_bytes=1000)
        with pytest.raises(InvalidArgument, match="not https"):
            await client.download("http://blobs.example.net/x", max_bytes=10)
    assert (len(body), truncated) == (1000, True)
    assert seen[0].headers["Authorization"] == "Bearer tok"
    assert "Authorization" not in seen[1].headers and "Cookie" not in seen[1].headers
