"""Helpers of the observability tests: read the metrics, talk MCP over HTTP with chosen headers."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from prometheus_client.parser import text_string_to_metric_families

from mcpist.observe import metrics
from mcpist.runtime import Runtime
from support import new_token, served

METRICS_TOKEN = "metrics-token-0123456789abcdef"


def sample(name: str, **labels: str) -> float:
    """The current value of one sample of this process's registry (0 when it was never counted)."""
    for family in text_string_to_metric_families(metrics.render().decode()):
        for s in family.samples:
            if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()):
                return float(s.value)
    return 0.0


def structured(result: Any) -> Any:
    return result.structured_content


@asynccontextmanager
async def http_mcp(rt: Runtime, mode: str = "legacy", **headers: str) -> AsyncIterator[tuple[Client, str]]:
    """An MCP SDK client over Streamable HTTP on loopback sending `headers` with every request; yields the
    client and the server's base URL."""
    token = await new_token(rt, "observe")
    async with (
        served(rt) as url,
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}", **headers}, timeout=30) as http,
        Client(streamable_http_client(url, http_client=http), mode=mode) as client,
    ):
        yield client, url.removesuffix("/mcp")
