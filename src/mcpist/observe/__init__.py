"""Observability: Prometheus metrics, request ids, JSON logs, the audit of tool calls, optional traces.

The bottom of the layering beside `mcpist.config`: it imports its settings section, the error
tree, prometheus_client, SQLAlchemy and Starlette's types, so every layer above (upstream clients,
storage, the vault, the runtime, the web app) can count and trace without a cycle. OpenTelemetry is
imported only when `[observe] otel` is on.

- `metrics`: the registry and its metrics (`metrics.sessions_open.set(n)`).
- `RequestIdMiddleware`, `current_request_id`: one id per HTTP request (`X-Request-Id`).
- `setup_logging`: text or JSON lines, with the request id.
- `observing(engine, settings, ...)`: what a runtime holds while it runs (an `Observer`).
- `tool_calls`, `count_tool_calls`: the audit table, which the admin UI reads.
- `span`: a trace span (a no-op while tracing is off).
"""

from . import metrics
from ._audit import AuditLog, ToolCallRow, count_tool_calls, delete_older_than, tool_calls
from ._db import instrument_engine
from ._endpoint import metrics_route
from ._logs import JsonFormatter, RequestIdFilter, setup_logging
from ._observer import CANCELLED, Observer, ToolCall, observing
from ._request_id import HEADER, RequestIdMiddleware, accept_request_id, current_request_id, new_request_id
from ._tracing import active as tracing_active
from ._tracing import span
from ._upstream import ObservedTransport

__all__ = [
    "CANCELLED",
    "HEADER",
    "AuditLog",
    "JsonFormatter",
    "ObservedTransport",
    "Observer",
    "RequestIdFilter",
    "RequestIdMiddleware",
    "ToolCall",
    "ToolCallRow",
    "accept_request_id",
    "count_tool_calls",
    "current_request_id",
    "delete_older_than",
    "instrument_engine",
    "metrics",
    "metrics_route",
    "new_request_id",
    "observing",
    "setup_logging",
    "span",
    "tool_calls",
    "tracing_active",
]
