"""Settings of metrics, logs, the audit of tool calls and tracing (`[observe]` in TOML,
`MCPIST_OBSERVE__*` in the environment).

`/metrics` is served on the main port to a bearer of `metrics_token`, and answers 404 while no token
is set: a second listener would need its own TLS, proxy and firewall story, whereas a token works
through the reverse proxy that already fronts `/mcp`, and Prometheus sends one natively
(`authorization: {credentials_file: ...}`). Counting itself costs microseconds, so it is on by default.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

MIN_METRICS_TOKEN = 16


class ObserveSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    metrics: bool = True
    """Count calls, latencies, upstream statuses, refreshes... for Prometheus; off also turns `/metrics` off."""
    metrics_token: SecretStr | None = None
    """The bearer token `/metrics` requires (at least 16 characters, e.g. `openssl rand -hex 32`); without
    one `/metrics` answers 404. Give it as MCPIST_OBSERVE__METRICS_TOKEN rather than in the TOML file."""
    log_format: Literal["text", "json"] = "text"
    """`json`: one JSON object per line (time, level, logger, message, request_id, exc_info)."""
    audit: bool = True
    """Record each tool call (who, module, tool, account, outcome, duration; never arguments or
    results) in the database; the admin UI's `/logs` shows them."""
    audit_retention_days: int = Field(30, ge=1, le=3_650)
    """Rows of the audit of tool calls older than this are deleted (checked hourly)."""
    audit_buffer: int = Field(10_000, ge=100, le=1_000_000)
    """Audit rows held in memory while waiting to be written; beyond it rows are dropped (and counted
    in `mcpist_audit_dropped_total`) rather than slowing a call down."""
    otel: bool = False
    """Send OpenTelemetry traces (MCP request, tool call, upstream HTTP, database) over OTLP/HTTP;
    needs the `otel` extra: pip install 'mcpist[otel]'."""
    otel_endpoint: str = "http://127.0.0.1:4318/v1/traces"
    """The OTLP/HTTP traces endpoint of a collector (Jaeger, Tempo, the OpenTelemetry Collector...)."""
    otel_service_name: str = Field("mcpist", min_length=1, max_length=100)

    @field_validator("metrics_token")
    @classmethod
    def _check_token(cls, value: SecretStr | None) -> SecretStr | None:
        if value is None:
            return None
        text = value.get_secret_value()
        if len(text) < MIN_METRICS_TOKEN or not text.isprintable() or any(c.isspace() for c in text):
            raise ValueError(f"use at least {MIN_METRICS_TOKEN} printable characters without spaces")
        return value

    @field_validator("otel_endpoint")
    @classmethod
    def _check_endpoint(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https://")
        return value
