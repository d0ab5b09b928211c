"""How the contract tests call the tools: through the schema the server derives, on a context it would build."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import httpx
from github_world import LOG_HOST, World

from mcpist.modules import Account, ToolContext
from mcpist.modules.github import module
from mcpist.modules.registry import Registry
from mcpist.testing import FakeCredentials, FakeUpstream, RecordedSleep, call_tool, tool_context

REGISTRY = Registry([module])
F = TypeVar("F", bound=Callable[..., Any])


class Routed(httpx.AsyncBaseTransport):
    """GitHub's API to the fake; the log storage host to its own handler, as the real redirect goes."""

    def __init__(self, api: httpx.AsyncBaseTransport, storage: httpx.AsyncBaseTransport) -> None:
        self.api, self.storage = api, storage

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        target = self.storage if request.url.host == LOG_HOST else self.api
        return await target.handle_async_request(request)


@dataclass
class Harness:
    fake: FakeUpstream
    world: World
    credentials: FakeCredentials = field(default_factory=lambda: FakeCredentials("ghp_test"))
    account: Account = field(default_factory=lambda: Account(service="github", name="work"))
    sleep: RecordedSleep = field(default_factory=RecordedSleep)
    called: set[str] = field(default_factory=set)
    downloads: list[httpx.Request] = field(default_factory=list)

    def context(self) -> ToolContext[Any, Any]:
        def storage(request: httpx.Request) -> httpx.Response:
            self.downloads.append(request)
            return httpx.Response(200, content=self.world.log.encode())

        transport = Routed(self.fake.transport(), httpx.MockTransport(storage))
        return tool_context(
            module, transport=transport, credentials=self.credentials, account=self.account, sleep=self.sleep
        )

    async def call(self, tool: str, **params: Any) -> Any:
        """Validate `params` as the server does, run the tool, and dump its result as the server would."""
        self.called.add(tool)
        return await call_tool(module, self.context(), tool, params)

    def sent(self, operation: str | None = None) -> list[Any]:
        """The requests the fake received, or those of one documented operation ("GET /user")."""
        return [r for r in self.fake.requests if operation is None or r.operation == operation]
