"""How the contract tests call the tools: through the schema the server derives, on a context it would build."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from confluence_world import SITE, Routed, World

from mcpist.modules import Account, ToolContext
from mcpist.modules.confluence import module
from mcpist.modules.registry import Registry
from mcpist.testing import FakeCredentials, FakeUpstream, call_tool, tool_context

REGISTRY = Registry([module])
F = TypeVar("F", bound=Callable[..., Any])
TOKEN_ACCOUNT = Account(service="confluence", name="work", fields={"site": SITE, "email": "me@acme.test"})


@dataclass
class Harness:
    v2: FakeUpstream
    v1: FakeUpstream
    world: World
    credentials: FakeCredentials = field(default_factory=lambda: FakeCredentials("tok"))
    account: Account = TOKEN_ACCOUNT
    settings: dict[str, Any] = field(default_factory=dict)
    called: set[str] = field(default_factory=set)

    def context(self) -> ToolContext[Any, Any]:
        return tool_context(
            module,
            transport=Routed(self.v2, self.v1, self.world),
            settings=self.settings,
            credentials=self.credentials,
            account=self.account,
        )

    async def call(self, tool: str, **params: Any) -> Any:
        """Validate `params` as the server does, run the tool, and dump its result as the server would."""
        self.called.add(tool)
        return await call_tool(module, self.context(), tool, params)

    def sent(self, operation: str) -> list[Any]:
        return [r for r in [*self.v2.requests, *self.v1.requests] if r.operation == operation]
