"""Streamable HTTP sessions with quotas per token and per user, so nobody can use up the server's.

The SDK caps sessions for the whole server only (10,000): one token could open them all and lock
every other client out until they expired. Here a token (or OAuth grant) holds at most
`limits.sessions_per_token` and a user `limits.sessions_per_user`; a new session beyond either first
closes that token's (or user's) least recently used idle session, which clients reopen on their
next request (404 then initialize), and when all of them are busy the new one is refused with 429
and RESOURCE_EXHAUSTED. Idle sessions close after `limits.session_idle_s`.
"""

from __future__ import annotations

import json
import logging
import math
import uuid
from collections import Counter, OrderedDict
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar
from typing import Any

import anyio
from mcp.server import Server
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser, AuthorizationContext, authorization_context
from mcp.server.streamable_http import MCP_SESSION_ID_HEADER, StreamableHTTPServerTransport
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE, TransportSecuritySettings
from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.datastructures import Headers
from starlette.responses import Response
from starlette.types import Message, Receive, Scope, Send

from mcpist.cluster import SessionRouter
from mcpist.config import LimitsSettings
from mcpist.errors import ResourceExhausted
from mcpist.observe import metrics

from .direct import DirectReplies
from .modern import ModernReplies
from .replies import SessionTraits, buffer_body, choose_json, decode, reply_as_json

__all__ = ["QuotaSessionManager", "SessionQuotaApp"]

logger = logging.getLogger("mcpist.protocol")

Owner = tuple[str, str]
"""(token key, user key) of a session."""

_opening: ContextVar[Any] = ContextVar("mcpist_opening_message", default=None)
"""The decoded request that is opening a session (its `initialize`), for the new transport to learn from."""


class ReplyingTransport(StreamableHTTPServerTransport):
    """A session's transport answering each request as JSON or SSE, as `replies` decided for it."""

    traits: SessionTraits

    @property
    def is_json_response_enabled(self) -> bool:
        return reply_as_json.get()

    @is_json_response_enabled.setter
    def is_json_response_enabled(self, value: bool) -> None:
        """The SDK sets one mode per transport; here the request decides (`reply_as_json`)."""

    @asynccontextmanager
    async def connect(self) -> AsyncIterator[Any]:
        # the session's own tasks (its message router, its server) start here and serve every later
        # request: they must not inherit the mode of the request that opened the session
        reply_as_json.set(False)
        async with super().connect() as streams:
            yield streams

    @contextmanager
    def in_flight(self) -> Iterator[bool]:
        """Hold the session while one of its requests runs outside this transport (`direct`), as
        `handle_request` holds it for its own: no idle expiry meanwhile. Yields False when the session
        has ended or is ending (this transport answers those)."""
        idle = self.idle_scope
        if self.is_terminated or (idle is not None and idle.cancel_called):
            yield False
            return
        if idle is None or self._idle_timeout is None:
            yield True
            return
        self._requests_in_flight += 1
        idle.deadline = math.inf
        try:
            yield True
        finally:
            self._requests_in_flight -= 1
            if not self._requests_in_flight:
                idle.deadline = anyio.current_time() + self._idle_timeout


def _owner(client_id: str | None, subject: str | None) -> Owner | None:
    if subject is None:
        return None
    return f"token:{client_id}|{subject}", f"user:{subject}"


