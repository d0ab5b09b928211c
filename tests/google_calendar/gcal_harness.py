"""How the contract tests call the tools: through the schema the server derives, on a context it would build."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from gcal_world import World

from mcpist.modules import Account, ToolContext
from mcpist.modules.google_calendar import module
from mcpist.modules.registry import Registry
from mcpist.testing import (
    FakeCredentials,
    FakeUpstream,
    RecordedRequest,
    RecordedSleep,
    call_tool,
    tool_context,
)
from mcpist.upstream import CredentialSource

REGISTRY = Registry([module])
F = TypeVar("F", bound=Callable[..., Any])
WORK = Account(service="google_calendar", name="work", kind="oauth2")


@dataclass
class Harness:
    fake: FakeUpstream
    world: World
    credentials: FakeCredentials = field(default_factory=lambda: FakeCredentials("tok-work"))
    account: Account = WORK
    others: Mapping[str, CredentialSource] = field(default_factory=dict)
    called: set[str] = field(default_factory=set)

    def context(self) -> ToolContext[Any, Any]:
        return tool_context(
            module,
            transport=self.fake.transport(),
            credentials=self.credentials,
            account=self.account,
            sleep=RecordedSleep(),
            other_accounts=self.others,
        )

    async def call(self, tool: str, **params: Any) -> Any:
        """Validate `params` as the server does, run the tool, and check its result as the server would."""
        self.called.add(tool)
        return await call_tool(module, self.context(), tool, params)

    async def dump(self, tool: str, **params: Any) -> Any:
        """As `call`, returning the JSON the client would read."""
        self.called.add(tool)
        return await call_tool(module, self.context(), tool, params, dump=True)

    def sent(self, operation: str) -> list[RecordedRequest]:
        return [r for r in self.fake.requests if r.operation == operation]

    def writes(self) -> list[str]:
        return [f"{r.method} {r.path}" for r in self.fake.requests if r.method != "GET"]
