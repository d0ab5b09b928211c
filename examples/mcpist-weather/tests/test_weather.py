"""The weather tools against a fake weather API (httpx.MockTransport): no network, no server."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import httpx
import pytest
from mcpist_weather import Current, Forecast, WeatherSettings, current, forecast, module

from mcpist.modules import Account, Caller, NotFound, ToolContext, Unauthenticated, Unavailable
from mcpist.modules.registry import Registry

KEY = "wk-test-123"
BASE = "https://weather.test"

Handler = Callable[[httpx.Request], httpx.Response]


def fake_api(requests: list[httpx.Request]) -> Handler:
    """The upstream of the module docstring, for one key and two cities."""

    def handle(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        if request.headers.get("Authorization") != f"Bearer {KEY}":
            return httpx.Response(401, json={"error": "bad key"})
        city = request.url.params["city"]
        if city not in ("Kyoto", "Oslo"):
            return httpx.Response(404, json={"error": "unknown city"})
        if request.url.path == "/v1/current":
            return httpx.Response(200, json={"city": city, "temperature": 21.5, "conditions": "clear"})
        if request.url.path == "/v1/forecast":
            days = [
                {
                    "date": f"2025-05-0{i + 1}",
                    "high": 24.0,
                    "low": 15.0,
                    "conditions": "rain",
                    "precipitation_chance": 0.8,
                }
                for i in range(int(request.url.params["days"]))
            ]
            return httpx.Response(200, json={"city": city, "days": days})
        return httpx.Response(404)

    return handle


@asynccontextmanager
async def context(handler: Handler, key: str = KEY) -> AsyncIterator[ToolContext[WeatherSettings]]:
    """What the server would inject: its HTTP client, this module's settings and the resolved account."""
    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as http:
        yield ToolContext(
            http=http,
            settings=WeatherSettings(base_url=BASE + "/"),
            account=Account(service="weather", name="personal", secret=key),
            logger=logging.getLogger("test.weather"),
            caller=Caller(user_id="u1"),
        )


def test_the_module_declares_two_read_only_tools_needing_an_account() -> None:
    assert module.name == "weather"
    assert sorted(module.tools) == ["current", "forecast"]
    for spec in module.tools.values():
        assert spec.read_only and spec.idempotent and not spec.destructive
        assert spec.needs_account and spec.open_world


@pytest.mark.anyio
async def test_current_sends_the_key_and_the_query() -> None:
    seen: list[httpx.Request] = []
    async with context(fake_api(seen)) as ctx:
        result = await current(ctx, city="Kyoto", units="imperial")
    assert result == Current(city="Kyoto", temperature=21.5, conditions="clear")
    (request,) = seen
    assert request.method == "GET"
    assert str(request.url) == f"{BASE}/v1/current?city=Kyoto&units=imperial"
    assert request.headers["Authorization"] == f"Bearer {KEY}"


@pytest.mark.anyio
async def test_forecast_returns_one_entry_per_day() -> None:
    seen: list[httpx.Request] = []
    async with context(fake_api(seen)) as ctx:
        result = await forecast(ctx, city="Oslo", days=2)
    assert isinstance(result, Forecast)
    assert [d.date.isoformat() for d in result.days] == ["2025-05-01", "2025-05-02"]
    assert seen[0].url.params["units"] == "metric"


@pytest.mark.anyio
async def test_a_refused_key_is_unauthenticated() -> None:
    async with context(fake_api([]), key="wrong") as ctx:
        with pytest.raises(Unauthenticated) as caught:
            await current(ctx, city="Kyoto")
    assert caught.value.code == "UNAUTHENTICATED"
    assert "wrong" not in caught.value.message


@pytest.mark.anyio
async def test_an_unknown_city_is_not_found() -> None:
    async with context(fake_api([])) as ctx:
        with pytest.raises(NotFound) as caught:
            await forecast(ctx, city="Atlantis")
    assert caught.value.data == {"city": "Atlantis"}


@pytest.mark.parametrize(
    "response",
    [
        httpx.Response(429, json={"error": "slow down"}),
        httpx.Response(503),
        httpx.Response(200, text="<html>maintenance</html>"),
        httpx.Response(200, json={"city": "Kyoto"}),
    ],
    ids=["rate-limited", "down", "not-json", "wrong-shape"],
)
@pytest.mark.anyio
async def test_upstream_trouble_is_unavailable(response: httpx.Response) -> None:
    async with context(lambda request: response) as ctx:
        with pytest.raises(Unavailable):
            await current(ctx, city="Kyoto")


@pytest.mark.anyio
async def test_a_connection_failure_is_unavailable() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    async with context(refuse) as ctx:
        with pytest.raises(Unavailable) as caught:
            await current(ctx, city="Kyoto")
    assert caught.value.data == {"url": f"{BASE}/v1/current"}


def test_the_server_derives_the_schemas() -> None:
    # the registry the server builds at start: it refuses untyped parameters and the like
    tool = Registry([module]).tool("weather", "forecast")
    assert tool is not None
    schema = tool.definition()["inputSchema"]
    assert schema["required"] == ["city"]
    assert schema["properties"]["days"] == {
        "default": 3,
        "description": "how many days, today first",
        "maximum": 7,
        "minimum": 1,
        "type": "integer",
    }