class QuotaSessionManager(StreamableHTTPSessionManager):
    """The SDK's session manager, counting each session against its token and its user."""

    def __init__(
        self,
        app: Server[Any],
        *,
        limits: LimitsSettings,
        security_settings: TransportSecuritySettings | None = None,
        max_request_body_size: int = DEFAULT_MAX_REQUEST_BODY_SIZE,
    ) -> None:
        super().__init__(
            app,
            security_settings=security_settings,
            max_request_body_size=max_request_body_size,
            session_idle_timeout=limits.session_idle_s,
            max_sessions=limits.max_sessions,
        )
        self.limits = limits
        self.node_prefix = ""
        """Starts every session id this manager opens: names the process that holds the session."""
        self._owners: OrderedDict[str, Owner] = OrderedDict()
        """Session id -> owner, least recently used first."""
        self._transports: dict[str, StreamableHTTPServerTransport] = {}
        self._open: Counter[str] = Counter()
        self._opening: Counter[str] = Counter()
        """Sessions being opened right now (admitted by `SessionQuotaApp`, not yet by the SDK)."""
        self.direct = DirectReplies(app, security_settings, lambda session_id: session_id in self._server_instances)
        self.modern = ModernReplies(app, security_settings)

    @property
    def json_response(self) -> bool:
        return reply_as_json.get()

    @json_response.setter
    def json_response(self, value: bool) -> None:
        """The SDK's one switch for the whole server; here each request decides (`replies`)."""

    def traits(self, session_id: str) -> SessionTraits | None:
        transport = self._server_instances.get(session_id)
        return transport.traits if isinstance(transport, ReplyingTransport) else None

    async def answer_directly(self, session_id: str, message: Any, scope: Scope, receive: Receive, send: Send) -> bool:
        """Answer a request of a session this process holds without the session's tasks (`direct`), and
        apply its `notifications/cancelled` to a request answered so; False, having sent nothing, when the
        SDK answers it (its 404 for another credential included: only the session's owner reaches it)."""
        transport = self._server_instances.get(session_id)
        if not isinstance(transport, ReplyingTransport):
            return False
        user = scope.get("user")
        requestor = authorization_context(user) if isinstance(user, AuthenticatedUser) else None
        if requestor != self._session_owners.get(session_id):
            return False
        self.direct.cancelled(session_id, message)  # the SDK still acknowledges it (202)
        if not reply_as_json.get():
            return False
        return await self.direct.answer(session_id, message, transport.in_flight, scope, receive, send)

    async def answer_modern(self, message: Any, scope: Scope, receive: Receive, send: Send) -> bool:
        """Answer a 2026-07-28 request as one JSON body here (`modern`); False, having sent nothing,
        when the SDK answers it."""
        if self._task_group is None:
            return False  # not serving (yet): the SDK says so
        return await self.modern.answer(message, self._lifespan_state, scope, receive, send)

    def open_sessions(self, key: str) -> int:
        return self._open[key]

    def touch(self, session_id: str) -> None:
        if session_id in self._owners:
            self._owners.move_to_end(session_id)

    def make_room(self, owner: Owner) -> ResourceExhausted | None:
        """Close idle sessions of `owner`'s token and user until one more fits; the refusal when none can."""
        for key, setting in zip(owner, ("sessions_per_token", "sessions_per_user"), strict=True):
            limit: int = getattr(self.limits, setting)
            while self._open[key] + self._opening[key] >= limit:
                if not self._close_idle(key):
                    return ResourceExhausted(
                        f"this {setting.rpartition('_')[2]} already has {limit} open MCP sessions, its limit "
                        f"(limits.{setting}), and all are busy; end one (DELETE /mcp) or wait for one to finish",
                        {"quota": f"limits.{setting}", "limit": limit},
                    )
        return None

    def _close_idle(self, key: str) -> bool:
        for session_id, owner in self._owners.items():
            if key not in owner:
                continue
            scope = self._transports[session_id].idle_scope
            # a request in flight (an open GET stream included) sets the deadline to infinity
            if scope is not None and not scope.cancel_called and scope.deadline != math.inf:
                logger.info("closing idle MCP session %s to make room for a new one of %s", session_id[:8], key)
                self._forget(session_id)
                scope.cancel()
                return True
        return False

    def opening(self, owner: Owner, delta: int) -> None:
        for key in owner:
            self._opening[key] += delta
            if not self._opening[key]:
                del self._opening[key]

    def _forget(self, session_id: str) -> None:
        owner = self._owners.pop(session_id, None)
        self._transports.pop(session_id, None)
        for key in owner or ():
            self._open[key] -= 1
            if not self._open[key]:
                del self._open[key]

    # the SDK's hooks: a session is registered under its creation lock and discarded however it ends

    def _admit_session(self, requestor: AuthorizationContext | None) -> StreamableHTTPServerTransport | None:
        transport = self._new_session(requestor)
        owner = _owner(requestor["client_id"], requestor["subject"]) if requestor is not None else None
        if transport is not None and owner is not None and transport.mcp_session_id is not None:
            self._owners[transport.mcp_session_id] = owner
            self._transports[transport.mcp_session_id] = transport
            for key in owner:
                self._open[key] += 1
        return transport

    def _new_session(self, requestor: AuthorizationContext | None) -> ReplyingTransport | None:
        """The SDK's admission, with MCPist's transport and a session id that names this process."""
        if self.max_sessions is not None and len(self._server_instances) >= self.max_sessions:
            metrics.quota_refused("limits.max_sessions")
            return None
        session_id = f"{self.node_prefix}{uuid.uuid4().hex}"
        transport = ReplyingTransport(
            mcp_session_id=session_id,
            event_store=self.event_store,
            security_settings=self.security_settings,
            retry_interval=self.retry_interval,
            idle_timeout=self.session_idle_timeout,
        )
        transport.traits = SessionTraits()
        opening = _opening.get()
        if isinstance(opening, dict):
            transport.traits.opened_by(opening)
        if requestor is not None:
            self._session_owners[session_id] = requestor
        self._server_instances[session_id] = transport
        metrics.sessions_open.set(len(self._server_instances))
        logger.debug("opened MCP session %s", session_id[:12])
        return transport

    async def _discard_session(self, session_id: str, transport: StreamableHTTPServerTransport) -> None:
        self._forget(session_id)
        self.direct.forget(session_id)
        await super()._discard_session(session_id, transport)
        metrics.sessions_open.set(len(self._server_instances))


