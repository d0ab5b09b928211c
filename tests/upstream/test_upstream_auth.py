"""AccountAuth: the account's headers go only to the service's origins; a 401 refreshes once."""

from __future__ import annotations

import base64

import httpx
import pytest
from upstream_fakes import BASE, FakeAccount, make_client

from mcpist.errors import ConnectRequired, Unauthenticated, Unavailable
from mcpist.upstream import AccountAuth, Credential, ServiceClient, basic, bearer, header, link_next


def ok(request: httpx.Request) -> httpx.Response:
    return httpx.Response(200, json={"ok": True})


@pytest.mark.anyio
async def test_the_account_header_is_sent() -> None:
    account = FakeAccount()
    client, transport = make_client(ok, account=account)
    async with client:
        await client.get_json("/me")
    assert transport.seen[0].headers["Authorization"] == "Bearer tok-secret-1"


@pytest.mark.anyio
async def test_a_401_refreshes_once_and_resends_with_the_new_header() -> None:
    account = FakeAccount()

    def handler(request: httpx.Request) -> httpx.Response:
        if request.headers["Authorization"] == "Bearer tok-secret-1":
            return httpx.Response(401, json={"message": "token expired"})
        return httpx.Response(200, json={"login": "ada"})

    client, transport = make_client(handler, account=account)
    async with client:
        assert await client.post_json("/issues", {"title": "t"}) == {"login": "ada"}
    assert account.refreshed == ["tok-secret-1"]
    assert [r.headers["Authorization"] for r in transport.seen] == ["Bearer tok-secret-1", "Bearer tok-secret-2"]
    assert [r.content for r in transport.seen] == [b'{"title":"t"}'] * 2


@pytest.mark.anyio
async def test_a_second_401_raises_the_sources_rejected_error() -> None:
    account = FakeAccount()
    client, transport = make_client(lambda request: httpx.Response(401), account=account)
    async with client:
        with pytest.raises(ConnectRequired) as caught:
            await client.get_json("/me")
    assert caught.value.connect_url == "https://mcpist.example/connect/example"
    assert account.refreshed == ["tok-secret-1"]
    assert len(transport.seen) == 2


@pytest.mark.anyio
async def test_an_account_that_cannot_refresh_is_rejected_after_one_try() -> None:
    account = FakeAccount(refreshable=False)
    client, transport = make_client(lambda request: httpx.Response(401), account=account)
    async with client:
        with pytest.raises(ConnectRequired):
            await client.get_json("/me")
    assert len(transport.seen) == 1


@pytest.mark.anyio
async def test_without_a_credential_source_a_401_is_unauthenticated() -> None:
    client, _ = make_client(lambda request: httpx.Response(401, json={"message": "Requires authentication"}))
    async with client:
        with pytest.raises(Unauthenticated, match="Requires authentication") as caught:
            await client.get_json("/me")
    assert not isinstance(caught.value, ConnectRequired)


@pytest.mark.anyio
async def test_a_401_listed_in_ok_is_returned() -> None:
    account = FakeAccount()
    client, _ = make_client(lambda request: httpx.Response(401), account=account)
    async with client:
        response = await client.request("GET", "/me", ok={401})
    assert response.status_code == 401


@pytest.mark.anyio
async def test_a_refresh_replaces_the_stale_headers() -> None:
    class Rotating(FakeAccount):
        async def current(self) -> Credential:
            return header("X-Api-Key", "old-api-key")

    account = Rotating()

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(401 if "X-Api-Key" in request.headers else 200)

    client, transport = make_client(handler, account=account)
    async with client:
        await client.get_json("/me")
    assert "X-Api-Key" not in transport.seen[1].headers
    assert transport.seen[1].headers["Authorization"] == "Bearer tok-secret-2"


