"""MCPist module `weather`: current weather and forecasts from a weather HTTP API.

The upstream API (what the tests fake):

    GET {base_url}/v1/current?city=Kyoto&units=metric
        -> {"city": "Kyoto", "temperature": 21.5, "conditions": "clear", "wind_speed": 3.0}
    GET {base_url}/v1/forecast?city=Kyoto&days=3&units=metric
        -> {"city": "Kyoto", "days": [{"date": "2025-05-01", "high": 24.0, "low": 15.0,
                                        "conditions": "rain", "precipitation_chance": 0.8}, ...]}

It takes the API key as `Authorization: Bearer <key>` and answers 401 for a bad key, 404 for an
unknown city and 429 when rate-limited.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal, TypeVar

import httpx
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mcpist.modules import ApiKeyAuth, Module, NotFound, ToolContext, Unauthenticated, Unavailable

__all__ = ["Current", "Forecast", "ForecastDay", "WeatherSettings", "module"]


class WeatherSettings(BaseModel):
    """`[modules.settings.weather]` in mcpist.toml."""

    model_config = ConfigDict(extra="forbid")

    base_url: str = Field(default="https://weather.example.com", description="the weather API's root URL")
    timeout_s: float = Field(default=10.0, gt=0, le=60, description="seconds per upstream request")


AUTH = ApiKeyAuth(header="Authorization", scheme="Bearer")

module = Module(
    "weather",
    summary="Current weather and multi-day forecasts for a city",
    description="Current conditions and daily forecasts from the weather API, with your own API key.",
    settings=WeatherSettings,
    auth=AUTH,
    docs="Call `current(city)` for now and `forecast(city, days)` for up to 7 days. Temperatures follow `units`.",
)

City = Annotated[str, Field(min_length=1, max_length=100, description="city name, e.g. 'Kyoto'")]
Units = Annotated[Literal["metric", "imperial"], Field(description="metric: °C and m/s; imperial: °F and mph")]


class Current(BaseModel):
    city: str
    temperature: float
    conditions: str = Field(description="e.g. clear, clouds, rain, snow")
    wind_speed: float | None = None


class ForecastDay(BaseModel):
    date: dt.date
    high: float
    low: float
    conditions: str
    precipitation_chance: float = Field(ge=0, le=1, description="0 to 1")


class Forecast(BaseModel):
    city: str
    days: list[ForecastDay]


ModelT = TypeVar("ModelT", bound=BaseModel)


async def _get(ctx: ToolContext[WeatherSettings], path: str, params: dict[str, Any]) -> Any:
    """GET one upstream resource as JSON.

    Raises:
        Unauthenticated: the API refused the key. NotFound: unknown city.
        Unavailable: the API is down, slow, rate-limiting or answered something unreadable.
    """
    if ctx.account is None:  # only when a tool sets needs_account=False; else the runtime refuses first
        raise Unauthenticated("module weather needs a connected weather API account")
    url = ctx.settings.base_url.rstrip("/") + path
    headers = {AUTH.header: f"{AUTH.scheme} {ctx.account.secret}"}
    try:
        response = await ctx.http.get(url, params=params, headers=headers, timeout=ctx.settings.timeout_s)
    except httpx.HTTPError as exc:
        raise Unavailable(f"the weather API cannot be reached: {type(exc).__name__}", {"url": url}) from None
    if response.status_code in (401, 403):
        raise Unauthenticated(f"the weather API refused account {ctx.account.name!r}", {"status": response.status_code})
    if response.status_code == 404:
        raise NotFound(f"the weather API knows no city {params['city']!r}", {"city": params["city"]})
    if response.status_code != 200:
        raise Unavailable(f"the weather API answered HTTP {response.status_code}", {"status": response.status_code})
    try:
        return response.json()
    except ValueError:
        raise Unavailable("the weather API answered with something other than JSON") from None


def _parse(model: type[ModelT], body: Any) -> ModelT:
    try:
        return model.model_validate(body)
    except ValidationError as exc:
        # the upstream broke its contract; the caller can retry later, not fix its input
        raise Unavailable(f"the weather API answered an unexpected shape: {exc.error_count()} problem(s)") from None


@module.tool(read_only=True)
async def current(ctx: ToolContext[WeatherSettings], city: City, units: Units = "metric") -> Current:
    """The weather in a city right now: temperature, conditions and wind."""
    body = await _get(ctx, "/v1/current", {"city": city, "units": units})
    return _parse(Current, body)


@module.tool(read_only=True)
async def forecast(
    ctx: ToolContext[WeatherSettings],
    city: City,
    days: Annotated[int, Field(ge=1, le=7, description="how many days, today first")] = 3,
    units: Units = "metric",
) -> Forecast:
    """The daily forecast for a city: high, low, conditions and chance of rain per day."""
    body = await _get(ctx, "/v1/forecast", {"city": city, "days": days, "units": units})
    return _parse(Forecast, body)
