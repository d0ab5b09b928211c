"""MCPist module `weather`: current weather, forecasts and weather stations from a weather HTTP API.

A worked example of a service module on MCPist's kit: the server hands each call `ctx.http`, a
client bound to the caller's account (credential added, refreshed once on a 401, safe requests
retried on 429/502/503/504 honouring Retry-After, upstream errors mapped to MCPist's codes), so
the tools below hold no secret and no status handling.

The upstream API (what the tests fake; `openapi.json` beside this file describes it):

    GET {base_url}/v1/current?city=Kyoto&units=metric
        -> {"city": "Kyoto", "temperature": 21.5, "conditions": "clear", "wind_speed": 3.0}
    GET {base_url}/v1/forecast?city=Kyoto&days=3&units=metric
        -> {"city": "Kyoto", "days": [{"date": "2025-05-01", "high": 24.0, "low": 15.0,
                                        "conditions": "rain", "precipitation_chance": 0.8}, ...]}
    GET {base_url}/v1/stations?country=JP&page_size=50&page_token=...
        -> {"stations": [{"id": "jp-kyoto-1", "name": "Kyoto", "elevation_m": 41}], "next_page_token": "..."}

It takes an API key or an OAuth access token as `Authorization: Bearer <token>`.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from mcpist.modules import Module, OAuth2Auth, ServiceSettings, ToolContext
from mcpist.upstream import Cursor, Limit, Page, collect, page_token

__all__ = ["OPENAPI", "Current", "Forecast", "ForecastDay", "Station", "WeatherSettings", "module"]

OPENAPI = Path(__file__).with_name("openapi.json")
"""The upstream's API description: the tests' fake validates every request against it."""


class WeatherSettings(ServiceSettings):
    """`[modules.settings.weather]` in mcpist.toml (or MCPIST_MODULES__SETTINGS__WEATHER__BASE_URL)."""

    base_url: str = Field(default="https://weather.example.com", description="the weather API's root URL")


module = Module(
    "weather",
    summary="Current weather, multi-day forecasts and weather stations",
    description="Current conditions, daily forecasts and station lists from the weather API, with your account.",
    settings=WeatherSettings,
    # an API key (`mcpist account add weather --token-stdin`) or OAuth (`mcpist account connect weather`)
    auth=OAuth2Auth(
        authorize_url="https://weather.example.com/oauth/authorize",
        token_url="https://weather.example.com/oauth/token",  # noqa: S106 - a URL, not a password
        scopes=("weather.read",),
    ),
    headers={"Weather-Api-Version": "2025-05-01"},
    docs="Call `current(city)` for now, `forecast(city, days)` for up to 7 days, `stations(country)` to list "
    "stations page by page (pass `next_cursor` back as `cursor`). Temperatures follow `units`.",
)

Ctx = ToolContext[WeatherSettings]

City = Annotated[str, Field(min_length=1, max_length=100, description="city name, e.g. 'Kyoto'")]
Units = Annotated[Literal["metric", "imperial"], Field(description="metric: °C and m/s; imperial: °F and mph")]
Country = Annotated[str, Field(pattern=r"^[A-Z]{2}$", description="ISO 3166 country code, e.g. 'JP'")]


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


class Station(BaseModel):
    id: str
    name: str
    elevation_m: float | None = None


class _StationPage(BaseModel):
    stations: list[Station]
    next_page_token: str | None = None


@module.tool(read_only=True)
async def current(ctx: Ctx, city: City, units: Units = "metric") -> Current:
    """The weather in a city right now: temperature, conditions and wind."""
    body = await ctx.http.get_json("/v1/current", params={"city": city, "units": units})
    return ctx.http.parse(Current, body)


@module.tool(read_only=True)
async def forecast(
    ctx: Ctx,
    city: City,
    days: Annotated[int, Field(ge=1, le=7, description="how many days, today first")] = 3,
    units: Units = "metric",
) -> Forecast:
    """The daily forecast for a city: high, low, conditions and chance of rain per day."""
    body = await ctx.http.get_json("/v1/forecast", params={"city": city, "days": days, "units": units})
    return ctx.http.parse(Forecast, body)


@module.tool(read_only=True)
async def stations(ctx: Ctx, country: Country, limit: Limit = 20, cursor: Cursor = None) -> Page[Station]:
    """Weather stations in a country, `limit` at a time; pass `next_cursor` back as `cursor` for more."""

    async def fetch(token: str | None) -> tuple[list[Station], str | None]:
        params: dict[str, Any] = {"country": country, "page_size": 50}
        if token:
            params["page_token"] = token
        body = await ctx.http.get_json("/v1/stations", params=params)
        page = ctx.http.parse(_StationPage, body)
        return page.stations, page_token(body, key="next_page_token")

    return await collect(fetch, limit, cursor=cursor, service="weather")
