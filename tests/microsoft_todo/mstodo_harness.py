"""How the contract tests call the tools: through the schema the server derives, on a context it would build."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from mstodo_world import World

from mcpist.modules import Account, ToolContext
from mcpist.modules.microsoft_todo import module
from mcpist.testing import (
    FakeCredentials,
    FakeUpstream,
    RecordedRequest,
    RecordedSleep,
    call_tool,
    tool_context,
)

F = TypeVar("F", bound=Callable[..., Any])
PERSONAL = Account(service="microsoft_todo", name="personal", kind="oauth2")


@dataclass
class Harness:
    fake: FakeUpstream
    world: World
    credentials: FakeCredentials = field(default_factory=lambda: FakeCredentials("tok"))
    account: Account = PERSONAL
    settings: dict[str, Any] = field(default_factory=dict)
    called: set[str] = field(default_factory=set)
    sleep: RecordedSleep = field(default_factory=RecordedSleep)

    def context(self) -> ToolContext[Any, Any]:
        return tool_context(
            module,
            transport=self.fake.transport(),
            credentials=self.credentials,
            account=self.account,
            settings=self.settings,
            sleep=self.sleep,
        )

    async def call(self, tool: str, **params: Any) -> Any:
        """Validate `params` as the server does, run the tool, and dump its result as the server would."""
        self.called.add(tool)
        return await call_tool(module, self.context(), tool, params, dump=True)

    def sent(self, operation: str) -> list[RecordedRequest]:
        return [r for r in self.fake.requests if r.operation == operation]

    @property
    def last(self) -> RecordedRequest:
        return self.fake.requests[-1]
