"""The Prometheus metrics of this process, in one registry that `/metrics` renders.

Metrics are process-wide by nature (as logging is): each part that counts something imports the
metric here and counts it, and the registry is this module's own, not prometheus_client's global
one, so nothing another library registers leaks out. Every label value comes from a bounded set
(module and tool names of the registry, error codes, HTTP statuses, setting names), never from
what a caller sends: an unknown tool is counted as `unknown`.

`enabled` is false when `[observe] metrics = false`; the hooks on hot paths (tool calls, upstream
requests, database statements) then skip the metric entirely.
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    PlatformCollector,
    ProcessCollector,
    generate_latest,
)

__all__ = [
    "CONTENT_TYPE_LATEST",
    "REGISTRY",
    "UNKNOWN",
    "audit_dropped",
    "audit_written",
    "build_info",
    "db_seconds",
    "embedding_seconds",
    "embedding_timer",
    "enabled",
    "quota_refused",
    "quota_refusals",
    "render",
    "sessions_open",
    "set_enabled",
    "token_refreshed",
    "token_refreshes",
    "tool_call_seconds",
    "tool_calls",
    "upstream_request_seconds",
    "upstream_requests",
]

UNKNOWN = "unknown"
"""The label of a module or tool that is not installed (its name is the caller's input)."""

REGISTRY = CollectorRegistry()
ProcessCollector(registry=REGISTRY)
PlatformCollector(registry=REGISTRY)

# a no-op call costs well under a millisecond; a slow upstream or a script takes up to the call timeout
_CALL_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
_DB_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0, 5.0)

build_info = Gauge("mcpist_build_info", "The running version (always 1).", ["version"], registry=REGISTRY)
tool_calls = Counter(
    "mcpist_tool_calls",
    "Tool calls by outcome: ok, or the error code.",
    ["module", "tool", "outcome"],
    registry=REGISTRY,
)
tool_call_seconds = Histogram(
    "mcpist_tool_call_seconds",
    "Time from a tool call's arrival at Runtime.execute to its result.",
    ["module"],
    buckets=_CALL_BUCKETS,
    registry=REGISTRY,
)
upstream_requests = Counter(
    "mcpist_upstream_requests",
    "Requests to external services by HTTP status (or timeout, unreachable).",
    ["service", "status"],
    registry=REGISTRY,
)
upstream_request_seconds = Histogram(
    "mcpist_upstream_request_seconds",
    "Time to an external service's response headers, retries included.",
    ["service"],
    buckets=_CALL_BUCKETS,
    registry=REGISTRY,
)
token_refreshes = Counter(
    "mcpist_token_refresh",
    "OAuth access token refreshes by outcome (ok, rejected, refused, unavailable, no_refresh_token, error).",
    ["service", "outcome"],
    registry=REGISTRY,
)
embedding_seconds = Histogram(
    "mcpist_embedding_seconds",
    "Time to embed texts (memory search and writes).",
    ["module"],
    buckets=_CALL_BUCKETS,
    registry=REGISTRY,
)
db_seconds = Histogram(
    "mcpist_db_seconds",
    "Time of one database statement, by its first keyword.",
    ["operation"],
    buckets=_DB_BUCKETS,
    registry=REGISTRY,
)
sessions_open = Gauge("mcpist_sessions_open", "MCP sessions open in this process.", registry=REGISTRY)
quota_refusals = Counter(
    "mcpist_quota_refusals", "Work refused because a quota was reached, by setting.", ["quota"], registry=REGISTRY
)
audit_written = Counter("mcpist_audit_rows_written", "Tool-call audit rows written.", registry=REGISTRY)
audit_dropped = Counter(
    "mcpist_audit_dropped",
    "Tool-call audit rows dropped: the buffer was full, or the database refused the batch.",
    ["reason"],
    registry=REGISTRY,
)


_NULL: AbstractContextManager[None] = nullcontext()


class _Switch:
    on = True


_switch = _Switch()


def enabled() -> bool:
    return _switch.on


def set_enabled(on: bool) -> None:
    """Turn the hot-path hooks on or off (the start of a runtime applies `[observe] metrics`)."""
    _switch.on = on


def quota_refused(quota: str) -> None:
    """Count a refusal of `quota`, a setting name such as `limits.calls_per_token`."""
    if _switch.on:
        quota_refusals.labels(quota).inc()


def token_refreshed(service: str, outcome: str) -> None:
    """Count a refresh of an account's OAuth token of `service` (a module name)."""
    if _switch.on:
        token_refreshes.labels(service, outcome).inc()


def embedding_timer(module: str) -> AbstractContextManager[Any]:
    """Times the block into `mcpist_embedding_seconds` for `module` (a no-op while metrics are off)."""
    if not _switch.on:
        return _NULL
    return embedding_seconds.labels(module).time()


def render() -> bytes:
    """The registry in the Prometheus text format (`CONTENT_TYPE_LATEST`)."""
    return generate_latest(REGISTRY)
