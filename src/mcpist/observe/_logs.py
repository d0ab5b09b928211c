"""Log records with the request id, as text or as one JSON object per line.

The JSON formatter builds its message with `record.getMessage()`, after the handler's filters ran:
the secret redaction that `mcpist serve` installs on the root handler (`RedactSecrets`) applies to
JSON lines exactly as to text ones.
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import IO, Any

from ._request_id import current_request_id

__all__ = ["TEXT_FORMAT", "JsonFormatter", "RequestIdFilter", "setup_logging"]

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class RequestIdFilter(logging.Filter):
    """Sets `record.request_id` (None outside a request); as a handler filter it sees every logger's records."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "request_id", None) is None:
            record.request_id = current_request_id()
        return True


class JsonFormatter(logging.Formatter):
    """`{"time", "level", "logger", "message", "request_id"?, "exc_info"?, "stack_info"?}` on one line."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        request_id = getattr(record, "request_id", None) or current_request_id()
        if request_id:
            out["request_id"] = request_id
        if record.exc_info:
            if not record.exc_text:
                record.exc_text = self.formatException(record.exc_info)
            out["exc_info"] = record.exc_text
        elif record.exc_text:
            out["exc_info"] = record.exc_text
        if record.stack_info:
            out["stack_info"] = self.formatStack(record.stack_info)
        return json.dumps(out, ensure_ascii=False, default=str)


def setup_logging(level: str, log_format: str = "text", stream: IO[str] | None = None) -> None:
    """Configure the root logger once per process, as `logging.basicConfig` does (a second call,
    or a root that already has handlers, changes nothing)."""
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    handler.setFormatter(JsonFormatter() if log_format == "json" else logging.Formatter(TEXT_FORMAT))
    handler.addFilter(RequestIdFilter())
    logging.basicConfig(level=level, handlers=[handler])
