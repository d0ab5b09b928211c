"""Optional OpenTelemetry traces: the HTTP request, the tool call, each upstream request and database
statement, nested. Off by default; while off nothing here imports OpenTelemetry, and each hook costs
one attribute read.

On, a `TracerProvider` exports over OTLP/HTTP in batches from a background thread. It becomes the
process's global provider when none is set yet, so the MCP SDK's own spans (`tools/call NAME`) join
the same traces. Spans carry names, codes and statuses, never arguments, results, URLs' queries or
credentials.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import TYPE_CHECKING, Any

from mcpist.errors import ConfigError

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SpanExporter
    from opentelemetry.trace import Span, Tracer
    from starlette.types import Scope

    from mcpist.config import ObserveSettings

__all__ = ["active", "disable", "enable", "request_span", "span", "start_span"]

_NULL: AbstractContextManager[None] = nullcontext()


class _State:
    tracer: Tracer | None = None
    provider: TracerProvider | None = None
    kinds: dict[str, Any] = {}  # noqa: RUF012 - filled on enable, read-only afterwards
    error: Any = None


_state = _State()


def active() -> bool:
    return _state.tracer is not None


def enable(
    settings: ObserveSettings, version: str, *, exporter: SpanExporter | None = None, install_global: bool = True
) -> None:
    """Start tracing to `settings.otel_endpoint` (or to `exporter`, which tests pass, exported span by span).

    Raises:
        ConfigError: the `otel` extra is not installed.
    """
    try:
        from opentelemetry import trace
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor
        from opentelemetry.trace import ProxyTracerProvider, SpanKind, StatusCode
    except ImportError:
        raise ConfigError(
            "observe.otel is on but OpenTelemetry is not installed; install the extra: pip install 'mcpist[otel]'"
        ) from None
    disable()
    resource = Resource.create({"service.name": settings.otel_service_name, "service.version": version})
    provider = TracerProvider(resource=resource)
    if exporter is None:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=settings.otel_endpoint)))
    else:
        provider.add_span_processor(SimpleSpanProcessor(exporter))
    if install_global and isinstance(trace.get_tracer_provider(), ProxyTracerProvider):
        trace.set_tracer_provider(provider)
    _state.kinds = {"server": SpanKind.SERVER, "client": SpanKind.CLIENT, "internal": SpanKind.INTERNAL}
    _state.error = StatusCode.ERROR
    _state.provider = provider
    _state.tracer = provider.get_tracer("mcpist", version)


def disable() -> None:
    """Stop tracing, exporting what is still buffered."""
    provider, _state.provider, _state.tracer = _state.provider, None, None
    if provider is not None:
        provider.shutdown()


def span(name: str, attributes: Mapping[str, Any] | None = None, kind: str = "internal") -> AbstractContextManager[Any]:
    """A span around a block, the current span while it runs (a shared no-op while tracing is off)."""
    tracer = _state.tracer
    if tracer is None:
        return _NULL
    return tracer.start_as_current_span(
        name,
        kind=_state.kinds[kind],
        attributes=attributes,
        record_exception=False,  # an exception's text can quote a caller's input
        set_status_on_exception=False,
    )


def start_span(name: str, attributes: Mapping[str, Any] | None = None, kind: str = "client") -> Span | None:
    """A span the caller ends itself (database statements, begun and ended in two events); None while off."""
    tracer = _state.tracer
    if tracer is None:
        return None
    return tracer.start_span(name, kind=_state.kinds[kind], attributes=attributes, record_exception=False)


def fail(span: Any, code: str) -> None:
    """Mark `span` as failed with an error code (never a message: it may quote input)."""
    if span is not None and _state.error is not None:
        span.set_attribute("error.type", code)
        span.set_status(_state.error)


@contextmanager
def request_span(scope: Scope, request_id: str, status: list[int]) -> Iterator[None]:
    method = scope.get("method", "GET")
    attributes = {
        "http.request.method": method,
        "url.path": scope.get("path", ""),  # never the query: it can hold a one-time token
        "mcpist.request_id": request_id,
    }
    # named by the method alone, as OpenTelemetry advises without a route template: paths hold ids
    with span(method, attributes, kind="server") as current:
        try:
            yield
        finally:
            if status:
                current.set_attribute("http.response.status_code", status[0])
                if status[0] >= 500:
                    fail(current, str(status[0]))
