"""uvicorn's HTTP/1.1 protocols with the deadlines and header limit uvicorn alone lacks.

A client must finish a request's headers within `header_timeout_s` and its body within
`body_timeout_s`, else its connection is closed (uvicorn waits forever for both); a request line and
headers over `max_header_bytes` get 431 and a closed connection. Two parsers carry the same rules:
httptools (llhttp, in C: the fast one, used whenever it is installed) and h11 (pure Python, the fallback).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Literal

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

logger = logging.getLogger("mcpist.web")

__all__ = ["HttpImpl", "available_impl", "timed_protocol"]

HttpImpl = Literal["auto", "httptools", "h11"]

_TOO_LARGE = b"HTTP/1.1 431 Request Header Fields Too Large\r\nconnection: close\r\ncontent-length: 0\r\n\r\n"


def available_impl() -> Literal["httptools", "h11"]:
    """httptools when it can be imported (a C extension: some platforms have no wheel), else h11."""
    try:
        import httptools  # noqa: F401
    except ImportError:  # pragma: no cover - a platform without the wheel
        return "h11"
    return "httptools"


class _Deadline:
    """One timer per connection: the phase it watches ("headers" or "body") and when it gives up."""

    def __init__(self, loop: asyncio.AbstractEventLoop, header_timeout_s: float, body_timeout_s: float) -> None:
        self.loop = loop
        self.limits = {"headers": header_timeout_s, "body": body_timeout_s}
        self.phase: str | None = None
        self._timer: asyncio.TimerHandle | None = None

    def watch(self, phase: str | None, transport: asyncio.BaseTransport, client: tuple[str, int] | None) -> None:
        if phase == self.phase:
            return
        self.disarm()
        self.phase = phase
        if phase is not None and not transport.is_closing():
            limit = self.limits[phase]
            self._timer = self.loop.call_later(limit, self._too_slow, transport, client, phase, limit)

    def disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.phase = None

    def _too_slow(
        self, transport: asyncio.BaseTransport, client: tuple[str, int] | None, phase: str, limit: float
    ) -> None:
        self._timer = None
        if not transport.is_closing():
            who = "%s:%d" % client if client else "a client"  # noqa: UP031
            logger.warning("closing the connection of %s: request %s not received within %g s", who, phase, limit)
            transport.close()


def _refuse_head(transport: asyncio.Transport) -> None:
    transport.write(_TOO_LARGE)
    transport.close()


def timed_protocol(
    header_timeout_s: float, body_timeout_s: float, max_header_bytes: int, impl: HttpImpl = "auto"
) -> type[asyncio.Protocol]:
    """The protocol class `mcpist serve` gives uvicorn (its `http` option)."""
    chosen = available_impl() if impl == "auto" else impl
    if chosen == "httptools":
        return _timed_httptools(header_timeout_s, body_timeout_s, max_header_bytes)
    return _timed_h11(header_timeout_s, body_timeout_s, max_header_bytes)


def _timed_httptools(header_timeout_s: float, body_timeout_s: float, max_header_bytes: int) -> type[asyncio.Protocol]:
    import httptools
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    class _HeadTooLarge(Exception):
        pass

    class TimedHttpToolsProtocol(HttpToolsProtocol):
        """The phase follows the parser's callbacks; the timer is set once the data at hand is parsed, so a
        request that arrives whole (most of them) costs no timer at all."""

        _head_bytes = 0
        _deadline: _Deadline
        _phase: str | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._deadline = _Deadline(self.loop, header_timeout_s, body_timeout_s)
            self._phase = "headers"
            self._deadline.watch("headers", transport, self.client)

        def connection_lost(self, exc: Exception | None) -> None:
            self._deadline.disarm()
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            self._unset_keepalive_if_required()
            try:
                self.parser.feed_data(data)
            except _HeadTooLarge:
                self._refuse()
                return
            except httptools.HttpParserCallbackError as exc:
                if isinstance(exc.__context__, _HeadTooLarge):
                    self._refuse()
                    return
                raise
            except httptools.HttpParserError:
                self.logger.warning("Invalid HTTP request received.")
                self.send_400_response("Invalid HTTP request received.")
            except httptools.HttpParserUpgrade:
                if self._should_upgrade():
                    self.handle_websocket_upgrade()
                else:
                    self._unsupported_upgrade_warning()
            self._deadline.watch(self._phase, self.transport, self.client)

        def _refuse(self) -> None:
            self._phase = None
            self._deadline.disarm()
            _refuse_head(self.transport)

        def _count(self, n: int) -> None:
            self._head_bytes += n
            if self._head_bytes > max_header_bytes:
                raise _HeadTooLarge

        def on_message_begin(self) -> None:
            self._head_bytes = 0
            self._phase = "headers"  # a kept-alive connection's next request, or a pipelined one
            super().on_message_begin()

        def on_url(self, url: bytes) -> None:
            self._count(len(url))
            super().on_url(url)

        def on_header(self, name: bytes, value: bytes) -> None:
            self._count(len(name) + len(value) + 4)
            super().on_header(name, value)

        def on_headers_complete(self) -> None:
            super().on_headers_complete()
            self._phase = "body"

        def on_message_complete(self) -> None:
            self._phase = None
            super().on_message_complete()

    return TimedHttpToolsProtocol


def _timed_h11(header_timeout_s: float, body_timeout_s: float, max_header_bytes: int) -> type[asyncio.Protocol]:
    class TimedH11Protocol(H11Protocol):
        _deadline: _Deadline
        _head = b""

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            super().connection_made(transport)  # type: ignore[arg-type]
            self._deadline = _Deadline(self.loop, header_timeout_s, body_timeout_s)
            self._watch(started=True)

        def data_received(self, data: bytes) -> None:
            if self.conn.their_state is h11.IDLE and self._head_too_large(data):
                return
            super().data_received(data)
            self._watch(started=True)

        def _head_too_large(self, data: bytes) -> bool:
            head = self._head + data
            end = head.find(b"\r\n\r\n")
            if (end if end >= 0 else len(head)) > max_header_bytes:
                self._deadline.disarm()
                _refuse_head(self.transport)
                return True
            self._head = b"" if end >= 0 else head
            return False

        def on_response_complete(self) -> None:
            super().on_response_complete()
            # until the next request's first byte, the keep-alive timeout watches the connection
            self._watch(started=False)

        def connection_lost(self, exc: Exception | None) -> None:
            self._deadline.disarm()
            super().connection_lost(exc)

        def _watch(self, *, started: bool) -> None:
            state = self.conn.their_state
            phase = "headers" if state is h11.IDLE else "body" if state is h11.SEND_BODY else None
            if phase == "headers" and not started:
                phase = None
            self._deadline.watch(phase, self.transport, self.client)

    return TimedH11Protocol