@pytest.mark.anyio
async def test_a_link_to_another_host_is_refused_before_sending() -> None:
    account = FakeAccount()

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=[], headers={"Link": '<https://evil.example/steal?page=2>; rel="next"'})

    client, transport = make_client(handler, account=account)
    async with client:
        first = await client.request("GET", "/items")
        following = link_next(first)
        assert following == "https://evil.example/steal?page=2"
        with pytest.raises(Unavailable, match="pointed to another host") as caught:
            await client.get_json(following)
    assert caught.value.data == {"service": "example", "host": "evil.example"}
    assert [r.url.host for r in transport.seen] == ["api.example"]


@pytest.mark.anyio
@pytest.mark.parametrize("url", ["http://api.example/x", "https://api.example:8443/x", "https://api.example.evil/x"])
async def test_a_different_scheme_port_or_host_is_another_origin(url: str) -> None:
    client, transport = make_client(ok, account=FakeAccount())
    async with client:
        with pytest.raises(Unavailable):
            await client.get_json(url)
    assert transport.seen == []


@pytest.mark.anyio
async def test_a_client_without_credentials_also_stays_on_its_origins() -> None:
    client, transport = make_client(ok)
    async with client:
        with pytest.raises(Unavailable):
            await client.get_json("https://evil.example/x")
    assert transport.seen == []


@pytest.mark.anyio
@pytest.mark.parametrize("with_account", [True, False])
async def test_a_followed_redirect_to_another_host_is_refused(with_account: bool) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(302, headers={"Location": "https://evil.example/landing"})

    account = FakeAccount() if with_account else None
    client, transport = make_client(handler, account=account, follow_redirects=True)
    async with client:
        with pytest.raises(Unavailable, match="another host"):
            await client.get_json("/x")
    assert [r.url.host for r in transport.seen] == ["api.example"]


@pytest.mark.anyio
async def test_a_redirect_not_followed_is_unavailable() -> None:
    client, _ = make_client(lambda request: httpx.Response(301, headers={"Location": f"{BASE}/moved"}))
    async with client:
        with pytest.raises(Unavailable, match="redirect"):
            await client.get_json("/x")


@pytest.mark.anyio
async def test_extra_origins_get_the_credentials() -> None:
    account = FakeAccount()
    client, transport = make_client(ok, account=account, extra_origins=["https://uploads.example"])
    async with client:
        await client.post_json("https://uploads.example/assets", {})
    assert transport.seen[0].headers["Authorization"] == "Bearer tok-secret-1"


def test_the_sync_flow_is_refused() -> None:
    auth = AccountAuth("example", FakeAccount(), [BASE])
    with (
        httpx.Client(transport=httpx.MockTransport(ok), auth=auth) as client,
        pytest.raises(RuntimeError, match="AsyncClient"),
    ):
        client.get(f"{BASE}/x")


def test_credential_helpers() -> None:
    assert bearer("abc").headers == {"Authorization": "Bearer abc"}
    expected = base64.b64encode(b"ada@example.com:api-token").decode()
    assert basic("ada@example.com", "api-token").headers == {"Authorization": f"Basic {expected}"}
    assert basic("ada@example.com", "api-token").token == "api-token"
    assert header("X-Api-Key", "k-123").headers == {"X-Api-Key": "k-123"}


def test_a_credential_cannot_be_changed_through_the_dict_it_was_given() -> None:
    given = {"Authorization": "Bearer one"}
    credential = Credential(given, "one")
    given["Authorization"] = "Bearer two"
    assert credential.headers["Authorization"] == "Bearer one"


@pytest.mark.anyio
async def test_reprs_show_no_secret() -> None:
    account = FakeAccount()
    credential = await account.current()
    client = ServiceClient("example", BASE, transport=httpx.MockTransport(ok), credentials=account)
    async with client:
        await client.get_json("/me")
        shown = [repr(credential), str(credential), repr(client), str(client), repr(client._http.auth)]
    for text in shown:
        assert "tok-secret" not in text
    assert repr(credential) == "Credential(header_names=['Authorization'])"
    assert repr(client) == "ServiceClient(service='example', base_url='https://api.example')"
    assert not hasattr(client, "headers")
