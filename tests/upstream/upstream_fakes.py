"""Fakes for the upstream kit's tests: a clock that sleep advances, a credential source, a shared transport."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx

from mcpist.errors import ConnectRequired, MCPistError
from mcpist.upstream import Credential, ServiceClient, bearer

BASE = "https://api.example"


class FakeTime:
    """`sleep` records the wait and moves `clock` on, so retries run instantly."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now
        self.waits: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.now += seconds


class FakeAccount:
    """A credential source whose tokens are `<prefix>-1`, `<prefix>-2`, ... one per refresh."""

    def __init__(self, prefix: str = "tok-secret", *, refreshable: bool = True) -> None:
        self.prefix = prefix
        self.version = 1
        self.refreshable = refreshable
        self.refreshed: list[str] = []

    @property
    def token(self) -> str:
        return f"{self.prefix}-{self.version}"

    async def current(self) -> Credential:
        return bearer(self.token)

    async def refresh(self, stale: Credential) -> Credential | None:
        self.refreshed.append(stale.token)
        if not self.refreshable:
            return None
        self.version += 1
        return bearer(self.token)

    async def rejected(self) -> MCPistError:
        return ConnectRequired(
            "reconnect your example account",
            service="example",
            connect_url="https://mcpist.example/connect/example",
            elicitation_id="el-1",
        )


class SharedTransport(httpx.MockTransport):
    """A mock transport that records the requests it sees and whether anyone closed it."""

    def __init__(self, handler: Callable[[httpx.Request], Any]) -> None:
        self.seen: list[httpx.Request] = []
        self.closed = False

        async def record(request: httpx.Request) -> httpx.Response:
            # a copy: the auth flow resends the same Request object with new headers
            self.seen.append(
                httpx.Request(request.method, request.url, headers=request.headers, content=request.content)
            )
            answer = handler(request)
            response: httpx.Response = answer if isinstance(answer, httpx.Response) else await answer
            return response

        super().__init__(record)

    async def aclose(self) -> None:
        self.closed = True


def make_client(
    handler: Callable[[httpx.Request], Any],
    *,
    account: FakeAccount | None = None,
    time: FakeTime | None = None,
    **options: Any,
) -> tuple[ServiceClient, SharedTransport]:
    transport = SharedTransport(handler)
    time = time or FakeTime()
    client = ServiceClient(
        "example", BASE, transport=transport, credentials=account, sleep=time.sleep, clock=time.clock, **options
    )
    return client, transport
