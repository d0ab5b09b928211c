"""How the contract tests call the tools: through the schema the server derives, on a context it would build."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import httpx
from jira_world import SITE, Routed, World

from mcpist.modules import Account, ToolContext
from mcpist.modules.jira import module
from mcpist.modules.registry import Registry
from mcpist.testing import FakeCredentials, FakeUpstream, RecordedSleep, call_tool, tool_context

REGISTRY = Registry([module])
F = TypeVar("F", bound=Callable[..., Any])
WORK = Account(service="jira", name="work", fields={"site": SITE, "email": "me@acme.test"})


@dataclass
class Harness:
    fake: FakeUpstream
    world: World
    credentials: FakeCredentials = field(default_factory=lambda: FakeCredentials("tok"))
    account: Account = WORK
    settings: dict[str, Any] = field(default_factory=dict)
    called: set[str] = field(default_factory=set)

    def context(self) -> ToolContext[Any, Any]:
        transport = Routed(self.fake.transport(), httpx.MockTransport(self.world.agile_handler))
        return tool_context(
            module,
            transport=transport,
            credentials=self.credentials,
            account=self.account,
            settings=self.settings,
            sleep=RecordedSleep(),
        )

    async def call(self, tool: str, **params: Any) -> Any:
        """Validate `params` as the server does, run the tool, and dump its result as the server would."""
        self.called.add(tool)
        return await call_tool(module, self.context(), tool, params)

    def sent(self, operation: str) -> list[Any]:
        return [r for r in self.fake.requests if r.operation == operation]
