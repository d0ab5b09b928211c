"""One JSON body instead of an SSE stream, for every request that can need no server-to-client message.

The SDK answers a POST either always as an SSE stream or always as JSON (one switch per server). An
SSE answer costs the server a task, a stream and event framing per request; a JSON answer cannot carry
anything but the response. MCPist decides per request, from the request itself:

- 2026-07-28: JSON unless the request asks for progress (`progressToken`); nothing else is ever sent
  back during a request on this revision.
- 2025-11-25 sessions: JSON for the methods that never send anything but their answer (listings,
  ping, initialize, task status); a `tools/call`, `resources/read` or `prompts/get` only when the
  client cannot be asked anything (its `initialize` declared neither elicitation nor sampling), did not
  ask for progress, and the session never turned on log messages (`logging/setLevel`).

The decision travels in a context variable read by the session manager and the transports
(`reply_as_json`), set only in the task serving the HTTP request.
"""

from __future__ import annotations

import json
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from starlette.types import Message, Receive

__all__ = ["SessionTraits", "buffer_body", "choose_json", "reply_as_json"]

reply_as_json: ContextVar[bool] = ContextVar("mcpist_reply_as_json", default=False)

_ALWAYS_JSON = frozenset(
    {
        "initialize",
        "ping",
        "tools/list",
        "resources/list",
        "resources/templates/list",
        "prompts/list",
        "completion/complete",
        "logging/setLevel",
        "tasks/get",
        "tasks/list",
        "tasks/cancel",
    }
)
_QUIET_JSON = frozenset({"tools/call", "resources/read", "prompts/get"})


@dataclass
class SessionTraits:
    """What a 2025-11-25 session told the server about its client."""

    can_be_asked: bool = True
    """Its `initialize` declared elicitation or sampling (until then: assume it did)."""
    wants_logs: bool = False
    """It sent `logging/setLevel`: log notifications may come during any request."""

    def opened_by(self, message: dict[str, Any]) -> None:
        """Learn from the `initialize` that opens the session (its client's capabilities)."""
        params = message.get("params")
        if message.get("method") == "initialize" and isinstance(params, dict):
            caps = params.get("capabilities")
            caps = caps if isinstance(caps, dict) else {}
            self.can_be_asked = bool(caps.get("elicitation") is not None or caps.get("sampling") is not None)

    def saw(self, message: dict[str, Any]) -> None:
        """Learn from a later request of the session. Only ever moves towards streams (SSE): a request
        is read before the SDK checks it comes from the session's own credential."""
        if message.get("method") == "logging/setLevel":
            self.wants_logs = True


def _asks_progress(params: Any) -> bool:
    meta = params.get("_meta") if isinstance(params, dict) else None
    return isinstance(meta, dict) and "progressToken" in meta


def choose_json(message: Any, modern: bool, traits: SessionTraits | None = None) -> bool:
    """Whether the answer to `message` (a decoded JSON-RPC body) can be one JSON body."""
    if not isinstance(message, dict):
        return False  # a batch or garbage: the SDK answers it either way
    method = message.get("method")
    if not isinstance(method, str):
        return False
    if _asks_progress(message.get("params")):
        return False
    if modern:
        return method != "subscriptions/listen"
    if method in _ALWAYS_JSON:
        return True
    return method in _QUIET_JSON and traits is not None and not traits.can_be_asked and not traits.wants_logs


async def buffer_body(receive: Receive, limit: int) -> tuple[bytes | None, Receive]:
    """Read a request body of at most `limit` bytes; returns it (None when longer) and a `receive`
    that hands the application the same messages again, then the rest."""
    held: list[Message] = []
    size = 0
    complete = False
    while not complete and size <= limit:
        message = await receive()
        held.append(message)
        if message["type"] != "http.request":
            break  # a disconnect: the application sees it in turn
        size += len(message.get("body", b""))
        complete = not message.get("more_body", False)
    body = b"".join(m.get("body", b"") for m in held if m["type"] == "http.request") if complete else None

    async def replay() -> Message:
        if held:
            return held.pop(0)
        return await receive()

    return (body if body is not None and size <= limit else None), replay


def decode(body: bytes | None) -> Any:
    if not body:
        return None
    try:
        return json.loads(body)
    except (ValueError, RecursionError):
        return None