class SessionQuotaApp:
    """In front of the session manager: a request that would open a session must fit its owner's
    quotas; a request for a session another process holds goes to that process (`router`)."""

    def __init__(self, manager: QuotaSessionManager, router: SessionRouter | None = None) -> None:
        self.manager = manager
        self.router = router

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = Headers(scope=scope)
        session_id = headers.get(MCP_SESSION_ID_HEADER)
        if session_id is not None and self.router is not None:
            node = self.router.elsewhere(session_id)
            if node is not None:
                await self.router.forward(node, scope, receive, send)
                return
        version = headers.get(MCP_PROTOCOL_VERSION_HEADER)
        user = scope.get("user")
        owner = None
        if isinstance(user, AuthenticatedUser):
            owner = _owner(user.access_token.client_id, user.access_token.subject)
        # the SDK opens a session for a request without a session id on the handshake revisions only
        opens = session_id is None and (version is None or version in HANDSHAKE_PROTOCOL_VERSIONS)
        if session_id is not None:
            self.manager.touch(session_id)
        if scope["method"] == "POST":
            receive, message = await self._choose_reply(scope, receive, session_id, version)
            if session_id is not None and (version is None or version in HANDSHAKE_PROTOCOL_VERSIONS):
                answered = await self.manager.answer_directly(session_id, message, scope, receive, send)
                if answered:
                    return
            elif version is not None and version not in HANDSHAKE_PROTOCOL_VERSIONS and reply_as_json.get():
                answered = await self.manager.answer_modern(message, scope, receive, send)
                if answered:
                    return
        if not opens or owner is None:
            await _answer(self.manager, scope, receive, send)
            return
        refusal = self.manager.make_room(owner)
        if refusal is not None:
            metrics.quota_refused(str((refusal.data or {}).get("quota", "limits.sessions")))
            logger.warning("refusing a new MCP session: %s", refusal.message)
            await _refuse(refusal)(scope, receive, send)
            return
        self.manager.opening(owner, 1)
        try:
            await _answer(self.manager, scope, receive, send)
        finally:
            self.manager.opening(owner, -1)

    async def _choose_reply(
        self, scope: Scope, receive: Receive, session_id: str | None, version: str | None
    ) -> tuple[Receive, Any]:
        """Read the (bounded) body to decide JSON or SSE for its answer; the SDK reads it again after.
        Returns the `receive` that replays it and the decoded body."""
        body, receive = await buffer_body(receive, self.manager.max_request_body_size)
        message = decode(body)
        modern = version is not None and version not in HANDSHAKE_PROTOCOL_VERSIONS
        traits = None
        if not modern and session_id is not None:
            traits = self.manager.traits(session_id)
            if traits is not None and isinstance(message, dict):
                traits.saw(message)
        elif not modern and isinstance(message, dict) and message.get("method") == "initialize":
            _opening.set(message)
            traits = SessionTraits()
            traits.opened_by(message)
        reply_as_json.set(choose_json(message, modern, traits))
        return receive, message


class _Once:
    """`send` that drops what follows a completed response, instead of breaking the connection.

    The SDK answers a notification 202 and then, when its session ended meanwhile (a DELETE racing
    it), tries to answer it again with a 500 and re-raises (an SDK bug, mcp 2.3): the client already
    has its answer, so neither may reach uvicorn as an error of the application.
    """

    def __init__(self, send: Send) -> None:
        self._send = send
        self.done = False

    async def __call__(self, message: Message) -> None:
        if self.done:
            logger.debug("dropped %s sent after the response was complete", message["type"])
            return
        if message["type"] == "http.response.body" and not message.get("more_body", False):
            self.done = True
        await self._send(message)


async def _answer(manager: QuotaSessionManager, scope: Scope, receive: Receive, send: Send) -> None:
    once = _Once(send)
    try:
        await manager.handle_request(scope, receive, once)
    except anyio.ClosedResourceError:
        if not once.done:
            raise
        logger.info("a message arrived as its MCP session ended; it was answered already")


def _refuse(error: ResourceExhausted) -> Response:
    body = {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32000, "message": f"{error.code}: {error.message}", "data": error.to_dict()},
    }
    return Response(json.dumps(body), status_code=429, media_type="application/json")
