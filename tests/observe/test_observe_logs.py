"""JSON log lines: their fields, the request id, and the redaction of secrets `mcpist serve` installs;
the `[observe]` settings; the small hooks (quotas, embeddings) that count into the registry."""

from __future__ import annotations

import io
import json
import logging
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from observe_support import sample

from mcpist.config import LimitsSettings, load_settings
from mcpist.errors import ConfigError, ResourceExhausted
from mcpist.modules import embedding_timer
from mcpist.modules.api import Caller
from mcpist.observe import JsonFormatter, RequestIdFilter, metrics
from mcpist.observe._request_id import _current
from mcpist.protocol.serving import install_log_redaction
from mcpist.quotas import Quotas

pytestmark = pytest.mark.anyio


@pytest.fixture
def root_json() -> Iterator[io.StringIO]:
    """A JSON handler on the root logger, as `setup_logging(..., "json")` installs it, then the redaction."""
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(RequestIdFilter())
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        install_log_redaction()
        yield out
    finally:
        root.removeHandler(handler)


def lines(out: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_json_lines_carry_request_id_level_logger_message_and_exception(root_json: io.StringIO) -> None:
    log = logging.getLogger("mcpist.test")
    log.warning("outside %s", "a request")
    token = _current.set("req-json-1")
    try:
        try:
            raise ValueError("boom")
        except ValueError:
            log.exception("inside %d", 1)
    finally:
        _current.reset(token)
    first, second = lines(root_json)[-2:]
    assert first["message"] == "outside a request" and "request_id" not in first
    assert first["level"] == "WARNING" and first["logger"] == "mcpist.test" and str(first["time"]).endswith("+00:00")
    assert second["request_id"] == "req-json-1" and second["message"] == "inside 1"
    assert "ValueError: boom" in str(second["exc_info"]) and second["level"] == "ERROR"


def test_secrets_are_redacted_in_json_lines(root_json: io.StringIO) -> None:
    logging.getLogger("mcpist.web").warning("GET /connect/gh?t=one-time-secret-123&x=1")
    # as uvicorn's access log does, with the path apart in the arguments (with JSON logs, uvicorn's loggers
    # propagate to the root handler, whose filter redacts)
    path = "/oauth/callback?code=abc-secret&state=s1"
    logging.getLogger("mcpist.test.access").warning('%s - "%s %s HTTP/%s" %d', "127.0.0.1", "GET", path, "1.1", 200)
    text = root_json.getvalue()
    assert "one-time-secret-123" not in text and "abc-secret" not in text and "s1" not in text.replace("1.1", "")
    found = lines(root_json)
    assert found[-2]["message"] == "GET /connect/gh?t=[redacted]&x=1"
    assert "code=[redacted]&state=[redacted]" in str(found[-1]["message"])


def test_observe_settings_come_from_the_environment_and_are_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCPIST_OBSERVE__LOG_FORMAT", "json")
    monkeypatch.setenv("MCPIST_OBSERVE__METRICS_TOKEN", "t" * 32)
    settings = load_settings(data_dir=tmp_path)
    assert settings.observe.log_format == "json"
    assert settings.observe.metrics_token is not None and "t" * 32 not in repr(settings)
    assert settings.observe.audit_retention_days == 30 and settings.observe.otel is False
    monkeypatch.setenv("MCPIST_OBSERVE__METRICS_TOKEN", "short")
    with pytest.raises(ConfigError, match=r"MCPIST_OBSERVE__METRICS_TOKEN.*at least 16"):
        load_settings(data_dir=tmp_path)
    monkeypatch.delenv("MCPIST_OBSERVE__METRICS_TOKEN")
    monkeypatch.setenv("MCPIST_OBSERVE__OTEL_ENDPOINT", "collector:4318")
    with pytest.raises(ConfigError, match=r"observe\.otel_endpoint"):
        load_settings(data_dir=tmp_path)


async def test_a_refused_quota_is_counted_by_setting() -> None:
    quotas = Quotas(LimitsSettings(calls_per_token=1))
    caller = Caller(user_id="u", token_id="t")
    before = sample("mcpist_quota_refusals_total", quota="limits.calls_per_token")
    async with quotas.hold("call", caller):
        with pytest.raises(ResourceExhausted):
            async with quotas.hold("call", caller):
                pass
    assert sample("mcpist_quota_refusals_total", quota="limits.calls_per_token") == before + 1


def test_the_embedding_timer_counts_only_while_metrics_are_on() -> None:
    before = sample("mcpist_embedding_seconds_count", module="probe")
    with embedding_timer("probe"):
        pass
    assert sample("mcpist_embedding_seconds_count", module="probe") == before + 1
    metrics.set_enabled(False)
    try:
        with embedding_timer("probe"):
            pass
    finally:
        metrics.set_enabled(True)
    assert sample("mcpist_embedding_seconds_count", module="probe") == before + 1


def test_nothing_imports_the_opentelemetry_sdk_while_tracing_is_off() -> None:
    code = (
        "import sys, mcpist.web.app, mcpist.runtime, mcpist.observe; "
        "print(sorted(m for m in sys.modules if m.startswith(('opentelemetry.sdk', 'opentelemetry.exporter'))))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == "[]"


def test_httpx_request_lines_stay_out_of_the_log_unless_debugging(tmp_path: Path) -> None:
    """httpx logs every upstream call and forwarded request, URL and query included, at INFO."""
    from mcpist.cli import _setup_logging

    root, httpx_logger = logging.getLogger(), logging.getLogger("httpx")
    saved = (root.handlers[:], root.level, httpx_logger.level)
    try:
        _setup_logging(load_settings(None, data_dir=tmp_path))
        assert httpx_logger.level == logging.WARNING
        httpx_logger.setLevel(logging.NOTSET)
        debug = load_settings(None, data_dir=tmp_path).model_copy(update={"log_level": "DEBUG"})
        _setup_logging(debug)
        assert httpx_logger.level == logging.NOTSET  # the root's DEBUG applies
    finally:
        root.handlers[:], _, _ = saved
        root.setLevel(saved[1])
        httpx_logger.setLevel(saved[2])
