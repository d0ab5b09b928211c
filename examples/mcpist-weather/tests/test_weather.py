"""The weather tools against a fake weather API that checks every request against the API's description.

`mcpist.testing` builds the context the server would: the HTTP client is the kit's (credential, one
refresh on a 401, retries of safe requests honouring Retry-After, errors mapped to MCPist's codes).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from mcpist_weather import OPENAPI, Current, Forecast, current, forecast, module, stations

from mcpist.modules import InvalidArgument, NotFound, Unauthenticated, Unavailable
from mcpist.testing import FakeCredentials, FakeUpstream, RecordedSleep, tool_context

BASE = "https://weather.test"
SETTINGS = {"base_url": BASE + "/"}

pytestmark = pytest.mark.anyio


@pytest.fixture
def api() -> Iterator[FakeUpstream]:
    """The upstream for two cities; token "wk-1" is valid. Asserts at the end that every request was valid."""
    fake = FakeUpstream.from_file(OPENAPI, base_url=BASE)

    def authorised(request: httpx.Request) -> bool:
        return request.headers.get("Authorization") == "Bearer wk-1"

    @fake.route("GET", "/v1/current")
    def _current(request: httpx.Request) -> Any:
        if not authorised(request):
            return 401, {"message": "bad token"}
        city = request.url.params["city"]
        if city not in ("Kyoto", "Oslo"):
            return 404, {"message": f"unknown city {city}"}
        return {"city": city, "temperature": 21.5, "conditions": "clear"}

    @fake.route("GET", "/v1/forecast")
    def _forecast(request: httpx.Request) -> Any:
        n = int(request.url.params.get("days", "3"))
        day = {"date": "2025-05-01", "high": 24.0, "low": 15.0, "conditions": "rain", "precipitation_chance": 0.8}
        return {"city": request.url.params["city"], "days": [day] * n}

    names = [f"station-{i:02d}" for i in range(120)]

    @fake.route("GET", "/v1/stations")
    def _stations(request: httpx.Request) -> Any:
        start = int(request.url.params.get("page_token", "0"))
        size = int(request.url.params["page_size"])
        page = [{"id": n, "name": n.title()} for n in names[start : start + size]]
        more = start + size < len(names)
        return {"stations": page, "next_page_token": str(start + size) if more else None}

    with fake:
        yield fake


def ctx_for(api: FakeUpstream, *tokens: str, sleep: RecordedSleep | None = None) -> Any:
    return tool_context(
        module, transport=api.transport(), settings=SETTINGS, credentials=FakeCredentials(*tokens), sleep=sleep
    )


def test_the_module_declares_three_read_only_tools_needing_an_account() -> None:
    assert sorted(module.tools) == ["current", "forecast", "stations"]
    for spec in module.tools.values():
        assert spec.read_only and spec.idempotent and not spec.destructive
        assert spec.needs_account and spec.open_world


async def test_current_sends_the_token_the_version_and_the_query(api: FakeUpstream) -> None:
    result = await current(ctx_for(api, "wk-1"), city="Kyoto", units="imperial")
    assert result == Current(city="Kyoto", temperature=21.5, conditions="clear")
    (request,) = api.requests
    assert request.method == "GET" and request.path == "/v1/current"
    assert request.params == {"city": "Kyoto", "units": "imperial"}


async def test_forecast_returns_one_entry_per_day(api: FakeUpstream) -> None:
    result = await forecast(ctx_for(api, "wk-1"), city="Oslo", days=2)
    assert isinstance(result, Forecast) and len(result.days) == 2


async def test_a_401_is_refreshed_once_and_the_call_goes_on(api: FakeUpstream) -> None:
    credentials = FakeCredentials("expired", "wk-1")
    ctx = tool_context(module, transport=api.transport(), settings=SETTINGS, credentials=credentials)
    result = await current(ctx, city="Oslo")
    assert result.city == "Oslo"
    assert credentials.refreshes == 1
    assert [r.path for r in api.requests] == ["/v1/current", "/v1/current"]


async def test_a_refused_credential_after_the_refresh_is_unauthenticated(api: FakeUpstream) -> None:
    with pytest.raises(Unauthenticated, match="connect it again"):
        await current(ctx_for(api, "revoked", "also-revoked"), city="Oslo")


async def test_a_429_is_retried_after_the_wait_the_upstream_asks_for(api: FakeUpstream) -> None:
    answers = iter([httpx.Response(429, headers={"Retry-After": "2"}, json={"message": "slow down"})])
    original = api.transport()

    async def handler(request: httpx.Request) -> httpx.Response:
        reply = next(answers, None)
        return reply if reply is not None else await original.handle_async_request(request)

    sleep = RecordedSleep()
    ctx = tool_context(
        module,
        transport=httpx.MockTransport(handler),
        settings=SETTINGS,
        credentials=FakeCredentials("wk-1"),
        sleep=sleep,
    )
    assert (await current(ctx, city="Kyoto")).city == "Kyoto"
    assert sleep.waits == [2.0]


async def test_a_429_that_persists_is_unavailable_with_the_wait(api: FakeUpstream) -> None:
    def always(request: httpx.Request) -> httpx.Response:
        return httpx.Response(429, headers={"Retry-After": "5"}, json={"message": "quota"})

    sleep = RecordedSleep()
    ctx = tool_context(
        module,
        transport=httpx.MockTransport(always),
        settings=SETTINGS,
        credentials=FakeCredentials("wk-1"),
        sleep=sleep,
    )
    with pytest.raises(Unavailable) as caught:
        await current(ctx, city="Kyoto")
    assert caught.value.data["retry_after_s"] == 5.0 and caught.value.data["service"] == "weather"
    assert len(sleep.waits) == 2  # three tries in all


async def test_stations_are_paged_with_an_opaque_cursor(api: FakeUpstream) -> None:
    ctx = ctx_for(api, "wk-1")
    seen: list[str] = []
    cursor = None
    for _ in range(10):
        page = await stations(ctx, country="NO", limit=45, cursor=cursor)
        seen += [s.id for s in page.items]
        cursor = page.next_cursor
        if cursor is None:
            break
    assert seen == [f"station-{i:02d}" for i in range(120)]  # nothing lost or repeated at page edges


async def test_a_tampered_cursor_is_an_invalid_argument(api: FakeUpstream) -> None:
    with pytest.raises(InvalidArgument, match="cursor"):
        await stations(ctx_for(api, "wk-1"), country="NO", cursor="not-a-cursor")


async def test_an_unknown_city_is_not_found_with_the_vendors_message(api: FakeUpstream) -> None:
    with pytest.raises(NotFound, match="unknown city Atlantis"):
        await current(ctx_for(api, "wk-1"), city="Atlantis")


async def test_an_unexpected_shape_is_unavailable_naming_the_service() -> None:
    def wrong(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"city": "Kyoto", "temp": "warm"})

    ctx = tool_context(
        module, transport=httpx.MockTransport(wrong), settings=SETTINGS, credentials=FakeCredentials("wk-1")
    )
    with pytest.raises(Unavailable, match="weather answered an unexpected shape"):
        await current(ctx, city="Kyoto")


async def test_a_connection_failure_is_unavailable() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    ctx = tool_context(
        module, transport=httpx.MockTransport(refuse), settings=SETTINGS, credentials=FakeCredentials("wk-1")
    )
    with pytest.raises(Unavailable, match="weather cannot be reached"):
        await current(ctx, city="Kyoto")
