"""An upstream call through a real MCP client: its metrics (upstream status, the token refresh a 401
set off) and, with tracing on, one trace from the HTTP request through the tool call to the upstream
requests and database statements (OpenTelemetry's in-memory exporter)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from observe_support import http_mcp, sample
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from mcpist.config import ObserveSettings
from mcpist.observe import _tracing
from vault_support import vault_env

pytestmark = pytest.mark.anyio


@pytest.fixture
def exporter() -> Iterator[InMemorySpanExporter]:
    found = InMemorySpanExporter()
    # not the process's global provider: other tests' spans (the SDK's own) stay out of this one
    _tracing.enable(ObserveSettings(otel=True), "test", exporter=found, install_global=False)
    try:
        yield found
    finally:
        _tracing.disable()


def chain(span: ReadableSpan, by_id: dict[int, ReadableSpan]) -> list[str]:
    """The names from `span` up to its root."""
    names = [span.name]
    while span.parent is not None and span.parent.span_id in by_id:
        span = by_id[span.parent.span_id]
        names.append(span.name)
    return names


async def test_one_trace_from_the_request_to_upstream_and_database(
    tmp_path: Path, exporter: InMemorySpanExporter
) -> None:
    refreshed = sample("mcpist_token_refresh_total", service="gh", outcome="ok")
    refused = sample("mcpist_upstream_requests_total", service="gh", status="401")
    answered = sample("mcpist_upstream_requests_total", service="gh", status="200")
    async with vault_env(tmp_path) as env:
        first = await env.seed_oauth(env.owner.user_id, "default")
        env.provider.refused.add(first["access_token"])
        async with http_mcp(env.rt, **{"X-Request-Id": "req-trace-1"}) as (client, _base):
            result = await client.call_tool("call", {"module": "gh", "tool_name": "whoami"})
            assert not result.is_error, result.content
            missing = await client.call_tool("call", {"module": "gh", "tool_name": "nope"})
            assert missing.is_error
    assert sample("mcpist_token_refresh_total", service="gh", outcome="ok") == refreshed + 1
    assert sample("mcpist_upstream_requests_total", service="gh", status="401") == refused + 1
    assert sample("mcpist_upstream_requests_total", service="gh", status="200") == answered + 1

    spans = exporter.get_finished_spans()
    by_id = {s.context.span_id: s for s in spans}
    tool = next(s for s in spans if s.name == "tool gh.whoami")
    assert tool.attributes is not None and tool.attributes["mcpist.outcome"] == "ok"
    upstream = [s for s in spans if s.name == "gh GET"]
    assert [s.attributes["http.response.status_code"] for s in upstream if s.attributes] == [401, 200]
    assert all(chain(s, by_id)[1:] == ["tool gh.whoami", "POST"] for s in upstream)
    root = by_id[tool.parent.span_id] if tool.parent else None
    assert root is not None and root.kind == SpanKind.SERVER and root.attributes is not None
    assert root.attributes["mcpist.request_id"] == "req-trace-1"
    assert len({s.context.trace_id for s in [root, tool, *upstream]}) == 1
    # the call's database work (the account, the refresh's write) hangs below the tool call
    below = [s for s in spans if s.name.startswith("db ") and "tool gh.whoami" in chain(s, by_id)]
    assert {s.name for s in below} >= {"db select", "db update"}
    unknown = next(s for s in spans if s.name == "tool unknown")
    assert unknown.status.status_code == StatusCode.ERROR and unknown.attributes is not None
    assert unknown.attributes["error.type"] == "NOT_FOUND"
    text = str([(s.name, dict(s.attributes or {})) for s in spans])
    assert first["access_token"] not in text and "Bearer" not in text


async def test_the_sdks_span_per_message_is_entered_only_while_tracing_is_on(tmp_path: Path) -> None:
    from mcp.server._otel import OpenTelemetryMiddleware

    from mcpist.modules.api import Caller
    from mcpist.protocol.server import _WhileTracing, build_server
    from support import runtime

    async with runtime(tmp_path) as rt:
        installed = build_server(rt, lambda _ctx: Caller(user_id="tester")).middleware
    assert not any(isinstance(m, OpenTelemetryMiddleware) for m in installed)
    assert [m for m in installed if isinstance(m, _WhileTracing) and isinstance(m.inner, OpenTelemetryMiddleware)]

    entered: list[object] = []

    class Inner:
        async def __call__(self, ctx: Any, call_next: Any) -> Any:
            entered.append(ctx)
            return await call_next(ctx)

    async def answer(ctx: Any) -> dict[str, Any]:
        return {"answered": ctx}

    wrapped = _WhileTracing(Inner())
    off: Any = "off"  # a stand-in for the request context, which the wrapper only passes on
    on: Any = "on"
    assert await wrapped(off, answer) == {"answered": "off"} and entered == []
    _tracing.enable(ObserveSettings(otel=True), "test", exporter=InMemorySpanExporter(), install_global=False)
    try:
        assert await wrapped(on, answer) == {"answered": "on"} and entered == ["on"]
    finally:
        _tracing.disable()
